// SPDX-License-Identifier: Apache-2.0
#include "cache_regen/worker.hpp"

#include "cache_regen/cache_db.hpp"
#include "common/session_runner.hpp"
#include "common/worker_channel.hpp"

#include <zkcoord/lock.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace cache_regen {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
namespace {

using clock = std::chrono::steady_clock;

asio::awaitable<void> sleep_for(clock::duration d) {
  asio::steady_timer timer(co_await asio::this_coro::executor, d);
  co_await timer.async_wait(asio::use_awaitable);
}

/// Creates `path` as a container node unless it exists.
asio::awaitable<void> ensure_container(zkcoord::session& zk, const std::string& path) {
  auto [ec, node] = co_await zk.async_create(path, "", {zkcoord::create_mode::container},
                                             asio::as_tuple(asio::use_awaitable));
  if (ec && ec != zkcoord::zk_errc::node_exists) throw zkcoord::system_error(ec, path);
}

class cache_server {
 public:
  cache_server(const worker_options& options, zkcoord::session& zk)
      : options_(options),
        zk_(zk),
        db_(options.db),
        name_("process-" + std::to_string(options.id)),
        fresh_path_(options.zk_root + "/fresh/" + options.key) {}

  asio::awaitable<void> prepare() {
    const auto parent = options_.zk_root.substr(0, options_.zk_root.rfind('/'));
    if (!parent.empty()) co_await ensure_container(zk_, parent);
    co_await ensure_container(zk_, options_.zk_root);
    co_await ensure_container(zk_, options_.zk_root + "/fresh");
  }

  /// Serves every request at once and returns when all are answered.
  asio::awaitable<void> serve_all() {
    auto executor = co_await asio::this_coro::executor;
    int pending = options_.requests;
    std::exception_ptr failure;
    for (int n = 1; n <= options_.requests; ++n) {
      asio::co_spawn(executor, serve(n), [&](std::exception_ptr e) {
        if (e) failure = e;
        --pending;
      });
    }
    while (pending > 0) co_await sleep_for(std::chrono::milliseconds(5));
    if (failure) std::rethrow_exception(failure);
  }

 private:
  asio::awaitable<void> serve(int n) {
    const auto start = clock::now();
    std::string how;  // not a ?: of two co_awaits: GCC 12 miscompiles that
    if (options_.dedup) {
      how = co_await get_dedup();
    } else {
      how = co_await get_plain();
    }
    const auto ms =
        std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start).count();
    examples::emit("served request=" + std::to_string(n) + " how=" + how +
                   " ms=" + std::to_string(ms));
  }

  asio::awaitable<void> regenerate() {
    co_await sleep_for(options_.compute);  // the expensive computation
    db_.put_regenerated(options_.key, "report computed by " + name_, name_);
  }

  asio::awaitable<std::string> get_plain() {
    if (db_.get(options_.key)) co_return "hit";
    co_await regenerate();
    co_return "regenerated";
  }

  /// One request regenerates under the efficiency lock; the others wait for the fresh value.
  asio::awaitable<std::string> get_dedup() {
    for (;;) {
      if (db_.get(options_.key)) co_return "hit";
      zkcoord::lock regen_lock(zk_, options_.zk_root + "/regen/" + options_.key, {.app_id = name_});
      auto [ec, held] = co_await regen_lock.async_try_acquire(asio::as_tuple(asio::use_awaitable));
      if (!ec) co_return co_await regenerate_once(held);
      if (ec != zkcoord::errc::busy) throw zkcoord::system_error(ec, "try-acquire");
      if (co_await wait_for_fresh_value()) co_return "waited";
    }
  }

  asio::awaitable<std::string> regenerate_once(zkcoord::held_lock& held) {
    std::string how = "hit";
    if (!db_.get(options_.key)) {  // filled while we took the lock: nothing to do
      co_await regenerate();
      // Waiters watch this node: it appears once the value is in the cache.
      auto [ec, node] =
          co_await zk_.async_create(fresh_path_, name_, {zkcoord::create_mode::ephemeral},
                                    asio::as_tuple(asio::use_awaitable));
      if (ec && ec != zkcoord::zk_errc::node_exists) throw zkcoord::system_error(ec, "publish");
      how = "regenerated";
    }
    zkcoord::error_code ignored;  // efficiency lock: a failed release costs nothing but time
    co_await held.async_release(asio::redirect_error(asio::use_awaitable, ignored));
    co_return how;
  }

  /// Watches the "fresh" node; true once the value is in the cache, false to try again
  /// (the regenerator may have died: then the lock is free again after its session).
  asio::awaitable<bool> wait_for_fresh_value() {
    zkcoord::watch fresh;
    co_await zk_.async_exists(fresh_path_, fresh, asio::use_awaitable);
    if (db_.get(options_.key)) co_return true;  // published before our watch was armed
    co_await (fresh.async_wait(asio::use_awaitable) ||
              sleep_for(std::chrono::seconds(5) + options_.compute));
    co_return db_.get(options_.key).has_value();
  }

  const worker_options& options_;
  zkcoord::session& zk_;
  cache_db db_;
  std::string name_;
  std::string fresh_path_;
};

}  // namespace

int run_worker(const worker_options& options) {
  zkcoord::session_options session{.connect = options.connect};
  return examples::run_with_session(session, [&](zkcoord::session& zk) -> asio::awaitable<int> {
    cache_server server(options, zk);
    co_await server.prepare();
    examples::emit("ready");
    if (!examples::await_command().starts_with("start")) co_return 1;
    co_await server.serve_all();
    co_return 0;
  });
}

}  // namespace cache_regen
