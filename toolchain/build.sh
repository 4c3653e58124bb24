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
# This is the one place the rule "is dist/ current?" is written (sources_hash and is_current
# below). Whoever needs the answer asks this script: `bash toolchain/build.sh --check` builds
# nothing and exits 0 when dist/ is current, 1 (saying why) when it is not; bench/lib/built.ts
# uses it so a bench never measures a stale build.
#
# Called by toolchain/provision.sh (so by every README command) and by scripts/test.sh.
set -euo pipefail

mode=build
case "${1:-}" in
  "") ;;
  --check) mode=check ;;
  *)
    printf '[build] error: unknown argument %s (usage: build.sh [--check])\n' "$1" >&2
    exit 2
    ;;
esac

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
    # The folders tsc compiles: tsconfig.build.json's `include`, read from it (one list).
    # shellcheck disable=SC2046
    find $("$NODE" -p 'require("./tsconfig.build.json").include.join(" ")') -type f \( -name '*.ts' -o -name '*.json' -o -name '*.yaml' -o -name 'pulumi-resource-*' \) ! -name '*.test.ts' -print0 |
      LC_ALL=C sort -z | xargs -0 sha256sum
    sha256sum tsconfig.json tsconfig.build.json package-lock.json
  } | sha256sum | cut -c1-16
}

stamp="$TC/build.stamp"
hash="$(sources_hash)"
is_current() {
  [[ -f dist/policies/index.js && -f dist/components/index.js && -x dist/provider/pulumi-resource-svc && -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]
}
if is_current; then
  exit 0
fi
if [[ "$mode" == check ]]; then
  if [[ ! -f dist/components/index.js ]]; then
    printf '[build] dist/ is missing: run bash toolchain/build.sh\n' >&2
  else
    printf '[build] dist/ is older than its sources (or was not built by toolchain/build.sh): run bash toolchain/build.sh\n' >&2
  fi
  exit 1
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
