// sft_data.h — the post-training sets, all in the QA prompt format so every
// round teaches the shipped interface (BOS question "\n\n" passage ANS → span EOT,
// the question again before ANS with arch.question_reread):
//   round 1 (sft_stop)     instructions about a corpus paragraph whose answer is
//                          a span of it — first/last sentence, the sentence that
//                          mentions a name, the first word, the word after a
//                          given word — each target ending with EOT (ours: it
//                          teaches stopping on the same interface it ships with);
//   round 2 (sft_qa)       SQuAD train questions → answer span, EOT;
//   round 3 (sft_abstain)  answerable + made-up unanswerable (ABSTAIN, EOT) in
//                          the recipe's ratio.
// Every set is built deterministically from the seed; the last `val` examples
// are held out for validation loss.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "format/model_spec.h"
#include "squad_file.h"
#include "squad/squad_examples.h"
#include "stages/corpus_data.h"
#include "stages/train_loop.h"
#include "stages/unanswerable.h"

namespace amxqa::train {

struct SftSet {
  std::vector<Example> train, val;
  size_t skipped = 0;      // not mappable or longer than max_tokens
  size_t unanswerable = 0; // abstention examples in train
  size_t cloze = 0;        // cloze questions and their twins (build_stop_set), train and val
  size_t by_kind[kUnanswerableKinds] = {};   // of them, per UnanswerableKind (build_qa_set only)
  size_t real = 0;         // of them, human-written SQuAD 2.0 questions
};

// Human-written unanswerable questions (SQuAD 2.0's is_impossible, kept by
// parse_squad's keep_unanswerable) mixed into a set (model v3).
struct RealUnanswerableMix {
  double frac = 0.0;       // share of the set's training examples
  std::string provenance;  // space-separated provenance values kept; "" keeps all
};

// Sentences of a paragraph as byte ranges (split after . ! ? followed by a
// space and an upper-case letter or a digit).
std::vector<std::pair<size_t, size_t>> split_sentences(const std::string& text);

// Cloze questions in round 1 (model v4; stages/cloze.h): `frac` of the
// paragraphs give a cloze question instead of an instruction (when they hold
// one), and `twin_frac` of those questions are followed by their
// unanswerable twin (target ABSTAIN). Both 0: the instructions alone, and
// the same set as before the option existed.
struct ClozeMix {
  double frac = 0.0, twin_frac = 0.0;
};

SftSet build_stop_set(const std::vector<std::string>& paragraphs, const TokenizerView& tok, size_t n, size_t val,
                      size_t max_tokens, uint64_t seed, const ClozeMix& cloze = {});
// crop_frac (ours): that share of the training passages is cropped to the
// answer's sentence and 0–3 sentences on each side (drawn per example), so a
// step of the same tokens holds more questions; validation is never cropped.
// mix.frac (model v2): that share of the training examples is replaced by an
// unanswerable one made from the same question (stages/unanswerable.h, the
// recipe's kinds in turn; target ABSTAIN), cropped like answerable passages so
// length is no cue. Validation stays answerable.
// real.frac (model v3): that share of the training examples is a real
// unanswerable question on the paragraph it was written for (target
// ABSTAIN), cropped as answerable passages are (around its plausible answer
// when it has one), drawn from its own stream and taking its slot before the
// made-up kinds are drawn, so those keep their choices elsewhere.
SftSet build_qa_set(const std::vector<eval::SquadArticle>& train, const TokenizerView& tok, size_t n, size_t val,
                    size_t max_tokens, uint64_t seed, double crop_frac = 0.0, const UnanswerableMix& mix = {},
                    const RealUnanswerableMix& real = {});
// unanswerable_frac of the set abstains; of those, real.frac of the whole set
// (at most all of them) are real questions, the rest another paragraph's.
SftSet build_abstain_set(const std::vector<eval::SquadArticle>& train, const TokenizerView& tok, size_t n, size_t val,
                         double unanswerable_frac, size_t max_tokens, uint64_t seed,
                         const RealUnanswerableMix& real = {});

// The model's prompt format on a finished set, training and validation
// examples alike: with arch.question_reread, reread_question() on each
// (MODEL.md "Question re-read"); without it, nothing changes.
void apply_prompt_format(const ArchConfig& arch, const TokenizerView& tok, SftSet& set);

// Examples in a per-epoch shuffled order; with replay, a `replay_frac` share
// of cursors (chosen by hash) serve a pretraining piece instead.
class ExampleSource : public DocSource {
 public:
  ExampleSource(const std::vector<Example>& ex, uint64_t seed, const Corpus* replay, double replay_frac);
  const Example& at(uint64_t cursor) override;
 private:
  const std::vector<Example>& ex_;
  PieceOrder order_;
  std::unique_ptr<PieceSource> replay_;
  double replay_frac_;
  uint64_t seed_;
};

}  // namespace amxqa::train
