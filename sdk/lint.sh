#!/usr/bin/env bash
# Static analysis of the runtime: cppcheck and clang-tidy (.clang-tidy) over
# every runtime/ file in BUILD_DIR/compile_commands.json, then a count.
#
#   sdk/lint.sh [BUILD_DIR]      # default build/; configured if missing
#   LINT_STRICT=1 sdk/lint.sh    # exit 1 when there is any finding
#
# Findings are written to BUILD_DIR/lint/{cppcheck,clang-tidy}.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${1:-build}
jobs=${LINT_JOBS:-2}

if [[ ! -f "$build/compile_commands.json" ]]; then
  echo "lint: configuring $build for compile_commands.json"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi
# The runtime includes the flatc-generated header; make sure it exists.
cmake --build "$build" --target amxqa_schema_gen >/dev/null

out="$build/lint"
mkdir -p "$out"

# runtime/ translation units known to the build.
# Also written as a filtered compilation database for cppcheck --project.
mapfile -t files < <(python3 - "$build/compile_commands.json" "$root/runtime/" "$out/runtime_commands.json" <<'PY'
import json, sys
db, prefix, filtered = sys.argv[1], sys.argv[2], sys.argv[3]
entries = [e for e in json.load(open(db)) if e["file"].startswith(prefix)]
json.dump(entries, open(filtered, "w"), indent=1)
print("\n".join(sorted({e["file"] for e in entries})))
PY
)
if ((${#files[@]} == 0)); then
  echo "lint: no runtime/ files in $build/compile_commands.json" >&2
  exit 1
fi
echo "lint: ${#files[@]} runtime files"

# cppcheck: real defects only (style nits are clang-tidy's job).
cppcheck --project="$out/runtime_commands.json" \
  --enable=warning,performance,portability --inline-suppr --quiet \
  --suppress=missingIncludeSystem --suppress=unmatchedSuppression \
  --suppress='*:*/generated/*' --suppress='*:/usr/include/*' \
  -j "$jobs" --template='{file}:{line}: {severity}: {message} [{id}]' \
  >"$out/cppcheck.log" 2>"$out/cppcheck.txt" || true
cppcheck_count=$(grep -c ': \(error\|warning\|performance\|portability\|style\): ' "$out/cppcheck.txt" || true)

# clang-tidy: one process per file, $jobs at a time.
printf '%s\n' "${files[@]}" |
  xargs -P "$jobs" -I{} clang-tidy -p "$build" --quiet {} >"$out/clang-tidy.raw" 2>/dev/null || true
# A header's findings repeat once per file that includes it: count each once.
grep -E '^/.*:[0-9]+:[0-9]+: (warning|error): ' "$out/clang-tidy.raw" | sort -u >"$out/clang-tidy.txt" || true
tidy_count=$(wc -l <"$out/clang-tidy.txt")

echo "lint: cppcheck   $cppcheck_count findings ($out/cppcheck.txt)"
echo "lint: clang-tidy $tidy_count findings ($out/clang-tidy.txt)"
if [[ -n "${LINT_STRICT:-}" ]] && ((cppcheck_count + tidy_count > 0)); then
  exit 1
fi
