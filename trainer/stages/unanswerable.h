// unanswerable.h — unanswerable questions made from SQuAD train only, in the
// five kinds that look answerable (SQuAD 2.0's own writers used the same
// tricks: Rajpurkar et al., 2018, table 3):
//   other_paragraph  the question over another paragraph of its article that
//                    holds none of its answers (same topic, same names; half
//                    of them the paragraph sharing the most question words);
//   answer_removed   its own paragraph with every sentence that holds an
//                    answer removed (the context stays, the fact goes);
//   entity_swap      its own paragraph, but a name or number of the question
//                    that the paragraph contains is swapped for one of the
//                    same article that the paragraph does not contain;
//   negation         its own paragraph, the question negated after its first
//                    auxiliary verb ("was built" -> "was not built");
//   antonym_swap     its own paragraph, a word of the question swapped for its
//                    antonym ("largest" -> "smallest") that the paragraph lacks.
// A recipe picks the kinds (sft_qa.unanswerable_kinds; the first three by
// default, which is what model v2 was trained on) and how often
// other_paragraph takes the most similar paragraph (sft_qa.hard_negative_frac,
// default 0: always a random one).
// Each kind returns false when it cannot make a sound example (the caller
// then tries another kind or keeps the answerable one).
#pragma once
#include <string>

#include "data/rng.h"
#include "squad_file.h"

namespace amxqa::train {

enum class UnanswerableKind { other_paragraph, answer_removed, entity_swap, negation, antonym_swap };
constexpr int kUnanswerableKinds = 5;
const char* unanswerable_kind_name(UnanswerableKind k);

// Bit k set: kind k is used. Default: other_paragraph, answer_removed, entity_swap.
constexpr uint32_t kDefaultUnanswerableKinds = 0x7;
// "other_paragraph answer_removed ..." (space-separated names) -> bits; throws on an unknown name.
uint32_t parse_unanswerable_kinds(const std::string& names);

struct UnanswerableMix {
  double frac = 0.0;                            // share of QA examples replaced
  uint32_t kinds = kDefaultUnanswerableKinds;   // which kinds (bits)
  double hard_frac = 0.0;                       // other_paragraph: most similar paragraph this often
};

struct Unanswerable {
  std::string question, passage;
};

// From question `q` of paragraph `p` of article `a`.
bool make_unanswerable(const std::vector<eval::SquadArticle>& train, size_t a, size_t p, size_t q, UnanswerableKind kind,
                       double hard_frac, Rng& rng, Unanswerable* out);

}  // namespace amxqa::train
