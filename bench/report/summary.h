// summary.h — the headline figures of one run, with exactly the keys the
// result file's "summary" object carries. A figure that was not measured is
// NaN here and null in JSON.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "report/result_set.h"
#include "report/cpu_identity.h"

namespace amxqa::bench {

struct Summary {
  std::string cpu, backend;
  double peak_fp32_gflops, peak_bf16_gflops;
  std::vector<std::pair<std::string, double>> bw_gbs;  // "32KiB" → GB/s
  double prefill_tok_s, prefill_roofline_frac;
  double decode_tok_s, decode_roofline_frac;
  double answer_p50_ms, answer_p99_ms;
  double session_bytes, model_bytes;
  // The fastest of BM_train_step_reference (f32), _amx (tiles), _bf16 (vdpbf16ps).
  double train_tok_s, train_roofline_frac;
  // The trainer's threaded steps (BM_train_step_{qa_sft,pretrain}/trainer_threads:N):
  // tok/s on 1 thread, and the 2-thread row's tok/s over it.
  double train_qa_sft_tok_s, train_qa_sft_2thread_speedup;
  double train_pretrain_tok_s, train_pretrain_2thread_speedup;
  // The shipped model per backend that ran (BM_default_model_answer_<isa>):
  // backend name → value, like bw_gbs.
  std::vector<std::pair<std::string, double>> shipped_p50_ms, shipped_prefill_roofline_frac,
      shipped_decode_share;
};

// Picks the figures out of the runs: the "auto" model benchmarks,
// the rooflines, the training step.
Summary make_summary(const ResultSet& runs, const CpuIdentity& cpu);

// The number keys in file order (bw_gbs, the shipped_* objects, cpu and
// backend are handled apart).
std::vector<std::pair<const char*, double>> summary_numbers(const Summary& s);

// The shipped-model objects in file order: key → backend → value.
std::vector<std::pair<const char*, const std::vector<std::pair<std::string, double>>*>>
shipped_objects(const Summary& s);

}  // namespace amxqa::bench
