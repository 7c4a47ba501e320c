#!/usr/bin/env bash
# run_tsan.sh — builds tests/runtime/test_threads.cpp and
# tests/trainer/test_train_threads.cpp with ThreadSanitizer
# (AMXQA_SANITIZE=thread; GCC by default, CXX=clang++ works too) and runs them:
# four threads, each with its own session over one shared model, plus
# concurrent open / verify / cpu query; and the trainer's step workers
# (micro-batch gradients and the optimizer step on 1-4 threads), and the SFT
# set prefetch of `amxqa-train run` (one background thread). Any data race
# fails the run.
#
#   tests/fuzz/run_tsan.sh [BUILD_DIR]      (default build-tsan)
#   env: TSAN_BUILD_JOBS (2), CC / CXX (gcc / g++)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
build=${1:-$root/build-tsan}
jobs=${TSAN_BUILD_JOBS:-2}

cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER="${CC:-gcc}" -DCMAKE_CXX_COMPILER="${CXX:-g++}" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAMXQA_SANITIZE=thread \
  -DAMXQA_BUILD_BENCH=OFF -DAMXQA_BUILD_SAMPLES=OFF -DAMXQA_BUILD_TRAINER=ON >/dev/null
cmake --build "$build" -j "$jobs" --target test_threads test_train_threads test_trainer_pipeline

# halt_on_error: the first race fails the test with TSan's exit code (66).
export TSAN_OPTIONS=${TSAN_OPTIONS:-halt_on_error=1:second_deadlock_stack=1}
"$build/bin/test_threads" --test-suite=integration --no-intro --no-version
"$build/bin/test_train_threads" --no-intro --no-version
"$build/bin/test_trainer_pipeline" --test-case="sft prefetch*" --no-intro --no-version
echo "ThreadSanitizer: test_threads, test_train_threads and the sft prefetch case passed, no data race reported"
