# Shared by the cmake -P test scripts (install_package and sdk_install_sample):
# run_step(WHAT COMMAND...) runs a command, fails the script with its output on
# a non-zero exit, and leaves its stdout in STEP_OUTPUT.
function(run_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}\n${err}")
  endif()
  message(STATUS "${what}: ok")
  set(STEP_OUTPUT "${out}" PARENT_SCOPE)
endfunction()
