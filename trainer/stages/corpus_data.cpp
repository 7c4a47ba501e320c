#include "stages/corpus_data.h"

#include <cstdio>
#include <stdexcept>

#include "gz_text.h"
#include "progress_line.h"

namespace amxqa::train {

void piece_example(const PieceStore& store, uint32_t piece, Example& out) {
  size_t n = 0;
  const uint32_t* p = store.piece(piece, &n);
  out.tokens.assign(p, p + n);
  out.mask.assign(n, 1);
  if (n) out.mask[n - 1] = 0;
  out.passage_begin = out.passage_end = 0;
  out.abstain = false;
}

std::unique_ptr<Corpus> load_corpus(const RunContext& ctx, const RunTokenizer& tok) {
  const RunConfig& c = ctx.cfg;
  if (c.data_files.empty()) throw std::runtime_error("recipe has no data.files");
  CorpusOptions opt;
  opt.files = c.data_files;
  opt.max_bytes = c.data_max_bytes;
  opt.seq_len = c.seq_len;
  opt.min_doc_bytes = c.min_doc_bytes;
  opt.join_lines = ctx.recipe.boolean("data.join_lines", true);
  // Cache key: everything that changes the pieces.
  std::string key_text = "v1|" + std::to_string(opt.max_bytes) + "|" + std::to_string(opt.seq_len) + "|" +
                         std::to_string(opt.min_doc_bytes) + "|" + std::to_string(opt.join_lines) + "|" +
                         std::to_string(c.arch.vocab_size) + "|" + std::to_string(tok.data.max_chunk_len);
  for (const auto& f : opt.files) key_text += "|" + eval::data_digest(f);
  uint64_t key = eval::fnv1a64(key_text.data(), key_text.size());
  key = eval::fnv1a64(tok.data.merges.data(), tok.data.merges.size() * sizeof(tok.data.merges[0]), key);

  auto corpus = std::make_unique<Corpus>();
  const std::string cache = ctx.out("pieces.bin");
  Progress clock("data", 1, 0);
  if (!load_pieces(cache, key, corpus->store)) {
    console::ProgressLine line(stderr, 0.0, console::kLogLineSeconds);
    corpus->store = build_pieces(tok.owned.view, opt, [&](uint64_t bytes) {
      if (line.due()) line.show("[data] tokenized " + eval::format_count(double(bytes)) + " bytes");
    });
    line.finish();
    save_pieces(cache, corpus->store, key);
  }
  corpus->split = split_pieces(corpus->store.size(), c.val_pieces, c.seed);
  for (uint32_t v : corpus->split.val) {
    corpus->val.emplace_back();
    piece_example(corpus->store, v, corpus->val.back());
  }
  std::fprintf(stderr, "[data] %zu pieces, %s tokens (%zu validation pieces) in %s\n", corpus->store.size(),
               eval::format_count(double(corpus->store.token_count())).c_str(), corpus->split.val.size(),
               format_duration(clock.elapsed()).c_str());
  return corpus;
}

}  // namespace amxqa::train
