#!/usr/bin/env bash
# The whole test suite, as `npm test` and CI run it (after toolchain/provision.sh, inside
# toolchain/with-env.sh): build, typecheck, lint, import rules, function length, format check,
# then every mocha suite (unit, integration against the emulator over loopback, e2e with the
# real Pulumi CLI).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

step() { printf '\n==> %s\n' "$*"; }
step "build (dist/: tsc -p tsconfig.build.json, unless already built from these sources)"
bash toolchain/build.sh
echo "dist/ is current"
step "typecheck (tsc --noEmit)"
tsc -p tsconfig.json --noEmit
step "lint (eslint)"
eslint .
step "import rules: no cycles, policies/ apart from components/ (dependency-cruiser)"
npm run --silent lint:cycles
step "function length: none over 80 lines in the product folders, toolchain/, scripts/ and bench/"
npm run --silent lint:functions
echo "no function over 80 lines (besides scripts/check-function-length.ts KNOWN_LONG_FUNCTIONS)"
step "file size: none over 400 lines without a '// size: <reason>' line (scripts/check-file-size.ts)"
npm run --silent lint:size
step "format check (prettier)"
prettier --check . >/dev/null
echo "all files formatted"
step "tests (mocha: unit, integration, e2e)"
mocha --reporter ./test/helpers/summary-reporter.js \
  'test/unit/**/*.test.ts' 'test/integration/**/*.test.ts' 'test/e2e/**/*.test.ts' 'test/sdk/**/*.test.ts'
