#include "probes/probes.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "data/rng.h"

namespace amxqa::train {
namespace {

std::vector<std::string> distinct_words(Rng& rng, size_t n, size_t len) {
  std::vector<std::string> out;
  while (out.size() < n) {
    std::string w;
    for (size_t i = 0; i < len; ++i) w += static_cast<char>('a' + rng.below(26));
    if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
  }
  return out;
}

std::string join(const std::vector<std::string>& w, size_t b, size_t e) {
  std::string s;
  for (size_t i = b; i < e; ++i) s += (i > b ? " " : "") + w[i];
  return s;
}

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

constexpr size_t kListLen = 14;

}  // namespace

std::vector<ProbeSet> make_probes(uint64_t seed, size_t n) {
  Rng rng(seed ^ 0x70726f6265ull);  // "probe"
  ProbeSet induction{"induction", 1.0 / kListLen, {}};
  ProbeSet shift{"shift", 1.0 / kListLen, {}};
  ProbeSet addition{"addition", 0, {}};
  for (size_t i = 0; i < n; ++i) {
    {
      auto w = distinct_words(rng, kListLen, 2);
      size_t k = 2 + rng.below(7);
      std::string seq = join(w, 0, kListLen) + " " + join(w, 0, k);
      induction.items.push_back({seq, "Which word comes next?", seq, " " + w[k]});
    }
    {
      auto w = distinct_words(rng, kListLen, 1);
      size_t k = 2 + rng.below(7);
      std::string seq = join(w, 0, kListLen) + "\n" + join(w, 1, 1 + k);
      shift.items.push_back({seq, "Which letter comes next?", seq, " " + w[1 + k]});
    }
    {
      unsigned a = 10 + static_cast<unsigned>(rng.below(90)), b = 10 + static_cast<unsigned>(rng.below(90));
      std::string p = std::to_string(a) + "+" + std::to_string(b) + "=";
      addition.items.push_back({p, "What is the sum?", p, std::to_string(a + b)});
    }
  }
  std::map<std::string, size_t> freq;
  for (const auto& it : addition.items) ++freq[it.expected];
  size_t top = 0;
  for (const auto& kv : freq) top = std::max(top, kv.second);
  addition.chance = n ? double(top) / n : 0;
  return {induction, shift, addition};
}

bool probe_correct(const std::string& generated, const std::string& expected) {
  std::string g = generated;
  size_t b = 0;
  while (b < g.size() && std::isspace(static_cast<unsigned char>(g[b]))) ++b;
  g = g.substr(b);
  const std::string e = trim(expected);
  if (e.empty() || g.compare(0, e.size(), e) != 0) return false;
  return g.size() == e.size() || !std::isalnum(static_cast<unsigned char>(g[e.size()]));
}

std::vector<ProbeResult> run_probes(const std::vector<ProbeSet>& sets,
                                    const std::function<std::string(const ProbeItem&)>& generate) {
  std::vector<ProbeResult> out;
  for (const ProbeSet& s : sets) {
    ProbeResult r;
    r.name = s.name;
    r.chance = s.chance;
    size_t ok = 0;
    for (const ProbeItem& it : s.items) {
      std::string g = generate(it);
      ok += probe_correct(g, it.expected);
      if (r.examples.size() < 3) r.examples.emplace_back(it.expected, g);
    }
    r.n = s.items.size();
    r.accuracy = r.n ? double(ok) / r.n : 0;
    out.push_back(r);
  }
  return out;
}

}  // namespace amxqa::train
