# Every dependency is a Debian package found on the system; nothing is vendored
# or downloaded. sdk/setup-deps.sh installs them.
find_package(FlatBuffers REQUIRED CONFIG)
find_program(AMXQA_FLATC flatc REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(CPUINFO REQUIRED IMPORTED_TARGET libcpuinfo)
find_package(mimalloc CONFIG)
find_package(Threads REQUIRED)
if(AMXQA_BUILD_TESTS)
  find_package(doctest REQUIRED CONFIG)
endif()
if(AMXQA_BUILD_BENCH)
  find_package(benchmark REQUIRED CONFIG)
endif()
