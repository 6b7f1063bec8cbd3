#!/usr/bin/env bash
# Measures false failures (issue: "No false failures"): correct implementations checked one
# after another from ONE folder, with default settings and regressions on, over consecutive
# seeds; then `parcall reference` through the protocol over many seeds with more generated
# cases. Every run must conform; any that does not is a false failure and is printed with
# the command that reproduces it.
#
#   scripts/false_failures.sh [SEEDS] [REFERENCE_SEEDS] [REFERENCE_FUZZ] [FIRST_SEED]
#   defaults: 200 seeds, 1000 reference seeds, --fuzz 2000, from seed 1
# A line per seed shows progress, so an interrupted run still says how far it got.
set -uo pipefail
cd "$(dirname "$0")/.."
seeds=${1:-200}
reference_seeds=${2:-1000}
reference_fuzz=${3:-2000}
first=${4:-1}
cargo build --release --quiet
parcall=$PWD/target/release/parcall
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One folder, one regressions file for every implementation, as a user's checkout would have.
cd "$work"
examples=(solution solution_reverse_dispatch solution_thread_pool solution_asyncio)
runs=0
false_failures=0
started=$(date +%s)
for seed in $(seq "$first" $((first + seeds - 1))); do
  echo "examples: seed $seed, $false_failures false failures so far"
  for name in "${examples[@]}"; do
    module="$OLDPWD/conformance/examples/python/$name.py"
    runs=$((runs + 1))
    if ! "$parcall" check "$module" --seed "$seed" --format json >"$work/report.json" 2>"$work/stderr"; then
      false_failures=$((false_failures + 1))
      echo "FALSE FAILURE: parcall check $module --seed $seed"
      grep -o '"id": "[^"]*", "function": "[^"]*", "outcome": "[^p][^"]*"' "$work/report.json" | head -5
    fi
  done
done
echo "examples: $runs runs (${#examples[@]} correct examples x $seeds seeds, one folder, regressions on), $false_failures false failures, $(( $(date +%s) - started )) s"

reference_runs=0
reference_failures=0
started=$(date +%s)
for seed in $(seq "$first" $((first + reference_seeds - 1))); do
  echo "reference: seed $seed, $reference_failures false failures so far"
  reference_runs=$((reference_runs + 1))
  if ! "$parcall" check --cmd "$parcall reference" --seed "$seed" --fuzz "$reference_fuzz" --format json >"$work/report.json" 2>"$work/stderr"; then
    reference_failures=$((reference_failures + 1))
    echo "FALSE FAILURE: parcall check --cmd 'parcall reference' --seed $seed --fuzz $reference_fuzz"
  fi
done
echo "reference: $reference_runs runs (--fuzz $reference_fuzz), $reference_failures false failures, $(( $(date +%s) - started )) s"
[ "$false_failures" -eq 0 ] && [ "$reference_failures" -eq 0 ]
