// SPDX-License-Identifier: Apache-2.0
#include "leader_command.hpp"

#include "leader_format.hpp"
#include "watch_loop.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/election.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <iostream>
#include <memory>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// The observer's first wait answers at once with the current participants; each later one
// with the next change, armed before the read it covers, so no change is missed between.
show_next show_leader(session& zk, const command_line& cl) {
  auto observer = std::make_shared<election_observer>(zk, cl.path);
  return [observer, &cl]() -> asio::awaitable<void> {
    auto [ec, all] = co_await observer->async_wait_change(use_tuple);
    if (ec)
      throw error_for(ec, (cl.watch ? "cannot watch the participants of "
                                    : "cannot list the participants of ") +
                              cl.path);
    std::cout << (cl.json ? format_leader_json(cl.path, all) : format_leader_text(cl.path, all))
              << std::flush;
  };
}

}  // namespace

int run_leader_command(const command_line& cl) {
  return run_watch_loop(cl, make_session_options(cl.global, make_logger(cl.global.verbose)),
                        [&cl](session& zk) { return show_leader(zk, cl); });
}

}  // namespace zkcoord::cli
