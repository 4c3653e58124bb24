#!/usr/bin/env bash
# Runs this repository's provisioned Pulumi CLI for YOUR OWN program, with YOUR OWN Pulumi
# settings: for a machine with no `pulumi` of its own (docs/own-program.md).
#
#   bash <clone>/toolchain/pulumi.sh <pulumi arguments...>      # e.g. preview, up, stack ls
#
# Unlike toolchain/with-env.sh (the isolated setup of `npm start` and `npm test`), it changes
# none of your PULUMI_* variables: your backend (PULUMI_BACKEND_URL, or `pulumi login`), your
# passphrase (PULUMI_CONFIG_PASSPHRASE or PULUMI_CONFIG_PASSPHRASE_FILE), your PULUMI_HOME
# (default ~/.pulumi) are used as they are, so your stacks and secrets never land in the clone
# (`git clean -xfd` there loses nothing of yours). It only puts on PATH, first:
#   - the CLI at the pinned version with its Node.js language host and dynamic-provider shim
#     (.toolchain/pulumi/<version>/bin, built by toolchain/provision.sh when missing);
#   - the repository's Node (>= 22.19), which runs your program and its dynamic providers;
#   - in a YAML program's folder (`runtime: yaml` in ./Pulumi.yaml), the YAML language host,
#     built on first use by toolchain/provision-yaml.sh.
set -euo pipefail

# True when the project in the current folder is a YAML program: `runtime: yaml`, or
# `runtime:` with `name: yaml` under it, in Pulumi.yaml (or Pulumi.yml).
is_yaml_program() {
  local f
  for f in Pulumi.yaml Pulumi.yml; do
    [[ -f "$f" ]] || continue
    awk '/^runtime:[[:space:]]*"?yaml"?[[:space:]]*$/ { found = 1 }
         /^[^[:space:]#]/ { in_runtime = /^runtime:[[:space:]]*$/; next }
         in_runtime && /^[[:space:]]+name:[[:space:]]*"?yaml"?[[:space:]]*$/ { found = 1 }
         END { exit !found }' "$f"
    return
  done
  return 1
}

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="$ROOT/.toolchain"

if [[ ! -s "$TC/pulumi-bin" || ! -x "$ROOT/node_modules/node/bin/node" ]]; then
  printf '[pulumi.sh] provisioning the Pulumi CLI and Node first (toolchain/provision.sh) ...\n' >&2
  bash "$ROOT/toolchain/provision.sh"
fi
pulumi_bin="$(cat "$TC/pulumi-bin")"
[[ -x "$pulumi_bin/pulumi" ]] || {
  printf '[pulumi.sh] error: %s/pulumi is missing; run `bash toolchain/provision.sh` in the clone.\n' "$pulumi_bin" >&2
  exit 1
}

# A YAML program (`runtime: yaml` in ./Pulumi.yaml) needs the YAML language host, built on first use.
yaml_bin=""
[[ -s "$TC/pulumi-version" ]] && yaml_bin="$TC/pulumi/$(cat "$TC/pulumi-version")/bin"
if is_yaml_program; then
  bash "$ROOT/toolchain/provision-yaml.sh"
fi
# The host is built in the clone's CLI folder: on PATH first when the CLI in use is your own.
[[ "$yaml_bin" == "$pulumi_bin" ]] && yaml_bin=""

export PATH="${yaml_bin:+$yaml_bin:}$pulumi_bin:$ROOT/node_modules/node/bin:$PATH"
# The clone pins its CLI version: no "a new version is available" check, unless you ask for it.
export PULUMI_SKIP_UPDATE_CHECK="${PULUMI_SKIP_UPDATE_CHECK:-true}"
exec "$pulumi_bin/pulumi" "$@"
