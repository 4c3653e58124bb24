#!/usr/bin/env bash
# The whole test suite, as `npm test` and CI run it (after toolchain/provision.sh, inside
# toolchain/with-env.sh): the build, the static checks (`npm run check`), then every mocha suite
# in parallel (unit, integration against the emulator over loopback, the SDKs with mocks, e2e with
# the real Pulumi CLI). `npm run test:fast` (`scripts/test.sh --fast`) runs the unit and
# integration suites alone, in the same order, without the build and the static checks.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

tiers=(test/e2e test/sdk test/integration test/unit)
jobs="${SVC_TEST_JOBS:-5}"
case "${1:-}" in
  "") ;;
  --fast) tiers=(test/integration test/unit) ;;
  *)
    printf 'scripts/test.sh: unknown argument %s (usage: test.sh [--fast])\n' "$1" >&2
    exit 2
    ;;
esac

step() { printf '\n==> %s\n' "$*"; }
if [[ "${1:-}" != --fast ]]; then
step "build (dist/: tsc -p tsconfig.build.json, unless already built from these sources)"
bash toolchain/build.sh
echo "dist/ is current"
step "static checks (npm run check: typecheck, eslint, import rules, function length, file size, format)"
npm run --silent check
echo "static checks passed"
fi

# One mocha worker per file. The longest files first, so that none is left running alone at the
# end (their order is the only place they are named; the rest follow in folder order). The e2e
# files drive the real CLI (each project with its own backend, home and passphrase; emulators on
# port 0), so files are independent. SVC_TEST_JOBS: workers, default 5 on 2 cores: every file
# waits on the CLI, the emulator's latency or its pacing part of the time, and of 3 to 6 workers
# 5 finishes soonest on 2 cores.
longest=(test/integration/window-allowance.100000.test.ts test/e2e/own-program.test.ts test/e2e/release-plugin.test.ts test/e2e/policies.test.ts test/integration/window-allowance.20000.test.ts
  test/integration/window-daily-cap.test.ts test/e2e/policy-gate.test.ts test/sdk/sdks.test.ts
  test/e2e/dlq-recovery.test.ts test/e2e/account.test.ts test/integration/shared-account.test.ts
  test/integration/drain-thread.test.ts test/integration/window-drain.test.ts test/unit/emulator/cli.test.ts
  test/unit/provider/dlqRecovery/drain.test.ts test/unit/provider/dlqRecovery/windows.test.ts)
files=()
for f in "${longest[@]}"; do
  for t in "${tiers[@]}"; do [[ "$f" == "$t"/* ]] && files+=("$f"); done
done
while IFS= read -r f; do
  [[ " ${longest[*]} " == *" $f "* ]] || files+=("$f")
done < <(find "${tiers[@]}" -name '*.test.ts' | LC_ALL=C sort)
step "tests (mocha --parallel: ${#files[@]} files)"
mocha --parallel --jobs "$jobs" --reporter ./test/helpers/summary-reporter.js "${files[@]}"
