#!/usr/bin/env bash
# The whole-split exactness check across architectures, in chunks that can be
# run in parallel and resumed: `amxqa squad` on every question of
# dev-v1.1-open for both shipped models, under qemu-aarch64 on each Arm
# backend, against x86-64's fastest backend (every x86 backend gives the same
# bytes: test_backends_exact, check_squad_slice.sh). Under QEMU the whole
# split is hours per model and backend (int8 on neon-dotprod about 1.5
# questions per second, bf16 on neon about 0.2 on a Zen 4 core), so it is cut
# into chunks of CHUNK questions (default 250), run JOBS at a time (default
# nproc), and every finished chunk is appended to the ledger
# tests/aarch64/whole-split.tsv with the runtime's tree hash and the model
# file's blob hash (both committed: the script refuses a changed runtime/): a later run (on
# any machine, in any session) skips the chunks the ledger holds for the same
# runtime, so the check accumulates until every chunk is there (keep one
# CHUNK per runtime: the summary adds up the chunks it finds).
#   tests/aarch64/check_squad_whole.sh [X86_BUILD] [ARM_BUILD] [OUT_DIR]
#   MODELS="default" ISAS="neon-dotprod" JOBS=2 tests/aarch64/check_squad_whole.sh build build-aarch64
#   tests/aarch64/check_squad_whole.sh --summary     # what the ledger covers, for this runtime
# A question's answer does not depend on the others in its file, so the chunks'
# predictions together are the whole split's.
set -euo pipefail
cd "$(dirname "$0")/../.."
ledger=${LEDGER:-tests/aarch64/whole-split.tsv}
data=../shared/data/squad/dev-v1.1-open.json.gz
chunk=${CHUNK:-250}
limit=${LIMIT:-0}   # only the first LIMIT questions (0: all; a trial of the script)
# What the answers depend on: the runtime, its public header and the schema
# (not the schema folder's docs or the writer library).
runtime_tree=$(git rev-parse --short=12 "HEAD:runtime")-$(git rev-parse --short=8 "HEAD:include")-$(git rev-parse --short=8 "HEAD:schemas/amxqa.fbs")

summary() {
  [[ -f $ledger ]] || { echo "no ledger yet ($ledger)"; return 0; }
  awk -F'\t' -v rt="$runtime_tree" '!/^#/ && $1 == rt && !seen[$2, $3, $4, $5, $7]++ {
      key = $2 " " $3; if ($7 == "same") n[key] += $5; else bad[key]++ }
    END { for (k in n) printf "%-28s %5d questions same%s\n", k, n[k], bad[k] ? "  (" bad[k] " chunks DIFFER)" : "" }' \
    "$ledger" | sort
  echo "(runtime $runtime_tree; dev-v1.1-open has 4,557 questions)"
}
if [[ ${1:-} == --summary ]]; then summary; exit 0; fi

x86=${1:-build}
arm=${2:-build-aarch64}
out=${3:-$arm/squad-whole}
models=${MODELS:-default qa-v2.2-bf16}
isas=${ISAS:-neon-dotprod neon scalar}
jobs=${JOBS:-$(nproc)}
if [[ ! -f "$data" ]]; then
  echo "check_squad_whole: $data not found; skipped"
  exit 0
fi
if [[ -n $(git status --porcelain -- runtime include schemas/amxqa.fbs) ]]; then
  echo "check_squad_whole: runtime/, include/ or schemas/amxqa.fbs has uncommitted changes; the ledger names" \
    "a committed runtime, so commit (and rebuild both builds) first" >&2
  exit 2
fi
mkdir -p "$out"
[[ -f $ledger ]] || printf '# runtime\tmodel\tisa\tfirst\tcount\tsha256 of the predictions\tresult\tdate\n' >"$ledger"

x86_isa=scalar
cpu=$("$x86/bin/amxqa" cpu)
grep -q '^avx2+fma *yes' <<<"$cpu" && x86_isa=avx2
grep -q '^avx512 *yes' <<<"$cpu" && x86_isa=avx512

# The chunk files: SQuAD JSON with the questions [first, first + chunk) in file order.
total=$(/usr/bin/python3 - "$data" "$out" "$chunk" "$limit" <<'EOF'
import gzip, json, os, sys
data, out, chunk, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
d = json.load(gzip.open(data))
qs = [(a["title"], p["context"], q) for a in d["data"] for p in a["paragraphs"] for q in p["qas"]]
if limit:
    qs = qs[:limit]
for first in range(0, len(qs), chunk):
    path = f"{out}/chunk-{first:05d}-{chunk}.json"
    if os.path.exists(path):
        continue
    arts = []
    for title, ctx, q in qs[first:first + chunk]:
        if not arts or arts[-1]["title"] != title:
            arts.append({"title": title, "paragraphs": []})
        ps = arts[-1]["paragraphs"]
        if not ps or ps[-1]["context"] != ctx:
            ps.append({"context": ctx, "qas": []})
        ps[-1]["qas"].append(q)
    json.dump({"version": d.get("version", "1.1"), "data": arts}, open(path + ".tmp", "w"))
    os.replace(path + ".tmp", path)
print(len(qs))
EOF
)

# One chunk on one Arm backend: x86's predictions (made once per chunk and
# model), QEMU's, compared byte for byte, appended to the ledger under a lock.
# shellcheck disable=SC2317  # called through xargs
run_one() {
  local model=$1 isa=$2 first=$3
  local in="$out/chunk-$first-$chunk.json" ref="$out/$model.$first-$chunk.x86-$x86_isa.json"
  local got="$out/$model.$first-$chunk.aarch64-$isa.json"
  local args=(squad --model "sdk/models/$model.amxqa" --examples 0)
  if [[ ! -s $ref ]]; then
    "$x86/bin/amxqa" "${args[@]}" --data "$in" --isa "$x86_isa" --out "$ref.tmp" >/dev/null 2>"$ref.log" &&
      mv "$ref.tmp" "$ref"
  fi
  rm -f "$got"
  if ! QEMU_CPU=max qemu-aarch64 -L /usr/aarch64-linux-gnu "$arm/bin/amxqa" "${args[@]}" --data "$in" --isa "$isa" \
    --out "$got" >/dev/null 2>"$got.log" || [[ ! -s $ref ]]; then
    # Not a comparison (killed, or a build that cannot run): the ledger keeps only what was compared.
    echo "FAILED $model $isa questions $((10#$first)) (log $got.log)" >&2
    return 1
  fi
  local result=same
  cmp -s "$ref" "$got" || result=DIFFER
  local n
  n=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$ref")
  (
    flock 9
    printf '%s\t%s\t%s\t%d\t%d\t%s\t%s\t%s\n' "$runtime_tree" "$model@$(git rev-parse --short=8 "HEAD:sdk/models/$model.amxqa")" "$isa" "$((10#$first))" "$n" \
      "$(sha256sum "$ref" | cut -c1-16)" "$result" "$(date -u +%F)" >>"$ledger"
  ) 9>"$out/.ledger.lock"
  echo "$result $model $isa questions $((10#$first))+$n"
  [[ $result == same ]]
}
export -f run_one
export out x86 arm x86_isa ledger runtime_tree chunk

todo=()
for model in $models; do
  blob=$(git rev-parse --short=8 "HEAD:sdk/models/$model.amxqa")
  for isa in $isas; do
    for ((first = 0; first < total; first += chunk)); do
      f=$(printf '%05d' "$first")
      n=$((total - first < chunk ? total - first : chunk))
      if awk -F'\t' -v rt="$runtime_tree" -v m="$model@$blob" -v i="$isa" -v s="$first" -v n="$n" \
        '$1 == rt && $2 == m && $3 == i && $4 == s && $5 == n && $7 == "same" { found = 1 } END { exit !found }' "$ledger"; then
        continue
      fi
      todo+=("$model $isa $f")
    done
  done
done
echo "check_squad_whole: ${#todo[@]} chunks of $chunk to run, $jobs at a time (runtime $runtime_tree, x86 reference $x86_isa)"
fail=0
if ((${#todo[@]})); then
  # shellcheck disable=SC2016  # $0 $1 $2 are bash -c's own arguments
  printf '%s\n' "${todo[@]}" | xargs -P "$jobs" -L 1 bash -c 'run_one $0 $1 $2' || fail=1
fi
summary
exit $fail
