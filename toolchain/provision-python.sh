#!/usr/bin/env bash
# Provisions, idempotently, the Python environment the Python SDK's mock tests run in
# (test/sdk): a virtual environment in .toolchain/python with `pulumi` from PyPI at the CLI's
# version (read from toolchain/go/go.mod by toolchain/provision.sh) and
# test/sdk/python/requirements.txt, and the SDK of sdk/python installed in editable mode (its
# files are the ones in sdk/python; its metadata, read by the SDK for its version, from there).
# The SDK test calls it first; `npm start` does not.
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

if [[ ! -s "$TC/pulumi-version" ]]; then
  log "provisioning the Pulumi CLI first (toolchain/provision.sh) ..."
  bash "$ROOT/toolchain/provision.sh"
fi
PULUMI_VERSION="$(cat "$TC/pulumi-version")"
requirements="test/sdk/python/requirements.txt"
stamp_file="$TC/python.stamp"
stamp="${PULUMI_VERSION#v} $(cat "$requirements" sdk/python/pyproject.toml | sha256sum | cut -c1-16)"
if [[ -x "$VENV/bin/python" && -f "$stamp_file" && "$(cat "$stamp_file")" == "$stamp" ]]; then
  exit 0
fi

command -v python3 >/dev/null && python3 -c 'import sys; sys.exit(sys.version_info < (3, 9))' || die \
  "Python >= 3.9 with venv is needed for the Python SDK's tests (Debian: apt-get install python3
  python3-venv, or https://www.python.org/downloads), then run 'bash toolchain/provision-python.sh' again."
log "installing pulumi ${PULUMI_VERSION#v} and the test requirements from PyPI into .toolchain/python ..."
start=$SECONDS
rm -rf "$VENV" "$stamp_file"
{
  # No bytecode compiled ahead (--no-compile): Python compiles what the tests import when they
  # import it, not all of grpc, protobuf, opentelemetry and debugpy. The SDK's build backend
  # (setuptools, and wheel for a setuptools older than 70.1) goes into the environment with the
  # rest, so its editable install needs no isolated build environment of its own.
  pip=("$VENV/bin/python" -m pip install --disable-pip-version-check --no-input --no-compile)
  python3 -m venv "$VENV" &&
    "${pip[@]}" "pulumi==${PULUMI_VERSION#v}" -r "$requirements" "setuptools>=61" wheel &&
    "${pip[@]}" --no-deps --no-build-isolation -e sdk/python
} >"$TC/python-install.log" 2>&1 || {
  tail -n 30 "$TC/python-install.log" >&2
  die "installing the Python test environment failed (full log: .toolchain/python-install.log)."
}
echo "$stamp" >"$stamp_file"
log "Python test environment ready in $((SECONDS - start)) s"
