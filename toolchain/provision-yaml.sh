#!/usr/bin/env bash
# Provisions the YAML language host, idempotently, for what runs YAML programs (a `Pulumi.yaml`
# with `runtime: yaml`): the e2e test of a YAML program and toolchain/pulumi.sh in a YAML
# program's folder call it first. `npm start` does not: the host costs minutes to build once.
#
#   bash toolchain/provision-yaml.sh
#
# `pulumi-language-yaml` at the version pinned in toolchain/yaml/go.mod (the one place it is
# written: the `github.com/pulumi/pulumi-yaml` requirement) is built from its Go module with the
# machine's Go, version-stamped, beside the Pulumi CLI in .toolchain/pulumi/<CLI version>/bin,
# where the CLI finds it (next to its own binary) without a "from $PATH" warning.
# Its own Go module, because pulumi-yaml resolves the Pulumi `pkg`/`sdk` modules at the version
# it was released with (v3.206.0 for v1.25.0): built against the CLI's `pkg` it does not compile.
# It runs YAML programs with the project's CLI all the same (plugins speak gRPC).
#
# The CLI is provisioned first (toolchain/provision.sh) when it is missing. A second run only
# checks the stamp (.toolchain/pulumi-yaml.stamp: the version and go.sum's hash), well under a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="$ROOT/.toolchain"
cd "$ROOT"

log() { printf '[provision-yaml] %s\n' "$*" >&2; }
die() {
  printf '[provision-yaml] error: %s\n' "$*" >&2
  exit 1
}

# The host's version: the `github.com/pulumi/pulumi-yaml` requirement of toolchain/yaml/go.mod.
YAML_VERSION="$(sed -n 's#^require github.com/pulumi/pulumi-yaml \(v[0-9][0-9.]*\)$#\1#p' toolchain/yaml/go.mod)"
[[ -n "$YAML_VERSION" ]] || die "toolchain/yaml/go.mod has no 'require github.com/pulumi/pulumi-yaml v<version>' line."

if [[ ! -s "$TC/pulumi-version" || ! -s "$TC/pulumi-bin" ]]; then
  log "provisioning the Pulumi CLI first (toolchain/provision.sh) ..."
  bash "$ROOT/toolchain/provision.sh"
fi
PULUMI_VERSION="$(cat "$TC/pulumi-version")"
BIN="$TC/pulumi/$PULUMI_VERSION/bin"
HOST="$BIN/pulumi-language-yaml"
stamp_file="$TC/pulumi-yaml.stamp"
stamp="$YAML_VERSION $(sha256sum toolchain/yaml/go.sum | cut -c1-16) $HOST"

if [[ -x "$HOST" && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
  exit 0
fi

if ! command -v go >/dev/null; then
  die "pulumi-language-yaml $YAML_VERSION is needed to run YAML programs, and it is built from its Go
  module (github.com/pulumi/pulumi-yaml, toolchain/yaml/go.mod). Install Go >= 1.26 (Debian:
  apt-get install golang-go, or https://go.dev/dl), then run 'bash toolchain/provision-yaml.sh' again."
fi
log "building pulumi-language-yaml $YAML_VERSION from its Go module (about a minute on 2 cores with empty Go caches, less with warm ones) ..."
start=$SECONDS
mkdir -p "$BIN"
rm -f "$stamp_file"
tmp="$HOST.tmp.$$" # its own name: two runs at once do not write one file
(
  cd "$ROOT/toolchain/yaml"
  go build -mod=readonly -trimpath -o "$tmp" \
    -ldflags "-s -w -X github.com/pulumi/pulumi-yaml/pkg/version.Version=$YAML_VERSION" \
    github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml
) >"$TC/pulumi-yaml-build.log" 2>&1 || {
  rm -f "$tmp"
  tail -n 30 "$TC/pulumi-yaml-build.log" >&2
  die "building pulumi-language-yaml $YAML_VERSION failed (full log: .toolchain/pulumi-yaml-build.log).
  YAML programs cannot run without it; TypeScript programs do not need it."
}
mv "$tmp" "$HOST"
echo "$stamp" >"$stamp_file"
log "pulumi-language-yaml $YAML_VERSION built in $((SECONDS - start)) s (.toolchain/pulumi/$PULUMI_VERSION/bin)"
