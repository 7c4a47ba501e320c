// The tokenizer stage: byte-level BPE (trainer/tokenizer/bpe_train.h) trained
// on the first tokenizer.max_bytes of each tokenizer file, paragraph by paragraph.
#include <cstdio>
#include <stdexcept>

#include "gz_text.h"
#include "stages/stages.h"
#include "stages/tokenizer_file.h"
#include "tokenizer/bpe_train.h"

namespace amxqa::train {

void stage_tokenizer(RunContext& ctx) {
  const std::string out = ctx.out(kTokenizerFile);
  if (file_exists(out)) {
    std::fprintf(stderr, "[tokenizer] %s exists: skipped\n", out.c_str());
    return;
  }
  const RunConfig& c = ctx.cfg;
  if (c.tokenizer_files.empty()) throw std::runtime_error("recipe has no tokenizer.files or data.files");
  std::vector<std::string> docs;
  uint64_t bytes = 0;
  for (const auto& f : c.tokenizer_files) {
    uint64_t budget = c.tokenizer_max_bytes / c.tokenizer_files.size();
    eval::for_each_paragraph(f, budget, true, [&](const std::string& p) {
      docs.push_back(p);
      bytes += p.size();
      return true;
    });
  }
  std::fprintf(stderr, "[tokenizer] training BPE to vocab %u on %zu paragraphs (%s bytes)\n", c.arch.vocab_size,
               docs.size(), eval::format_count(double(bytes)).c_str());
  BpeTrainOptions opt;
  opt.max_chunk_len = static_cast<uint32_t>(ctx.recipe.integer("tokenizer.max_chunk_len", 64));
  opt.verbose = ctx.recipe.boolean("tokenizer.verbose", false);
  BpeTrainStats stats;
  Progress clock("tokenizer", 1, 0);
  TokenizerData tok = train_bpe(docs, c.arch.vocab_size, opt, &stats);
  save_tokenizer(out, tok);
  std::fprintf(stderr, "[tokenizer] %zu merges in %s -> %s\n", tok.merges.size(),
               format_duration(clock.elapsed()).c_str(), out.c_str());
  ctx.log->write({{"stage", "tokenizer"},
                  {"merges", tok.merges.size()},
                  {"documents", stats.documents},
                  {"bytes", stats.bytes},
                  {"unique_chunks", stats.unique_chunks},
                  {"elapsed_s", clock.elapsed()}});
}

}  // namespace amxqa::train
