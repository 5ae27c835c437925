// A contention workload for lock tests: N clients, each with its own session, loop
// acquire -> critical section (read -> sleep 0..max ms -> fenced write to a fence_store) ->
// release on one lock path, and record every grant, error and client-side overlap. All
// clients run as coroutines on one executor; read the results after stop().
#pragma once

#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>

#include "support/fence_store.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

namespace zkcoord::test {

struct contention_options {
  std::string connect;
  std::string lock_path;
  int clients = 20;
  std::chrono::milliseconds session_timeout{10000};
  std::chrono::milliseconds max_critical_section{20};
  /// true: the critical section reads through the fence too (the pattern that keeps updates
  /// safe when a holder may be paused or expire); false: a plain read, so a lost update shows
  /// an overlap of two holders.
  bool fenced_read = false;
  std::string resource = "counter";
};

class lock_contention {
 public:
  using clock = std::chrono::steady_clock;
  struct grant {
    int client = 0;
    std::int64_t token = 0;
    std::int64_t session_id = 0;
    clock::time_point granted;
    clock::time_point released;  ///< when the release was started (end of the critical section)
  };
  struct failure {
    int client = 0;
    std::string what;  ///< "acquire: <message>" / "release: <message>"
    error_code ec;
    clock::time_point at;
  };

  lock_contention(boost::asio::any_io_executor ex, fence_store& store, contention_options o)
      : ex_(std::move(ex)), store_(store), options_(std::move(o)) {
    for (int i = 0; i < options_.clients; ++i) {
      session_options so;
      so.connect = options_.connect;
      so.session_timeout = options_.session_timeout;
      sessions_.push_back(std::make_unique<session>(ex_, so));
    }
    acquired_.assign(options_.clients, 0);
  }
  ~lock_contention() { stop(std::chrono::seconds(60)); }

  /// Connects every client, then starts every loop. Throws when a session cannot connect.
  void start() {
    std::vector<std::future<void>> connected;
    for (auto& s : sessions_) connected.push_back(s->async_connect(boost::asio::use_future));
    for (auto& f : connected) f.get();
    for (int i = 0; i < options_.clients; ++i)
      done_.push_back(boost::asio::co_spawn(ex_, client_loop(i), boost::asio::use_future));
  }
  /// Asks every loop to finish its cycle and waits for all; true if all ended within `bound`.
  bool stop(std::chrono::seconds bound) {
    stopping_ = true;
    const auto deadline = clock::now() + bound;
    bool all = true;
    for (auto& f : done_) {
      if (!f.valid()) continue;
      if (f.wait_until(deadline) != std::future_status::ready)
        all = false;
      else
        f.get();
    }
    return all;
  }
  /// Closes every session (their nodes go at once).
  void close_all() {
    for (auto& s : sessions_) s->close();
  }

  session& client_session(int i) { return *sessions_.at(i); }
  std::vector<grant> grants() const {
    std::lock_guard l(mutex_);
    return grants_;
  }
  std::vector<failure> failures() const {
    std::lock_guard l(mutex_);
    return failures_;
  }
  std::vector<int> acquisitions_per_client() const {
    std::lock_guard l(mutex_);
    return acquired_;
  }
  /// Times a client entered its critical section while another was inside (client-side belief).
  int overlaps() const { return overlaps_; }
  /// Updates that were never written because the fenced read was refused.
  int refused_reads() const { return refused_reads_; }

  /// Release of grant i -> grant i+1, over all consecutive grants.
  std::vector<clock::duration> handoffs() const {
    std::lock_guard l(mutex_);
    std::vector<clock::duration> out;
    for (std::size_t i = 1; i < grants_.size(); ++i)
      if (grants_[i - 1].released != clock::time_point{})
        out.push_back(grants_[i].granted - grants_[i - 1].released);
    return out;
  }
  /// True when the granted tokens strictly increase in grant order.
  bool tokens_strictly_increase() const {
    std::lock_guard l(mutex_);
    for (std::size_t i = 1; i < grants_.size(); ++i)
      if (grants_[i].token <= grants_[i - 1].token) return false;
    return true;
  }

 private:
  boost::asio::awaitable<void> client_loop(int id) {
    namespace asio = boost::asio;
    constexpr auto tuple = asio::as_tuple(asio::use_awaitable);
    const std::string me = "zkcoord-" + std::to_string(id);
    std::mt19937 rng(static_cast<unsigned>(id) * 7919u + 1u);
    asio::steady_timer timer(ex_);
    lock l(*sessions_[id], options_.lock_path, lock_options{.app_id = me});
    while (!stopping_) {
      auto [ec, held] = co_await l.async_acquire(tuple);
      if (ec) {
        record_failure(id, "acquire", ec);
        timer.expires_after(std::chrono::milliseconds(100));  // session renewing, server down
        co_await timer.async_wait(tuple);
        continue;
      }
      const std::size_t index = record_grant(id, held);
      if (++inside_ != 1) ++overlaps_;
      co_await critical_section(held.token().value(), me, rng, timer);
      --inside_;
      {
        std::lock_guard lk(mutex_);
        grants_[index].released = clock::now();
      }
      auto [release_ec] = co_await held.async_release(tuple);
      if (release_ec) record_failure(id, "release", release_ec);
    }
  }

  boost::asio::awaitable<void> critical_section(std::int64_t token, const std::string& me,
                                                std::mt19937& rng,
                                                boost::asio::steady_timer& timer) {
    std::optional<std::int64_t> value;
    if (options_.fenced_read)
      value = store_.read(options_.resource, token, me);
    else
      value = store_.read(options_.resource);
    const auto max_ms = static_cast<unsigned>(options_.max_critical_section.count());
    timer.expires_after(std::chrono::milliseconds(max_ms ? rng() % (max_ms + 1) : 0));
    co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (!value) {
      ++refused_reads_;
      co_return;
    }
    store_.write(options_.resource, token, *value + 1, me);
  }

  std::size_t record_grant(int id, const held_lock& held) {
    std::lock_guard l(mutex_);
    grants_.push_back(grant{id, held.token().value(), held.session_id(), clock::now(), {}});
    ++acquired_[id];
    return grants_.size() - 1;
  }
  void record_failure(int id, const char* what, error_code ec) {
    std::lock_guard l(mutex_);
    failures_.push_back(failure{id, std::string(what) + ": " + ec.message(), ec, clock::now()});
  }

  boost::asio::any_io_executor ex_;
  fence_store& store_;
  contention_options options_;
  std::vector<std::unique_ptr<session>> sessions_;
  std::vector<std::future<void>> done_;
  std::atomic<bool> stopping_{false};
  int inside_ = 0;  // touched on the executor's thread only
  std::atomic<int> overlaps_{0};
  std::atomic<int> refused_reads_{0};
  mutable std::mutex mutex_;
  std::vector<grant> grants_;
  std::vector<failure> failures_;
  std::vector<int> acquired_;
};

/// Sorted copy's q-quantile (0 <= q <= 1) in milliseconds; 0 for an empty sample.
inline double quantile_ms(std::vector<std::chrono::steady_clock::duration> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const auto i =
      std::min(v.size() - 1, static_cast<std::size_t>(q * static_cast<double>(v.size())));
  return std::chrono::duration<double, std::milli>(v[i]).count();
}

}  // namespace zkcoord::test
