#!/usr/bin/env bash
# Feeds `parcall check`, `parcall grade` and `parcall spec export` malformed input and
# tabulates what happened: the exit code against the documented one, a hang (no exit within
# HANG_SECONDS), a panic (a Rust panic message on stderr) or a clear error (`error:` on
# stderr, naming what is wrong). Reproduces the malformed-input table.
#
#   scripts/malformed_inputs.sh [PATH-TO-PARCALL]      (default: target/debug/parcall)
#
# Runs from the repository root; prints a Markdown table and a count per verdict.
set -u
cd "$(dirname "$0")/.."
PARCALL=$(realpath "${1:-target/debug/parcall}")
HANG_SECONDS=${HANG_SECONDS:-20}
WORK=$(mktemp -d /tmp/parcall-malformed-XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export PARCALL_REGRESSIONS="$WORK/regressions.json"

SOLUTION=conformance/examples/python/solution.py
QUICK=(--case exec-seed-001 --fuzz 0)
mkfifo "$WORK/fifo" "$WORK/fifo.py" "$WORK/fifo.json"
mkdir -p "$WORK/spec-fifo" && cp -r spec/. "$WORK/spec-fifo/" && rm -f "$WORK/spec-fifo/cases/execute_tool_calls/"*seed*.json \
  && mkfifo "$WORK/spec-fifo/cases/execute_tool_calls/seed.json"
mkdir -p "$WORK/spec-version-fifo" && cp -r spec/. "$WORK/spec-version-fifo/" && rm "$WORK/spec-version-fifo/VERSION" \
  && mkfifo "$WORK/spec-version-fifo/VERSION"
printf '' > "$WORK/empty.json"
printf '{"format": "parcall-expectations", "version": 1, "known_failures": [' > "$WORK/truncated.json"
head -c 4096 /dev/urandom > "$WORK/garbage.json"
printf '{"format": "parcall-expectations", "version": 1, "known_failures": [], "extra": 1}' > "$WORK/unknown-field.json"
printf '{"format": "parcall-regressions", "version": 7, "cases": []}' > "$WORK/regressions-v7.json"
printf '{"format": "parcall-rubric", "version": 1, "points": {"EXEC-ID-GIVEN": NaN}}' > "$WORK/rubric-nan.json"
mkdir -p "$WORK/class" && cp "$SOLUTION" "$WORK/class/alice.py"
chmod 000 "$WORK/empty.json" 2>/dev/null; cp "$WORK/empty.json" "$WORK/unreadable.json" 2>/dev/null; chmod 644 "$WORK/empty.json"; chmod 000 "$WORK/unreadable.json"

rows=0; declare -A count
row() { # expected-exit description -- args...
  local expected=$1 what=$2; shift 3
  local out="$WORK/out" err="$WORK/err"
  timeout -s KILL "$HANG_SECONDS" "$PARCALL" "$@" >"$out" 2>"$err" </dev/null
  local code=$?
  local verdict
  if [ $code -eq 137 ]; then verdict=hang
  elif grep -q "panicked at" "$err"; then verdict=panic
  elif [ $code -ne "$expected" ]; then verdict="wrong exit code"
  elif [ "$expected" -eq 2 ] && ! grep -q -E '^(error|Error)' "$err"; then verdict="no clear error"
  else verdict="clear error"
  fi
  [ "$expected" -eq 2 ] || [ "$verdict" != "clear error" ] || verdict=ok
  local message
  message=$(grep -m1 -E 'error|panicked' "$err" | cut -c1-110 | tr '|' '/')
  printf '| %s | %s | %s | %s | %s |\n' "$what" "$expected" "$code" "$verdict" "$message"
  count[$verdict]=$(( ${count[$verdict]:-0} + 1 )); rows=$((rows + 1))
}

echo "| input | expected exit | exit | verdict | first error line |"
echo "|---|---|---|---|---|"
for flag in --timeout --startup-timeout; do
  for v in -1 0 NaN nan inf -inf 1e309 18446744073709551615 abc ""; do
    row 2 "check $flag '$v'" -- check "$SOLUTION" "${QUICK[@]}" "$flag=$v"
  done
done
for v in -1 NaN 18446744073709551615 17592186044416 abc ""; do
  row 2 "check --memory-mib '$v'" -- check "$SOLUTION" "${QUICK[@]}" "--memory-mib=$v"
done
for v in -1 NaN 18446744073709551615 4294967296 abc ""; do
  row 2 "check --fuzz '$v'" -- check "$SOLUTION" --case exec-seed-001 "--fuzz=$v"
done
for v in -1 NaN 18446744073709551616 abc; do
  row 2 "check --seed '$v'" -- check "$SOLUTION" "${QUICK[@]}" "--seed=$v"
done
for v in -1 0 NaN inf 18446744073709551615 abc; do
  row 2 "check --budget '$v'" -- check "$SOLUTION" "${QUICK[@]}" "--budget=$v"
done
for v in -1 0 NaN inf 1e309 18446744073709551615 abc; do
  row 2 "grade --timeout '$v'" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 "--timeout=$v"
done
for v in -1 0 18446744073709551615 17592186044416 abc; do
  row 2 "grade --memory-mib '$v'" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 "--memory-mib=$v"
done
for v in -1 0 18446744073709551615 abc; do
  row 2 "grade --cpu-seconds '$v'" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 "--cpu-seconds=$v"
done
for v in -1 0 18446744073709551615 abc; do
  row 2 "grade --jobs '$v'" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 "--jobs=$v"
done
for v in -1 18446744073709551615 abc; do
  row 2 "grade --fuzz '$v'" -- grade "$WORK/class" --out "$WORK/grades" "--fuzz=$v"
done
for v in 0/0 1/0 5/3 abc -1/2; do
  row 2 "grade --shard '$v'" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 --seed 1 "--shard=$v"
done
for v in -1 18446744073709551615 abc; do
  row 2 "spec export --generated '$v'" -- spec export "$WORK/export" "--generated=$v"
done
row 2 "check --expectations FIFO" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK/fifo"
row 2 "check --expectations /dev/zero" -- check "$SOLUTION" "${QUICK[@]}" --expectations /dev/zero
row 2 "check --expectations a folder" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK"
row 2 "check --expectations missing" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK/missing.json"
row 2 "check --expectations empty file" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK/empty.json"
row 2 "check --expectations truncated JSON" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK/truncated.json"
row 2 "check --expectations random bytes" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK/garbage.json"
row 2 "check --expectations unknown field" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK/unknown-field.json"
[ "$(id -u)" -ne 0 ] && row 2 "check --expectations unreadable" -- check "$SOLUTION" "${QUICK[@]}" --expectations "$WORK/unreadable.json"
# A regressions file that cannot be read is a warning; the run goes on.
row 0 "check --regressions FIFO" -- check "$SOLUTION" --fuzz 0 --regressions "$WORK/fifo"
row 0 "check --regressions /dev/zero" -- check "$SOLUTION" --fuzz 0 --regressions /dev/zero
row 0 "check --regressions version 7" -- check "$SOLUTION" --fuzz 0 --regressions "$WORK/regressions-v7.json"
row 0 "check --regressions random bytes" -- check "$SOLUTION" --fuzz 0 --regressions "$WORK/garbage.json"
row 2 "check --spec with a FIFO case file" -- check "$SOLUTION" "${QUICK[@]}" --spec "$WORK/spec-fifo"
row 2 "check --spec with a FIFO VERSION" -- check "$SOLUTION" "${QUICK[@]}" --spec "$WORK/spec-version-fifo"
row 2 "check --spec a file" -- check "$SOLUTION" "${QUICK[@]}" --spec "$SOLUTION"
row 2 "check module FIFO (.py)" -- check "$WORK/fifo.py" "${QUICK[@]}"
row 2 "check module a folder" -- check "$WORK/class" "${QUICK[@]}"
row 2 "check module /dev/null" -- check /dev/null "${QUICK[@]}"
row 2 "check --python /nonexistent" -- check "$SOLUTION" "${QUICK[@]}" --python /nonexistent
row 2 "check --python not on PATH" -- check "$SOLUTION" "${QUICK[@]}" --python no-such-python-here
row 2 "check --python a folder" -- check "$SOLUTION" "${QUICK[@]}" --python /tmp
printf '#!/bin/sh\n' > "$WORK/not-executable" && chmod 644 "$WORK/not-executable"
row 2 "check --python not executable" -- check "$SOLUTION" "${QUICK[@]}" --python "$WORK/not-executable"
row 2 "check --node /nonexistent" -- check conformance/examples/javascript/solution.mjs "${QUICK[@]}" --node /nonexistent
row 2 "check --cmd /nonexistent" -- check --cmd "/nonexistent/program --flag" "${QUICK[@]}"
row 2 "check --cmd not on PATH" -- check --cmd "no-such-program-here" "${QUICK[@]}"
row 2 "check --cmd empty" -- check --cmd "" "${QUICK[@]}"
row 2 "check --cmd unterminated quote" -- check --cmd "python3 'x" "${QUICK[@]}"
row 2 "check --save-failures a file" -- check "$SOLUTION" "${QUICK[@]}" --save-failures "$SOLUTION"
row 2 "check --pass-env with '='" -- check "$SOLUTION" "${QUICK[@]}" --pass-env "A=B"
row 2 "check --pass-env empty" -- check "$SOLUTION" "${QUICK[@]}" --pass-env ""
row 2 "grade --rubric FIFO" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 --rubric "$WORK/fifo.json"
row 2 "grade --rubric /dev/zero" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 --rubric /dev/zero
row 2 "grade --rubric NaN points" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 --rubric "$WORK/rubric-nan.json"
row 2 "grade --spec with a FIFO case file" -- grade "$WORK/class" --out "$WORK/grades" --fuzz 1 --spec "$WORK/spec-fifo"
echo
echo "$rows inputs:$(for k in "${!count[@]}"; do printf ' %s %s;' "${count[$k]}" "$k"; done)"
