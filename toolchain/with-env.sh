#!/usr/bin/env bash
# Runs a command with the project's provisioned toolchain and an isolated Pulumi setup:
# the project's Node (>= 22) and Pulumi CLI (with the YAML language host, once built) first on
# PATH, PULUMI_HOME, a file:// backend and a passphrase inside .toolchain/, no update checks and
# no plugin downloads.
# A user's own ~/.pulumi, backend and login are never read or changed.
#
#   bash toolchain/with-env.sh <command> [args...]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="$ROOT/.toolchain"

pulumi_bin=""
[[ -f "$TC/pulumi-bin" ]] && pulumi_bin="$(cat "$TC/pulumi-bin")"
# The YAML language host (toolchain/provision-yaml.sh) is built in the clone's CLI folder; when the
# CLI in use is a `pulumi` of your own, that folder goes on PATH first so the pinned host is used.
yaml_bin=""
[[ -f "$TC/pulumi-version" ]] && yaml_bin="$TC/pulumi/$(cat "$TC/pulumi-version")/bin"
[[ "$yaml_bin" == "$pulumi_bin" ]] && yaml_bin=""

export PATH="$ROOT/node_modules/.bin${yaml_bin:+:$yaml_bin}${pulumi_bin:+:$pulumi_bin}:$PATH"
export PULUMI_HOME="$TC/home"
export PULUMI_BACKEND_URL="${SVC_PULUMI_BACKEND_URL:-file://$TC/state}"
export PULUMI_CONFIG_PASSPHRASE_FILE="$TC/passphrase"
unset PULUMI_CONFIG_PASSPHRASE PULUMI_ACCESS_TOKEN
export PULUMI_SKIP_UPDATE_CHECK=true
export PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION=true
export PULUMI_SKIP_CONFIRMATIONS=true
export PULUMI_SVC_ROOT="$ROOT"
# Node's on-disk compile cache for every node process started here (the CLI's language host,
# programs, providers, policy packs, tests): each `pulumi` run starts several, and loading
# @pulumi/pulumi and TypeScript from cached code saves about a tenth of the test suite's CPU.
export NODE_COMPILE_CACHE="$TC/node-compile-cache"
exec "$@"
