# CTest sdk_install_moved.integration (cmake -P): an installed prefix works
# after it is moved, with nothing from the source or build tree. Installs the
# build, moves the prefix to a fresh folder outside both trees, and from there
# (as the working directory) answers one question with the installed amxqa
# CLI and its default model (share/amxqa/default.amxqa), with samples/c-static
# built against the moved package, and with the installed Python package.
# Also: amxqa-train --version, and amxqa-bench --benchmark_list_tests writes
# nothing. No installed file may contain the source or build path, and when
# strace is present no file under either tree may be touched.
# Inputs: BUILD_DIR, SOURCE_DIR, WORK_DIR, C_COMPILER, PYTHON, PYTHONDIR.
cmake_minimum_required(VERSION 3.20)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake/AmxqaScriptSteps.cmake)

file(REMOVE_RECURSE ${WORK_DIR})
run_step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/staged)

# The new home: outside the checkout and the build folder (which lives inside it).
set(tmp "$ENV{TMPDIR}")
if(NOT tmp)
  set(tmp /tmp)
endif()
string(RANDOM LENGTH 8 suffix)
set(home ${tmp}/amxqa-moved-${suffix})
set(prefix ${home}/prefix)
file(MAKE_DIRECTORY ${home})
file(RENAME ${WORK_DIR}/staged ${prefix})
file(COPY ${SOURCE_DIR}/samples/data/lighthouse.txt ${SOURCE_DIR}/samples/c-static DESTINATION ${home})
set(question "Who designed the present tower?")
set(failures "")

# No installed file names the trees it came from (the model is opaque bytes).
file(GLOB_RECURSE installed LIST_DIRECTORIES false ${prefix}/*)
foreach(f ${installed})
  if(f MATCHES "\\.amxqa$")
    continue()
  endif()
  file(STRINGS ${f} lines)
  foreach(tree ${SOURCE_DIR} ${BUILD_DIR})
    string(FIND "${lines}" "${tree}" at)
    if(NOT at EQUAL -1)
      string(APPEND failures "\n  ${f} contains the path ${tree}")
    endif()
  endforeach()
endforeach()

# Every run: from ${home}, with no AMXQA_* lookup variable and no PYTHONPATH
# but the one given. strace, when present, records every file touched.
find_program(STRACE strace)
set(trace_n 0)
function(moved_run what)
  math(EXPR n "${trace_n} + 1")
  set(trace_n ${n} PARENT_SCOPE)
  set(trace)
  if(STRACE)
    set(trace ${STRACE} -f -qq -e trace=%file -o ${home}/trace-${n}.txt)
  endif()
  run_step("${what}" ${CMAKE_COMMAND} -E chdir ${home} ${CMAKE_COMMAND} -E env --unset=AMXQA_MODEL
    --unset=AMXQA_LIBRARY --unset=AMXQA_DATA --unset=PYTHONPATH ${MOVED_ENV} ${trace} ${ARGN})
  set(STEP_OUTPUT "${STEP_OUTPUT}" PARENT_SCOPE)
endfunction()

# 1. The CLI, with its default model found from its own location.
moved_run("installed amxqa inspect" ${prefix}/bin/amxqa inspect)
if(NOT STEP_OUTPUT MATCHES "^file +${prefix}/bin/../share/amxqa/default.amxqa ")
  string(APPEND failures "\n  amxqa inspect did not use the installed model:\n${STEP_OUTPUT}")
endif()
moved_run("installed amxqa answer" ${prefix}/bin/amxqa answer --question ${question} --passage-file lighthouse.txt)
set(cli_answer "${STEP_OUTPUT}")
if(NOT cli_answer MATCHES "^[^\n]+\n$")
  string(APPEND failures "\n  amxqa answer printed '${cli_answer}'")
endif()

# 2. A C program built against the moved package (find_package, static library).
run_step("configure c-static" ${CMAKE_COMMAND} -S ${home}/c-static -B ${home}/c-build
  -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${C_COMPILER} -DCMAKE_BUILD_TYPE=Release)
run_step("build c-static" ${CMAKE_COMMAND} --build ${home}/c-build)
moved_run("c-static answer" ${home}/c-build/amxqa-sample-c ${prefix}/share/amxqa/default.amxqa lighthouse.txt
  ${question})
string(REGEX REPLACE "\t.*" "" c_answer "${STEP_OUTPUT}")
if(NOT "${c_answer}\n" STREQUAL cli_answer)
  string(APPEND failures "\n  c-static answered '${c_answer}', the CLI '${cli_answer}'")
endif()

# 3. The installed Python package: finds lib/libamxqa.so and the model by itself.
# The interpreter itself, not a launcher (a pyenv shim looks around the old $PWD).
run_step("find the python3 interpreter" ${PYTHON} -c "import sys\nprint(sys.executable)")
string(STRIP "${STEP_OUTPUT}" python)
file(WRITE ${home}/ask.py "import amxqa\n"
  "session = amxqa.Model(amxqa.default_model()).session()\n"
  "print(amxqa.library_path())\nprint(amxqa.default_model())\n"
  "print(session.answer('${question}', open('lighthouse.txt', encoding='utf-8').read()).text)\n")
set(MOVED_ENV PYTHONPATH=${prefix}/${PYTHONDIR} PYTHONDONTWRITEBYTECODE=1)
moved_run("installed Python package" ${python} ask.py)
set(MOVED_ENV)
if(NOT STEP_OUTPUT MATCHES "^${prefix}/lib[^\n]*/libamxqa\\.so\n${prefix}/share/amxqa/default\\.amxqa\n")
  string(APPEND failures "\n  Python used another library or model:\n${STEP_OUTPUT}")
endif()
string(REGEX REPLACE "^[^\n]*\n[^\n]*\n" "" py_answer "${STEP_OUTPUT}")
if(NOT py_answer STREQUAL cli_answer)
  string(APPEND failures "\n  Python answered '${py_answer}', the CLI '${cli_answer}'")
endif()

# 4. The other tools.
if(EXISTS ${prefix}/bin/amxqa-train)
  moved_run("amxqa-train --version" ${prefix}/bin/amxqa-train --version)
  if(NOT STEP_OUTPUT MATCHES "^amxqa-train [0-9]+\\.[0-9]+\\.[0-9]+\n$")
    string(APPEND failures "\n  amxqa-train --version printed '${STEP_OUTPUT}'")
  endif()
endif()
if(EXISTS ${prefix}/bin/amxqa-bench)
  file(GLOB before ${home}/*)
  moved_run("amxqa-bench --benchmark_list_tests=true" ${prefix}/bin/amxqa-bench --benchmark_list_tests=true)
  file(GLOB after ${home}/*)
  list(FILTER after EXCLUDE REGEX "/trace-[0-9]+\\.txt$")
  list(FILTER before EXCLUDE REGEX "/trace-[0-9]+\\.txt$")
  if(NOT before STREQUAL after)
    string(APPEND failures "\n  amxqa-bench --benchmark_list_tests=true wrote files: ${after}")
  endif()
endif()

# Nothing run from the moved prefix touched the source or build tree.
file(GLOB traces ${home}/trace-*.txt)
foreach(t ${traces})
  file(STRINGS ${t} touched REGEX "\"(${SOURCE_DIR}|${BUILD_DIR})[/\"]")
  if(touched)
    list(GET touched 0 first)
    string(APPEND failures "\n  ${t} shows a tree path was used: ${first}")
  endif()
endforeach()
if(NOT STRACE)
  message(STATUS "strace not found: file accesses were not traced")
endif()

if(failures)
  message(FATAL_ERROR "the moved install failed (kept in ${home}):${failures}")
endif()
file(REMOVE_RECURSE ${home})
