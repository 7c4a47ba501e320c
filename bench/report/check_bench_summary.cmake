# check_bench_summary.cmake — CTest smoke test of amxqa-bench (bench/CMakeLists.txt):
# runs `amxqa-bench --quick --out-dir OUT_DIR`, then checks that exactly one
# <cpu-id>.json was written, beside its .gbench.json (Google Benchmark's own
# JSON of the run), .md and .svg, that its "summary" object has exactly the
# documented keys (bw_gbs an object of six sizes), and that the post-processor
# run on the saved document (`amxqa-bench report`) writes the same files.
# cmake -DBENCH=path/to/amxqa-bench -DOUT_DIR=dir -P check_bench_summary.cmake
file(REMOVE_RECURSE "${OUT_DIR}")
execute_process(COMMAND "${BENCH}" --quick --out-dir "${OUT_DIR}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "amxqa-bench --quick failed (${rc}):\n${out}\n${err}")
endif()
file(GLOB results "${OUT_DIR}/*.json")
list(FILTER results EXCLUDE REGEX "\\.gbench\\.json$")
list(LENGTH results n)
if(NOT n EQUAL 1)
  message(FATAL_ERROR "expected one result file in ${OUT_DIR}, found ${n}")
endif()
string(REGEX REPLACE "\\.json$" "" base "${results}")
foreach(ext gbench.json md svg)
  if(NOT EXISTS "${base}.${ext}")
    message(FATAL_ERROR "missing ${base}.${ext}")
  endif()
endforeach()
file(READ "${results}" json)
set(expected cpu backend peak_fp32_gflops peak_bf16_gflops bw_gbs prefill_tok_s
  prefill_roofline_frac decode_tok_s decode_roofline_frac answer_p50_ms answer_p99_ms
  session_bytes model_bytes train_tok_s train_roofline_frac train_qa_sft_tok_s
  train_qa_sft_2thread_speedup train_pretrain_tok_s train_pretrain_2thread_speedup shipped_model_p50_ms
  shipped_model_prefill_roofline_frac shipped_model_decode_share)
string(JSON count LENGTH "${json}" summary)
list(LENGTH expected want)
if(NOT count EQUAL want)
  message(FATAL_ERROR "summary has ${count} keys, expected ${want}")
endif()
math(EXPR last "${count} - 1")
foreach(i RANGE ${last})
  string(JSON key MEMBER "${json}" summary ${i})
  list(FIND expected "${key}" found)
  if(found EQUAL -1)
    message(FATAL_ERROR "unexpected summary key ${key}")
  endif()
endforeach()
foreach(key ${expected})
  string(JSON type ERROR_VARIABLE missing TYPE "${json}" summary ${key})
  if(missing)
    message(FATAL_ERROR "summary lacks ${key}: ${missing}")
  endif()
endforeach()
string(JSON bw_type TYPE "${json}" summary bw_gbs)
string(JSON bw_count LENGTH "${json}" summary bw_gbs)
if(NOT bw_type STREQUAL "OBJECT" OR NOT bw_count EQUAL 6)
  message(FATAL_ERROR "summary.bw_gbs should be an object of 6 sizes (${bw_type}, ${bw_count})")
endif()
file(READ "${base}.gbench.json" gbench)
string(JSON gb_runs LENGTH "${gbench}" benchmarks)
string(JSON gb_cpu GET "${gbench}" context amxqa cpu_id)
if(gb_runs LESS 1)
  message(FATAL_ERROR "${base}.gbench.json has no benchmarks")
endif()
# The post-processor alone, on the saved document, reproduces the result files.
set(again "${OUT_DIR}/report-again")
file(REMOVE_RECURSE "${again}")
execute_process(COMMAND "${BENCH}" report "${base}.gbench.json" --out-dir "${again}"
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "amxqa-bench report failed (${rc}):\n${out}\n${err}")
endif()
foreach(ext json md svg)
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files "${base}.${ext}" "${again}/${gb_cpu}.${ext}"
    RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "amxqa-bench report wrote a different ${gb_cpu}.${ext} than the run did")
  endif()
endforeach()
string(JSON cpu GET "${json}" summary cpu)
message(STATUS "amxqa-bench --quick wrote ${results} (cpu ${cpu})")
