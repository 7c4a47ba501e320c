// squad_examples.h — SQuAD questions as training documents in the prompt
// format of schemas/MODEL.md:
//   BOS enc(question) enc("\n\n") enc(passage) ANS  target… EOT
// (with the question re-read, enc("\n\n") enc(question) again before ANS).
// The answer target is the passage tokens covering the answer's bytes (the
// token holding its first byte through the token holding its last byte),
// then EOT; an abstention target is ABSTAIN, EOT. Only target positions are
// trained (target_mask marks the positions that predict them).
#pragma once
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "squad_file.h"
#include "tokenizer/tokenizer.h"

namespace amxqa::train {

struct Example {
  std::vector<uint32_t> tokens;
  std::vector<uint8_t> mask;        // mask[t] = 1: position t predicts tokens[t+1]
  uint32_t passage_begin = 0, passage_end = 0;  // passage token range in tokens
  uint32_t answer_begin = 0;  // position of the answer's first token (0: abstain / none)
  bool abstain = false;
};

// Byte range [begin, end) of the answer inside `context`, trimmed of ASCII
// white space. When the answer text occurs several times, the occurrence is
// chosen by this heuristic (ours): each question word (lower-cased, letters
// and digits, length >= 3, minus a small stop-word list) that occurs within
// kAnswerWindowBytes of an occurrence adds (kAnswerWindowBytes - distance) to
// that occurrence's score, distance being the bytes between the word and the
// answer text; the highest score wins, ties go to the occurrence nearest
// `hint` (the file's answer_start, -1: the first occurrence).
// Returns false when the text does not occur.
constexpr size_t kAnswerWindowBytes = 200;
bool locate_answer(const std::string& context, const std::string& question, const std::string& answer,
                   int64_t hint, size_t* begin, size_t* end);

// Passage tokens [first, last] covering the bytes [begin, end) given each
// token's start offset (ascending, offsets[0] == 0) and the passage length.
bool answer_token_span(const std::vector<uint32_t>& offsets, size_t passage_len, size_t begin, size_t end,
                       uint32_t* first, uint32_t* last);

// The prompt BOS q "\n\n" passage ANS, with the passage's token offsets.
struct Prompt {
  std::vector<uint32_t> tokens;
  std::vector<uint32_t> passage_offsets;  // start byte of each passage token
  uint32_t passage_begin = 0, passage_end = 0;
};
Prompt build_prompt(const TokenizerView& tok, const std::string& question, const std::string& passage);

// An answerable example; false when the span cannot be mapped (answer not in
// the passage) or the document would exceed max_tokens.
bool build_answer_example(const TokenizerView& tok, const std::string& question, const std::string& passage,
                          size_t answer_begin, size_t answer_end, size_t max_tokens, Example* out);
// The target is a given byte range of the passage (instruction SFT).
inline bool build_span_example(const TokenizerView& tok, const std::string& instruction,
                               const std::string& passage, size_t begin, size_t end, size_t max_tokens,
                               Example* out) {
  return build_answer_example(tok, instruction, passage, begin, end, max_tokens, out);
}
bool build_abstain_example(const TokenizerView& tok, const std::string& question, const std::string& passage,
                           size_t max_tokens, Example* out);

// MODEL.md "Question re-read": the separator and the question again between
// the passage and ANS (BOS q "\n\n" p "\n\n" q ANS target…), the mask moved
// along; the passage range and answer_begin stay. Applied to finished
// examples, so a run with the flag trains on exactly the examples (crops,
// skips, the max_tokens cap on the prompt without the re-read) of one
// without it. A document without a passage is left as it is.
void reread_question(const TokenizerView& tok, Example* ex);

// True when any answer occurs in the text, ASCII case-insensitively.
bool contains_any_answer(const std::string& text, const std::vector<std::string>& answers);

// Unanswerable pairs: a question with another paragraph of the same article
// that contains none of its answers. One candidate per question at most,
// chosen by seed. Returns (paragraph index of the question, qa index, other paragraph).
struct AbstainPair {
  size_t article, paragraph, qa, other;
};
std::vector<AbstainPair> abstain_pairs(const std::vector<eval::SquadArticle>& articles, uint64_t seed);

}  // namespace amxqa::train
