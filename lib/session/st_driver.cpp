// SPDX-License-Identifier: Apache-2.0
// The libzookeeper_st driver (st_driver.hpp): rounds of zookeeper_process and
// zookeeper_interest on the session's strand, waiting in between with Asio.
#include "session_impl.hpp"

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace zkcoord::detail {

namespace {
// Replies read in one round at most; then the round goes to the back of the strand's queue.
constexpr int max_replies_per_round = 64;
}  // namespace

// Any thread, handle_mutex_ held after a call into the C client.
void session_impl::st_after_call() {
  if (strand_.running_in_this_thread()) return st_rearm();
  st_driver& d = *driver_;
  if (!zh_) return st_kick();
  // What the C client waits for now; the strand only needs to hear of a change.
  int fd = -1, interest = 0;
  timeval tv{};
  const int rc = zookeeper_interest(zh_, &fd, &interest, &tv);
  const bool connected = zoo_state(zh_) == ZOO_CONNECTED_STATE;
  if (rc != ZOK || d.generation != generation_.load() || fd != d.fd || !connected || !d.connected ||
      ((interest & ZOOKEEPER_WRITE) && !d.write_waiting))
    st_kick();
}

// Any thread: a round on the strand (one on its way is enough).
void session_impl::st_kick() {
  auto weak = weak_from_this();
  if (weak.expired()) return;  // being destroyed: the driver goes with it
  if (driver_->refresh_posted.exchange(true)) return;
  boost::asio::post(strand_, [weak = std::move(weak)] {
    if (auto self = weak.lock()) {
      self->driver_->refresh_posted = false;
      self->st_round(0, 0, 0);
    }
  });
}

// Strand. `ready`: what the socket of registration `epoch` is ready for (0: a refresh or the
// timer); `waited`: the wait that reported it (0: none, the round was posted).
void session_impl::st_round(std::uint64_t epoch, int ready, int waited) {
  // What the C client's callbacks hand on in this round runs once it let go of the handle.
  delivery_batch handed_on;
  {
    c_call_lock lock(handle_mutex_);
    st_round_locked(epoch, ready, waited);
  }
  handed_on.close();
  handed_on.run();
}

// Strand, handle_mutex_ held: the round's I/O.
void session_impl::st_round_locked(std::uint64_t epoch, int ready, int waited) {
  st_driver& d = *driver_;
  if (ready != 0) {
    if (epoch != d.epoch) return;  // a wait of an earlier registration
    if (waited & ZOOKEEPER_READ) d.read_waiting = false;
    if (waited & ZOOKEEPER_WRITE) d.write_waiting = false;
  }
  if (!zh_) return st_drop();
  if (d.generation != generation_.load()) {
    st_drop();
    d.generation = generation_.load();
  }
  {
    // Wait for more before reading: an edge that comes while this round reads is not lost.
    if ((ready & ZOOKEEPER_READ) && d.fd >= 0 && !d.read_waiting) st_wait(ZOOKEEPER_READ);
    int events = ready;
    int rc = ZOK;
    int replies = 0;
    do {
      rc = zookeeper_process(zh_, events);
      events &= ~ZOOKEEPER_WRITE;
    } while ((ready & ZOOKEEPER_READ) && rc == ZOK && ++replies < max_replies_per_round);
    if (rc == ZOK && replies >= max_replies_per_round) {
      // More may be waiting in the socket, and its edge is spent: read on in a later round.
      boost::asio::post(strand_, [weak = weak_from_this(), epoch = d.epoch] {
        if (auto self = weak.lock()) self->st_round(epoch, ZOOKEEPER_READ, 0);
      });
    }
  }
  st_rearm();
}

// Strand, handle_mutex_ held: waits for what the C client waits for now.
void session_impl::st_rearm() {
  st_driver& d = *driver_;
  if (!zh_) return st_drop();
  if (d.generation != generation_.load()) {
    st_drop();
    d.generation = generation_.load();
  }
  int fd = -1, interest = 0;
  timeval tv{};
  const int rc = zookeeper_interest(zh_, &fd, &interest, &tv);
  if (rc == ZINVALIDSTATE) return st_drop();  // expired or refused: the session event follows
  if (rc != ZOK) fd = -1;  // the C client closed its socket and will open another
  const bool connected = fd >= 0 && zoo_state(zh_) == ZOO_CONNECTED_STATE;
  if (fd != d.fd || !connected || !d.connected) {
    // A socket the C client may have replaced (st_driver.hpp): register it again.
    const std::uint64_t gen = d.generation;
    st_drop();
    d.generation = gen;
    if (fd >= 0) {
      const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, 0);
      error_code ec;
      if (copy >= 0) d.socket.assign(copy, ec);
      if (copy < 0 || ec) {
        if (copy >= 0 && ec) ::close(copy);
        logger()->error("cannot wait for the ZooKeeper client's socket: {}",
                        copy < 0 ? std::strerror(errno) : ec.message());
        fd = -1;
      }
    }
    d.fd = fd;
  }
  d.connected = connected;
  if (d.fd >= 0) {
    if ((interest & ZOOKEEPER_READ) && !d.read_waiting) st_wait(ZOOKEEPER_READ);
    if ((interest & ZOOKEEPER_WRITE) && !d.write_waiting) {
      st_wait(ZOOKEEPER_WRITE);
      // A write wait reacts to an edge: the socket may have become writable already.
      pollfd p{d.fd, POLLOUT, 0};
      if (::poll(&p, 1, 0) > 0)
        boost::asio::post(strand_, [weak = weak_from_this(), epoch = d.epoch] {
          if (auto self = weak.lock()) self->st_round(epoch, ZOOKEEPER_WRITE, 0);
        });
    }
  }
  auto wait = std::chrono::milliseconds(tv.tv_sec * 1000 + tv.tv_usec / 1000);
  if (rc != ZOK || d.fd < 0) wait = std::max(wait, std::chrono::milliseconds(1));
  const auto at = steady::now() + wait;
  if (d.timer_waiting && d.timer_at <= at) return;  // fires early: that round looks again
  d.timer_at = at;
  d.timer_waiting = true;
  d.timer.expires_at(at);
  d.timer.async_wait(boost::asio::bind_executor(
      strand_, [weak = weak_from_this(), epoch = ++d.timer_epoch](error_code ec) {
        auto self = weak.lock();
        if (!self || ec) return;
        {
          c_call_lock lock(self->handle_mutex_);
          if (epoch != self->driver_->timer_epoch) return;
          self->driver_->timer_waiting = false;
        }
        self->st_round(0, 0, 0);
      }));
}

// Strand, handle_mutex_ held.
void session_impl::st_wait(int which) {
  st_driver& d = *driver_;
  (which == ZOOKEEPER_READ ? d.read_waiting : d.write_waiting) = true;
  using base = boost::asio::posix::descriptor_base;
  d.socket.async_wait(which == ZOOKEEPER_READ ? base::wait_read : base::wait_write,
                      boost::asio::bind_executor(strand_, [weak = weak_from_this(), which,
                                                           epoch = d.epoch](error_code ec) {
                        if (ec == boost::asio::error::operation_aborted) return;
                        if (auto self = weak.lock()) self->st_round(epoch, which, which);
                      }));
}

// Strand, handle_mutex_ held: lets go of the socket copy and the timer.
void session_impl::st_drop() {
  st_driver& d = *driver_;
  error_code ignored;
  d.socket.close(ignored);  // the copy only: the C client's socket is its own
  ++d.epoch;
  d.fd = -1;
  d.connected = false;
  d.read_waiting = false;
  d.write_waiting = false;
  if (d.timer_waiting) {
    d.timer.cancel();
    ++d.timer_epoch;
    d.timer_waiting = false;
  }
}

}  // namespace zkcoord::detail
