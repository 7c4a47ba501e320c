// rss_probe.h — peak resident memory of answering, measured in a fresh child
// process (`amxqa-bench rss-probe MODEL QAFILE`): the harness itself holds the
// generated model's f32 tensors, the parsed SQuAD file and the 256 MiB
// bandwidth buffer, so its own getrusage peak says nothing about the library.
// The child maps the model, places one default session (4,096 passage tokens)
// and answers every question of QAFILE; its ru_maxrss is what a deployment
// that does only this would see.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "support/reference_model.h"

namespace amxqa::bench {

// Spawns the child on /proc/self/exe; returns its peak RSS in bytes, or -1
// with *error set.
int64_t measure_answer_peak_rss(const std::string& model_path, const std::vector<QaPair>& pairs,
                                std::string* error);

// The child's main(): argv = {"rss-probe", MODEL, QAFILE}. Returns 0 on success.
int rss_probe_main(int argc, char** argv);

// getrusage(RUSAGE_SELF) peak of this process, in bytes.
int64_t self_peak_rss_bytes();

}  // namespace amxqa::bench
