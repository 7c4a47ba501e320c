#!/usr/bin/env bash
# Installs every Debian package libamxqa needs to build, test, fuzz and lint.
# Idempotent: when everything is already installed it changes nothing and
# never touches the network (apt-get update runs only if a package is missing).
# Works as root, or through sudo for other users.
#   --browser  also Debian's headless Chromium and its driver, for the browser test of
#              `amxqa serve`'s page (sdk/server/tests/serve_browser_test.py; skipped without)
set -euo pipefail

packages=(
  flatbuffers-compiler libflatbuffers-dev # model file schema: flatc + headers
  libcpuinfo-dev                          # CPU feature detection
  libmimalloc-dev                         # fast allocator for the trainer only
  doctest-dev                             # unit tests
  libbenchmark-dev                        # micro-benchmarks
  cmake g++ make pkg-config               # build
  zlib1g-dev                              # trainer/CLI: gzip'd corpora
  python3                                 # data preparation scripts
  clang libclang-rt-14-dev                # libFuzzer and sanitizers
  cppcheck clang-tidy clang-format        # sdk/lint.sh, .clang-format
  nlohmann-json3-dev                      # JSON: thresholds files, CLI/HTTP bodies
  libcli11-dev                            # command-line parsing
  python3-setuptools python3-wheel python3-venv python3-pip  # pip install sdk/python, offline
  python3-distributed                     # Dask: batch QA on a cluster
  python3-onnx                            # bench/peers/ort_bert.py: the ONNX Runtime peers' graphs
  # (the peers run on Node.js and npm's onnxruntime-node, not listed: these machines carry
  # nodejs with its own npm, which Debian's npm package conflicts with)
)

for arg in "$@"; do
  case "$arg" in
    --browser) packages+=(chromium chromium-driver) ;;  # about 90 MB: only on request (CI asks)
    *) echo "setup-deps: unknown option $arg (known: --browser)" >&2; exit 2 ;;
  esac
done

missing=()
for p in "${packages[@]}"; do
  # dpkg-query prints "install ok installed" only for a fully installed package.
  if [[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" != "install ok installed" ]]; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup-deps: all ${#packages[@]} packages already installed"
  exit 0
fi

if [[ "$(id -u)" -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1; then
  as_root=(sudo)
else
  echo "setup-deps: missing packages (${missing[*]}) and not root, and sudo is not available" >&2
  exit 1
fi

echo "setup-deps: installing ${missing[*]}"
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
