#!/usr/bin/env bash
# Installs every Debian package libamxqa needs to build, test, fuzz and lint.
# Idempotent: when everything is already installed it changes nothing and
# never touches the network (apt-get update runs only if a package is missing).
# Works as root, or through sudo for other users.
#   --browser  also Debian's headless Chromium and its driver, for the browser test of
#              `amxqa serve`'s page (sdk/server/tests/serve_browser_test.py; skipped without)
#   --aarch64  also the aarch64 cross build and QEMU (sdk/cmake/README.md)
# Neither is installed by default; both may be given.
set -euo pipefail

aarch64=0
browser=0
for arg in "$@"; do
  case "$arg" in
    --aarch64) aarch64=1 ;;
    --browser) browser=1 ;;
    *) echo "setup-deps: unknown option $arg (known: --aarch64, --browser)" >&2; exit 2 ;;
  esac
done

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
# The aarch64 cross build (sdk/cmake/toolchain-aarch64.cmake): Debian's cross
# compiler, qemu-user to run what it builds, and the arm64 builds of the
# libraries the runtime, the CLI, the tests and the bench link (multiarch).
# Header-only packages (doctest, nlohmann-json, CLI11) and the host's flatc
# serve both architectures, so they are in the list above already.
# libcpuinfo: only the arm64 shared object. bookworm's libcpuinfo-dev:arm64
# cannot be installed beside libcpuinfo-dev:amd64 (both ship a different
# /usr/lib/cmake/cpuinfo/cpuinfo-targets-none.cmake, and dpkg refuses), so the
# cross build takes the host's cpuinfo.h, the same version, and links
# libcpuinfo.so.0 (sdk/cmake/AmxqaDependencies.cmake).
if ((aarch64)); then
  packages+=(
    g++-aarch64-linux-gnu qemu-user
    libcpuinfo0:arm64 libflatbuffers-dev:arm64 libbenchmark-dev:arm64 zlib1g-dev:arm64
  )
fi

if ((browser)); then
  packages+=(chromium chromium-driver)  # about 90 MB: only on request (CI asks)
fi

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
if ((aarch64)) && ! dpkg --print-foreign-architectures | grep -qx arm64; then
  "${as_root[@]}" dpkg --add-architecture arm64
fi
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
