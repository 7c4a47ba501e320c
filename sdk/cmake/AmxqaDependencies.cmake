# Every dependency is a Debian package found on the system; nothing is vendored
# or downloaded. sdk/setup-deps.sh installs them.
find_package(FlatBuffers REQUIRED CONFIG)
find_program(AMXQA_FLATC flatc REQUIRED)
find_package(PkgConfig REQUIRED)
if(CMAKE_CROSSCOMPILING)
  pkg_check_modules(CPUINFO IMPORTED_TARGET libcpuinfo)
  if(NOT CPUINFO_FOUND)
    # A Debian multiarch cross build (sdk/setup-deps.sh --aarch64): the
    # target's libcpuinfo0 without its -dev package, which conflicts with the
    # host's; the header is the host's, the same version.
    find_library(AMXQA_CPUINFO_LIBRARY NAMES libcpuinfo.so.0 REQUIRED)
    find_path(AMXQA_CPUINFO_INCLUDE cpuinfo.h REQUIRED)
    add_library(PkgConfig::CPUINFO UNKNOWN IMPORTED)
    set_target_properties(PkgConfig::CPUINFO PROPERTIES IMPORTED_LOCATION ${AMXQA_CPUINFO_LIBRARY}
      INTERFACE_INCLUDE_DIRECTORIES ${AMXQA_CPUINFO_INCLUDE})
  endif()
else()
  pkg_check_modules(CPUINFO REQUIRED IMPORTED_TARGET libcpuinfo)
endif()
find_package(mimalloc CONFIG)
find_package(Threads REQUIRED)
if(AMXQA_BUILD_TESTS)
  find_package(doctest REQUIRED CONFIG)
endif()
if(AMXQA_BUILD_BENCH)
  find_package(benchmark REQUIRED CONFIG)
endif()
