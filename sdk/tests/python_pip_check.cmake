# CTest sdk_python_pip.integration (cmake -P): `pip install sdk/python` and
# `pip wheel sdk/python` give a package that answers on its own, offline, and
# leave nothing in the checkout that breaks a later build or install.
#   1. A copy of the checkout (without build folders, git data, training runs,
#      the README's venv, and what an older setup.py left in sdk/python: build/
#      and *.egg-info). README's pip.sh block makes a venv that sees Debian's
#      setuptools and wheel and installs sdk/python into it with
#      --no-build-isolation --no-index, and answers from /; setup.py builds
#      libamxqa (amxqa_shared only, -j2) outside the checkout and bundles it and
#      the default model. From another folder, with no AMXQA_* variable and no
#      PYTHONPATH, amxqa.Model(amxqa.default_model()) answers, both found in the
#      venv. The copy must then hold nothing new under sdk/python (no build/, no
#      *.egg-info): what `pip install` leaves is what the next `ctest` copies.
#   2. pip wheel of the same copy (the CMake build is reused through
#      $AMXQA_BUILD_DIR), then the copy is hidden (renamed) and a second venv
#      installs the wheel and answers.
#   3. The copy moved to another folder: pip install again into a third venv,
#      with the same $AMXQA_BUILD_DIR, whose CMake cache now names the old
#      folder (setup.py replaces it), and answer.
# Prints "SKIPPED: ..." (the test's skip pattern) when venv or pip is missing.
# Inputs: PYTHON (Debian's python3), SOURCE_DIR, WORK_DIR.
cmake_minimum_required(VERSION 3.20)

include(${CMAKE_CURRENT_LIST_DIR}/../cmake/AmxqaScriptSteps.cmake)

execute_process(COMMAND ${PYTHON} -c "import venv, ensurepip, setuptools, wheel" RESULT_VARIABLE rc
  OUTPUT_QUIET ERROR_QUIET)
if(NOT rc EQUAL 0)
  message("SKIPPED: ${PYTHON} lacks venv, ensurepip, setuptools or wheel "
    "(Debian: python3-venv python3-pip python3-setuptools python3-wheel; sdk/setup-deps.sh installs them)")
  return()
endif()

file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR}/elsewhere)
# The checkout without its build folders, git data, training runs, the README's
# venv, and the in-place build of an older setup.py (sdk/python/build, *.egg-info).
file(COPY ${SOURCE_DIR}/ DESTINATION ${WORK_DIR}/src
  REGEX "^${SOURCE_DIR}/(build[^/]*|\\.git|\\.cache|trainer/runs|venv|sdk/python/build|sdk/python/[^/]*\\.egg-info)$"
  EXCLUDE PATTERN __pycache__ EXCLUDE)
file(GLOB python_dir_before RELATIVE ${WORK_DIR}/src/sdk/python ${WORK_DIR}/src/sdk/python/*)

# Runs the answer script with the venv's python from a folder outside both
# trees, with nothing in the environment that points at libamxqa or a model.
set(script [=[
import sys, amxqa
for path in (amxqa.__file__, amxqa.library_path(), amxqa.default_model()):
    assert path and path.startswith(sys.prefix), "%s is not inside the venv %s" % (path, sys.prefix)
passage = open(sys.argv[1], encoding="utf-8").read()
with amxqa.Model(amxqa.default_model()).session() as s:
    a = s.answer("Who designed the present tower?", passage)
assert a.abstained or (a.text and passage[a.start:a.end] == a.text), a
print("amxqa %s, %s: %r" % (amxqa.__version__, amxqa.library_path(), a.text))
]=])
file(WRITE ${WORK_DIR}/ask.py "${script}")
function(answer_with venv)
  run_step("answer with ${venv}" ${CMAKE_COMMAND} -E chdir ${WORK_DIR}/elsewhere
    ${CMAKE_COMMAND} -E env --unset=PYTHONPATH --unset=AMXQA_LIBRARY --unset=AMXQA_MODEL
      PYTHONDONTWRITEBYTECODE=1 ${WORK_DIR}/${venv}/bin/python ${WORK_DIR}/ask.py ${WORK_DIR}/lighthouse.txt)
  message("${STEP_OUTPUT}")
endfunction()
file(COPY ${SOURCE_DIR}/samples/data/lighthouse.txt DESTINATION ${WORK_DIR})

# Step 1 is the README's pip.sh block, as written, run in the copy with
# ${PYTHON} as its python3 (a python3 earlier on PATH may lack Debian's packages).
file(READ ${SOURCE_DIR}/README.md readme)
set(marker "<!-- readme-test: pip.sh -->\n```sh\n")
string(FIND "${readme}" "${marker}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "README.md has no pip.sh block")
endif()
string(LENGTH "${marker}" skip)
math(EXPR at "${at} + ${skip}")
string(SUBSTRING "${readme}" ${at} -1 block)
string(FIND "${block}" "\n```" end)
string(SUBSTRING "${block}" 0 ${end} block)
file(WRITE ${WORK_DIR}/src/pip.sh "${block}\n")
file(MAKE_DIRECTORY ${WORK_DIR}/bin)
file(CREATE_LINK ${PYTHON} ${WORK_DIR}/bin/python3 SYMBOLIC)
set(pip_env ${CMAKE_COMMAND} -E env PIP_DISABLE_PIP_VERSION_CHECK=1 --unset=AMXQA_LIBRARY --unset=AMXQA_MODEL
  --unset=PYTHONPATH AMXQA_BUILD_DIR=${WORK_DIR}/libamxqa-build)
run_step("README pip.sh (pip install --no-build-isolation --no-index sdk/python)" ${CMAKE_COMMAND} -E chdir
  ${WORK_DIR}/src ${pip_env} "PATH=${WORK_DIR}/bin:$ENV{PATH}" sh -e pip.sh)
message("${STEP_OUTPUT}")
answer_with(src/venv)
file(GLOB python_dir_after RELATIVE ${WORK_DIR}/src/sdk/python ${WORK_DIR}/src/sdk/python/*)
if(NOT python_dir_after STREQUAL python_dir_before)
  message(FATAL_ERROR "pip install left files in the checkout's sdk/python: ${python_dir_after} "
    "(before: ${python_dir_before})")
endif()

run_step("pip wheel --no-build-isolation --no-index sdk/python" ${pip_env}
  ${WORK_DIR}/src/venv/bin/python -m pip wheel --no-build-isolation --no-index --no-deps -w ${WORK_DIR}/wheels
  ${WORK_DIR}/src/sdk/python)
file(GLOB wheel ${WORK_DIR}/wheels/amxqa-*.whl)
list(LENGTH wheel n)
if(NOT n EQUAL 1 OR NOT wheel MATCHES "linux_x86_64\\.whl$|linux_[a-z0-9_]+\\.whl$")
  message(FATAL_ERROR "pip wheel gave '${wheel}', not one platform wheel")
endif()
file(RENAME ${WORK_DIR}/src ${WORK_DIR}/src-hidden)  # the wheel must not need the source tree
run_step("python3 -m venv (wheel)" ${PYTHON} -m venv --system-site-packages ${WORK_DIR}/venv-wheel)
run_step("pip install the wheel" ${pip_env}
  ${WORK_DIR}/venv-wheel/bin/python -m pip install --no-index ${wheel})
answer_with(venv-wheel)

# 3. The checkout moved: pip install again, the kept CMake build naming the old folder.
file(RENAME ${WORK_DIR}/src-hidden ${WORK_DIR}/moved)
run_step("python3 -m venv (moved checkout)" ${PYTHON} -m venv --system-site-packages ${WORK_DIR}/venv-moved)
run_step("pip install sdk/python of the moved checkout" ${pip_env}
  ${WORK_DIR}/venv-moved/bin/python -m pip install --no-build-isolation --no-index ${WORK_DIR}/moved/sdk/python)
file(STRINGS ${WORK_DIR}/libamxqa-build/CMakeCache.txt home REGEX "^CMAKE_HOME_DIRECTORY:INTERNAL=")
if(NOT home STREQUAL "CMAKE_HOME_DIRECTORY:INTERNAL=${WORK_DIR}/moved")
  message(FATAL_ERROR "the kept CMake build was not reconfigured for the moved checkout: ${home}")
endif()
answer_with(venv-moved)
