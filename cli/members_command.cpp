// SPDX-License-Identifier: Apache-2.0
#include "members_command.hpp"

#include "members_format.hpp"
#include "watch_loop.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/membership.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <iostream>
#include <memory>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// The view's first wait answers once the group is read; each later one with the next change,
// its watches armed before the read they cover, so no change is missed between. After the
// first listing the text form prints only what changed.
show_next show_members(session& zk, const command_line& cl) {
  struct state {
    state(session& zk, const std::string& path) : view(zk, path) {}
    group_view view;
    std::vector<member_info> shown;
    bool first = true;
  };
  auto s = std::make_shared<state>(zk, cl.path);
  return [s, &cl]() -> asio::awaitable<void> {
    auto [ec, members] = co_await s->view.async_wait_change(use_tuple);
    if (ec) throw error_for(ec, "cannot list the members of " + cl.path);
    if (cl.json)
      std::cout << format_members_json(cl.path, members);
    else
      std::cout << (s->first ? format_members_text(cl.path, members)
                             : format_member_changes_text(s->shown, members));
    std::cout << std::flush;
    s->first = false;
    s->shown = std::move(members);
  };
}

}  // namespace

int run_members_command(const command_line& cl) {
  session_options options = make_session_options(cl.global, make_logger(cl.global.verbose));
  // A watcher outlives an expiry: the view reads the group again on the next session.
  options.renew_after_expiry = cl.watch;
  return run_watch_loop(cl, std::move(options),
                        [&cl](session& zk) { return show_members(zk, cl); });
}

}  // namespace zkcoord::cli
