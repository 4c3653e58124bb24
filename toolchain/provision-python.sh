#!/usr/bin/env bash
# Provisions, idempotently, the Python environment that builds the Python SDK's packages (the
# release's wheel and sdist, toolchain/release/packages.ts): a virtual environment in
# .toolchain/python with the SDK's build backend from PyPI, setuptools at one version (below), so
# that a release builds the same wheel on every machine. The SDK's mock tests (test/sdk) install
# that wheel into a fresh environment of their own. `npm run release` and the SDK test call it
# first; `npm start` does not.
#
#   bash toolchain/provision-python.sh
#
# A second run only checks the stamp (.toolchain/python.stamp), well under a second.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TC="$ROOT/.toolchain"
VENV="$TC/python"
cd "$ROOT"

log() { printf '[provision-python] %s\n' "$*" >&2; }
die() {
  printf '[provision-python] error: %s\n' "$*" >&2
  exit 1
}

# The build backend sdk/python/pyproject.toml names (setuptools >= 61), at the version every
# release is built with: 70.1 and later make wheels without the `wheel` package.
SETUPTOOLS="setuptools==80.9.0"
stamp_file="$TC/python.stamp"
stamp="$SETUPTOOLS $(sha256sum <sdk/python/pyproject.toml | cut -c1-16)"
if [[ -x "$VENV/bin/python" && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
  exit 0
fi

command -v python3 >/dev/null && python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die \
  "Python >= 3.9 with venv is needed for the Python SDK's packages and tests (Debian: apt-get install
  python3 python3-venv, or https://www.python.org/downloads), then run 'bash toolchain/provision-python.sh' again."
log "installing $SETUPTOOLS from PyPI into .toolchain/python ..."
start=$SECONDS
rm -rf "$VENV" "$stamp_file"
{
  python3 -m venv "$VENV" &&
    "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input --no-compile "$SETUPTOOLS"
} >"$TC/python-install.log" 2>&1 || {
  tail -n 30 "$TC/python-install.log" >&2
  die "installing the Python build environment failed (full log: .toolchain/python-install.log)."
}
echo "$stamp" >"$stamp_file"
log "Python build environment ready in $((SECONDS - start)) s"
