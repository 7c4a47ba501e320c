#include "http_server.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bounded_queue.h"
#include "http_parser.h"
#include "http_reply.h"
#include "http_routes.h"
#include "model_json.h"
#include "qa_response.h"
#include "serve_metrics.h"
#include "ui_page.h"

namespace amxqa::serve {

namespace {

using Clock = std::chrono::steady_clock;

// A connection closed after a reply first stops sending and reads what the
// client still sends for this long: closing with unread bytes would send a
// reset that can destroy the reply before the client reads it.
constexpr auto kLinger = std::chrono::seconds(2);
// After SIGTERM, a connection accepted but still silent gets this long to
// send its request before it is closed.
constexpr auto kDrainGrace = std::chrono::seconds(1);
// Deadlines are checked this often (timeouts are whole seconds or more).
constexpr auto kSweepEvery = std::chrono::milliseconds(100);
// Bytes read from one connection per wake-up, so one fast sender cannot
// starve the others.
constexpr size_t kReadBudget = 256 * 1024;
// Bytes of unfinished requests all connections may hold together, at least
// (two of the largest bodies always fit): past it the connection holding the
// most is closed, so many clients sending large bodies slowly cannot take
// the memory of a connection each times --max-body-bytes.
constexpr size_t kMinBufferBudget = 256u << 20;
// Descriptors beyond the connections: listener, epoll, eventfd, signalfd,
// stdio, the model file and some slack.
constexpr rlim_t kSpareFds = 32;

Clock::duration seconds(double s) {
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(s));
}

struct AnswerJob {
  uint64_t conn = 0;
  std::string body;
  Clock::time_point received;
};

struct AnswerDone {
  uint64_t conn = 0;
  QaError error;
  std::string body;
  bool abstained = false;
  Clock::time_point received;
};

enum class State {
  kRead,    // reading a request (or idle between requests)
  kBusy,    // a worker has its request; nothing is read meanwhile
  kWrite,   // sending a reply
  kLinger,  // reply sent, write side shut: reading to EOF before close
};

struct Conn {
  int fd = -1;
  uint64_t id = 0;
  State state = State::kRead;
  uint32_t events = 0;  // the epoll interest registered now
  std::string in;       // bytes read and not yet consumed by a request
  HttpRequestParser parser;
  std::string out;
  size_t out_pos = 0;
  Clock::time_point deadline;
  Clock::time_point since;  // when the current request (or idleness) began: the eviction order
  bool started = false;     // bytes of a request have arrived
  bool head_seen = false;   // its headers are complete
  bool continue_sent = false;
  bool served = false;      // a reply has been sent on it
  bool peer_eof = false;    // the client shut its sending side
  bool close_after = false;
  // The request at a worker (kBusy): what its reply needs.
  HttpReply pending;
  int minor = 1;
  bool keep_alive = true;
  Route route = Route::kOther;

  explicit Conn(const HttpLimits& limits) : parser(limits) {}
};

class Server {
 public:
  Server(SessionPool& pool, const ServeOptions& options, RouteTable table)
      : pool_(pool),
        options_(options),
        limits_{HttpLimits().max_head_bytes, HttpLimits().max_headers, options.max_body_bytes},
        table_(std::move(table)),
        queue_(options.max_queue) {
    table_.metrics_body = [this] { return metrics_.render(gauges()); };
  }
  ~Server() {
    for (int fd : {listen_fd_, epoll_fd_, event_fd_, signal_fd_})
      if (fd >= 0) close(fd);
  }

  bool bind(std::string* error);
  bool run(const sigset_t& stop_signals, std::string* error);

 private:
  ServeGauges gauges() const {
    ServeGauges g;
    g.queue_depth = queue_.size();
    g.queue_capacity = queue_.capacity();
    g.busy_workers = busy_.load(std::memory_order_relaxed);
    g.workers = pool_.size();
    g.open_connections = conns_.size();
    return g;
  }

  void worker_main(size_t index);
  void accept_all(Clock::time_point now);
  bool evict_one();
  void keep_buffers_in_budget(Conn* reading);
  void consume_input(Conn* c, size_t n);
  void on_conn_event(Conn* c, uint32_t events, Clock::time_point now);
  bool read_some(Conn* c);
  void advance(Conn* c, Clock::time_point now);
  void dispatch(Conn* c, HttpRequest& req, Clock::time_point now);
  void start_reply(Conn* c, HttpReply reply, Route route, int minor, bool keep_alive, bool head, Clock::time_point now);
  bool write_some(Conn* c, Clock::time_point now);
  void take_done(Clock::time_point now);
  void sweep(Clock::time_point now);
  void begin_drain(int sig, Clock::time_point now);
  void close_conn(Conn* c);
  void set_events(Conn* c, uint32_t events);

  SessionPool& pool_;
  const ServeOptions& options_;
  const HttpLimits limits_;
  RouteTable table_;
  ServeMetrics metrics_;
  BoundedQueue<AnswerJob> queue_;
  std::atomic<size_t> busy_{0};
  std::mutex done_mu_;
  std::vector<AnswerDone> done_;  // answers back from the workers, for the epoll thread

  int listen_fd_ = -1, epoll_fd_ = -1, event_fd_ = -1, signal_fd_ = -1;
  int port_ = 0;
  std::unordered_map<uint64_t, std::unique_ptr<Conn>> conns_;
  size_t buffered_ = 0;  // the sum of conns_' in.size()
  const size_t buffer_budget_ = std::max(kMinBufferBudget, 2 * options_.max_body_bytes);
  uint64_t next_id_ = 1;
  bool draining_ = false;
  bool accept_paused_ = false;  // out of descriptors: accept again at the next sweep
  Clock::time_point drain_deadline_;
};

// ---- listening ----

// Room for max_connections descriptors: raises the soft limit as far as the
// hard one allows; returns how many connections fit.
size_t fit_descriptor_limit(size_t wanted) {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return wanted;
  const rlim_t need = static_cast<rlim_t>(wanted) + kSpareFds;
  if (lim.rlim_cur < need) {
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY ? need : std::min(need, lim.rlim_max);
    setrlimit(RLIMIT_NOFILE, &lim);
    getrlimit(RLIMIT_NOFILE, &lim);
  }
  if (lim.rlim_cur >= need) return wanted;
  return lim.rlim_cur > kSpareFds ? static_cast<size_t>(lim.rlim_cur - kSpareFds) : 1;
}

bool Server::bind(std::string* error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(options_.port);
  const int gai = getaddrinfo(options_.host.c_str(), port.c_str(), &hints, &found);
  if (gai != 0) {
    *error = "cannot listen on " + options_.host + ":" + port + ": " + gai_strerror(gai);
    return false;
  }
  int err = 0;
  for (addrinfo* a = found; a != nullptr && listen_fd_ < 0; a = a->ai_next) {
    const int fd = socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      err = errno;
      continue;
    }
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      err = errno;
      close(fd);
      continue;
    }
    listen_fd_ = fd;
  }
  freeaddrinfo(found);
  if (listen_fd_ < 0) {
    *error = "cannot listen on " + options_.host + ":" + port + ": " + std::strerror(err);
    return false;
  }
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&addr)->sin6_port
                                           : reinterpret_cast<sockaddr_in*>(&addr)->sin_port);
  return true;
}

// ---- workers ----

void Server::worker_main(size_t index) {
  Worker& w = pool_.at(index);
  AnswerJob job;
  QaRequest req;  // reused: its strings keep their capacity
  QaAnswer answer;
  while (queue_.pop(&job)) {
    busy_.fetch_add(1, std::memory_order_relaxed);
    AnswerDone d;
    d.conn = job.conn;
    d.received = job.received;
    try {
      d.error = parse_qa_request(job.body, ParseOptions{options_.max_body_bytes, false}, &req);
      if (d.error.ok()) d.error = answer_request(w, req, &answer);
      if (d.error.ok()) {
        d.body = answer_body(answer);
        d.abstained = answer.no_answer;
      }
    } catch (const std::exception& e) {  // bad_alloc: this request fails, the server goes on
      d.error = make_error(500, "internal", e.what());
    }
    busy_.fetch_sub(1, std::memory_order_relaxed);
    {
      std::lock_guard<std::mutex> lock(done_mu_);
      done_.push_back(std::move(d));
    }
    const uint64_t one = 1;
    while (write(event_fd_, &one, sizeof one) < 0 && errno == EINTR) {
    }
  }
}

void Server::take_done(Clock::time_point now) {
  uint64_t count = 0;
  while (read(event_fd_, &count, sizeof count) < 0 && errno == EINTR) {
  }
  std::vector<AnswerDone> done;
  {
    std::lock_guard<std::mutex> lock(done_mu_);
    done.swap(done_);
  }
  for (AnswerDone& d : done) {
    auto it = conns_.find(d.conn);
    if (it == conns_.end() || it->second->state != State::kBusy) continue;  // the client is gone
    Conn* c = it->second.get();
    HttpReply reply = std::move(c->pending);
    if (d.error.ok()) {
      reply.status = 200;
      reply.content_type = "application/json";
      reply.body = std::move(d.body);
      metrics_.observe_answer(std::chrono::duration<double>(now - d.received).count(), d.abstained);
    } else {
      HttpReply e = error_reply(d.error);
      reply.status = e.status;
      reply.body = std::move(e.body);
    }
    start_reply(c, std::move(reply), Route::kAnswer, c->minor, c->keep_alive, false, now);
    if (conns_.count(d.conn) && c->state == State::kRead) advance(c, now);
  }
}

// ---- connections ----

void Server::set_events(Conn* c, uint32_t events) {
  if (c->events == events) return;
  epoll_event ev{};
  ev.events = events;
  ev.data.u64 = c->id;
  epoll_ctl(epoll_fd_, EPOLL_CTL_MOD, c->fd, &ev);
  c->events = events;
}

void Server::close_conn(Conn* c) {
  close(c->fd);  // also takes it out of the epoll set
  buffered_ -= c->in.size();
  conns_.erase(c->id);
}

// The connection that loses least when closed: one lingering, else the
// longest idle, else the request that has been arriving longest (a slow or
// stalled client). Never one whose request is at a worker or being answered.
bool Server::evict_one() {
  Conn* best = nullptr;
  auto rank = [](const Conn* c) { return c->state == State::kLinger ? 0 : !c->started ? 1 : 2; };
  for (auto& [id, conn] : conns_) {
    Conn* c = conn.get();
    if (c->state != State::kRead && c->state != State::kLinger) continue;
    if (best == nullptr || rank(c) < rank(best) || (rank(c) == rank(best) && c->since < best->since)) best = c;
  }
  if (best == nullptr) return false;
  metrics_.count_eviction();
  close_conn(best);
  return true;
}

void Server::accept_all(Clock::time_point now) {
  const size_t max_conns = options_.max_connections;
  while (listen_fd_ >= 0) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // The pending connection stays readable: stop polling it until the
        // next sweep instead of spinning on it.
        epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, listen_fd_, nullptr);
        accept_paused_ = true;
      }
      return;
    }
    if (conns_.size() >= max_conns && !evict_one()) {
      // Every connection has a request at a worker or a reply on its way:
      // this one is told so (best effort, it is not read) and closed.
      static const std::string kFull = [] {
        HttpReply r = error_reply(make_error(503, "overloaded", "too many connections (--max-connections); retry"));
        r.headers.emplace_back("Retry-After", "1");
        return serialize(r, 1, false, false);
      }();
      (void)!send(fd, kFull.data(), kFull.size(), MSG_NOSIGNAL);
      close(fd);
      continue;
    }
    const int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);  // a reply is one write: send it now
    auto conn = std::make_unique<Conn>(limits_);
    Conn* c = conn.get();
    c->fd = fd;
    c->id = next_id_++;
    c->since = now;
    c->deadline = now + seconds(options_.idle_timeout_s);
    c->events = EPOLLIN | EPOLLRDHUP;
    epoll_event ev{};
    ev.events = c->events;
    ev.data.u64 = c->id;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev) != 0) {
      close(fd);
      continue;
    }
    conns_.emplace(c->id, std::move(conn));
    metrics_.count_connection();
  }
}

void Server::consume_input(Conn* c, size_t n) {
  c->in.erase(0, n);
  buffered_ -= n;
  if (c->in.empty() && c->in.capacity() > 64 * 1024) std::string().swap(c->in);  // an idle connection keeps no large body's buffer
}

// Over the budget, closes the unfinished requests holding the most bytes
// (the one just read from included) until it fits again.
void Server::keep_buffers_in_budget(Conn* reading) {
  while (buffered_ > buffer_budget_) {
    Conn* largest = reading;
    for (auto& [id, conn] : conns_)
      if (conn->state == State::kRead && conn->in.size() > largest->in.size()) largest = conn.get();
    if (largest->in.empty()) return;
    metrics_.count_eviction();
    const bool self = largest == reading;
    close_conn(largest);
    if (self) return;
  }
}

// Reads what has arrived, up to the budget. False when the connection was closed.
bool Server::read_some(Conn* c) {
  static char buf[64 * 1024];  // the epoll thread's only
  size_t total = 0;
  while (total < kReadBudget) {
    const ssize_t n = recv(c->fd, buf, sizeof buf, 0);
    if (n > 0) {
      if (c->state != State::kLinger) {
        c->in.append(buf, static_cast<size_t>(n));
        buffered_ += static_cast<size_t>(n);
      }
      total += static_cast<size_t>(n);
    } else if (n == 0) {
      c->peer_eof = true;
      break;
    } else if (errno == EINTR) {
      continue;
    } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
      break;
    } else {  // reset by the client
      close_conn(c);
      return false;
    }
  }
  if (c->state == State::kLinger && c->peer_eof) {
    close_conn(c);
    return false;
  }
  return true;
}

// Parses and dispatches what `in` holds, request after request, while the
// connection is reading (a reply sent at once leaves it reading again).
void Server::advance(Conn* c, Clock::time_point now) {
  const uint64_t id = c->id;
  while (c->state == State::kRead) {
    if (c->in.empty()) {
      if (c->peer_eof) close_conn(c);
      return;
    }
    if (!c->started) {
      c->started = true;
      c->since = now;
      c->deadline = now + seconds(options_.header_timeout_s);
    }
    const HttpRequestParser::Result r = c->parser.parse(c->in);
    if (r == HttpRequestParser::Result::kIncomplete) {
      if (c->parser.head_done() && !c->head_seen) {
        c->head_seen = true;
        c->deadline = now + seconds(options_.body_timeout_s);
        if (c->parser.request().expect_continue && !c->continue_sent) {
          static const char kContinue[] = "HTTP/1.1 100 Continue\r\n\r\n";
          (void)!send(c->fd, kContinue, sizeof kContinue - 1, MSG_NOSIGNAL);
          c->continue_sent = true;
        }
      }
      if (c->peer_eof) close_conn(c);  // the rest of the request will never come
      return;
    }
    if (r == HttpRequestParser::Result::kError) {
      const HttpParseError& e = c->parser.error();
      HttpReply reply = error_reply(make_error(e.status, e.code, e.message));
      reply.close = true;
      const HttpRequest& partial = c->parser.request();
      start_reply(c, std::move(reply), route_of(partial.path), partial.minor_version, false,
                  partial.method == "HEAD", now);
      return;
    }
    HttpRequest req = std::move(c->parser.request());
    consume_input(c, c->parser.consumed());
    c->parser.reset();
    c->started = c->head_seen = c->continue_sent = false;
    dispatch(c, req, now);
    if (!conns_.count(id)) return;
  }
}

void Server::dispatch(Conn* c, HttpRequest& req, Clock::time_point now) {
  HttpReply reply;
  const Route route = route_of(req.path);
  const bool keep_alive = req.keep_alive;
  if (route_request(req, table_, &reply) == Dispatch::kReply) {
    start_reply(c, std::move(reply), route, req.minor_version, keep_alive, req.method == "HEAD", now);
    return;
  }
  AnswerJob job{c->id, std::move(req.body), now};
  if (!queue_.try_push(std::move(job))) {
    HttpReply busy = error_reply(make_error(503, "overloaded", "every worker is busy and the queue is full (--max-queue); retry"));
    busy.headers = std::move(reply.headers);
    busy.headers.emplace_back("Retry-After", "1");
    start_reply(c, std::move(busy), route, req.minor_version, keep_alive, false, now);
    return;
  }
  c->state = State::kBusy;
  c->pending = std::move(reply);
  c->minor = req.minor_version;
  c->keep_alive = keep_alive;
  c->route = route;
  c->deadline = Clock::time_point::max();  // a worker will answer; only the drain timeout ends this
  set_events(c, 0);
}

void Server::start_reply(Conn* c, HttpReply reply, Route route, int minor, bool keep_alive, bool head,
                         Clock::time_point now) {
  keep_alive = keep_alive && !reply.close && !draining_ && !c->peer_eof;
  metrics_.count_reply(route, reply.status);
  c->out = serialize(reply, minor, keep_alive, head);
  c->out_pos = 0;
  c->close_after = !keep_alive;
  c->state = State::kWrite;
  c->deadline = now + seconds(options_.body_timeout_s);
  c->served = true;
  write_some(c, now);
}

// Sends what it can; when the reply is out, goes back to reading, or
// lingers before closing. False when the connection was closed.
bool Server::write_some(Conn* c, Clock::time_point now) {
  while (c->out_pos < c->out.size()) {
    const ssize_t n = send(c->fd, c->out.data() + c->out_pos, c->out.size() - c->out_pos, MSG_NOSIGNAL);
    if (n > 0) {
      c->out_pos += static_cast<size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      set_events(c, EPOLLOUT);
      return true;
    } else {
      close_conn(c);
      return false;
    }
  }
  // A large reply's buffer is not kept for the connection's next one.
  if (c->out.capacity() > 64 * 1024) std::string().swap(c->out);
  else c->out.clear();
  c->out_pos = 0;
  if (c->close_after) {
    if (c->peer_eof) {
      close_conn(c);
      return false;
    }
    shutdown(c->fd, SHUT_WR);
    c->state = State::kLinger;
    consume_input(c, c->in.size());
    c->deadline = now + kLinger;
    c->since = now;
    set_events(c, EPOLLIN | EPOLLRDHUP);
    return true;
  }
  c->state = State::kRead;
  c->since = now;
  c->deadline = now + seconds(options_.idle_timeout_s);
  set_events(c, EPOLLIN | EPOLLRDHUP);
  return true;
}

void Server::on_conn_event(Conn* c, uint32_t events, Clock::time_point now) {
  if (events & EPOLLERR) return close_conn(c);
  switch (c->state) {
    case State::kRead: {
      if (!read_some(c)) return;
      const uint64_t id = c->id;
      keep_buffers_in_budget(c);
      if (conns_.count(id)) advance(c, now);
      return;
    }
    case State::kLinger:
      read_some(c);
      return;
    case State::kWrite:
      if (events & EPOLLHUP) return close_conn(c);
      if (write_some(c, now) && c->state == State::kRead) advance(c, now);
      return;
    case State::kBusy:
      // Only a hang-up is reported here (nothing is polled): the client
      // cannot read a reply any more. The worker's answer is dropped.
      if (events & EPOLLHUP) close_conn(c);
      return;
  }
}

void Server::sweep(Clock::time_point now) {
  if (accept_paused_ && listen_fd_ >= 0) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = 0;
    if (epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, listen_fd_, &ev) == 0) accept_paused_ = false;
  }
  std::vector<Conn*> due;
  for (auto& [id, conn] : conns_) {
    Conn* c = conn.get();
    const bool idle = c->state == State::kRead && !c->started;
    if (now >= c->deadline || (draining_ && idle && c->served)) due.push_back(c);
  }
  for (Conn* c : due) {
    if (c->state == State::kRead && c->started) {
      // A request still arriving: tell the client why it is cut off.
      const bool body = c->head_seen;
      metrics_.count_timeout(body ? Timeout::kBody : Timeout::kHeader);
      HttpReply reply = error_reply(make_error(
          408, "request_timeout",
          body ? "the request body did not arrive in time (--body-timeout)"
               : "the request headers did not arrive in time (--header-timeout)"));
      reply.close = true;
      const HttpRequest& partial = c->parser.request();
      start_reply(c, std::move(reply), route_of(partial.path), partial.minor_version, false, false, now);
      continue;
    }
    if (now >= c->deadline && c->state == State::kRead) metrics_.count_timeout(Timeout::kIdle);
    if (now >= c->deadline && c->state == State::kWrite) metrics_.count_timeout(Timeout::kSend);
    close_conn(c);
  }
}

void Server::begin_drain(int sig, Clock::time_point now) {
  // Connections the kernel completed before the signal are accepted and
  // served, not reset with the listening socket.
  accept_all(now);
  if (listen_fd_ >= 0) {
    close(listen_fd_);
    listen_fd_ = -1;
  }
  draining_ = true;
  drain_deadline_ = now + seconds(options_.drain_timeout_s);
  std::vector<uint64_t> ids;
  for (auto& [id, conn] : conns_) ids.push_back(id);
  size_t in_flight = 0;
  for (uint64_t id : ids) {
    auto it = conns_.find(id);
    if (it == conns_.end()) continue;
    Conn* c = it->second.get();
    if (c->state == State::kRead) {
      // A request may have arrived with the signal: read it first.
      if (!read_some(c)) continue;
      advance(c, now);
      if (!conns_.count(id)) continue;
      if (c->state == State::kRead && !c->started) {
        if (c->served) {
          close_conn(c);  // idle keep-alive: nothing to finish
          continue;
        }
        c->deadline = std::min(c->deadline, now + kDrainGrace);
      }
    }
    if (c->state != State::kLinger) ++in_flight;
  }
  std::fprintf(stderr, "amxqa serve: %s: stopped accepting; finishing %zu connections (--drain-timeout %g s)\n",
               sig == SIGINT ? "SIGINT" : "SIGTERM", in_flight, options_.drain_timeout_s);
  std::fflush(stderr);
}

bool Server::run(const sigset_t& stop_signals, std::string* error) {
  epoll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  event_fd_ = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  signal_fd_ = signalfd(-1, &stop_signals, SFD_NONBLOCK | SFD_CLOEXEC);
  if (epoll_fd_ < 0 || event_fd_ < 0 || signal_fd_ < 0) {
    *error = std::string("cannot set up the event loop: ") + std::strerror(errno);
    return false;
  }
  // Connection ids start at 1: 0, 1 << 62 and 1 << 63 name the other descriptors.
  constexpr uint64_t kListenTag = 0, kEventTag = uint64_t{1} << 62, kSignalTag = uint64_t{1} << 63;
  for (auto [fd, tag] : {std::pair<int, uint64_t>{listen_fd_, kListenTag}, {event_fd_, kEventTag},
                         {signal_fd_, kSignalTag}}) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = tag;
    epoll_ctl(epoll_fd_, EPOLL_CTL_ADD, fd, &ev);
  }
  std::vector<std::thread> workers;
  for (size_t i = 0; i < pool_.size(); ++i) workers.emplace_back([this, i] { worker_main(i); });

  std::fprintf(stderr, "amxqa serve: listening on http://%s:%d (%zu workers, backend %s)%s\n", options_.host.c_str(),
               port_, pool_.size(), amxqa_isa_name(pool_.at(0).session.isa()),
               table_.page.empty() ? "" : "; open it in a browser to try the model");
  std::fflush(stderr);

  std::vector<epoll_event> events(256);
  Clock::time_point next_sweep = Clock::now() + kSweepEvery;
  bool forced = false;
  while (!(draining_ && conns_.empty())) {
    const bool timed = !conns_.empty() || accept_paused_ || draining_;
    const int n = epoll_wait(epoll_fd_, events.data(), static_cast<int>(events.size()),
                             timed ? static_cast<int>(kSweepEvery.count()) : -1);
    Clock::time_point now = Clock::now();
    for (int i = 0; i < n; ++i) {
      const uint64_t tag = events[i].data.u64;
      if (tag == kListenTag) {
        if (!draining_) accept_all(now);
      } else if (tag == kEventTag) {
        take_done(now);
      } else if (tag == kSignalTag) {
        signalfd_siginfo info{};
        while (read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
          if (draining_) forced = true;  // a second signal: stop waiting
          else begin_drain(static_cast<int>(info.ssi_signo), now);
        }
      } else {
        auto it = conns_.find(tag);
        if (it == conns_.end()) continue;  // closed earlier in this batch
        try {
          on_conn_event(it->second.get(), events[i].events, now);
        } catch (const std::exception&) {  // out of memory for this connection: drop it, not the server
          if (conns_.count(tag)) close_conn(conns_[tag].get());
        }
      }
    }
    if (now >= next_sweep) {
      sweep(now);
      next_sweep = now + kSweepEvery;
    }
    if (draining_ && (forced || now >= drain_deadline_)) break;
  }
  size_t dropped = 0;
  for (auto& [id, conn] : conns_)
    dropped += conn->state == State::kBusy || (conn->state == State::kRead && conn->started);
  queue_.close(/*drop=*/!conns_.empty());
  for (std::thread& t : workers) t.join();
  if (!conns_.empty()) {
    std::fprintf(stderr, "amxqa serve: drain %s: closed %zu connections with requests unanswered\n",
                 forced ? "cut short by a second signal" : "timed out (--drain-timeout)", dropped);
    while (!conns_.empty()) close_conn(conns_.begin()->second.get());
  } else {
    std::fprintf(stderr, "amxqa serve: every accepted request answered; exiting\n");
  }
  std::fflush(stderr);
  return true;
}

}  // namespace

bool serve_http(const amxqa::Model& model, SessionPool& pool, const ServeOptions& options, std::string* error) {
  // Signals are read from a signalfd in the event loop: block them before
  // any thread starts so every thread inherits the mask.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  RouteTable table;
  table.api_key = options.api_key;
  if (!table.cors.set_origins(options.cors_origins, error)) return false;
  table.health_body = "{\"status\":\"ok\",\"workers\":" + std::to_string(pool.size()) + "}";
  table.model_body = model_info_body(model, pool.size(), pool.at(0).max_passage_tokens);
  if (options.ui) table.page = embedded_page();

  ServeOptions fitted = options;
  fitted.max_connections = fit_descriptor_limit(options.max_connections);
  if (fitted.max_connections < options.max_connections)
    std::fprintf(stderr, "amxqa serve: the descriptor limit allows %zu connections, not %zu (--max-connections)\n",
                 fitted.max_connections, options.max_connections);
  Server server(pool, fitted, std::move(table));
  if (!server.bind(error)) return false;
  return server.run(stop_signals, error);
}

}  // namespace amxqa::serve
