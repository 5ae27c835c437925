// SPDX-License-Identifier: Apache-2.0
// The barrier (Curator's DistributedBarrier): set, remove, and wait while the node exists. Each
// operation is a coroutine on the session's executor; every wake-up reads the node again.
#include "barrier/barrier_io.hpp"

#include <zkcoord/barrier.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord {

namespace asio = boost::asio;
using namespace detail::barrier_io;

namespace {

asio::awaitable<error_code> wait_while_set(impl_ptr impl, std::string path, deadline until) {
  for (;;) {
    watch w;
    // Named awaitables: GCC 12 destroys a co_await expression's temporaries twice.
    auto look = exists(impl, path, &w);
    auto [ec, stat] = co_await std::move(look);
    if (ec) co_return ec;
    if (!stat) co_return error_code();
    if (passed(until)) co_return make_error_code(errc::timeout);
    auto wait = wait_for(w, until);
    ec = co_await std::move(wait);
    if (ec) co_return ec;
    // Any event: read the node again.
  }
}

}  // namespace

barrier::barrier(session& s, std::string path)
    : impl_(detail::session_access::impl(s)), path_(std::move(path)) {}

void barrier::start(std::shared_ptr<detail::session_impl> impl, std::string path, op what,
                    std::optional<std::chrono::steady_clock::duration> timeout,
                    detail::void_completion handler) {
  if (!impl) {
    // A moved-from session.
    return detail::complete_via(detail::handler_executor(asio::system_executor()),
                                std::move(handler), make_error_code(errc::closed));
  }
  const detail::handler_executor executor = impl->tracked_executor();
  if (const std::string why = path_problem(path); !why.empty()) {
    impl->logger()->warn("barrier path refused: {}", why);
    return detail::complete_via(executor, std::move(handler), make_error_code(errc::bad_path));
  }
  const deadline until =
      timeout ? deadline(std::chrono::steady_clock::now() + *timeout) : std::nullopt;
  auto body = [](impl_ptr impl, std::string path, op what,
                 deadline until) -> asio::awaitable<error_code> {
    switch (what) {
      case op::set: {
        auto make = create(impl, path, create_mode::persistent, true);
        const error_code ec = co_await std::move(make);
        co_return ec == zk_errc::node_exists ? error_code() : ec;
      }
      case op::remove: {
        auto gone = remove(impl, path);
        co_return co_await std::move(gone);
      }
      case op::wait: {
        auto wait = wait_while_set(impl, path, until);
        co_return co_await std::move(wait);
      }
    }
    co_return make_error_code(errc::bad_argument);
  };
  asio::co_spawn(
      executor, body(impl, std::move(path), what, until),
      [handler = std::move(handler), executor](std::exception_ptr e, error_code ec) mutable {
        if (e) ec = make_error_code(zk_errc::system_error);
        detail::complete_via(executor, std::move(handler), ec);
      });
}

}  // namespace zkcoord
