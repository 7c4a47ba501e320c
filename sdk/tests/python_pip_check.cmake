# CTest sdk_python_pip.integration (cmake -P): `pip install sdk/python` works
# offline. Makes a venv that sees the system's setuptools and wheel, installs
# a copy of sdk/python into it with --no-build-isolation --no-index (no
# network, no PyPI), then answers a question from outside the source tree.
# Prints "SKIPPED: ..." (the test's skip pattern) when venv or pip is missing.
# Inputs: PYTHON, SOURCE_DIR, WORK_DIR, LIBRARY, MODEL.
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
file(MAKE_DIRECTORY ${WORK_DIR})
# pip builds in place: a copy keeps build/ and *.egg-info out of the checkout.
file(COPY ${SOURCE_DIR}/sdk/python/ DESTINATION ${WORK_DIR}/src PATTERN __pycache__ EXCLUDE)
set(venv ${WORK_DIR}/venv)
run_step("python3 -m venv --system-site-packages" ${PYTHON} -m venv --system-site-packages ${venv})
run_step("pip install --no-build-isolation --no-index" ${CMAKE_COMMAND} -E env PIP_DISABLE_PIP_VERSION_CHECK=1
  ${venv}/bin/python -m pip install --no-build-isolation --no-index ${WORK_DIR}/src)

# From a folder outside the checkout, without PYTHONPATH: only the venv's copy can be imported.
set(script [=[
import sys, amxqa
assert amxqa.__file__.startswith(sys.prefix), amxqa.__file__
passage = open(sys.argv[2], encoding="utf-8").read()
with amxqa.Model(sys.argv[1]).session() as s:
    a = s.answer("Who designed the present tower?", passage)
print("amxqa %s from %s: %r" % (amxqa.__version__, amxqa.__file__, a.text))
]=])
file(WRITE ${WORK_DIR}/ask.py "${script}")
run_step("answer with the pip-installed package" ${CMAKE_COMMAND} -E chdir ${WORK_DIR}
  ${CMAKE_COMMAND} -E env --unset=PYTHONPATH AMXQA_LIBRARY=${LIBRARY} PYTHONDONTWRITEBYTECODE=1
  ${venv}/bin/python ${WORK_DIR}/ask.py ${MODEL} ${SOURCE_DIR}/samples/data/lighthouse.txt)
message("${STEP_OUTPUT}")
