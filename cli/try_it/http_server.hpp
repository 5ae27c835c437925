// SPDX-License-Identifier: Apache-2.0
// The try-it page's HTTP server (Boost.Beast): 127.0.0.1 only, and nothing but the page, its
// event stream, starting a run and the last run saved as a page. A request naming another
// host (DNS rebinding) is refused; a run is started only by a JSON POST, which a page of
// another origin cannot send without a preflight this server never answers.
#pragma once

#include "try_it/lesson_board.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <cstdint>

namespace zkcoord::cli::try_it {

class http_server {
 public:
  /// Listens on 127.0.0.1:`port` (0: a free port). Throws boost::system::system_error.
  http_server(boost::asio::io_context& io, lesson_board& board, std::uint16_t port);
  std::uint16_t port() const noexcept { return port_; }
  void stop();

 private:
  void accept();

  boost::asio::ip::tcp::acceptor acceptor_;
  lesson_board& board_;
  std::uint16_t port_ = 0;
};

}  // namespace zkcoord::cli::try_it
