// serve_metrics.h — what GET /metrics reports, in the Prometheus text
// format (version 0.0.4): replies by route and status, the answer latency
// histogram, abstentions, timeouts and connections (counters, updated from
// any thread without locks), and the gauges the server passes in when it
// renders (queue depth, busy workers, open connections).
#pragma once
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace amxqa::serve {

enum class Route { kAnswer, kModel, kHealth, kMetrics, kPage, kOther };
constexpr size_t kRoutes = 6;
// The route label of a request path: one of six, so a client cannot grow the
// metrics. "page" is GET / and the page's files (/ui/...).
Route route_of(const std::string& path);

enum class Timeout { kHeader, kBody, kIdle, kSend };
constexpr size_t kTimeouts = 4;

struct ServeGauges {
  size_t queue_depth = 0;     // answers waiting for a worker
  size_t queue_capacity = 0;  // --max-queue
  size_t busy_workers = 0;    // answering now
  size_t workers = 0;         // --threads
  size_t open_connections = 0;
};

class ServeMetrics {
 public:
  ServeMetrics();
  void count_reply(Route route, int status);
  // One POST /v1/answer answered (status 200): from its last byte read to
  // its reply ready, the queue wait included.
  void observe_answer(double seconds, bool abstained);
  void count_timeout(Timeout kind) { timeouts_[static_cast<size_t>(kind)].fetch_add(1, std::memory_order_relaxed); }
  void count_connection() { connections_.fetch_add(1, std::memory_order_relaxed); }
  void count_eviction() { evictions_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t replies(Route route, int status) const;

  std::string render(const ServeGauges& gauges) const;

 private:
  static constexpr int kMinStatus = 100, kMaxStatus = 599;
  static constexpr size_t kStatuses = kMaxStatus - kMinStatus + 1;
  static constexpr size_t kBuckets = 13;
  static const std::array<double, kBuckets> kBounds;
  std::array<std::array<std::atomic<uint64_t>, kStatuses>, kRoutes> replies_;
  std::array<std::atomic<uint64_t>, kBuckets + 1> buckets_;  // [kBuckets]: over the last bound
  std::atomic<uint64_t> latency_sum_ns_{0};
  std::atomic<uint64_t> abstentions_{0};
  std::array<std::atomic<uint64_t>, kTimeouts> timeouts_;
  std::atomic<uint64_t> connections_{0};
  std::atomic<uint64_t> evictions_{0};
};

}  // namespace amxqa::serve
