// SPDX-License-Identifier: Apache-2.0
// The session's handle on libzookeeper_st (-DZKCOORD_ZK_CLIENT=st), driven by the session's
// strand: no thread of the session's own (docs/session.md, "Threading model").
//
// The C client tells what it waits for (zookeeper_interest: its socket, read and/or write, a
// timeout) and does the I/O, calling the completions and watchers inline, when told what is
// ready (zookeeper_process). The driver waits for that on the session's strand with Asio:
//   - the socket: a dup() of the C client's socket in a stream_descriptor. The C client closes
//     its own socket whenever it likes (a reconnect, close); Asio never sees that number, so it
//     can neither close it nor remove from epoll a number the process has reused meanwhile.
//     Registered again when the C client's socket number changes or when the handle was not
//     connected at the previous registration or is not now (a reconnect can close a socket and
//     open another with the same number; epoll drops a closed file's registration silently);
//   - the timeout: a steady_timer.
//
// Serialisation: every call into the C client on the handle (zookeeper_process and
// zookeeper_interest here; zoo_a* in session_impl::submit and its siblings, from any thread;
// zookeeper_init) holds session_impl's handle_mutex_ exclusively (session_impl::c_call_lock).
// The completions that zookeeper_process runs never call into the C client (they hand on to
// the round's delivery_batch, run once the round let go of the lock: client_deliveries.hpp),
// so nothing re-enters the lock. A call made off the strand that changes what the
// C client waits for (a request that did not fit the socket, a socket opened or closed) posts a
// round to the strand (session_impl::after_c_call). zookeeper_close runs on a detached handle
// (session_impl::detach_handle), which nothing else reaches any more.
#pragma once

#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>

namespace zkcoord::detail {

/// The driver's state. Its members are guarded by session_impl::handle_mutex_; `socket` and
/// `timer` are used on the session's strand only.
struct st_driver {
  template <class Executor>
  explicit st_driver(const Executor& strand) : socket(strand), timer(strand) {}

  boost::asio::posix::stream_descriptor socket;  ///< a dup() of the C client's socket
  boost::asio::steady_timer timer;
  std::uint64_t generation = 0;  ///< the handle followed (session_impl::generation_)
  int fd = -1;                   ///< the C client's socket number at the registration
  bool connected = false;        ///< the handle was connected at the registration
  std::uint64_t epoch = 0;       ///< registration number: waits of an earlier one are stale
  bool read_waiting = false;
  bool write_waiting = false;
  std::uint64_t timer_epoch = 0;
  bool timer_waiting = false;
  std::chrono::steady_clock::time_point timer_at{};
  std::atomic<bool> refresh_posted{false};
};

}  // namespace zkcoord::detail
