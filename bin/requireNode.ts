/**
 * Imported first by the package's commands (`pulumi-svc-emulator`): on a Node.js older than the
 * package supports, the command prints the one message of `client/nodeVersion.ts` and exits 1,
 * with no stack trace; nothing else of the command is loaded. (The library's entry points import
 * `client/requireNode.ts` instead, which throws: a library does not end its caller's process.)
 *
 * @packageDocumentation
 */
import { exitOnUnsupportedNode } from "../client/nodeVersion";

exitOnUnsupportedNode("pulumi-svc-emulator");
