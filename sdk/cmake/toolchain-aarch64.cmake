# toolchain-aarch64.cmake — cross-builds libamxqa for 64-bit Arm Linux with
# Debian's cross compiler (g++-aarch64-linux-gnu) and the arm64 multiarch
# libraries (sdk/setup-deps.sh --aarch64 installs both). The host's flatc
# generates the schema headers; ctest runs every test under qemu-aarch64.
#   cmake -S . -B build-aarch64 -DCMAKE_TOOLCHAIN_FILE=sdk/cmake/toolchain-aarch64.cmake
# See sdk/cmake/README.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Debian's multiarch layout: arm64 libraries and their CMake/pkg-config files
# live under /usr/lib/aarch64-linux-gnu; headers are shared in /usr/include.
# Programs (flatc) are searched on the host only.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_PREFIX_PATH /usr/lib/aarch64-linux-gnu/cmake)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# Built programs run under QEMU user-mode emulation: ctest, and every test
# that runs a built program through CMAKE_CROSSCOMPILING_EMULATOR. QEMU_CPU
# in the environment picks the CPU model (max, cortex-a53, neoverse-n1 ...).
find_program(AMXQA_QEMU_AARCH64 qemu-aarch64)
if(AMXQA_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${AMXQA_QEMU_AARCH64};-L;/usr/aarch64-linux-gnu)
endif()
