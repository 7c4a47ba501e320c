// cloze.h — reading practice made from plain paragraphs (model v4; after
// Lewis et al., 2019, "Unsupervised Question Answering by Cloze
// Translation"). A sentence of the paragraph with a name, a number or a date
// taken out becomes a question about the gap, and the paragraph is its
// passage: Wikipedia holds millions of such questions, SQuAD 130k.
//
//   sentence  Their leader Rollo swore fealty to King Charles III in 911, and ...
//   answer    King Charles III      (a run of capitalised words, numbers and
//                                    dates, joined by "of", "the", "de" ...)
//   question  Who their leader Rollo swore fealty to in 911?
//
// The question is the wh-word (When for a year, a month or a number after
// "in", "since" ...; How many for another number; Who for a name that starts
// with a title or follows "by"; else What) and the clause around the gap
// without the answer: at most 12 words each side, cut at a comma, semicolon,
// colon or bracket once 3 are kept on the left and 5 in all on the right, a
// tenth of its other lower-case words dropped (Lewis et al.'s noise: the
// question must be read, not only matched).
//
// Its unanswerable twin (target ABSTAIN) keeps the passage and swaps another
// name or number of the question for one of the same kind that the paragraph
// mentions elsewhere (every word still matches the passage; the fact does
// not), else for one from an earlier paragraph that this one lacks; a
// question with neither gets the passage without the answer's sentence.
#pragma once
#include <string>
#include <vector>

#include "data/rng.h"

namespace amxqa::train {

struct Cloze {
  std::string question;
  size_t answer_begin = 0, answer_end = 0;  // the answer's bytes in the paragraph
  size_t sentence_begin = 0, sentence_end = 0;
  std::vector<std::string> question_entities;  // the question's names and numbers (twin swaps one)
};

struct ClozeTwin {
  std::string question, passage;
};

class ClozeMaker {
 public:
  // A cloze question on paragraph `p`; false when `p` has no sound one (no
  // name or number that occurs once, or too few words around it).
  bool question(const std::string& p, Rng& rng, Cloze* out);
  // The unanswerable twin of `c`, a question made from `p`.
  bool twin(const std::string& p, const Cloze& c, Rng& rng, ClozeTwin* out);

 private:
  void remember(const std::vector<std::string>& entities, Rng& rng);
  // Names and numbers of earlier paragraphs: [0] names, [1] numbers.
  std::vector<std::string> pool_[2];
  std::vector<std::string> paragraph_entities_;  // of the paragraph question() last read
};

}  // namespace amxqa::train
