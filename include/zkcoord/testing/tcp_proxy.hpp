// SPDX-License-Identifier: Apache-2.0
// A user-space TCP proxy on 127.0.0.1 for fault injection between a client and a server:
// cut connections, partition (blackhole), refuse, and lose the reply to a request.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace zkcoord::testing {

/// Listens on 127.0.0.1 (a free port) and forwards each connection to target_host:target_port
/// on its own thread. Control calls are synchronous: when they return, the proxy acts on them.
class tcp_proxy {
 public:
  tcp_proxy(std::string target_host, std::uint16_t target_port);
  ~tcp_proxy();
  tcp_proxy(const tcp_proxy&) = delete;
  tcp_proxy& operator=(const tcp_proxy&) = delete;

  /// "127.0.0.1:PORT" of the proxy.
  std::string connect_string() const;
  std::uint16_t port() const noexcept;

  /// Resets (RST) every current connection, both sides.
  void drop_all();
  /// true: stop forwarding in both directions but keep the sockets open (bytes wait in the
  /// kernel buffers, like packets a partitioned network retransmits later); new connections
  /// are accepted and also stall. false: forward again, including what waited.
  void blackhole(bool on);
  /// true: close the listening socket, so new connections are refused (ECONNREFUSED);
  /// existing ones continue. false: listen again on the same port.
  void refuse(bool on);
  /// One shot: the next ZooKeeper request (a frame with xid > 0; pings and auth are ignored)
  /// that any current or new connection sends is forwarded to the server, but from then on
  /// nothing goes back to that client, and the connection is reset as soon as the server's
  /// reply to that request arrives. The server applied the request; the client sees a
  /// connection loss. Assumes the ZooKeeper wire protocol from the start of each connection.
  void drop_next_reply_after_request();
  /// true: the server's replies wait (in the proxy) while the client's requests still reach
  /// the server, as on a link that is slow in one direction; false: deliver what waited.
  void hold_replies(bool on);
  /// When the proxy last handed bytes from a client to the server (steady clock; the epoch if
  /// never): the server heard from that client no earlier than this.
  std::chrono::steady_clock::time_point last_forwarded_to_server() const;
  /// Number of connections accepted so far.
  std::size_t connections_accepted() const;

 private:
  class impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace zkcoord::testing
