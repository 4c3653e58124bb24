/**
 * Imported first by every entry point of the package: fails at once, with one clear error, on a
 * Node.js older than the package supports (`client/nodeVersion.ts`).
 *
 * @packageDocumentation
 */
import { assertNodeVersion } from "./nodeVersion";

assertNodeVersion();
