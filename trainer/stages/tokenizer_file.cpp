#include "stages/tokenizer_file.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace amxqa::train {

void save_tokenizer(const std::string& path, const TokenizerData& tok) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << "amxqa-tokenizer 1\nmax_chunk_len " << tok.max_chunk_len << "\nmerges " << tok.merges.size() << "\n";
    for (const auto& m : tok.merges) f << m.first << ' ' << m.second << '\n';
    if (!f) throw std::runtime_error("cannot write " + tmp);
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot write " + path);
}

TokenizerData load_tokenizer(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read tokenizer " + path + " (run the tokenizer stage first)");
  std::string magic, key;
  int version = 0;
  uint64_t n = 0;
  TokenizerData t;
  f >> magic >> version >> key >> t.max_chunk_len;
  if (magic != "amxqa-tokenizer" || version != 1 || key != "max_chunk_len")
    throw std::runtime_error(path + ": not an amxqa tokenizer file");
  f >> key >> n;
  if (key != "merges" || !f || n > (1u << 24)) throw std::runtime_error(path + ": bad merge count");
  t.merges.resize(n);
  for (auto& m : t.merges) f >> m.first >> m.second;
  if (!f) throw std::runtime_error(path + ": truncated");
  return t;
}

}  // namespace amxqa::train
