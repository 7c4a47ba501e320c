# CTest install_package.integration (cmake -P): installs the build into a
# scratch prefix, then proves a consumer can use it three ways:
#   find_package(amxqa) + amxqa::amxqa (shared), find_package + amxqa::amxqa_static,
#   and pkg-config --cflags --libs amxqa.
# Each consumer is a C99 program that calls the library and checks its version.
# Inputs: BUILD_DIR, WORK_DIR, C_COMPILER, CXX_COMPILER.
cmake_minimum_required(VERSION 3.20)

include(${CMAKE_CURRENT_LIST_DIR}/AmxqaScriptSteps.cmake)

set(prefix ${WORK_DIR}/prefix)
set(consumer ${WORK_DIR}/consumer)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${consumer})

# The library package only (the tools component is the CLI's business).
foreach(component runtime devel)
  run_step("cmake --install (${component})"
    ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} --component ${component})
endforeach()

file(GLOB_RECURSE sonames ${prefix}/*/libamxqa.so)
list(LENGTH sonames n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one installed libamxqa.so, found: ${sonames}")
endif()
find_program(READELF readelf)
if(READELF)
  run_step("readelf -d libamxqa.so" ${READELF} -d ${sonames})
  if(NOT STEP_OUTPUT MATCHES "SONAME[^\n]*libamxqa\\.so\\.[0-9]+")
    message(FATAL_ERROR "libamxqa.so has no versioned SONAME:\n${STEP_OUTPUT}")
  endif()
endif()

# The shared library exports the C API and nothing else.
find_program(NM nm)
if(NM)
  run_step("nm -D libamxqa.so" ${NM} -D --defined-only ${sonames})
  string(REGEX MATCHALL "[^\n]+" symbols "${STEP_OUTPUT}")
  foreach(line ${symbols})
    if(NOT line MATCHES " amxqa_[a-z0-9_]+$")
      message(FATAL_ERROR "libamxqa.so exports a symbol outside the C API: ${line}")
    endif()
  endforeach()
endif()

file(WRITE ${consumer}/main.c [=[
#include <amxqa.h>
#include <stdio.h>
#include <string.h>
int main(void) {
  if (amxqa_version_number() != AMXQA_VERSION_NUMBER) return 1;
  if (strcmp(amxqa_status_name(AMXQA_OK), "AMXQA_OK") != 0) return 2;
  printf("libamxqa %s\n", amxqa_version());
  return 0;
}
]=])
file(WRITE ${consumer}/CMakeLists.txt [=[
cmake_minimum_required(VERSION 3.20)
project(amxqa_consumer C)
set(CMAKE_C_STANDARD 99)
find_package(amxqa 0.2 REQUIRED CONFIG)
add_executable(uses_shared main.c)
target_link_libraries(uses_shared PRIVATE amxqa::amxqa)
add_executable(uses_static main.c)
target_link_libraries(uses_static PRIVATE amxqa::amxqa_static)
]=])

run_step("configure consumer" ${CMAKE_COMMAND} -S ${consumer} -B ${consumer}/build
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
run_step("build consumer" ${CMAKE_COMMAND} --build ${consumer}/build)
run_step("run amxqa::amxqa consumer" ${consumer}/build/uses_shared)
run_step("run amxqa::amxqa_static consumer" ${consumer}/build/uses_static)

find_program(PKG_CONFIG pkg-config)
if(PKG_CONFIG)
  file(GLOB_RECURSE pcfiles ${prefix}/*/amxqa.pc)
  get_filename_component(pcdir "${pcfiles}" DIRECTORY)
  set(ENV{PKG_CONFIG_PATH} ${pcdir})
  run_step("pkg-config amxqa" ${PKG_CONFIG} --cflags --libs amxqa)
  separate_arguments(flags UNIX_COMMAND "${STEP_OUTPUT}")
  get_filename_component(libdir "${sonames}" DIRECTORY)
  run_step("cc with pkg-config flags" ${C_COMPILER} -std=c99 ${consumer}/main.c ${flags}
    -Wl,-rpath,${libdir} -o ${consumer}/uses_pkgconfig)
  run_step("run pkg-config consumer" ${consumer}/uses_pkgconfig)
endif()
