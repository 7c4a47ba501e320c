// summary.cpp — see summary.h.
#include "report/summary.h"

#include <cmath>
#include <string>
#include <tuple>

#include "report/rooflines.h"

namespace amxqa::bench {
namespace {

const double kNaN = std::nan("");

double counter(const BenchResult* r, const char* name) {
  if (!r) return kNaN;
  auto it = r->counters.find(name);
  return it == r->counters.end() ? kNaN : it->second;
}

double positive_or_nan(double v) { return v > 0 ? v : kNaN; }

// tok/s of `bench`'s 1-thread row, and its 2-thread row's over it.
std::pair<double, double> thread_scaling(const ResultSet& runs, const std::string& bench) {
  const double one = counter(runs.find(bench + "/trainer_threads:1"), "tok_s");
  const double two = counter(runs.find(bench + "/trainer_threads:2"), "tok_s");
  return {one, two / one};
}

}  // namespace

Summary make_summary(const ResultSet& runs, const CpuIdentity& cpu) {
  const Rooflines& roof = rooflines();
  const BenchResult* answer = runs.find("BM_model_answer_auto");
  const BenchResult* decode = runs.find("BM_model_decode_auto");
  // Training: the fastest path the CPU has (f32, AMX tiles or vdpbf16ps).
  const BenchResult* train = nullptr;
  for (const char* row : {"BM_train_step_reference", "BM_train_step_reference_amx",
                          "BM_train_step_reference_bf16"}) {
    const BenchResult* r = runs.find(row);
    if (r && r->error.empty() && (!train || counter(r, "tok_s") > counter(train, "tok_s"))) train = r;
  }
  Summary s;
  s.cpu = cpu.cpu_id;
  s.backend = answer && !answer->label.empty() ? answer->label : cpu.best_isa;
  s.peak_fp32_gflops = positive_or_nan(roof.fp32_gflops());
  s.peak_bf16_gflops = positive_or_nan(roof.bf16_gflops);
  for (const auto& [bytes, gbs] : roof.read_gbs) s.bw_gbs.emplace_back(size_label(bytes), gbs);
  s.prefill_tok_s = counter(answer, "prefill_tok_s");
  s.prefill_roofline_frac = counter(answer, "roofline_frac");
  s.decode_tok_s = counter(decode, "tok_s");
  s.decode_roofline_frac = counter(decode, "roofline_frac");
  s.answer_p50_ms = counter(answer, "p50_ms");
  s.answer_p99_ms = counter(answer, "p99_ms");
  s.session_bytes = counter(answer, "session_bytes");
  s.model_bytes = counter(answer, "model_bytes");
  s.train_tok_s = counter(train, "tok_s");
  s.train_roofline_frac = counter(train, "roofline_frac");
  std::tie(s.train_qa_sft_tok_s, s.train_qa_sft_2thread_speedup) =
      thread_scaling(runs, "BM_train_step_qa_sft");
  std::tie(s.train_pretrain_tok_s, s.train_pretrain_2thread_speedup) =
      thread_scaling(runs, "BM_train_step_pretrain");
  const std::string prefix = "BM_default_model_answer_";
  for (const BenchResult& r : runs.results()) {
    if (r.name.rfind(prefix, 0) != 0 || !r.error.empty()) continue;
    const std::string isa = r.name.substr(prefix.size(), r.name.find('/') - prefix.size());
    s.shipped_p50_ms.emplace_back(isa, counter(&r, "p50_ms"));
    s.shipped_prefill_roofline_frac.emplace_back(isa, counter(&r, "roofline_frac"));
    s.shipped_decode_share.emplace_back(isa, counter(&r, "decode_share"));
  }
  return s;
}

std::vector<std::pair<const char*, double>> summary_numbers(const Summary& s) {
  return {
      {"peak_fp32_gflops", s.peak_fp32_gflops}, {"peak_bf16_gflops", s.peak_bf16_gflops},
      {"prefill_tok_s", s.prefill_tok_s},       {"prefill_roofline_frac", s.prefill_roofline_frac},
      {"decode_tok_s", s.decode_tok_s},         {"decode_roofline_frac", s.decode_roofline_frac},
      {"answer_p50_ms", s.answer_p50_ms},       {"answer_p99_ms", s.answer_p99_ms},
      {"session_bytes", s.session_bytes},       {"model_bytes", s.model_bytes},
      {"train_tok_s", s.train_tok_s},           {"train_roofline_frac", s.train_roofline_frac},
      {"train_qa_sft_tok_s", s.train_qa_sft_tok_s},
      {"train_qa_sft_2thread_speedup", s.train_qa_sft_2thread_speedup},
      {"train_pretrain_tok_s", s.train_pretrain_tok_s},
      {"train_pretrain_2thread_speedup", s.train_pretrain_2thread_speedup}};
}

std::vector<std::pair<const char*, const std::vector<std::pair<std::string, double>>*>>
shipped_objects(const Summary& s) {
  return {{"shipped_model_p50_ms", &s.shipped_p50_ms},
          {"shipped_model_prefill_roofline_frac", &s.shipped_prefill_roofline_frac},
          {"shipped_model_decode_share", &s.shipped_decode_share}};
}

}  // namespace amxqa::bench
