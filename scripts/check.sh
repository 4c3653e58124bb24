#!/usr/bin/env bash
# The static checks, `npm run check`: the typecheck, eslint, the import rules (depcruise), the
# function-length and file-size checks and prettier, side by side (each is one process, mostly on
# one core), each one's output printed whole, in this order, once all have finished. Fails when
# any fails, and names them.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

checks=(typecheck lint lint:cycles lint:functions lint:size format:check)
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT
pids=()
for c in "${checks[@]}"; do
  npm run --silent "$c" >"$logs/$c.log" 2>&1 &
  pids+=($!)
done
failed=()
for i in "${!checks[@]}"; do
  wait "${pids[$i]}" || failed+=("${checks[$i]}")
  cat "$logs/${checks[$i]}.log"
done
if ((${#failed[@]} > 0)); then
  printf '\nnpm run check: failed: %s (each one: npm run <name>)\n' "${failed[*]}" >&2
  exit 1
fi
