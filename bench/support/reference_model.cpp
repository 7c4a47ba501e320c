// reference_model.cpp — see reference_model.h.
#include "support/reference_model.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>

#include "amxqa_paths.h"
#include "model/model.h"
#include "format/model_writer.h"
#include "format/random_model.h"
#include "squad_file.h"

namespace amxqa::bench {
namespace {

// Owns the temporary model file and its mapping for the process lifetime.
struct ModelHolder {
  ReferenceModel ref;
  bool remove_file = false;
  alignas(64) unsigned char storage[AMXQA_MODEL_STORAGE_BYTES];
  std::string error;
  ~ModelHolder() {
    if (ref.data) munmap(const_cast<unsigned char*>(ref.data), ref.size);
    if (remove_file) unlink(ref.path.c_str());
  }
};

DType largest_matrix_dtype(const amxqa_model& m) {
  return m.n_layers ? m.layers[0].wq.dtype : m.tok_emb.dtype;
}

bool build(ModelHolder& h) {
  if (const char* env = std::getenv("AMXQA_BENCH_MODEL")) {
    h.ref.path = env;
    h.ref.source = std::string("$AMXQA_BENCH_MODEL=") + env;
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/amxqa-bench-model-XXXXXX";
    std::vector<char> name(path.begin(), path.end());
    name.push_back('\0');
    const int fd = mkstemp(name.data());
    if (fd < 0) {
      h.error = "cannot create a temporary model file";
      return false;
    }
    close(fd);
    h.ref.path = name.data();
    h.remove_file = true;
    try {
      write_file(h.ref.path, write_model(make_random_model("reference", 1, DType::bf16)));
    } catch (const std::exception& e) {
      h.error = std::string("make_random_model(\"reference\"): ") + e.what();
      return false;
    }
    h.ref.source = "make_random_model(\"reference\", seed 1, bf16)";
  }
  const int fd = open(h.ref.path.c_str(), O_RDONLY);
  struct stat st;
  if (fd < 0 || fstat(fd, &st) != 0 || st.st_size <= 0) {
    if (fd >= 0) close(fd);
    h.error = "cannot open model file " + h.ref.path;
    return false;
  }
  h.ref.size = size_t(st.st_size);
  void* p = mmap(nullptr, h.ref.size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED) {
    h.error = "cannot mmap " + h.ref.path;
    return false;
  }
  h.ref.data = static_cast<const unsigned char*>(p);
  const amxqa_status st_open = amxqa_model_open(h.ref.data, h.ref.size, h.storage, &h.ref.model);
  if (st_open != AMXQA_OK) {
    h.error = std::string("amxqa_model_open: ") + amxqa_status_name(st_open) + ": " +
              amxqa_last_error(nullptr);
    h.ref.model = nullptr;
    return false;
  }
  amxqa_model_get_info(h.ref.model, &h.ref.info);
  h.ref.weight_dtype = largest_matrix_dtype(*h.ref.model);
  return true;
}

}  // namespace

namespace {
const ReferenceModel* g_built = nullptr;
}

const ReferenceModel* reference_model(std::string* error) {
  static ModelHolder holder;
  static const bool ok = build(holder);
  if (!ok) {
    if (error) *error = holder.error;
    return nullptr;
  }
  g_built = &holder.ref;
  return &holder.ref;
}

const ReferenceModel* reference_model_if_built() { return g_built; }

std::string squad_dev_path() {
  const char* env = std::getenv("AMXQA_DATA");
  // Default: the shared data folder beside the checkout this binary was built in.
  const std::string root = env && *env ? env : amxqa::paths::checkout_root() + "/../shared/data";
  return root + "/squad/dev-v1.1-open.json.gz";
}

const std::vector<QaPair>& squad_dev_pairs(std::string* error) {
  static std::string load_error;
  static const std::vector<QaPair> pairs = [] {
    std::vector<QaPair> out;
    try {
      // The first question of each paragraph (the passages are what is timed).
      for (const eval::SquadArticle& article : eval::load_squad(squad_dev_path()))
        for (const eval::SquadParagraph& para : article.paragraphs)
          if (!para.qas.empty() && !para.qas.front().question.empty())
            out.push_back({para.qas.front().question, para.context});
      if (out.empty()) throw std::runtime_error("no questions");
    } catch (const std::exception& e) {
      load_error = squad_dev_path() + ": " + e.what();
      out.clear();
    }
    return out;
  }();
  if (pairs.empty() && error) *error = load_error;
  return pairs;
}

uint64_t weight_view_bytes(const WeightView& w) {
  const uint64_t n = uint64_t(w.rows) * w.cols;
  switch (w.dtype) {
    case DType::f32:
      return n * 4;
    case DType::bf16:
      return n * 2;
    case DType::i8:
      return n + uint64_t(w.rows) * 4;
  }
  return 0;
}

double prefill_flops(const amxqa_model& m, uint64_t n) {
  const double d = m.d_model, H = m.n_heads, hd = m.head_dim, dk = m.lin_state;
  const double E = m.moe_experts ? m.moe_experts : 1, k = m.moe_top_k;
  // Keys each query attends to, summed over the prompt: Σ_p min(p + 1, W).
  const double W = m.window;
  const double nn = double(n);
  const double keys = nn <= W ? nn * (nn + 1) / 2 : W * (W + 1) / 2 + (nn - W) * W;
  double per_token = 0.0, attention = 0.0;
  for (uint32_t l = 0; l < m.n_layers; ++l) {
    const LayerWeights& L = m.layers[l];
    double params = double(L.wq.rows) * L.wq.cols + double(L.wk.rows) * L.wk.cols +
                    double(L.wv.rows) * L.wv.cols + double(L.wo.rows) * L.wo.cols;
    if (L.moe)
      params +=
          k / E * (double(L.moe_w1.rows) * L.moe_w1.cols + double(L.moe_w2.rows) * L.moe_w2.cols);
    else
      params += double(L.w1.rows) * L.w1.cols + double(L.w2.rows) * L.w2.cols;
    per_token += 2.0 * params;
    if (L.kind == 1) {
      per_token += 2.0 * H * d + 5.0 * H * dk * hd;  // decay projection, state update + read
    } else {
      attention += 4.0 * H * hd * keys;
    }
  }
  return per_token * nn + attention;
}

uint64_t decode_weight_bytes(const amxqa_model& m, uint32_t readout_rows) {
  uint64_t bytes = 0;
  for (uint32_t l = 0; l < m.n_layers; ++l) {
    const LayerWeights& L = m.layers[l];
    bytes += weight_view_bytes(L.wq) + weight_view_bytes(L.wk) + weight_view_bytes(L.wv) +
             weight_view_bytes(L.wo);
    bytes += 2ull * m.d_model * 4;                                        // the two norm gains
    if (L.kind == 1) bytes += uint64_t(m.n_heads) * (m.d_model + 1) * 4;  // wa, ba
    if (L.moe && m.moe_experts)
      bytes +=
          (weight_view_bytes(L.moe_w1) + weight_view_bytes(L.moe_w2)) / m.moe_experts * m.moe_top_k;
    else
      bytes += weight_view_bytes(L.w1) + weight_view_bytes(L.w2);
  }
  const uint64_t row = m.vocab_size ? weight_view_bytes(m.tok_emb) / m.vocab_size : 0;
  return bytes + row * (1 + uint64_t(readout_rows)) + uint64_t(m.d_model) * 4;  // + final_norm
}

}  // namespace amxqa::bench
