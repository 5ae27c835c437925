// SPDX-License-Identifier: Apache-2.0
// Connecting a benchmark's sessions one after the other before its loops start.
#pragma once

#include <zkcoord/session.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>
#include <memory>
#include <vector>

namespace zkcoord::bench {

/// Connects every session; on the first failure says why on stderr and returns false.
inline boost::asio::awaitable<bool> connect_all(
    std::vector<std::unique_ptr<zkcoord::session>>& sessions) {
  for (auto& s : sessions) {
    auto [ec] = co_await s->async_connect(boost::asio::as_tuple(boost::asio::use_awaitable));
    if (ec) {
      std::fprintf(stderr, "connect: %s\n", ec.message().c_str());
      co_return false;
    }
  }
  co_return true;
}

}  // namespace zkcoord::bench
