// greedy.h — greedy generation from a TrainModel while training (eval-interval
// samples and probes on checkpoints). The shipped decoding path is the C API;
// this one follows MODEL.md's free mode: argmax over every id except PAD, BOS
// and ANS (and, when given, ids the vocabulary mask forbids), stop at EOT.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "model/train_model.h"
#include "tokenizer/tokenizer.h"

namespace amxqa::train {

// Continues `tokens` by up to max_new ids; returns the new ids (EOT included if emitted).
std::vector<uint32_t> greedy_continue(TrainModel& m, std::vector<uint32_t> tokens, size_t max_new,
                                      const std::vector<uint8_t>* vocab_mask = nullptr);

// BOS + enc(prompt) continued; returns the decoded new bytes ("<|eot|>" shown if emitted).
std::string greedy_text(TrainModel& m, const TokenizerView& tok, const std::string& prompt, size_t max_new);

}  // namespace amxqa::train
