// The language host's command line: the flags the Pulumi CLI passes, in Go `flag` syntax,
// because the CLI starts every language host the same way whether it is written in Go or not.
"use strict";

/** Flags that take a value when written as `-name value` (Go's flag package knows them by type). */
const WITH_VALUE = new Set(["tracing", "runtime", "v", "root"]);

/**
 * Parses the flags the CLI passes (Go `flag` syntax: -name, -name=value, -name value) and the
 * engine address after them. Unknown flags (-logtostderr, -v=N, ...) are accepted and ignored.
 *
 * @param {string[]} argv the arguments after the script
 * @returns {{ tracing: string, runtime: string, version: boolean, engineAddress: string }}
 */
function parseArgs(argv) {
  const flags = { tracing: "", runtime: "nodejs", version: false };
  let i = 0;
  for (; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      i++;
      break;
    }
    if (!a.startsWith("-") || a === "-") break;
    const body = a.replace(/^--?/, "");
    const eq = body.indexOf("=");
    const name = eq >= 0 ? body.slice(0, eq) : body;
    let value = eq >= 0 ? body.slice(eq + 1) : undefined;
    if (value === undefined && WITH_VALUE.has(name)) value = argv[++i] ?? "";
    if (name === "tracing") flags.tracing = value;
    else if (name === "runtime") flags.runtime = value;
    else if (name === "version") flags.version = value === undefined || value === "true";
  }
  return { ...flags, engineAddress: argv[i] || "" };
}

module.exports = { parseArgs };
