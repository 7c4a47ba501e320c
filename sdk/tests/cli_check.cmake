# CTest sdk_cli.integration (cmake -P): runs every amxqa subcommand against the
# tiny random model and checks exit codes, output shape and one-line errors.
# Inputs: CLI, MODEL, SOURCE_DIR, WORK_DIR.
cmake_minimum_required(VERSION 3.20)

set(passage ${SOURCE_DIR}/samples/data/lighthouse.txt)
set(squad ${SOURCE_DIR}/samples/cpp/lighthouse_squad.json)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
set(failures 0)

# expect(NAME RC STDOUT_REGEX STDERR_REGEX [INPUT file] COMMAND args...)
function(expect name rc out_re err_re)
  cmake_parse_arguments(E "" "INPUT" "COMMAND" ${ARGN})
  set(input_args)
  if(E_INPUT)
    set(input_args INPUT_FILE ${E_INPUT})
  endif()
  execute_process(COMMAND ${E_COMMAND} ${input_args} RESULT_VARIABLE got_rc OUTPUT_VARIABLE out
    ERROR_VARIABLE err)
  set(bad "")
  if(NOT got_rc STREQUAL rc)
    string(APPEND bad " exit ${got_rc}, expected ${rc};")
  endif()
  if(NOT out MATCHES "${out_re}")
    string(APPEND bad " stdout does not match '${out_re}';")
  endif()
  if(NOT err MATCHES "${err_re}")
    string(APPEND bad " stderr does not match '${err_re}';")
  endif()
  if(bad)
    message("FAIL ${name}:${bad}\n  command: ${E_COMMAND}\n  stdout: ${out}\n  stderr: ${err}")
    math(EXPR n "${failures} + 1")
    set(failures ${n} PARENT_SCOPE)
  else()
    message("ok   ${name}")
  endif()
  set(LAST_OUT "${out}" PARENT_SCOPE)
endfunction()

set(one_error "^amxqa [a-z]+: [^\n]+\n$")  # exactly one line on stderr

expect(help 0 "answer.*shell.*squad.*calibrate.*inspect.*verify.*cpu" "^$" COMMAND ${CLI} --help)
expect(no-command 2 "^$" "usage" COMMAND ${CLI})
expect(unknown-command 2 "^$" "^amxqa: unknown command 'frobnicate'[^\n]*\n$" COMMAND ${CLI} frobnicate)
foreach(cmd answer shell squad calibrate inspect verify cpu)
  expect(${cmd}-help 0 "^usage: amxqa ${cmd}" "^$" COMMAND ${CLI} ${cmd} --help)
endforeach()
expect(unknown-option 2 "^$" "${one_error}" COMMAND ${CLI} cpu --frobnicate)

# answer
expect(answer 0 "^[^\n]*\n$" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage})
set(first_answer "${LAST_OUT}")
expect(answer-stdin 0 "^[^\n]*\n$" "^$" INPUT ${passage}
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file -)
if(NOT LAST_OUT STREQUAL first_answer)
  message("FAIL answer-stdin: '${LAST_OUT}' differs from the file answer '${first_answer}'")
  math(EXPR failures "${failures} + 1")
endif()
expect(answer-json 0 "^{\"answer\":.*\"no_answer\":(true|false),\"no_answer_margin\":[-0-9.e]+,\"no_answer_threshold\":[-0-9.e]+,\"windows\":1,\"window\":0,\"candidates\":.*\"span_begin\":[0-9]+,\"span_end\":[0-9]+,\"abstained\":(true|false),\"stopped_on_eot\":(true|false),\"mean_logprob\":[-0-9.e]+,\"probability\":[0-9.e-]+,\"question_tokens\":[0-9]+,\"passage_tokens\":[0-9]+,\"answer_tokens\":[0-9]+,\"prefill_ns\":[0-9]+,\"decode_ns\":[0-9]+,\"isa\":\"scalar\"}\n$" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage} --json --isa scalar)
# The answer is the exact passage bytes of its span.
string(JSON text GET "${LAST_OUT}" answer)
string(JSON begin GET "${LAST_OUT}" span_begin)
string(JSON end GET "${LAST_OUT}" span_end)
file(READ ${passage} passage_text)
math(EXPR span_len "${end} - ${begin}")
string(SUBSTRING "${passage_text}" ${begin} ${span_len} span_text)
if(NOT text STREQUAL span_text)
  message("FAIL answer-json: answer '${text}' is not passage[${begin}, ${end}) = '${span_text}'")
  math(EXPR failures "${failures} + 1")
endif()
expect(answer-passage-text 0 "^[^\n]*\n$" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage "The tower was designed by Ada.")
expect(answer-passage-both 2 "^$" "${one_error}"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage p --passage-file ${passage})
expect(answer-white-space-question 1 "^$" "^amxqa answer: AMXQA_ERR_EMPTY_QUESTION[^\n]*\n$"
  COMMAND ${CLI} answer --model ${MODEL} --question "   " --passage-file ${passage})
# Thresholds: inf never abstains (JSON has no inf: null), a very low one always
# does, a bad one is a usage error.
expect(answer-threshold-inf 0 "\"no_answer_threshold\":null.*\"abstained\":false" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage} --json --threshold inf)
expect(answer-threshold-low 0 "\"no_answer_threshold\":-1(\\.0*[0-9]*)?e\\+?30.*\"abstained\":true" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage} --json --threshold -1e30)
expect(answer-threshold-nan 2 "^$" "^amxqa answer: --threshold must be[^\n]*\n$"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage-file ${passage} --threshold nan)
file(WRITE ${WORK_DIR}/bad-thresholds.json "{\"best\": {}}")
expect(answer-threshold-file-bad 2 "^$" "^amxqa answer: --threshold-file [^\n]*best[^\n]*\n$"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage-file ${passage} --threshold-file ${WORK_DIR}/bad-thresholds.json)
expect(answer-bad-isa 2 "^$" "^amxqa answer: --isa must be[^\n]*\n$"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage-file ${passage} --isa sse9)
expect(answer-no-question 2 "^$" "^amxqa answer: --question is required[^\n]*\n$"
  COMMAND ${CLI} answer --model ${MODEL} --passage-file ${passage})
expect(answer-empty-question 1 "^$" "^amxqa answer: AMXQA_ERR_EMPTY_QUESTION[^\n]*\n$"
  COMMAND ${CLI} answer --model ${MODEL} --question= --passage-file ${passage})
expect(answer-missing-passage 1 "^$" "${one_error}"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage-file ${WORK_DIR}/absent.txt)
expect(answer-missing-model 1 "^$" "^amxqa answer: no model file at[^\n]*\n$"
  COMMAND ${CLI} answer --model ${WORK_DIR}/absent.amxqa --question q --passage-file ${passage})
expect(answer-not-a-model 1 "^$" "^amxqa answer: [^\n]*AMXQA_ERR_MODEL_[A-Z_]+[^\n]*\n$"
  COMMAND ${CLI} answer --model ${passage} --question q --passage-file ${passage})
expect(answer-passage-too-long 1 "^$" "^amxqa answer: AMXQA_ERR_PASSAGE_TOO_LONG[^\n]*\n$"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage-file ${passage} --max-passage-tokens 8)
expect(answer-env-model 0 "^[^\n]*\n$" "^$"
  COMMAND ${CMAKE_COMMAND} -E env AMXQA_MODEL=${MODEL}
    ${CLI} answer --question "Who designed the present tower?" --passage-file ${passage})

# inspect, verify, cpu
expect(inspect 0 "layers +2: lin swa.*vocabulary +300 tokens; mask forbids [0-9]+.*recipe +random-tiny" "^$"
  COMMAND ${CLI} inspect ${MODEL})
expect(verify-clean 0 ": ok" "^$" COMMAND ${CLI} verify ${MODEL})
expect(verify-json 0 "^{\"file\":[^\n]*\"ok\":true,\"failures\":\\[\\]}\n$" "^$" COMMAND ${CLI} verify ${MODEL} --json)
expect(verify-bad-json 1 "^{\"file\":[^\n]*\"ok\":false,\"failures\":\\[{\"status\":\"AMXQA_ERR_MODEL_" "^$"
  COMMAND ${CLI} verify ${passage} --json)
expect(inspect-json 0 "^{\"version\":[^\n]*\"calibrated\":false,\"no_answer_threshold\":0[.0]*,[^\n]*}\n$" "^$"
  COMMAND ${CLI} inspect ${MODEL} --json)
expect(verify-bad 1 "^FAIL AMXQA_ERR_MODEL_[A-Z_]+: [^\n]+\n.*check" "^$" COMMAND ${CLI} verify ${passage})
expect(verify-missing 1 "^$" "${one_error}" COMMAND ${CLI} verify ${WORK_DIR}/absent.amxqa)
expect(cpu 0 "avx2\\+fma +(yes|no).*\nAMX: [^\n]+\n.*backend +(scalar|avx2|avx512|amx):" "^$" COMMAND ${CLI} cpu)
expect(cpu-capped 0 "AMXQA_MAX_ISA scalar.*backend +scalar:" "^$"
  COMMAND ${CMAKE_COMMAND} -E env AMXQA_MAX_ISA=scalar ${CLI} cpu)

# shell: one output line per non-empty question line
file(WRITE ${WORK_DIR}/questions.txt "Who designed the present tower?\n\nWhen was it completed?\r\n")
expect(shell 0 "^[^\n\t]*\t[0-9.]+ ms\n[^\n\t]*\t[0-9.]+ ms\n$" "^$" INPUT ${WORK_DIR}/questions.txt
  COMMAND ${CLI} shell --model ${MODEL} --passage-file ${passage})
expect(shell-json 0 "^{\"answer\":[^\n]*\"probability\":[^\n]*}\n{\"answer\":[^\n]*}\n$" "^$" INPUT ${WORK_DIR}/questions.txt
  COMMAND ${CLI} shell --model ${MODEL} --passage-file ${passage} --json --threshold inf)

# squad: predictions file with every id, scores, no-answer split, generations
expect(squad 0 "6 questions \\(5 has-answer, 1 no-answer\\).*exact match +[0-9.]+\nF1 +[0-9.]+\nHasAns .*NoAns .*questions/s.*generations.*gold: James Douglass" "questions/s"
  COMMAND ${CLI} squad --model ${MODEL} --data ${squad} --out ${WORK_DIR}/preds.json)
file(READ ${WORK_DIR}/preds.json preds)
foreach(id lh-1 lh-2 lh-3 lh-4 lh-5 lh-6)
  string(JSON p ERROR_VARIABLE json_error GET "${preds}" ${id})
  if(json_error)
    message("FAIL squad: predictions file lacks ${id}: ${json_error}")
    math(EXPR failures "${failures} + 1")
  endif()
endforeach()
# A failed squad run leaves no output file (the writability probe cleans up).
expect(squad-no-model 1 "^$" "${one_error}"
  COMMAND ${CLI} squad --model ${WORK_DIR}/missing.amxqa --data ${squad} --out ${WORK_DIR}/preds-failed.json)
if(EXISTS ${WORK_DIR}/preds-failed.json OR EXISTS ${WORK_DIR}/preds3.json)
  message("FAIL squad-no-output: a failed squad run left its --out file")
  math(EXPR failures "${failures} + 1")
endif()
expect(squad-limit 0 "2 questions \\(2 has-answer, 0 no-answer\\)" "questions/s"
  COMMAND ${CLI} squad --model ${MODEL} --data ${squad} --out ${WORK_DIR}/preds2.json --limit 2)
file(WRITE ${WORK_DIR}/broken.json "{\"data\": [")
expect(squad-broken 1 "^$" "${one_error}"
  COMMAND ${CLI} squad --model ${MODEL} --data ${WORK_DIR}/broken.json --out ${WORK_DIR}/preds3.json)
# calibrate: a table, the best threshold, a thresholds file the other commands read
expect(calibrate 0 "6 questions \\(5 has-answer, 1 no-answer\\).*threshold +EM +F1.*never.*best F1.*<- best.*--threshold" "questions/s"
  COMMAND ${CLI} calibrate --model ${MODEL} --data ${squad} --out ${WORK_DIR}/thresholds.json --steps 4)
file(READ ${WORK_DIR}/thresholds.json thresholds_json)
string(JSON best_threshold ERROR_VARIABLE json_error GET "${thresholds_json}" best threshold)
if(json_error)
  message("FAIL calibrate: thresholds.json has no best.threshold: ${json_error}")
  math(EXPR failures "${failures} + 1")
endif()
expect(answer-threshold-file 0 "\"no_answer_threshold\":" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage} --json --threshold-file ${WORK_DIR}/thresholds.json)
expect(squad-threshold 0 "abstained +[0-9]+ \\([0-9.]+%\\) at no-answer threshold inf \\(--threshold\\)" "questions/s"
  COMMAND ${CLI} squad --model ${MODEL} --data ${squad} --out ${WORK_DIR}/preds4.json --threshold inf)
expect(calibrate-no-data 2 "^$" "^amxqa calibrate: --data is required[^\n]*\n$" COMMAND ${CLI} calibrate --model ${MODEL})
# The request fields on the command line (README "Request fields"): top-k spans
# with character and byte offsets, windows for a long passage, whose error
# names the CLI flags, never amxqa_session_options.
expect(answer-top-k 0 "^{\"answer\":[^\n]*\"byte_start\":[0-9]+,\"byte_end\":[0-9]+,\"no_answer\":(true|false),\"no_answer_margin\":[^,]+,\"no_answer_threshold\":[^,]+,\"windows\":1,\"window\":0,\"candidates\":\\[" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage} --json --top-k 3 --threshold inf)
expect(answer-long-passage 1 "^$" "^amxqa answer: AMXQA_ERR_PASSAGE_TOO_LONG: [^\n]*--max-passage-tokens[^\n]*--windows\n$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage} --max-passage-tokens 32)
expect(answer-windows 0 "\"windows\":([2-9]|[1-9][0-9]+)," "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who designed the present tower?" --passage-file ${passage} --json --max-passage-tokens 64 --windows --window-overlap 16 --max-answer-tokens 4)
expect(answer-overlap-needs-windows 2 "^$" "--window-overlap needs --windows"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage p --window-overlap 4)
expect(answer-top-k-range 2 "^$" "--top-k"
  COMMAND ${CLI} answer --model ${MODEL} --question q --passage p --top-k 101)
# Never an empty answer that is not an abstention, whatever the threshold.
expect(answer-never-empty 0 "^{\"answer\":(\"[^\"]+\",[^\n]*\"no_answer\":false|\"\",[^\n]*\"no_answer\":true)" "^$"
  COMMAND ${CLI} answer --model ${MODEL} --question "Who?" --passage "  a     b   " --json --threshold inf)
expect(squad-long-passage 0 "errors +[0-9]+ questions failed[^\n]*first: [^\n]*--max-passage-tokens[^\n]*--windows" "questions/s"
  COMMAND ${CLI} squad --model ${MODEL} --data ${squad} --out ${WORK_DIR}/preds5.json --max-passage-tokens 16)
expect(calibrate-help 0 "max-over-refusal PCT.*default 15" "^$" COMMAND ${CLI} calibrate --help)
expect(squad-no-out 2 "^$" "^amxqa squad: --out is required[^\n]*\n$"
  COMMAND ${CLI} squad --model ${MODEL} --data ${squad})

# The default model from a build folder anywhere (sdk/common/amxqa_paths.h): a
# copy of the binary in a folder laid out as a build folder outside the
# checkout (bin/amxqa beside a CMakeCache.txt that names the checkout) finds
# sdk/models/default.amxqa; without that CMakeCache.txt, the error names where
# an installed prefix keeps it.
file(MAKE_DIRECTORY ${WORK_DIR}/elsewhere/build/bin)
file(COPY ${CLI} DESTINATION ${WORK_DIR}/elsewhere/build/bin)
get_filename_component(cli_name ${CLI} NAME)
set(moved_cli ${WORK_DIR}/elsewhere/build/bin/${cli_name})
set(no_env ${CMAKE_COMMAND} -E env --unset=AMXQA_MODEL)
expect(default-model-no-build-folder 1 "^$" "share/amxqa/default.amxqa"
  COMMAND ${no_env} ${moved_cli} inspect)
file(WRITE ${WORK_DIR}/elsewhere/build/CMakeCache.txt "CMAKE_HOME_DIRECTORY:INTERNAL=${SOURCE_DIR}\n")
expect(default-model-build-folder-anywhere 0 "^file +${SOURCE_DIR}/sdk/models/default.amxqa " "^$"
  COMMAND ${no_env} ${moved_cli} inspect)

if(failures GREATER 0)
  message(FATAL_ERROR "${failures} CLI check(s) failed")
endif()
