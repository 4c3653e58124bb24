#!/usr/bin/env bash
# Regenerates the Python and Go SDKs (sdk/python, sdk/go) from the schema the svc provider
# serves (`pulumi package get-schema` of the built provider: provider/schema.ts is the one place
# it is written), with toolchain/go/sdkgen (the code generators of the Pulumi `pkg/v3` module
# the CLI is built from). Each SDK's README.md is hand-written and kept.
#
#   npm run gen:sdks                   # rewrites sdk/
#   bash scripts/gen-sdks.sh <folder>  # writes <folder>/python and <folder>/go (what the
#                                      # test that compares them with sdk/ runs)
#
# Runs inside toolchain/with-env.sh (the project's CLI and Node), with the machine's Go.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$(realpath -m "${1:-$ROOT/sdk}")"
command -v go >/dev/null || {
  echo "gen-sdks: Go >= 1.26 is needed (Debian: apt-get install golang-go, or https://go.dev/dl)." >&2
  exit 1
}
if [[ "$out" != "$ROOT/sdk" ]]; then
  mkdir -p "$out/python" "$out/go"
  cp "$ROOT/sdk/python/README.md" "$out/python/README.md"
  cp "$ROOT/sdk/go/README.md" "$out/go/README.md"
fi
bash "$ROOT/toolchain/build.sh" >/dev/null
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Outside the repository, so that no Pulumi.yaml around it is read.
(cd "$work" && pulumi package get-schema "$ROOT/dist/provider/pulumi-resource-svc" >"$work/schema.json")
# The CLI's version, which provisioning read from toolchain/go/go.mod.
version="$(cat "$ROOT/.toolchain/pulumi-version")"
cd "$ROOT/toolchain/go"
go run -mod=readonly ./sdkgen -schema "$work/schema.json" -out "$out" -pulumi-version "$version"
# The generated go.mod names only the Pulumi SDK; tidy completes it and writes go.sum, so the Go
# SDK builds with the default GOSUMDB.
(cd "$out/go" && go mod tidy)
