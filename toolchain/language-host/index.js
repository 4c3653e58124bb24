// Copyright the pulumi-svc authors. Licensed under Apache-2.0.
//
// A Node.js language host for the Pulumi CLI ("pulumi-language-nodejs").
//
// Why this host exists: the official host is a Go module
// (github.com/pulumi/pulumi/sdk/nodejs/cmd/pulumi-language-nodejs/v3) that is published only as
// pseudo-versions, and the Go module proxy these machines reach does not serve it (every
// version answers 403 "This module version is not available"). The CLI itself (pkg/v3) and the
// SDK module are served, so toolchain/provision.sh builds the real CLI and uses this host in
// place of the Go one.
//
// Contract: programs and policy packs must behave under this host exactly as under the official
// one, so that what the tests prove holds for users of the official CLI distribution. It
// follows the official host's source (pulumi/pulumi, sdk/nodejs/cmd/pulumi-language-nodejs/
// main.go, as of v3.259, and sdk/v3 policy_proxy.go, which the CLI build here also uses):
//   - Run: `node <nodeargs> @pulumi/pulumi/cmd/run --monitor --engine --organization --project
//     --root-directory --stack --pwd <program dir> [--dry-run] --parallel [--tracing] <entry>
//     <args>`, resolved from the program's directory, with PULUMI_CONFIG (keys as
//     `<ns>:config:<name>`), PULUMI_CONFIG_SECRET_KEYS, PULUMI_NODEJS_TYPESCRIPT=true (unless
//     `typescript: false`) and PULUMI_NODEJS_TSCONFIG_PATH; the same runtime options
//     (`typescript`, `tsconfig`, `nodeargs`, `packagemanager`) with the same validation; exit
//     code 32 bails; a non-zero exit says "Program exited with non-zero exit code: N", plus the
//     out-of-memory hint when the program's stderr shows a V8 heap exhaustion.
//   - Cancel (and the end of the Run request): the program gets SIGINT and, if it has not
//     exited 5 s later, SIGKILL. After Cancel, a new Run fails ("context canceled"), as there.
//   - RunPlugin: `node @pulumi/pulumi/cmd/run-policy-pack <nodeargs> <args> <pack dir>` (cwd the
//     pack) for analyzers, `node @pulumi/pulumi/cmd/run-plugin <nodeargs> <plugin dir> <args>`
//     (cwd the request's pwd) otherwise, with the request's environment. (The official host
//     puts `nodeargs` after the script there too, so node itself does not see them.) For a
//     policy pack it first serves the Analyzer service itself (the policy proxy): it answers
//     Handshake and ConfigureStack, then starts the pack with PULUMI_CONFIG (the stack's config,
//     secrets decrypted), PULUMI_NODEJS_ORGANIZATION, _PROJECT, _STACK and _DRY_RUN, forwards
//     ConfigureStack to it and relays every other call. So `new pulumi.Config()`,
//     `pulumi.getStack()`, `getProject()`, `getOrganization()` and `runtime.isDryRun()` work
//     inside a pack. A plugin that fails ends the stream with the official host's error.
//   - InstallDependencies (`pulumi install`, `pulumi new`): "Installing dependencies...", the
//     npm/yarn workspace root if any, `npm install --loglevel=error` (or yarn, pnpm, bun: the
//     `packagemanager` option, else the lock file found), streamed, then a check that
//     node_modules exists.
//   - GetRequiredPackages: the packages under node_modules whose package.json says
//     `"pulumi": {"resource": true}` (not inside nested policy packs); GetRequiredPlugins is
//     UNIMPLEMENTED as there. About: the `node` on PATH, its version, the package manager and
//     its version. GetProgramDependencies: the program's packages from package-lock.json
//     (direct ones unless transitive). Handshake, GetPluginInfo, RuntimeOptionsPrompts
//     (packagemanager) and Template as there.
//
// Where it still differs, and why:
//   - No resource-monitor proxy and no `--sync` pipes in Run: the program talks to the engine's
//     monitor directly. The proxy only forwards calls; the pipes serve the deprecated
//     synchronous invokes, which @pulumi/pulumi 3.259 does not make.
//   - Not implemented (UNIMPLEMENTED): GenerateProgram, GenerateProject, GeneratePackage, Pack
//     and Link (`pulumi convert`, `pulumi package gen-sdk/add`): they are the Go code generator.
//     No debugger attach (`--attach-debugger`), no `-runtime bun`, no tracing spans of its own
//     (a `-tracing` endpoint is passed on to the program), no pseudo-terminal for
//     InstallDependencies (plain pipes), no fnm for `.nvmrc` (useLanguageVersionTools),
//     and GetProgramDependencies reads package-lock.json only (not yarn/pnpm/bun lock files):
//     none of them is used by this project or its tests.
//   - Programs and plugins run with the Node that runs this host (the project's Node 24),
//     which is put first on their PATH; the official host runs the `node` on PATH. With
//     toolchain/with-env.sh both are the same binary.
//   - When the engine goes away (the CLI was killed), the programs and plugins started here are
//     killed too and the host exits within about 2 s (the official host's health check ends
//     the host; its children then fail on the closed connections).
//
// Layout: this file is the entry point (flags, `-version`, the host state, the server); each
// RPC, or group of related RPCs, has a module of its own in this folder (server.js lists them),
// so each can be read against the function of the official host it mirrors.
"use strict";

const { parseArgs } = require("./args");
const { createHostState } = require("./processes");
const { startServer } = require("./server");

/**
 * Runs the language host: `-version` prints the version and exits 0; a runtime other than
 * nodejs exits 1; otherwise serves until the engine goes away.
 *
 * @param {string[]} argv the arguments after the script
 * @param {NodeJS.ProcessEnv} env where PULUMI_SVC_LANGUAGE_HOST_VERSION (set by the shim) is read
 */
function main(argv, env) {
  const version = env.PULUMI_SVC_LANGUAGE_HOST_VERSION || "0.0.0";
  const args = parseArgs(argv);
  if (args.version) {
    process.stdout.write(`${version}\n`);
    process.exit(0);
  }
  if (args.runtime !== "nodejs") {
    console.error(`unsupported runtime: ${args.runtime} (this host runs nodejs only)`);
    process.exit(1);
  }
  const state = createHostState({ version, tracing: args.tracing, engineAddress: args.engineAddress });
  startServer(state);
}

module.exports = { main };
