// corpus_data.h — the run's pretraining pieces (data/pieces.h), tokenized
// once and cached in out/pieces.bin, keyed by the tokenizer and the [data]
// settings; plus the validation split and a DocSource over training pieces.
#pragma once
#include <memory>

#include "data/pieces.h"
#include "stages/run_context.h"
#include "stages/train_loop.h"

namespace amxqa::train {

struct Corpus {
  PieceStore store;
  DataSplit split;
  std::vector<Example> val;  // validation pieces as documents
};
std::unique_ptr<Corpus> load_corpus(const RunContext& ctx, const RunTokenizer& tok);

// A piece as a pretraining document: every position predicts the next token.
void piece_example(const PieceStore& store, uint32_t piece, Example& out);

class PieceSource : public DocSource {
 public:
  PieceSource(const Corpus& c, uint64_t seed) : corpus_(c), order_(c.split.train, seed) {}
  const Example& at(uint64_t cursor) override {
    piece_example(corpus_.store, order_.at(cursor), slot_);
    return slot_;
  }
 private:
  const Corpus& corpus_;
  PieceOrder order_;
  Example slot_;
};

}  // namespace amxqa::train
