// SPDX-License-Identifier: Apache-2.0
// Builds against the installed headers and library; running it checks error mapping and
// path validation without a server.
#include <zkcoord/error.hpp>
#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/testing/server.hpp>

#include <boost/asio/io_context.hpp>

#include <iostream>

int main() {
  boost::asio::io_context io;
  zkcoord::session s(io.get_executor(), zkcoord::session_options{"127.0.0.1:2181"});
  const bool ok = zkcoord::path_problem("/a/").size() > 0 &&
                  zkcoord::make_error_code(zkcoord::zk_errc::operation_timeout) ==
                      zkcoord::condition::connection_loss;
  std::cout << (ok ? "consumer ok" : "consumer broken") << "\n";
  return ok ? 0 : 1;
}
