// SPDX-License-Identifier: Apache-2.0
// An application's ordinary reads: exists("/") every `every` on a session, on the session's
// executor. A follower cut off from the quorum goes on answering them for about
// syncLimit x tickTime; under the old lease rule these answers renewed the lease, which is
// what container_lease_partition shows failing. Records when the last one was answered.
#pragma once

#include <zkcoord/session.hpp>

#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <future>
#include <memory>
#include <optional>

namespace zkcoord::test {

class background_reads {
 public:
  using steady = std::chrono::steady_clock;

  /// `s` must outlive the reads' stop() (the destructor stops them).
  background_reads(session& s, std::chrono::milliseconds every)
      : state_(std::make_shared<state>(s, every)) {
    boost::asio::post(s.get_executor(), [st = state_] { st->next(); });
  }
  ~background_reads() { stop(); }
  background_reads(const background_reads&) = delete;
  background_reads& operator=(const background_reads&) = delete;

  /// Stops sending (idempotent); returns once no new read can start. Reads in flight complete
  /// later into the shared state, never into this object.
  void stop() {
    if (stopped_) return;
    stopped_ = true;
    std::promise<void> done;
    boost::asio::post(state_->timer.get_executor(), [st = state_, &done] {
      st->stopped = true;
      st->timer.cancel();
      done.set_value();
    });
    done.get_future().wait();
  }

  /// When a read was last answered successfully (read after stop()).
  std::optional<steady::time_point> last_answered() const {
    std::promise<std::optional<steady::time_point>> at;
    boost::asio::post(state_->timer.get_executor(),
                      [st = state_, &at] { at.set_value(st->last_answered); });
    return at.get_future().get();
  }

 private:
  // Everything below is touched on the session's executor only.
  struct state : std::enable_shared_from_this<state> {
    state(session& s, std::chrono::milliseconds every)
        : s(s), every(every), timer(s.get_executor()) {}
    void next() {
      if (stopped) return;
      s.async_exists("/", [st = shared_from_this()](error_code ec, std::optional<node_stat>) {
        if (!ec) st->last_answered = steady::now();
      });
      timer.expires_after(every);
      timer.async_wait([st = shared_from_this()](error_code ec) {
        if (!ec) st->next();
      });
    }
    session& s;
    std::chrono::milliseconds every;
    boost::asio::steady_timer timer;
    bool stopped = false;
    std::optional<steady::time_point> last_answered;
  };
  std::shared_ptr<state> state_;
  bool stopped_ = false;
};

}  // namespace zkcoord::test
