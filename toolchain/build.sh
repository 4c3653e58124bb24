#!/usr/bin/env bash
# Builds dist/ (tsc -p tsconfig.build.json) when it is missing or older than its sources, so
# everything that runs the built library finds it current: the policy pack
# (policies/package.json `main` is dist/policies/index.js), the in-repo programs (they import
# `pulumi-svc`, which node_modules/pulumi-svc links to dist/) and the tests.
#
# "Older than its sources" is decided by a stamp: a hash of every source file tsc compiles,
# the tsconfig files and the lock file, kept in .toolchain/build.stamp. An unchanged tree costs
# a hash (well under a second); a changed one a clean rebuild (dist/ removed first, so no file
# of a deleted source survives), about 10 s on 2 cores.
#
# Called by toolchain/provision.sh (so by every README command) and by scripts/test.sh.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="$ROOT/.toolchain"
cd "$ROOT"

log() { printf '[build] %s\n' "$*" >&2; }

NODE="$ROOT/node_modules/.bin/node"
[[ -x "$NODE" ]] || {
  printf '[build] error: node_modules/.bin/node is missing; run bash toolchain/provision.sh first.\n' >&2
  exit 1
}
mkdir -p "$TC"

sources_hash() {
  {
    find bin core components client emulator policies provider -type f \( -name '*.ts' -o -name '*.json' -o -name '*.yaml' -o -name 'pulumi-resource-*' \) ! -name '*.test.ts' -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum
    sha256sum tsconfig.json tsconfig.build.json package-lock.json
  } | sha256sum | cut -c1-16
}

stamp="$TC/build.stamp"
hash="$(sources_hash)"
if [[ -f dist/policies/index.js && -f dist/components/index.js && -x dist/provider/pulumi-resource-svc && -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]; then
  exit 0
fi

log "building dist/ (tsc -p tsconfig.build.json) ..."
start=$SECONDS
rm -rf dist "$stamp"
"$NODE" node_modules/typescript/bin/tsc -p tsconfig.build.json >"$TC/build.log" 2>&1 || {
  cat "$TC/build.log" >&2
  printf '[build] error: tsc -p tsconfig.build.json failed (above; also in .toolchain/build.log).\n' >&2
  exit 1
}
# The provider's plugin folder (dist/provider) needs its executable, which tsc does not copy.
cp provider/pulumi-resource-svc dist/provider/pulumi-resource-svc
chmod +x dist/provider/pulumi-resource-svc
echo "$hash" >"$stamp"
log "dist/ built in $((SECONDS - start)) s"
