# CTest sdk_install_sample.integration (cmake -P): installs the build into a
# scratch prefix, then configures, builds and runs samples/c-static outside
# the source tree twice: with find_package(amxqa) (static library) and with
# pkg-config amxqa (shared library).
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, MODEL, C_COMPILER, CXX_COMPILER.
cmake_minimum_required(VERSION 3.20)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake/AmxqaScriptSteps.cmake)

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

file(GLOB_RECURSE config ${prefix}/*/amxqaConfig.cmake)
file(GLOB_RECURSE pcfile ${prefix}/*/amxqa.pc)
if(NOT config OR NOT pcfile)
  message(FATAL_ERROR "the install lacks amxqaConfig.cmake or amxqa.pc (sdk/cmake install rules)")
endif()
get_filename_component(pcdir "${pcfile}" DIRECTORY)

# A copy outside the source tree, so nothing can reach the amxqa sources.
set(sample ${WORK_DIR}/c-static)
file(COPY ${SOURCE_DIR}/samples/c-static/ DESTINATION ${sample})
set(passage ${SOURCE_DIR}/samples/data/lighthouse.txt)

foreach(mode find_package pkg-config)
  set(out ${WORK_DIR}/build-${mode})
  set(extra -DCMAKE_PREFIX_PATH=${prefix})
  if(mode STREQUAL "pkg-config")
    set(extra -DAMXQA_SAMPLE_USE_PKGCONFIG=ON)
  endif()
  run_step("configure c-static (${mode})" ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${pcdir}
    ${CMAKE_COMMAND} -S ${sample} -B ${out} ${extra} -DCMAKE_C_COMPILER=${C_COMPILER}
    -DCMAKE_CXX_COMPILER=${CXX_COMPILER} -DCMAKE_BUILD_TYPE=Release)
  run_step("build c-static (${mode})" ${CMAKE_COMMAND} --build ${out})
  run_step("run c-static (${mode})" ${out}/amxqa-sample-c ${MODEL} ${passage} "Who designed the present tower?")
  if(NOT STEP_OUTPUT MATCHES "^[^\n]*\t\\[[a-z0-9-]+, [0-9.]+ ms\\]\n$")
    message(FATAL_ERROR "c-static (${mode}) printed an unexpected answer line: '${STEP_OUTPUT}'")
  endif()
endforeach()
