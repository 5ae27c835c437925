// SPDX-License-Identifier: Apache-2.0
// A contention workload for lock tests: N clients, each with its own session, loop
// acquire -> critical section (read -> sleep 0..max ms -> fenced write to a fence_store) ->
// release on one lock path, and record every grant, error and client-side overlap. Each
// critical section also increments a second counter with NO fence (unfenced read, suspend,
// unfenced write), so two holders at once show as a lost update whatever the fence did.
// For each overlap the later holder's session checks at once whether the earlier holder's
// node still exists (the evidence fault_run_checks.hpp judges overlaps by). All clients run
// as coroutines on one executor; read the results after stop().
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
  /// The counter every critical section increments without the fence.
  std::string unfenced_resource = "unfenced-counter";
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
    std::string node;            ///< the holder's lock node
    error_code release_ec;       ///< how the release ended (success: this holder deleted its node)
  };
  /// Grant `later` entered its critical section while grant `earlier` was still inside it.
  struct overlap {
    std::size_t earlier = 0, later = 0;  ///< indices into grants()
    /// The later holder's session, asked right after its grant: does the earlier node exist?
    error_code probe_ec;
    bool earlier_node_existed = true;
    clock::time_point probed;
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
      expiries_.emplace_back();
      subscriptions_.push_back(sessions_.back()->subscribe([this, i](session_state st) {
        if (st != session_state::expired) return;
        std::lock_guard l(mutex_);
        expiries_[i].push_back(clock::now());
      }));
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
  /// Pairs of critical sections that were inside at once (client-side belief).
  int overlaps() const {
    std::lock_guard l(mutex_);
    return static_cast<int>(overlaps_.size());
  }
  std::vector<overlap> overlap_list() const {
    std::lock_guard l(mutex_);
    return overlaps_;
  }
  /// When client i's session was reported expired (server-reported or lease deadline passed).
  std::vector<clock::time_point> expiries_of(int client) const {
    std::lock_guard l(mutex_);
    return expiries_.at(client);
  }
  /// Critical sections that completed their unfenced increment.
  std::int64_t unfenced_increments() const { return unfenced_increments_; }
  const std::string& unfenced_resource() const { return options_.unfenced_resource; }
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
      const std::vector<std::size_t> already_inside = inside_;
      inside_.push_back(index);
      for (const std::size_t earlier : already_inside) co_await probe_overlap(id, earlier, index);
      co_await critical_section(held.token().value(), me, rng, timer);
      std::erase(inside_, index);
      {
        std::lock_guard lk(mutex_);
        grants_[index].released = clock::now();
      }
      auto [release_ec] = co_await held.async_release(tuple);
      {
        std::lock_guard lk(mutex_);
        grants_[index].release_ec = release_ec;
      }
      if (release_ec) record_failure(id, "release", release_ec);
    }
  }

  // Reads, on the later holder's session, whether the earlier holder's node still exists.
  // ZooKeeper answers a session in order, so this read sees at least the state the grant saw.
  boost::asio::awaitable<void> probe_overlap(int id, std::size_t earlier, std::size_t later) {
    std::string node;
    {
      std::lock_guard l(mutex_);
      node = grants_[earlier].node;
    }
    auto [ec, stat] = co_await sessions_[id]->async_exists(
        node, boost::asio::as_tuple(boost::asio::use_awaitable));
    std::lock_guard l(mutex_);
    overlaps_.push_back(overlap{earlier, later, ec, ec || stat.has_value(), clock::now()});
  }

  boost::asio::awaitable<void> critical_section(std::int64_t token, const std::string& me,
                                                std::mt19937& rng,
                                                boost::asio::steady_timer& timer) {
    const std::int64_t unfenced = store_.read(options_.unfenced_resource);
    std::optional<std::int64_t> value;
    if (options_.fenced_read)
      value = store_.read(options_.resource, token, me);
    else
      value = store_.read(options_.resource);
    const auto max_ms = static_cast<unsigned>(options_.max_critical_section.count());
    timer.expires_after(std::chrono::milliseconds(max_ms ? rng() % (max_ms + 1) : 0));
    co_await timer.async_wait(boost::asio::as_tuple(boost::asio::use_awaitable));
    store_.write_unfenced(options_.unfenced_resource, unfenced + 1);
    ++unfenced_increments_;
    if (!value) {
      ++refused_reads_;
      co_return;
    }
    store_.write(options_.resource, token, *value + 1, me);
  }

  std::size_t record_grant(int id, const held_lock& held) {
    std::lock_guard l(mutex_);
    grants_.push_back(
        grant{id, held.token().value(), held.session_id(), clock::now(), {}, held.path(), {}});
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
  std::vector<std::size_t> inside_;  // grants inside their critical section; executor thread only
  std::atomic<int> refused_reads_{0};
  std::atomic<std::int64_t> unfenced_increments_{0};
  mutable std::mutex mutex_;
  std::vector<grant> grants_;
  std::vector<failure> failures_;
  std::vector<int> acquired_;
  std::vector<overlap> overlaps_;
  std::vector<std::vector<clock::time_point>> expiries_;
  std::vector<state_subscription> subscriptions_;
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
