// SPDX-License-Identifier: Apache-2.0
// The second descriptor that lets the session read its connection to the end after the C
// client's close (lib/session/connection_linger.*; docs/session.md, "Closing"), on a loopback
// TCP pair: "client" plays the C client's socket, "server" the ZooKeeper end.
#include "session/connection_linger.hpp"

#define BOOST_TEST_MODULE connection_linger
#include <boost/test/unit_test.hpp>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>

#include <sys/socket.h>
#include <unistd.h>

using zkcoord::detail::connection_linger;
namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;

namespace {

struct tcp_pair {
  asio::io_context io;
  tcp::socket server{io}, client{io};
  tcp_pair() {
    tcp::acceptor acceptor(io, tcp::endpoint(asio::ip::address_v4::loopback(), 0));
    client.connect(acceptor.local_endpoint());
    acceptor.accept(server);
  }
  // What the server end reads next: bytes, 0 for an orderly end, -errno for a failure.
  long server_reads() {
    char buffer[65536];
    const ssize_t n = ::recv(server.native_handle(), buffer, sizeof buffer, 0);
    return n >= 0 ? static_cast<long>(n) : -static_cast<long>(errno);
  }
  // The client end's descriptor, closed the way the C client closes it (no shutdown).
  void close_client_descriptor() { ::close(client.release()); }
};

}  // namespace

// The kernel behaviour the linger exists for: a socket closed with data unread ends in a reset,
// and the peer's pending read fails.
BOOST_AUTO_TEST_CASE(closing_with_unread_data_resets_the_connection) {
  tcp_pair p;
  asio::write(p.server, asio::buffer(std::string(1000, 'r')));  // replies, never read
  std::this_thread::sleep_for(20ms);
  p.close_client_descriptor();
  std::this_thread::sleep_for(20ms);
  BOOST_TEST(p.server_reads() == -ECONNRESET);
}

BOOST_AUTO_TEST_CASE(reads_to_the_end_so_that_the_last_close_is_orderly) {
  tcp_pair p;
  asio::write(p.server, asio::buffer(std::string(1000, 'r')));  // unread when the client closes
  std::this_thread::sleep_for(20ms);
  connection_linger linger(p.client.native_handle());
  p.close_client_descriptor();
  asio::write(p.server, asio::buffer(std::string(100, 'r')));  // e.g. the close reply
  // The server ends the session: its last words, then its side closes.
  p.server.shutdown(tcp::socket::shutdown_send);
  BOOST_TEST(linger.await_server_close(5s));
  BOOST_TEST(p.server_reads() == 0);  // an orderly end, not a reset
}

BOOST_AUTO_TEST_CASE(gives_up_after_its_bound_when_the_server_stays) {
  tcp_pair p;
  connection_linger linger(p.client.native_handle());
  p.close_client_descriptor();
  BOOST_TEST(!linger.await_server_close(50ms));
  std::this_thread::sleep_for(20ms);
  BOOST_TEST(p.server_reads() == 0);  // let go of: nothing was left unread, so an orderly end
}

BOOST_AUTO_TEST_CASE(without_a_descriptor_there_is_nothing_to_wait_for) {
  connection_linger none;
  BOOST_TEST(!none.await_server_close(5s));
  connection_linger invalid(-1);
  BOOST_TEST(!invalid.await_server_close(5s));
  tcp_pair p;
  connection_linger moved_from(p.client.native_handle());
  connection_linger moved_to = std::move(moved_from);
  BOOST_TEST(!moved_from.await_server_close(5s));
  p.close_client_descriptor();
  p.server.shutdown(tcp::socket::shutdown_send);
  BOOST_TEST(moved_to.await_server_close(5s));
}
