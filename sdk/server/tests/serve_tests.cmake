# Tests of `amxqa serve` and `amxqa batch`, included at the end of
# sdk/CMakeLists.txt (after the amxqa_tiny_model fixture is defined).
#   sdk_serve_parts.unit         parser, batch line formats, JSON writers; the HTTP
#                                reader, access checks, routes, queue, metrics
#   sdk_serve_parts.integration  the answer path allocates nothing once warm
#   sdk_serve.integration        the HTTP server over loopback (serve_test.py)
#   sdk_serve_hostile.integration stalled, slow and malformed clients, a full queue,
#                                SIGTERM under load, API key, CORS, /metrics
#   sdk_serve_browser.integration the page at GET / in headless Chromium (serve_browser_test.py)
#   sdk_batch.integration        JSONL in/out, error lines, --resume (batch_test.py)
#   sdk_batch_scaling.integration bench/batch_scaling.py runs (its ratio is not checked)
set(_serve_tests ${CMAKE_CURRENT_LIST_DIR})
add_executable(test_serve_parts ${_serve_tests}/test_serve_parts.cpp ${_serve_tests}/test_http_parts.cpp)
# amxqa_test_support: the doctest main and the allocation counter.
target_link_libraries(test_serve_parts PRIVATE amxqa_server amxqa_test_support)
foreach(label unit integration)
  add_test(NAME sdk_serve_parts.${label}
    COMMAND test_serve_parts --test-suite=${label} --no-intro --no-version)
  set_tests_properties(sdk_serve_parts.${label} PROPERTIES LABELS ${label})
endforeach()
set_tests_properties(sdk_serve_parts.integration PROPERTIES FIXTURES_REQUIRED amxqa_tiny_model
  ENVIRONMENT "AMXQA_TEST_MODEL=${AMXQA_TINY_TEST_MODEL}")

if(AMXQA_PYTHON3 AND TARGET amxqa-cli)
  add_test(NAME sdk_serve.integration
    COMMAND ${AMXQA_PYTHON3} ${_serve_tests}/serve_test.py $<TARGET_FILE:amxqa-cli>
      ${AMXQA_TINY_TEST_MODEL} ${PROJECT_SOURCE_DIR}/samples/data/lighthouse.txt)
  # The soak is 10,000 requests: about 30 s on one core, server and client together.
  # Sanitizers keep freed memory in quarantine, so RSS is not flat there: a
  # shorter soak, RSS reported but not checked.
  set(_serve_env "PYTHONDONTWRITEBYTECODE=1")
  if(AMXQA_SANITIZE)
    list(APPEND _serve_env "AMXQA_SERVE_SOAK=1000" "AMXQA_SERVE_RSS_CHECK=0")
  endif()
  set_tests_properties(sdk_serve.integration PROPERTIES LABELS integration TIMEOUT 240
    FIXTURES_REQUIRED amxqa_tiny_model ENVIRONMENT "${_serve_env}")
  # About 15 s: each part starts its own server (the tiny model loads in milliseconds).
  add_test(NAME sdk_serve_hostile.integration
    COMMAND ${AMXQA_PYTHON3} ${_serve_tests}/serve_hostile_test.py $<TARGET_FILE:amxqa-cli>
      ${AMXQA_TINY_TEST_MODEL} ${PROJECT_SOURCE_DIR}/samples/data/lighthouse.txt)
  set_tests_properties(sdk_serve_hostile.integration PROPERTIES LABELS integration TIMEOUT 240
    FIXTURES_REQUIRED amxqa_tiny_model ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
  # The page at GET / in Debian's headless Chromium (skipped, exit 77, without chromium and
  # chromium-driver: sdk/setup-deps.sh --browser). The default model, so the screenshot it
  # saves shows real answers (the README's: sdk/server/ui/screenshot.png).
  add_test(NAME sdk_serve_browser.integration
    COMMAND ${AMXQA_PYTHON3} ${_serve_tests}/serve_browser_test.py $<TARGET_FILE:amxqa-cli>
      ${PROJECT_SOURCE_DIR}/sdk/models/default.amxqa ${CMAKE_BINARY_DIR}/sdk-test/serve_page.png)
  set_tests_properties(sdk_serve_browser.integration PROPERTIES LABELS integration TIMEOUT 120
    SKIP_RETURN_CODE 77 ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
  add_test(NAME sdk_batch.integration
    COMMAND ${AMXQA_PYTHON3} ${_serve_tests}/batch_test.py $<TARGET_FILE:amxqa-cli>
      ${AMXQA_TINY_TEST_MODEL} ${PROJECT_SOURCE_DIR}/samples/data/lighthouse.txt
      ${CMAKE_BINARY_DIR}/sdk-test/batch)
  set_tests_properties(sdk_batch.integration PROPERTIES LABELS integration
    FIXTURES_REQUIRED amxqa_tiny_model ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
  # bench/batch_scaling.py once, small and without its ratio check (no timing
  # assertion in tests): only that the benchmark still runs.
  add_test(NAME sdk_batch_scaling.integration
    COMMAND ${AMXQA_PYTHON3} ${PROJECT_SOURCE_DIR}/bench/batch_scaling.py --amxqa $<TARGET_FILE:amxqa-cli>
      --model ${AMXQA_TINY_TEST_MODEL} --data sample --questions 20 --min-ratio 0)
  set_tests_properties(sdk_batch_scaling.integration PROPERTIES LABELS integration
    FIXTURES_REQUIRED amxqa_tiny_model)
endif()
