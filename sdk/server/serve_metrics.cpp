#include "serve_metrics.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace amxqa::serve {

namespace {

const char* const kRouteLabels[kRoutes] = {"/v1/answer", "/v1/model", "/health", "/metrics", "page", "other"};
const char* const kTimeoutLabels[kTimeouts] = {"header", "body", "idle", "send"};

void line(std::string* out, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void line(std::string* out, const char* fmt, ...) {
  va_list args, again;
  va_start(args, fmt);
  va_copy(again, args);
  const int n = std::vsnprintf(nullptr, 0, fmt, args);
  va_end(args);
  if (n > 0) {
    const size_t at = out->size();
    out->resize(at + static_cast<size_t>(n) + 1);
    std::vsnprintf(&(*out)[at], static_cast<size_t>(n) + 1, fmt, again);
    out->resize(at + static_cast<size_t>(n));  // drops vsnprintf's NUL
  }
  va_end(again);
  out->push_back('\n');
}

void family(std::string* out, const char* name, const char* type, const char* help) {
  line(out, "# HELP %s %s", name, help);
  line(out, "# TYPE %s %s", name, type);
}

}  // namespace

// Seconds: a tiny model answers in well under a millisecond, a long passage
// on one core in tens of milliseconds; a full queue waits for seconds.
const std::array<double, ServeMetrics::kBuckets> ServeMetrics::kBounds = {
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0};

Route route_of(const std::string& path) {
  if (path == "/v1/answer") return Route::kAnswer;
  if (path == "/v1/model") return Route::kModel;
  if (path == "/health") return Route::kHealth;
  if (path == "/metrics") return Route::kMetrics;
  if (path == "/" || path.compare(0, 4, "/ui/") == 0) return Route::kPage;
  return Route::kOther;
}

ServeMetrics::ServeMetrics() {
  for (auto& route : replies_)
    for (auto& c : route) c.store(0, std::memory_order_relaxed);
  for (auto& c : buckets_) c.store(0, std::memory_order_relaxed);
  for (auto& c : timeouts_) c.store(0, std::memory_order_relaxed);
}

void ServeMetrics::count_reply(Route route, int status) {
  if (status < kMinStatus || status > kMaxStatus) return;
  replies_[static_cast<size_t>(route)][static_cast<size_t>(status - kMinStatus)].fetch_add(1, std::memory_order_relaxed);
}

uint64_t ServeMetrics::replies(Route route, int status) const {
  if (status < kMinStatus || status > kMaxStatus) return 0;
  return replies_[static_cast<size_t>(route)][static_cast<size_t>(status - kMinStatus)].load(std::memory_order_relaxed);
}

void ServeMetrics::observe_answer(double seconds, bool abstained) {
  size_t b = 0;
  while (b < kBuckets && seconds > kBounds[b]) ++b;
  buckets_[b].fetch_add(1, std::memory_order_relaxed);
  latency_sum_ns_.fetch_add(static_cast<uint64_t>(seconds * 1e9), std::memory_order_relaxed);
  if (abstained) abstentions_.fetch_add(1, std::memory_order_relaxed);
}

std::string ServeMetrics::render(const ServeGauges& g) const {
  std::string out;
  out.reserve(4096);
  family(&out, "amxqa_http_requests_total", "counter", "HTTP replies sent, by route and status.");
  for (size_t r = 0; r < kRoutes; ++r)
    for (size_t s = 0; s < kStatuses; ++s) {
      const uint64_t n = replies_[r][s].load(std::memory_order_relaxed);
      if (n != 0)
        line(&out, "amxqa_http_requests_total{route=\"%s\",status=\"%zu\"} %" PRIu64, kRouteLabels[r],
             s + kMinStatus, n);
    }
  family(&out, "amxqa_answer_duration_seconds", "histogram",
         "POST /v1/answer answered: from the request read to its reply ready, queue wait included.");
  uint64_t cumulative = 0;
  for (size_t b = 0; b < kBuckets; ++b) {
    cumulative += buckets_[b].load(std::memory_order_relaxed);
    line(&out, "amxqa_answer_duration_seconds_bucket{le=\"%g\"} %" PRIu64, kBounds[b], cumulative);
  }
  cumulative += buckets_[kBuckets].load(std::memory_order_relaxed);
  line(&out, "amxqa_answer_duration_seconds_bucket{le=\"+Inf\"} %" PRIu64, cumulative);
  line(&out, "amxqa_answer_duration_seconds_sum %.9f", latency_sum_ns_.load(std::memory_order_relaxed) * 1e-9);
  line(&out, "amxqa_answer_duration_seconds_count %" PRIu64, cumulative);
  family(&out, "amxqa_abstentions_total", "counter", "Answers that were no_answer (the model abstained).");
  line(&out, "amxqa_abstentions_total %" PRIu64, abstentions_.load(std::memory_order_relaxed));
  family(&out, "amxqa_http_timeouts_total", "counter",
         "Connections closed by a timeout: header, body (--header-timeout, --body-timeout), idle, send.");
  for (size_t k = 0; k < kTimeouts; ++k)
    line(&out, "amxqa_http_timeouts_total{kind=\"%s\"} %" PRIu64, kTimeoutLabels[k],
         timeouts_[k].load(std::memory_order_relaxed));
  family(&out, "amxqa_http_connections_total", "counter", "Connections accepted.");
  line(&out, "amxqa_http_connections_total %" PRIu64, connections_.load(std::memory_order_relaxed));
  family(&out, "amxqa_http_connections_evicted_total", "counter",
         "Connections closed to make room: the idlest at --max-connections, the largest unfinished request over the buffer budget.");
  line(&out, "amxqa_http_connections_evicted_total %" PRIu64, evictions_.load(std::memory_order_relaxed));
  family(&out, "amxqa_http_open_connections", "gauge", "Connections open now.");
  line(&out, "amxqa_http_open_connections %zu", g.open_connections);
  family(&out, "amxqa_queue_depth", "gauge", "Answers waiting for a worker.");
  line(&out, "amxqa_queue_depth %zu", g.queue_depth);
  family(&out, "amxqa_queue_capacity", "gauge", "Answers that may wait (--max-queue); more get 503.");
  line(&out, "amxqa_queue_capacity %zu", g.queue_capacity);
  family(&out, "amxqa_busy_workers", "gauge", "Workers answering now.");
  line(&out, "amxqa_busy_workers %zu", g.busy_workers);
  family(&out, "amxqa_workers", "gauge", "Worker threads, one session each (--threads).");
  line(&out, "amxqa_workers %zu", g.workers);
  return out;
}

}  // namespace amxqa::serve
