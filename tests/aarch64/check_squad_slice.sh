#!/usr/bin/env bash
# The exactness check across architectures: `amxqa squad` on the first
# questions of dev-v1.1-open, for both shipped models, on x86-64 (scalar,
# avx2, avx512 where this CPU has them) and under qemu-aarch64 (neon-dotprod,
# neon, scalar); every predictions file must be byte-identical to x86's
# scalar one. CI runs a slice (LIMIT_I8=0 LIMIT_BF16=0: every question, in
# one sitting); the whole split in resumable chunks is check_squad_whole.sh.
#   tests/aarch64/check_squad_slice.sh [X86_BUILD] [ARM_BUILD] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
x86=${1:-build}
arm=${2:-build-aarch64}
out=${3:-$arm/squad-slice}
data=../shared/data/squad/dev-v1.1-open.json.gz
limit_i8=${LIMIT_I8:-16}    # questions for the int8 model (0: all)
limit_bf16=${LIMIT_BF16:-4} # and for the bf16 one (slower under QEMU)
mkdir -p "$out"
if [[ ! -f "$data" ]]; then  # as the runtime tests do without the shared data
  echo "check_squad_slice: $data not found; skipped"
  exit 0
fi

x86_isas=(scalar)
cpu=$("$x86/bin/amxqa" cpu)
grep -q '^avx2+fma *yes' <<<"$cpu" && x86_isas+=(avx2)
grep -q '^avx512 *yes' <<<"$cpu" && x86_isas+=(avx512)

fail=0
for model in default qa-v2.2-bf16; do
  limit=$limit_i8
  [[ $model == qa-v2.2-bf16 ]] && limit=$limit_bf16
  args=(squad --model "sdk/models/$model.amxqa" --data "$data" --examples 0)
  ((limit > 0)) && args+=(--limit "$limit")
  ref="$out/$model.x86-scalar.json"
  for isa in "${x86_isas[@]}"; do
    "$x86/bin/amxqa" "${args[@]}" --isa "$isa" --out "$out/$model.x86-$isa.json" >/dev/null
  done
  for isa in neon-dotprod neon scalar; do
    QEMU_CPU=max qemu-aarch64 -L /usr/aarch64-linux-gnu "$arm/bin/amxqa" "${args[@]}" --isa "$isa" \
      --out "$out/$model.aarch64-$isa.json" >/dev/null
  done
  for f in "$out/$model".*.json; do
    if cmp -s "$ref" "$f"; then
      echo "same   $f"
    else
      echo "DIFFER $f (against $ref)" >&2
      fail=1
    fi
  done
  echo "$model: $(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$ref") questions"
done
exit $fail
