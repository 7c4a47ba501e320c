// bounded_queue.h — the queue between `amxqa serve`'s connection thread and
// its workers: at most `capacity` items wait; a push beyond that fails at
// once (the server answers 503 with Retry-After) instead of growing the wait
// without end. Many producers, many consumers.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <mutex>
#include <utility>

namespace amxqa::serve {

template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t capacity) : capacity_(capacity) {}

  // False (item untouched) when full or closed.
  bool try_push(T&& item) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (closed_ || items_.size() >= capacity_) return false;
      items_.push_back(std::move(item));
    }
    cv_.notify_one();
    return true;
  }

  // Waits for an item; false once the queue is closed and empty.
  bool pop(T* out) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return closed_ || !items_.empty(); });
    if (items_.empty()) return false;
    *out = std::move(items_.front());
    items_.pop_front();
    return true;
  }

  // No more pushes; pop() hands out what is left, then returns false.
  // `drop`: what is left is discarded instead.
  void close(bool drop = false) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      closed_ = true;
      if (drop) items_.clear();
    }
    cv_.notify_all();
  }

  size_t size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return items_.size();
  }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<T> items_;
  bool closed_ = false;
};

}  // namespace amxqa::serve
