// bench_model.cpp — the whole runtime on the paper's reference shape
// (support/reference_model.h), one core, through the public C API:
//
//   BM_model_answer_<isa>   amxqa_answer over SQuAD dev passages (first
//                           question of each paragraph; all of them in a full
//                           run, a few in --quick). Counters: prefill tok/s
//                           and its fraction of the compute peak, answer
//                           latency p50/p90/p99, session workspace bytes
//                           (4,096 passage tokens), mapped model bytes and,
//                           for "auto", the peak RSS of a child process that
//                           only answers (support/rss_probe.h).
//   BM_model_decode_<isa>   one steady-state extractive decode step (forward
//                           of one token + readout of 8 allowed rows, what a
//                           step after the first computes). Counters: tok/s
//                           and its fraction of the bandwidth roofline: the
//                           weight bytes a step reads ÷ the measured read
//                           bandwidth of the cache level that holds them.
// <isa> is auto (what amxqa_session_init picks) and each hardware ISA the
// CPU has; a missing one reports "architecture unsupported".
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "amxqa.h"
#include "report/bench_options.h"
#include "report/rooflines.h"
#include "session/forward.h"
#include "session/session.h"
#include "support/answer_timing.h"
#include "support/reference_model.h"
#include "support/rss_probe.h"

namespace amxqa::bench {
namespace {

constexpr uint32_t kDecodeReadoutRows = 8;

// What every model benchmark needs: the model, the questions, a session.
struct Setup {
  const ReferenceModel* ref = nullptr;
  const std::vector<QaPair>* pairs = nullptr;
  std::unique_ptr<BenchSession> session;
};

// Fills `setup`; false (after SkipWithError) when the model, the questions
// or a session for `isa` cannot be had.
bool prepare(benchmark::State& state, amxqa_isa isa, Setup* setup) {
  std::string error;
  setup->ref = reference_model(&error);
  if (!setup->ref) {
    state.SkipWithError(error.c_str());
    return false;
  }
  setup->pairs = &squad_dev_pairs(&error);
  if (setup->pairs->empty()) {
    state.SkipWithError(error.c_str());
    return false;
  }
  setup->session = std::make_unique<BenchSession>(setup->ref->model, isa);
  const amxqa_status st = setup->session->status;
  if (st == AMXQA_ERR_UNSUPPORTED_ISA) {
    state.SkipWithError("architecture unsupported");
    return false;
  }
  if (st != AMXQA_OK) {
    const std::string msg = std::string("amxqa_session_init: ") + amxqa_status_name(st) + ": " +
                            amxqa_last_error(nullptr);
    state.SkipWithError(msg.c_str());
    return false;
  }
  return true;
}

size_t passage_count(bool primary, size_t available) {
  // A full run answers every passage on the summary backend (auto); the
  // explicit backends only show the ratio, and AVX2 answers take seconds.
  const size_t want = quick_mode() ? (primary ? 16 : 2) : (primary ? available : 24);
  return std::min(want, available);
}

void BM_model_answer(benchmark::State& state, amxqa_isa isa) {
  Setup setup;
  if (!prepare(state, isa, &setup)) return;
  const ReferenceModel* ref = setup.ref;
  const std::vector<QaPair>* pairs = setup.pairs;
  const size_t n = passage_count(isa == AMXQA_ISA_AUTO, pairs->size());
  amxqa_session* s = setup.session->s;

  char out[1024];
  amxqa_answer_info info = amxqa_answer_info_init();
  {  // warm-up: pages of the model and the session, tile configuration
    const QaPair& p = (*pairs)[0];
    amxqa_answer(s, p.question.data(), p.question.size(), p.passage.data(), p.passage.size(), out,
                 sizeof out, &info);
  }
  // Latency in thread CPU time (what the core spent; equal to wall time on an
  // idle machine, and not inflated by other processes on a shared one) and
  // in wall time. Prefill time is info.prefill_ns scaled by the same ratio.
  std::vector<double> latency_ms, wall_ms;
  latency_ms.reserve(n);
  wall_ms.reserve(n);
  double prefill_s = 0, flops = 0, prompt_tokens = 0, answer_tokens = 0, abstained = 0;
  size_t next = 0;
  for (auto _ : state) {
    const QaPair& p = (*pairs)[next++ % n];
    const TimedAnswer t = timed_answer(s, p, out, sizeof out, &info);
    if (t.status != AMXQA_OK && t.status != AMXQA_ERR_OUTPUT_TOO_SMALL) {
      const std::string msg =
          std::string("amxqa_answer: ") + amxqa_status_name(t.status) + ": " + amxqa_last_error(s);
      state.SkipWithError(msg.c_str());
      break;
    }
    wall_ms.push_back(t.wall_ms);
    latency_ms.push_back(t.cpu_ms);
    const uint64_t prompt = 2ull + info.question_tokens + s->n_sep + info.passage_tokens;
    prompt_tokens += double(prompt);
    flops += prefill_flops(*ref->model, prompt);
    prefill_s += double(info.prefill_ns) * 1e-9 * t.busy;
    answer_tokens += info.answer_tokens;
    abstained += info.abstained;
  }
  if (latency_ms.empty()) return;
  const double answers = double(latency_ms.size());
  const amxqa_isa ran = amxqa_session_isa(s);
  const double peak = rooflines().compute_peak(ran, ref->weight_dtype);
  state.SetLabel(amxqa_isa_name(ran));
  auto& c = state.counters;
  c["answers"] = answers;
  c["prefill_tok_s"] = prompt_tokens / prefill_s;
  c["prefill_GFLOP/s"] = flops / prefill_s / 1e9;
  if (peak > 0) c["roofline_frac"] = flops / prefill_s / 1e9 / peak;
  c["p50_ms"] = percentile(latency_ms, 0.50);
  c["p90_ms"] = percentile(latency_ms, 0.90);
  c["p99_ms"] = percentile(latency_ms, 0.99);
  c["p50_wall_ms"] = percentile(wall_ms, 0.50);
  c["p99_wall_ms"] = percentile(wall_ms, 0.99);
  c["prompt_tokens"] = prompt_tokens / answers;
  c["answer_tokens"] = answer_tokens / answers;
  c["abstain_frac"] = abstained / answers;
  c["session_bytes"] = double(setup.session->bytes);
  c["model_bytes"] = double(ref->size);
  if (isa == AMXQA_ISA_AUTO) {
    const std::vector<QaPair> few(pairs->begin(), pairs->begin() + std::min<size_t>(n, 32));
    std::string error;
    const int64_t rss = measure_answer_peak_rss(ref->path, few, &error);
    if (rss > 0)
      c["peak_rss_bytes"] = double(rss);
    else
      std::fprintf(stderr, "amxqa-bench: peak RSS not measured: %s\n", error.c_str());
  }
}

void BM_model_decode(benchmark::State& state, amxqa_isa isa) {
  Setup setup;
  if (!prepare(state, isa, &setup)) return;
  const ReferenceModel* ref = setup.ref;
  amxqa_session* s = setup.session->s;
  const QaPair& p = (*setup.pairs)[0];
  char out[1024];
  amxqa_answer(s, p.question.data(), p.question.size(), p.passage.data(), p.passage.size(), out,
               sizeof out, nullptr);
  // After the answer the session holds the prompt's state; keep decoding
  // from there. The KV windows shift and the routing ring wraps, so this
  // runs for any number of steps without touching the passage buffers.
  std::vector<uint32_t> ids(4096);
  const size_t np = std::min(
      amxqa_tokenize(ref->model, p.passage.data(), p.passage.size(), ids.data(), ids.size()),
      ids.size());
  if (np < kDecodeReadoutRows) return state.SkipWithError("passage too short");
  std::vector<float> logits(kDecodeReadoutRows);
  size_t i = 0;
  for (auto _ : state) {
    decode_step(s, ids[i % np]);
    readout_rows(s, ids.data() + (i % (np - kDecodeReadoutRows + 1)), kDecodeReadoutRows,
                 logits.data());
    benchmark::DoNotOptimize(logits.data());
    ++i;
  }
  const amxqa_isa ran = amxqa_session_isa(s);
  state.SetLabel(amxqa_isa_name(ran));
  const uint64_t bytes = decode_weight_bytes(*ref->model, kDecodeReadoutRows);
  uint64_t level = 0;
  const double bw = rooflines().bandwidth_for(bytes, &level);
  auto& c = state.counters;
  c["tok_s"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
  c["bytes"] = double(bytes);
  c["GB/s"] = benchmark::Counter(double(bytes) * double(state.iterations()) / 1e9,
                                 benchmark::Counter::kIsRate);
  if (bw > 0) {
    c["bw_level_bytes"] = double(level);
    c["roofline_tok_s"] = bw * 1e9 / double(bytes);
  }
  // roofline_frac is GB/s ÷ the level's bandwidth; the reporter adds it from
  // the "bytes" counter after the rate is final.
}

struct IsaCase {
  const char* name;
  amxqa_isa isa;
};
const IsaCase kIsas[] = {{"auto", AMXQA_ISA_AUTO},
                         {"avx2", AMXQA_ISA_AVX2},
                         {"avx512", AMXQA_ISA_AVX512},
                         {"amx", AMXQA_ISA_AMX}};

// Registered after main() parsed --quick: an answer benchmark runs exactly
// one pass over its passages, so its iteration count is the passage count.
void register_model_benchmarks() {
  std::string error;
  const size_t available = std::max<size_t>(squad_dev_pairs(&error).size(), 1);
  for (const IsaCase& c : kIsas) {
    const size_t n = passage_count(c.isa == AMXQA_ISA_AUTO, available);
    benchmark::RegisterBenchmark((std::string("BM_model_answer_") + c.name).c_str(),
                                 BM_model_answer, c.isa)
        ->Unit(benchmark::kMillisecond)
        ->Iterations(benchmark::IterationCount(n))
        ->Repetitions(1);  // one pass is already a distribution of n answers
  }
  for (const IsaCase& c : kIsas)
    benchmark::RegisterBenchmark((std::string("BM_model_decode_") + c.name).c_str(),
                                 BM_model_decode, c.isa)
        ->Unit(benchmark::kMicrosecond);
}

[[maybe_unused]] const bool kRegistered = [] {
  add_late_registration(register_model_benchmarks);
  return true;
}();

}  // namespace
}  // namespace amxqa::bench
