// bench_default_model.cpp — the shipped model (sdk/models/default.amxqa)
// answering open-dev SQuAD questions through the public C API, per backend:
//
//   BM_default_model_answer_<isa>   amxqa_answer on the first question of the
//       first 500 paragraphs of dev-v1.1-open (scalar: 100; 16 in --quick). Counters:
//       p50 / p99 answer time (thread CPU time, and wall), mean prefill and
//       decode time per answer and the decode share of their sum, prefill
//       tok/s and GFLOP/s, and roofline_frac: prefill GFLOP/s over the best
//       vector peak this run measured for the backend (AVX-512: the larger of
//       vdpbf16ps and fp32 FMA, since the kernel choice per CPU follows the
//       measured peaks; AVX2: fp32 FMA, bf16 weights being widened; AMX: the
//       tile peak). An int8 model is judged against the int8 peak instead
//       (AVX-512: vpdpbusd; AMX: the int8 tile rate, twice the bf16 one).
// <isa> is scalar, avx2, avx512 and amx; a backend this CPU or build cannot
// run is skipped ("architecture unsupported"). amx-emulated is left out: the
// emulator is a correctness tool, seconds per answer.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "amxqa.h"
#include "report/bench_options.h"
#include "report/rooflines.h"
#include "session/session.h"
#include "support/answer_timing.h"
#include "support/default_model.h"
#include "support/reference_model.h"

namespace amxqa::bench {
namespace {

constexpr size_t kQuestions = 500, kQuickQuestions = 16;
// The oracle takes about half a second per answer: 100 keep a full run short.
constexpr size_t kScalarQuestions = 100;

size_t question_count(amxqa_isa isa, size_t available) {
  const size_t want =
      quick_mode() ? kQuickQuestions : (isa == AMXQA_ISA_SCALAR ? kScalarQuestions : kQuestions);
  return std::min(want, available);
}

double best_vector_peak(amxqa_isa isa, const amxqa_model* model) {
  const Rooflines& r = rooflines();
  amxqa_model_info mi = amxqa_model_info_init();
  // int8 models on AVX-512 and AMX: the int8 peak (vpdpbusd; tiles: twice
  // the bf16 tile rate), which is what their int8 kernels run on.
  if (amxqa_model_get_info(model, &mi) == AMXQA_OK && std::string(mi.weight_dtype) == "int8" &&
      (isa == AMXQA_ISA_AVX512 || isa == AMXQA_ISA_AMX))
    return r.compute_peak(isa, DType::i8);
  switch (isa) {
    case AMXQA_ISA_AMX:
      return r.amx_bf16_gflops;
    case AMXQA_ISA_AVX512:
      return std::max(r.bf16_gflops, r.fp32_avx512_gflops);
    case AMXQA_ISA_AVX2:
      return r.fp32_avx2_gflops;
    default:  // the oracle is judged against what the core's vectors could reach
      return std::max({r.bf16_gflops, r.fp32_avx512_gflops, r.fp32_avx2_gflops});
  }
}

void BM_default_model_answer(benchmark::State& state, amxqa_isa isa) {
  std::string error;
  const DefaultModel* dm = default_model(&error);
  if (!dm) return state.SkipWithError(error.c_str());
  const std::vector<QaPair>& pairs = squad_dev_pairs(&error);
  if (pairs.empty()) return state.SkipWithError(error.c_str());
  BenchSession session(dm->model, isa);
  if (session.status == AMXQA_ERR_UNSUPPORTED_ISA ||
      (session.s && amxqa_session_isa(session.s) != isa))
    return state.SkipWithError("architecture unsupported");
  if (session.status != AMXQA_OK) {
    const std::string msg = std::string("amxqa_session_init: ") +
                            amxqa_status_name(session.status) + ": " + amxqa_last_error(nullptr);
    return state.SkipWithError(msg.c_str());
  }
  amxqa_session* s = session.s;
  const size_t n = question_count(isa, pairs.size());

  char out[1024];
  amxqa_answer_info info = amxqa_answer_info_init();
  amxqa_answer(s, pairs[0].question.data(), pairs[0].question.size(), pairs[0].passage.data(),
               pairs[0].passage.size(), out, sizeof out, &info);  // warm-up: pages, tiles
  std::vector<double> cpu_ms, wall_ms;
  cpu_ms.reserve(n);
  wall_ms.reserve(n);
  double prefill_s = 0, decode_s = 0, flops = 0, prompt_tokens = 0;
  size_t next = 0;
  for (auto _ : state) {
    const QaPair& p = pairs[next++ % n];
    const TimedAnswer t = timed_answer(s, p, out, sizeof out, &info);
    if (t.status != AMXQA_OK && t.status != AMXQA_ERR_OUTPUT_TOO_SMALL) {
      const std::string msg =
          std::string("amxqa_answer: ") + amxqa_status_name(t.status) + ": " + amxqa_last_error(s);
      state.SkipWithError(msg.c_str());
      break;
    }
    wall_ms.push_back(t.wall_ms);
    cpu_ms.push_back(t.cpu_ms);
    prefill_s += double(info.prefill_ns) * 1e-9 * t.busy;
    decode_s += double(info.decode_ns) * 1e-9 * t.busy;
    const uint64_t prompt = 2ull + info.question_tokens + s->n_sep + info.passage_tokens;
    prompt_tokens += double(prompt);
    flops += prefill_flops(*dm->model, prompt);
  }
  if (cpu_ms.empty() || prefill_s <= 0) return;
  const double answers = double(cpu_ms.size());
  const double peak = best_vector_peak(isa, dm->model);
  state.SetLabel(amxqa_isa_name(isa));
  auto& c = state.counters;
  c["answers"] = answers;
  c["p50_ms"] = percentile(cpu_ms, 0.50);
  c["p99_ms"] = percentile(cpu_ms, 0.99);
  c["p50_wall_ms"] = percentile(wall_ms, 0.50);
  c["p99_wall_ms"] = percentile(wall_ms, 0.99);
  c["prefill_ms"] = prefill_s * 1e3 / answers;
  c["decode_ms"] = decode_s * 1e3 / answers;
  c["decode_share"] = decode_s / (prefill_s + decode_s);
  c["prompt_tokens"] = prompt_tokens / answers;
  c["prefill_tok_s"] = prompt_tokens / prefill_s;
  c["prefill_GFLOP/s"] = flops / prefill_s / 1e9;
  if (peak > 0) {
    c["peak_GFLOP/s"] = peak;
    c["roofline_frac"] = flops / prefill_s / 1e9 / peak;
  }
}

struct IsaCase {
  const char* name;
  amxqa_isa isa;
};
const IsaCase kIsas[] = {{"scalar", AMXQA_ISA_SCALAR},
                         {"avx2", AMXQA_ISA_AVX2},
                         {"avx512", AMXQA_ISA_AVX512},
                         {"amx", AMXQA_ISA_AMX}};

// Registered after main() parsed --quick: one pass over the questions, so the
// iteration count is the question count.
void register_default_model_benchmarks() {
  std::string error;
  const size_t available = std::max<size_t>(squad_dev_pairs(&error).size(), 1);
  for (const IsaCase& c : kIsas)
    benchmark::RegisterBenchmark((std::string("BM_default_model_answer_") + c.name).c_str(),
                                 BM_default_model_answer, c.isa)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(benchmark::IterationCount(question_count(c.isa, available)))
        ->Repetitions(1);  // one pass is already a distribution of n answers
}

[[maybe_unused]] const bool kRegistered = [] {
  add_late_registration(register_default_model_benchmarks);
  return true;
}();

}  // namespace
}  // namespace amxqa::bench
