#!/usr/bin/env node
/**
 * The package's `pulumi-svc-emulator` command (`npm run emulator` in a clone): checks the Node.js
 * version first, like every entry point of the package, then runs the emulator's command line
 * (`emulator/cli.ts`; the emulator itself imports nothing of the package, on purpose).
 *
 * @packageDocumentation
 */
import "./requireNode"; // first: on a Node.js older than 22.19, one clear message and exit 1, no stack trace
import { main } from "../emulator/cli";

void main(process.argv.slice(2));
