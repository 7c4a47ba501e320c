// amxqa.hpp — header-only C++17 RAII wrapper over the libamxqa C API (amxqa.h).
//
//   amxqa::Model model = amxqa::Model::open_file("default.amxqa");   // mmap
//   if (!model.ok()) { std::fprintf(stderr, "%s\n", model.status().message.c_str()); return 1; }
//   amxqa::Session session = amxqa::Session::create(model);            // one aligned buffer
//   if (!session.ok()) { ... session.status().message ... }
//   amxqa::Answer a = session.answer("Who designed the tower?", passage);
//   if (a.ok()) std::puts(a.abstained ? "(no answer)" : a.text.c_str());
//
// No exceptions: every call reports an amxqa_status (builds with -fno-exceptions).
// Ownership: a Model owns its bytes (an mmap of the file or an aligned copy)
// and its handle storage; a Session owns the aligned buffer it lives in,
// allocated once at creation, and keeps its Model's bytes alive, so a Session
// may outlive the Model object it was created from. The library itself never
// allocates after Session creation; this wrapper allocates only the answer
// text (reuse an Answer with Session::answer(q, p, &answer) to keep even that
// out of the loop once its capacity is reached).
#ifndef AMXQA_HPP
#define AMXQA_HPP

#include <amxqa.h>

#include <cerrno>
#include <cmath>  // NAN: set_threshold(NAN) restores the session's threshold
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#define AMXQA_HPP_HAVE_MMAP 1
#endif

namespace amxqa {

// A status code with the library's message for it ("" when OK).
struct Status {
  amxqa_status code = AMXQA_OK;
  std::string message;

  bool ok() const { return code == AMXQA_OK; }
  explicit operator bool() const { return ok(); }
  const char* name() const { return amxqa_status_name(code); }
};

namespace detail {

inline Status make_status(amxqa_status code, const char* message) {
  Status s;
  s.code = code;
  if (code != AMXQA_OK) {
    s.message = (message && *message) ? message : amxqa_status_name(code);
  }
  return s;
}

inline size_t round_up_64(size_t n) { return (n + 63) & ~static_cast<size_t>(63); }

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
using AlignedPtr = std::unique_ptr<void, FreeDeleter>;

// 64-byte aligned heap block (aligned_alloc needs a multiple of the alignment).
inline AlignedPtr aligned_block(size_t bytes) {
  return AlignedPtr(std::aligned_alloc(64, round_up_64(bytes == 0 ? 64 : bytes)));
}

}  // namespace detail

// A read-only mmap of a whole file (page-aligned, so 64-byte aligned), the
// way model files are meant to be loaded. Move-only; unmaps on destruction.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept { *this = std::move(o); }
  MappedFile& operator=(MappedFile&& o) noexcept {
    if (this != &o) {
      unmap();
      data_ = o.data_;
      size_ = o.size_;
      o.data_ = nullptr;
      o.size_ = 0;
    }
    return *this;
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() { unmap(); }

  // Maps `path`; on failure returns false with *error set. An empty file maps
  // to a valid aligned pointer with size 0 (so it is refused cleanly later).
  bool open(const std::string& path, std::string* error) {
    unmap();
#ifdef AMXQA_HPP_HAVE_MMAP
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return set(error, "cannot open '" + path + "': " + std::strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      return set(error, "'" + path + "' is not a regular file");
    }
    size_t size = static_cast<size_t>(st.st_size);
    if (size > 0) {
      void* p = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        int e = errno;
        ::close(fd);
        return set(error, "cannot map '" + path + "': " + std::strerror(e));
      }
      data_ = p;
      size_ = size;
    }
    ::close(fd);  // the mapping stays valid without the descriptor
    return true;
#else
    return set(error, "MappedFile needs mmap; read the file and use Model::open_bytes");
#endif
  }

  const void* data() const { return data_ ? data_ : empty(); }
  size_t size() const { return size_; }

 private:
  static const void* empty() {
    alignas(64) static const unsigned char kEmpty[64] = {0};
    return kEmpty;
  }
  static bool set(std::string* error, const std::string& message) {
    if (error) *error = message;
    return false;
  }
  void unmap() {
#ifdef AMXQA_HPP_HAVE_MMAP
    if (data_) munmap(data_, size_);
#endif
    data_ = nullptr;
    size_ = 0;
  }
  void* data_ = nullptr;
  size_t size_ = 0;
};

namespace detail {

// The model bytes and the handle placed in them; shared by a Model and every
// Session created from it, so the bytes live as long as any user.
struct ModelState {
  const void* data = nullptr;
  size_t size = 0;
  MappedFile mapping;                // data is this mapping (open_file)
  AlignedPtr owned_copy;                // data is this copy (open_bytes)
  AlignedPtr handle_storage;
  amxqa_model* handle = nullptr;
};

}  // namespace detail

// An open, verified model; check ok() after opening. Copies are cheap and
// share the same bytes and handle (the model is immutable).
class Model {
 public:
  Model() = default;

  // Maps the file read-only (page-aligned, hence 64-byte aligned) and opens it.
  static Model open_file(const std::string& path) {
    auto state = std::make_shared<detail::ModelState>();
    std::string error;
    if (!state->mapping.open(path, &error)) return fail(AMXQA_ERR_INVALID_ARGUMENT, "model file: " + error);
    state->data = state->mapping.data();
    state->size = state->mapping.size();
    Model m;
    m.state_ = std::move(state);
    m.finish_open();
    return m;
  }

  // Maps `path` and runs every validation check; on_failure(amxqa_status,
  // const char* message) is called once per failed check. Returns the first
  // failure, or an error when the file cannot be mapped.
  template <class OnFailure>
  static Status verify_file(const std::string& path, OnFailure&& on_failure) {
    struct Thunk {
      static void call(void* user, amxqa_status st, const char* msg) { (*static_cast<std::remove_reference_t<OnFailure>*>(user))(st, msg); }
    };
    MappedFile file;
    std::string error;
    if (!file.open(path, &error)) return detail::make_status(AMXQA_ERR_INVALID_ARGUMENT, ("model file: " + error).c_str());
    amxqa_status st = amxqa_model_verify(file.data(), file.size(), &Thunk::call, &on_failure);
    return detail::make_status(st, "model verification failed");
  }

  // Copies `len` bytes into an owned 64-byte aligned buffer and opens them.
  static Model open_bytes(const void* data, size_t len) {
    Model m;
    auto state = std::make_shared<detail::ModelState>();
    state->owned_copy = detail::aligned_block(len);
    if (!state->owned_copy) return fail(AMXQA_ERR_INVALID_ARGUMENT, "out of memory copying the model");
    if (len > 0 && data) std::memcpy(state->owned_copy.get(), data, len);
    state->data = state->owned_copy.get();
    state->size = len;
    m.state_ = std::move(state);
    m.finish_open();
    return m;
  }

  // Zero-copy view: `data` (64-byte aligned) must stay alive and unchanged
  // while this Model or any Session from it exists.
  static Model view(const void* data, size_t len) {
    Model m;
    auto state = std::make_shared<detail::ModelState>();
    state->data = data;
    state->size = len;
    m.state_ = std::move(state);
    m.finish_open();
    return m;
  }

  bool ok() const { return status_.ok() && state_ && state_->handle; }
  const Status& status() const { return status_; }
  const amxqa_model* get() const { return state_ ? state_->handle : nullptr; }
  const void* data() const { return state_ ? state_->data : nullptr; }
  size_t size() const { return state_ ? state_->size : 0; }

  // Architecture summary (zeroed when the model is not open).
  amxqa_model_info info() const {
    amxqa_model_info info = amxqa_model_info_init();
    if (ok()) amxqa_model_get_info(get(), &info);
    return info;
  }

  // Provenance scores ("squad_dev_em", ...), in file order.
  std::vector<std::pair<std::string, float>> scores() const {
    std::vector<std::pair<std::string, float>> out;
    if (!ok()) return out;
    size_t n = amxqa_model_scores(get(), nullptr, nullptr, 0);
    std::vector<const char*> names(n);
    std::vector<float> values(n);
    n = amxqa_model_scores(get(), names.data(), values.data(), n);
    for (size_t i = 0; i < n && i < names.size(); ++i) out.emplace_back(names[i] ? names[i] : "", values[i]);
    return out;
  }

 private:
  friend class Session;

  static Model fail(amxqa_status code, const std::string& message) {
    Model m;
    m.status_ = detail::make_status(code, message.c_str());
    return m;
  }

  void finish_open() {
    state_->handle_storage = detail::aligned_block(AMXQA_MODEL_STORAGE_BYTES);
    if (!state_->handle_storage) {
      status_ = detail::make_status(AMXQA_ERR_INVALID_ARGUMENT, "out of memory for the model handle");
      return;
    }
    amxqa_status st = amxqa_model_open(state_->data, state_->size, state_->handle_storage.get(), &state_->handle);
    if (st != AMXQA_OK) state_->handle = nullptr;
    status_ = detail::make_status(st, amxqa_last_error(nullptr));
  }

  std::shared_ptr<detail::ModelState> state_;
  Status status_ = detail::make_status(AMXQA_ERR_NULL_ARGUMENT, "model not opened");
};

// One answer, with everything amxqa_answer reports.
struct Answer {
  Status status;
  std::string text;          // exact passage bytes of the span ("" on abstention)
  uint64_t span_begin = 0;   // text == passage[span_begin, span_end)
  uint64_t span_end = 0;
  bool abstained = false;
  float mean_logprob = 0.f;
  float probability = 0.f;       // 0..1: of the answer given (of "no answer" when abstained)
  float no_answer_margin = 0.f;  // no-answer score minus the best start's (nats)
  double prefill_ms = 0, decode_ms = 0;
  amxqa_isa isa = AMXQA_ISA_AUTO;
  amxqa_answer_info info = amxqa_answer_info_init();  // the raw record (token counts, stopped_on_eot, ...)

  bool ok() const { return status.ok(); }
};

// One candidate span of Session::answer_topk (amxqa.h "Top-k spans and long passages").
struct Candidate {
  std::string text;        // passage[begin, end)
  uint64_t begin = 0, end = 0;
  float score = 0.f;       // 0..1: the span's probability
  uint32_t window = 0;     // the passage window it came from
};

// Session options with the library's defaults filled in.
inline amxqa_session_options default_options() {
  amxqa_session_options o;
  amxqa_session_options_default(&o);
  return o;
}

// A session living in one 64-byte aligned buffer it owns. Move-only.
class Session {
 public:
  Session() = default;
  Session(Session&& other) noexcept { *this = std::move(other); }
  Session& operator=(Session&& other) noexcept {
    if (this != &other) {
      release();
      model_ = std::move(other.model_);
      memory_ = std::move(other.memory_);
      bytes_ = other.bytes_;
      handle_ = other.handle_;
      max_piece_bytes_ = other.max_piece_bytes_;
      max_answer_tokens_ = other.max_answer_tokens_;
      max_top_k_ = other.max_top_k_;
      status_ = std::move(other.status_);
      other.handle_ = nullptr;
      other.bytes_ = 0;
    }
    return *this;
  }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  ~Session() { release(); }

  static Session create(const Model& model, const amxqa_session_options& options) {
    Session s;
    if (!model.ok()) {
      s.status_ = detail::make_status(AMXQA_ERR_NULL_ARGUMENT, "session needs an open model");
      return s;
    }
    size_t need = amxqa_session_size(model.get(), &options);
    if (need == 0) {
      s.status_ = detail::make_status(AMXQA_ERR_INVALID_ARGUMENT, "session options are invalid for this model");
      return s;
    }
    s.memory_ = detail::aligned_block(need);
    if (!s.memory_) {
      s.status_ = detail::make_status(AMXQA_ERR_WORKSPACE_TOO_SMALL, "out of memory for the session buffer");
      return s;
    }
    s.bytes_ = detail::round_up_64(need);
    amxqa_status st = amxqa_session_init(model.get(), &options, s.memory_.get(), s.bytes_, &s.handle_);
    s.status_ = detail::make_status(st, amxqa_last_error(nullptr));
    if (st != AMXQA_OK) {
      s.handle_ = nullptr;
      s.memory_.reset();
      s.bytes_ = 0;
      return s;
    }
    s.model_ = model.state_;
    s.max_answer_tokens_ = options.max_answer_tokens;
    s.max_top_k_ = options.max_top_k ? options.max_top_k : 1;
    s.max_piece_bytes_ = longest_token(model.get());
    return s;
  }

  static Session create(const Model& model, uint32_t max_passage_tokens = 4096, amxqa_isa isa = AMXQA_ISA_AUTO) {
    amxqa_session_options o = default_options();
    o.max_passage_tokens = max_passage_tokens;
    o.isa = isa;
    return create(model, o);
  }

  bool ok() const { return handle_ != nullptr; }
  const Status& status() const { return status_; }
  amxqa_session* get() const { return handle_; }
  amxqa_isa isa() const { return handle_ ? amxqa_session_isa(handle_) : AMXQA_ISA_AUTO; }
  size_t buffer_bytes() const { return bytes_; }
  // The no-answer threshold for later answers; NaN restores the session's own.
  Status set_threshold(float threshold) {
    const amxqa_status st = handle_ ? amxqa_session_set_threshold(handle_, threshold) : AMXQA_ERR_NULL_ARGUMENT;
    return detail::make_status(st, handle_ ? amxqa_last_error(handle_) : "session is not open");
  }

  // Answers into `out`, reusing its string capacity. Returns out->status.code.
  amxqa_status answer(std::string_view question, std::string_view passage, Answer* out) {
    if (!handle_) {
      out->status = detail::make_status(AMXQA_ERR_NULL_ARGUMENT, "session is not open");
      return out->status.code;
    }
    // Extractive answers are passage bytes; free mode is bounded by the token cap.
    size_t cap = passage.size();
    size_t free_cap = static_cast<size_t>(max_answer_tokens_) * max_piece_bytes_;
    if (free_cap > cap) cap = free_cap;
    out->text.resize(cap + 1);
    amxqa_answer_info& info = out->info;
    info = amxqa_answer_info_init();
    amxqa_status st = amxqa_answer(handle_, question.data(), question.size(), passage.data(), passage.size(),
                                   &out->text[0], out->text.size(), &info);
    out->status = detail::make_status(st, amxqa_last_error(handle_));
    out->text.resize(std::strlen(out->text.c_str()));
    fill(info, out);
    return st;
  }

  Answer answer(std::string_view question, std::string_view passage) {
    Answer a;
    answer(question, passage, &a);
    return a;
  }

  // Up to k candidate spans, best first; spans[0] (when not abstained) is the
  // answer `out` also gets. k above the session's max_top_k is
  // AMXQA_ERR_INVALID_ARGUMENT, never a silent cap (the C call caps).
  // Allocates the vectors.
  amxqa_status answer_topk(std::string_view question, std::string_view passage, size_t k,
                           std::vector<Candidate>* spans, Answer* out) {
    spans->clear();
    if (!handle_) {
      out->status = detail::make_status(AMXQA_ERR_NULL_ARGUMENT, "session is not open");
      return out->status.code;
    }
    if (k > max_top_k_) {
      const std::string why = "k = " + std::to_string(k) + " is above the session's max_top_k (" +
                              std::to_string(max_top_k_) + "): create it with options.max_top_k >= k";
      out->status = detail::make_status(AMXQA_ERR_INVALID_ARGUMENT, why.c_str());
      return out->status.code;
    }
    std::vector<amxqa_span> raw(k ? k : 1, amxqa_span_init());
    size_t n = 0;
    out->info = amxqa_answer_info_init();
    amxqa_status st = amxqa_answer_topk(handle_, question.data(), question.size(), passage.data(),
                                        passage.size(), raw.data(), k, &n, &out->info);
    out->status = detail::make_status(st, amxqa_last_error(handle_));
    for (size_t i = 0; i < n; ++i) {
      Candidate v;
      v.begin = raw[i].begin;
      v.end = raw[i].end;
      v.score = raw[i].score;
      v.window = raw[i].window;
      if (v.begin <= v.end && v.end <= passage.size())
        v.text.assign(passage.substr(v.begin, v.end - v.begin));
      spans->push_back(std::move(v));
    }
    out->text = spans->empty() ? std::string() : (*spans)[0].text;
    fill(out->info, out);
    return st;
  }

  // Streaming: on_token(std::string_view bytes) -> bool stop, as in C (a
  // non-zero return stops) and Python (a true value stops): returning true
  // stops decoding with AMXQA_ERR_CANCELLED; return false to go on.
  template <class OnToken>
  amxqa_status answer_stream(std::string_view question, std::string_view passage, OnToken&& on_token,
                             Answer* out) {
    struct Thunk {
      static int call(void* user, const char* bytes, size_t len) {
        return (*static_cast<std::remove_reference_t<OnToken>*>(user))(std::string_view(bytes, len)) ? 1 : 0;
      }
    };
    if (!handle_) {
      out->status = detail::make_status(AMXQA_ERR_NULL_ARGUMENT, "session is not open");
      return out->status.code;
    }
    out->info = amxqa_answer_info_init();
    amxqa_status st = amxqa_answer_stream(handle_, question.data(), question.size(), passage.data(), passage.size(),
                                          &Thunk::call, &on_token, &out->info);
    out->status = detail::make_status(st, amxqa_last_error(handle_));
    out->text.clear();
    if (out->info.span_end > out->info.span_begin && out->info.span_end <= passage.size())
      out->text.assign(passage.substr(out->info.span_begin, out->info.span_end - out->info.span_begin));
    fill(out->info, out);
    return st;
  }

 private:
  static void fill(const amxqa_answer_info& info, Answer* out) {
    out->span_begin = info.span_begin;
    out->span_end = info.span_end;
    out->abstained = info.abstained != 0;
    out->mean_logprob = info.mean_logprob;
    out->probability = info.probability;
    out->no_answer_margin = info.no_answer_margin;
    out->prefill_ms = static_cast<double>(info.prefill_ns) / 1e6;
    out->decode_ms = static_cast<double>(info.decode_ns) / 1e6;
    out->isa = info.isa;
  }

  static size_t longest_token(const amxqa_model* model) {
    amxqa_model_info info = amxqa_model_info_init();
    if (amxqa_model_get_info(model, &info) != AMXQA_OK) return 64;
    size_t longest = 1;
    for (uint32_t id = 0; id < info.vocab_size; ++id) {
      size_t len = 0;
      amxqa_token_bytes(model, id, &len);
      if (len > longest) longest = len;
    }
    return longest;
  }

  void release() {
    if (handle_) amxqa_session_finish(handle_);
    handle_ = nullptr;
    memory_.reset();
    model_.reset();
    bytes_ = 0;
  }

  std::shared_ptr<detail::ModelState> model_;  // keeps the model bytes alive
  detail::AlignedPtr memory_;
  size_t bytes_ = 0;
  amxqa_session* handle_ = nullptr;
  size_t max_piece_bytes_ = 64;
  uint32_t max_answer_tokens_ = 32;
  uint32_t max_top_k_ = 1;
  Status status_ = detail::make_status(AMXQA_ERR_NULL_ARGUMENT, "session not created");
};

// The CPU report (amxqa_cpu_query).
inline amxqa_cpu_info cpu_info() {
  amxqa_cpu_info info = amxqa_cpu_info_init();
  amxqa_cpu_query(&info);
  return info;
}

}  // namespace amxqa

#endif  // AMXQA_HPP
