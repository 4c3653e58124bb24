#!/usr/bin/env bash
# Provisions everything the project needs, idempotently, into ignored folders of the
# project (node_modules/ and .toolchain/). Every README command calls it first.
#
#   1. npm dependencies (npm ci), including Node >= 22 from the npm registry (package `node`)
#      when the machine's Node is older: npm scripts then find it first on PATH.
#   2. The Pulumi CLI at the version pinned in toolchain/go/go.mod (the one place it is written;
#      toolchain/pulumi-project.ts and the tests read it there too):
#      - a `pulumi` already on PATH is used when `pulumi version` prints that version;
#      - otherwise it is built from its Go modules (toolchain/go) with the machine's Go,
#        version-stamped, into .toolchain/pulumi/<version>/bin, beside the dynamic-provider
#        shim (copied from the SDK Go module) and the Node.js language host
#        (toolchain/language-host.js, which starts toolchain/language-host/; see its index.js
#        for why it is not the Go one).
#   3. An offline, non-interactive Pulumi home: .toolchain/home, a file:// backend in
#      .toolchain/state and a generated passphrase in .toolchain/passphrase.
#      A user's own ~/.pulumi, backend and login are never read or changed.
#   4. The built library, dist/ (toolchain/build.sh), when it is missing or older than its
#      sources: the policy pack, the in-repo programs and the tests run it.
#
# A second run does nothing but check (about a second).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="$ROOT/.toolchain"
cd "$ROOT"

log() { printf '[provision] %s\n' "$*" >&2; }
die() {
  printf '[provision] error: %s\n' "$*" >&2
  exit 1
}

mkdir -p "$TC"

# ---------------------------------------------------------------------------- npm
lock_stamp="$TC/npm.stamp"
lock_hash="$(sha256sum package-lock.json 2>/dev/null | cut -c1-16)"
if [[ ! -x node_modules/.bin/node || ! -f "$lock_stamp" || "$(cat "$lock_stamp")" != "$lock_hash" ]]; then
  command -v npm >/dev/null || die "npm is not installed. Install Node.js (>= 20) with npm, then run this again."
  log "installing npm dependencies (npm ci) ..."
  start=$SECONDS
  npm ci --no-audit --no-fund --loglevel=error >"$TC/npm-install.log" 2>&1 || {
    tail -n 30 "$TC/npm-install.log" >&2
    die "npm ci failed (full log: .toolchain/npm-install.log)."
  }
  echo "$lock_hash" >"$lock_stamp"
  log "npm dependencies installed in $((SECONDS - start)) s"
fi

# In-repo programs (examples, the quickstart, e2e test programs) import the library by its
# package name, exactly as users do: node_modules/pulumi-svc points at the built dist/.
# (A copy of package.json and links, not a link to the root, so no folder contains itself.)
mkdir -p node_modules/pulumi-svc
cp package.json node_modules/pulumi-svc/package.json
ln -sfn ../../dist node_modules/pulumi-svc/dist
ln -sfn ../../policies node_modules/pulumi-svc/policies

NODE="$ROOT/node_modules/.bin/node"
node_major="$("$NODE" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if ((node_major < 22)); then
  die "Node >= 22 is required and node_modules/.bin/node is $("$NODE" --version 2>/dev/null || echo missing). Run 'npm ci' again, or install Node 24 from https://nodejs.org."
fi

# ---------------------------------------------------------------------------- pulumi
# The CLI version: the `github.com/pulumi/pulumi/pkg/v3` requirement of toolchain/go/go.mod.
PULUMI_VERSION="$(sed -n 's#^require github.com/pulumi/pulumi/pkg/v3 \(v[0-9][0-9.]*\)$#\1#p' toolchain/go/go.mod)"
[[ -n "$PULUMI_VERSION" ]] || die "toolchain/go/go.mod has no 'require github.com/pulumi/pulumi/pkg/v3 v<version>' line."
BIN="$TC/pulumi/$PULUMI_VERSION/bin"
echo "$PULUMI_VERSION" >"$TC/pulumi-version"

version_of() { "$1" version 2>/dev/null | head -n1 | tr -d '[:space:]'; }

write_language_host_shim() {
  # The shim runs the Node.js language host with the project's Node (>= 22).
  cat >"$BIN/pulumi-language-nodejs" <<EOF
#!/bin/sh
PULUMI_SVC_LANGUAGE_HOST_VERSION="${PULUMI_VERSION#v}" exec "$NODE" "$ROOT/toolchain/language-host.js" "\$@"
EOF
  chmod +x "$BIN/pulumi-language-nodejs"
}

if [[ -x "$BIN/pulumi" && "$(version_of "$BIN/pulumi")" == "$PULUMI_VERSION" ]]; then
  write_language_host_shim
  echo "$BIN" >"$TC/pulumi-bin"
elif command -v pulumi >/dev/null && [[ "$(version_of "$(command -v pulumi)")" == "$PULUMI_VERSION" ]]; then
  log "using $(command -v pulumi) ($PULUMI_VERSION)"
  dirname "$(command -v pulumi)" >"$TC/pulumi-bin"
else
  if ! command -v go >/dev/null; then
    die "the Pulumi CLI $PULUMI_VERSION is needed. Either put 'pulumi' $PULUMI_VERSION on PATH
  (https://www.pulumi.com/docs/install/), or install Go >= 1.26 (Debian: apt-get install golang-go,
  or https://go.dev/dl) so that this script can build it from its Go modules, then run this again."
  fi
  log "building the Pulumi CLI $PULUMI_VERSION from its Go modules (4 to 6 minutes with an empty Go cache, seconds with a warm one) ..."
  start=$SECONDS
  mkdir -p "$BIN"
  (
    cd "$ROOT/toolchain/go"
    export GOFLAGS="-mod=mod"
    go build -trimpath -o "$BIN/pulumi.tmp" \
      -ldflags "-s -w -X github.com/pulumi/pulumi/sdk/v3/go/common/version.Version=$PULUMI_VERSION" \
      github.com/pulumi/pulumi/pkg/v3/cmd/pulumi
    # The dynamic-provider shim ships inside the SDK Go module.
    sdk_dir="$(go mod download -json "github.com/pulumi/pulumi/sdk/v3@$PULUMI_VERSION" | "$NODE" -e \
      'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Dir))')"
    install -m 755 "$sdk_dir/nodejs/dist/pulumi-resource-pulumi-nodejs" "$BIN/pulumi-resource-pulumi-nodejs"
  ) >"$TC/pulumi-build.log" 2>&1 || {
    tail -n 30 "$TC/pulumi-build.log" >&2
    die "building the Pulumi CLI failed (full log: .toolchain/pulumi-build.log). Put 'pulumi' $PULUMI_VERSION on PATH instead."
  }
  mv "$BIN/pulumi.tmp" "$BIN/pulumi"
  write_language_host_shim
  got="$(version_of "$BIN/pulumi")"
  [[ "$got" == "$PULUMI_VERSION" ]] || die "the built CLI reports '$got', expected $PULUMI_VERSION."
  echo "$BIN" >"$TC/pulumi-bin"
  log "Pulumi CLI $PULUMI_VERSION built in $((SECONDS - start)) s"
fi

# ---------------------------------------------------------------------------- pulumi home
mkdir -p "$TC/home" "$TC/state"
if [[ ! -s "$TC/passphrase" ]]; then
  (umask 077 && "$NODE" -e 'process.stdout.write(require("crypto").randomBytes(24).toString("base64url"))' >"$TC/passphrase")
fi

# ---------------------------------------------------------------------------- dist/
bash "$ROOT/toolchain/build.sh"
