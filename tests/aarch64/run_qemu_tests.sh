#!/usr/bin/env bash
# Runs the aarch64 runtime test suite of a cross build under qemu-aarch64
# (sdk/cmake/README.md): ctest runs each test through the toolchain file's
# CMAKE_CROSSCOMPILING_EMULATOR, once per QEMU CPU model, so that each NEON
# kernel and its fallback run:
#   max          has the dot product: the neon-dotprod table, the neon table
#                and the portable (scalar) one, all against each other
#   cortex-a53   lacks it (Armv8.0): detection must pick neon, and the
#                kernel tests run the neon table alone
# and checks that `amxqa cpu` explains the choice on each, under AMXQA_MAX_ISA.
#   tests/aarch64/run_qemu_tests.sh [BUILD]      (default build-aarch64)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build-aarch64}
qemu=(qemu-aarch64 -L /usr/aarch64-linux-gnu)

# `amxqa cpu` under a CPU model and a cap must name the expected backend.
expect_backend() {  # cpu cap want
  local got
  got=$(QEMU_CPU=$1 AMXQA_MAX_ISA=$2 "${qemu[@]}" "$build/bin/amxqa" cpu | sed -n 's/^backend *\([^:]*\):.*/\1/p')
  if [[ "$got" != "$3" ]]; then
    echo "qemu -cpu $1, AMXQA_MAX_ISA=$2: backend $got, expected $3" >&2
    exit 1
  fi
  echo "qemu -cpu $1, AMXQA_MAX_ISA=${2:-(unset)}: backend $got"
}
expect_backend max "" neon-dotprod
expect_backend neoverse-n1 "" neon-dotprod
expect_backend cortex-a53 "" neon
expect_backend max neon neon
expect_backend max scalar scalar
expect_backend max avx2 neon-dotprod  # another family's cap caps nothing (amxqa.h)

# Tests labelled slow (test_backends_exact: 50 questions x 2 models x 3
# backends; the model-format sweeps) take tens of minutes under QEMU: they
# run where the code runs natively, and check_squad_slice.sh compares the
# aarch64 answers with x86's. SLOW=1 runs them too.
slow=(-LE slow)
[[ "${SLOW:-0}" == 1 ]] && slow=()
echo "+ ctest under qemu -cpu max"
QEMU_CPU=max ctest --test-dir "$build" --output-on-failure -j2 --timeout 1200 "${slow[@]}"
echo "+ ctest under qemu -cpu cortex-a53 (no dot product): the kernel tests"
QEMU_CPU=cortex-a53 ctest --test-dir "$build" --output-on-failure -j2 --timeout 1200 \
  -R '^(test_kernels|test_model_format)\.' "${slow[@]}"
