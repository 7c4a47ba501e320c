#!/usr/bin/env bash
# run_fuzzers.sh — configures a Clang build with the libFuzzer targets
# (AMXQA_BUILD_FUZZERS=ON, AMXQA_SANITIZE=address;undefined), then runs each
# fuzzer for FUZZ_SECONDS (default 60) on a scratch copy of its committed
# corpus (tests/fuzz/corpus/<target>/). Prints the executions per target and
# "0 crashes", or fails (exit 1) with the crashing inputs kept under
# BUILD_DIR/fuzz-run/artifacts/ and the log tail printed. The rate is
# executions per CPU second of the fuzzer (user + system): what one core
# gives, however busy the machine (libFuzzer's exec/s is per wall second).
#
#   tests/fuzz/run_fuzzers.sh [BUILD_DIR]      (default build-fuzz)
#   env: FUZZ_SECONDS (60),
#        FUZZ_TARGETS ("model_open tokenizer answer squad http_request jsonl_line threshold_file http_wire http_auth"),
#        FUZZ_BUILD_JOBS (2)
#
# A crash is any sanitizer report, failed invariant (abort), uncaught
# exception, leak, input slower than 30 s, or RSS over 2 GiB.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-60}
targets=(${FUZZ_TARGETS:-model_open tokenizer answer squad http_request jsonl_line threshold_file http_wire http_auth})
jobs=${FUZZ_BUILD_JOBS:-2}

if ! command -v clang++ >/dev/null; then
  echo "run_fuzzers.sh: clang++ not found (the fuzzers need Clang's libFuzzer)" >&2
  exit 1
fi

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMXQA_BUILD_FUZZERS=ON "-DAMXQA_SANITIZE=address;undefined" \
  -DAMXQA_BUILD_BENCH=OFF -DAMXQA_BUILD_SAMPLES=OFF -DAMXQA_BUILD_TRAINER=ON >/dev/null
cmake --build "$build" -j "$jobs" --target $(printf 'fuzz_%s ' "${targets[@]}")

run="$build/fuzz-run"
rm -rf "$run"
mkdir -p "$run/artifacts"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

failed=0
total=0
summary=()
for t in "${targets[@]}"; do
  corpus="$run/corpus-$t"
  cp -r "$root/tests/fuzz/corpus/$t" "$corpus"
  extra=()
  [[ -f "$root/tests/fuzz/$t.dict" ]] && extra+=(-dict="$root/tests/fuzz/$t.dict")
  # Answers cost a prefill per token: 1 KiB inputs already slide the window
  # (32) and overflow the small session; longer ones only slow the search.
  [[ $t == answer ]] && extra+=(-max_len=1024)
  log="$run/$t.log"
  set +e
  TIMEFORMAT='%U %S'
  { time TMPDIR="$run" "$build/bin/fuzz_$t" -max_total_time="$seconds" -print_final_stats=1 \
    -timeout=30 -rss_limit_mb=2048 -artifact_prefix="$run/artifacts/$t-" "${extra[@]}" \
    "$corpus" >"$log" 2>&1; rc=$?; } 2>"$run/$t.cpu"
  set -e
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cpu=$(awk '{printf "%.1f", $1 + $2}' "$run/$t.cpu")
  rate=$(awk -v e="${execs:-0}" -v c="$cpu" 'BEGIN {printf "%.0f", (c > 0 ? e / c : 0)}')
  crashes=$(find "$run/artifacts" -name "$t-*" -type f | wc -l)
  if [[ $rc -ne 0 && $crashes -eq 0 ]]; then crashes=1; fi  # died without an artifact
  total=$((total + ${execs:-0}))
  summary+=("$(printf '%-14s %9s executions %7s CPU s %6s /CPU s  %s crashes  corpus %s -> %s files' \
    "$t" "${execs:-?}" "$cpu" "$rate" "$crashes" "$(ls "$root/tests/fuzz/corpus/$t" | wc -l)" "$(ls "$corpus" | wc -l)")")
  if [[ $crashes -ne 0 ]]; then
    failed=1
    echo "=== fuzz_$t FAILED (exit $rc); log $log; artifacts:" >&2
    find "$run/artifacts" -name "$t-*" -type f >&2
    tail -60 "$log" >&2
  fi
done

echo "fuzz summary (${seconds} s per target, build $build):"
printf '  %s\n' "${summary[@]}"
if [[ $failed -ne 0 ]]; then
  echo "FAILED: crashes found (inputs in $run/artifacts/)"
  exit 1
fi
echo "total ${total} executions, 0 crashes"
