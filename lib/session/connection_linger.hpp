// SPDX-License-Identifier: Apache-2.0
// Ending the C client's connection so that the server reads it to the end.
//
// zookeeper_close queues the close request, flushes it, then waits only until *anything* is
// readable (wait_for_session_to_be_closed polls once) and closes its socket. With replies still
// unread (any request in flight at the close), Linux answers that close with a reset, and the
// server's read of the requests not yet consumed (the close request among them) fails with
// "Connection reset": the session lives on until its timeout, with its ephemeral nodes, i.e.
// every lock it held or waited for. Holding a second descriptor of the connection across
// zookeeper_close, and reading until the server closes its side (what it does once it has
// ended the session), makes the last close of the socket an orderly one.
#pragma once

#include <chrono>

namespace zkcoord::detail {

class connection_linger {
 public:
  connection_linger() = default;
  /// A descriptor of its own for the connection behind `fd` (a dup; -1 or a failed dup:
  /// nothing to wait for).
  explicit connection_linger(int fd) noexcept;
  connection_linger(connection_linger&& other) noexcept;
  connection_linger& operator=(connection_linger&& other) noexcept;
  connection_linger(const connection_linger&) = delete;
  connection_linger& operator=(const connection_linger&) = delete;
  ~connection_linger();

  /// Reads and drops what the server still sends until it closes the connection, for at most
  /// `bound`, then closes the descriptor. True if the server closed it.
  bool await_server_close(std::chrono::milliseconds bound) noexcept;

 private:
  void release() noexcept;
  int fd_ = -1;
};

}  // namespace zkcoord::detail
