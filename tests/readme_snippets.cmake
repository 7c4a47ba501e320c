# CTest readme_snippets.integration: the README's "Use it from your app" blocks
# (install, C program, CMake project, pkg-config line, C++ program, Python
# script, the CLI, `amxqa serve` and `amxqa batch`) are extracted and run as
# written by tests/readme_snippets.py, against the tiny random model of the
# amxqa_tiny_model fixture (sdk/CMakeLists.txt).
# Not under sanitizers: the installed library and python3 would need their runtime.
find_program(AMXQA_README_PYTHON3 python3)
if(AMXQA_README_PYTHON3 AND AMXQA_TINY_TEST_MODEL AND NOT AMXQA_SANITIZE)
  add_test(NAME readme_snippets.integration
    COMMAND ${AMXQA_README_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/readme_snippets.py
      ${PROJECT_SOURCE_DIR}/README.md ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR}
      ${CMAKE_BINARY_DIR}/readme-test ${AMXQA_TINY_TEST_MODEL})
  set_tests_properties(readme_snippets.integration PROPERTIES LABELS integration
    FIXTURES_REQUIRED amxqa_tiny_model
    ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
endif()
# calibrate.sh with the shipped model and ../shared/data: the threshold it
# chooses must be the shipped model's (sdk/models/calibration.json).
if(AMXQA_README_PYTHON3 AND TARGET amxqa-cli AND NOT AMXQA_SANITIZE)
  add_test(NAME readme_calibration.integration
    COMMAND ${AMXQA_README_PYTHON3} ${CMAKE_CURRENT_LIST_DIR}/readme_snippets.py --calibration
      ${PROJECT_SOURCE_DIR}/README.md ${CMAKE_BINARY_DIR} ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR}/readme-calibration)
  set_tests_properties(readme_calibration.integration PROPERTIES LABELS integration TIMEOUT 900
    SKIP_REGULAR_EXPRESSION "SKIPPED:")
endif()
