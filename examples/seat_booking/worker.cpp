// SPDX-License-Identifier: Apache-2.0
#include "seat_booking/worker.hpp"

#include "common/session_runner.hpp"
#include "common/worker_channel.hpp"
#include "seat_booking/seats_db.hpp"

#include <zkcoord/lock.hpp>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>

namespace seat_booking {
namespace asio = boost::asio;
namespace {

/// One customer's booking attempt; `zk` is null in the modes without a lock.
class booking {
 public:
  booking(const worker_options& options, zkcoord::session* zk)
      : options_(options),
        zk_(zk),
        db_(options.db),
        random_(static_cast<unsigned>(::getpid())),
        customer_(options.customer.empty() ? make_customer(options.id) : options.customer) {}

  asio::awaitable<int> run() {
    if (!examples::await_command().starts_with("start")) co_return 1;
    if (uses_lock(options_.mode)) {
      co_await book_under_lock();
    } else {
      co_await book_without_lock();
    }
    co_return 0;
  }

 private:
  static std::string make_customer(int id) {
    char text[16];
    std::snprintf(text, sizeof text, "fan_%02d", id);
    return text;
  }

  /// "Is it free?" then the think time (and the orchestrator's pause point).
  asio::awaitable<std::optional<std::string>> check_then_wait() {
    auto seat = db_.pick_free_seat(random_);
    if (!seat) {
      examples::emit("sold-out: no free seat left, nothing booked");
      co_return std::nullopt;
    }
    examples::emit("checked " + *seat + ": free");
    if (options_.handshake) examples::await_command();  // the orchestrator may SIGSTOP us here
    asio::steady_timer think(co_await asio::this_coro::executor, options_.delay);
    co_await think.async_wait(asio::use_awaitable);
    co_return seat;
  }

  void confirm(const std::string& seat) {
    db_.confirm(customer_, seat);
    examples::emit("confirmed " + seat + " to " + customer_ + " (confirmation sent)");
  }

  void write_unconditionally(const std::string& seat) {
    const auto previous = db_.write_unconditional(seat, customer_);
    if (previous && *previous != customer_) {
      examples::emit("overwrote " + seat + ": it was sold to " + *previous + ", now " + customer_ +
                     "  <-- a late write over someone else's sale");
    } else {
      examples::emit("wrote " + seat + " sold to " + customer_);
    }
    confirm(seat);
  }

  asio::awaitable<void> book_without_lock() {
    for (;;) {
      const auto seat = co_await check_then_wait();
      if (!seat) co_return;
      if (options_.mode == booking_mode::naive) {
        write_unconditionally(*seat);
        co_return;
      }
      if (db_.write_if_free(*seat, customer_)) {
        examples::emit("wrote " + *seat + " sold to " + customer_ + " (WHERE holder IS NULL)");
        confirm(*seat);
        co_return;
      }
      examples::emit("lost-race " + *seat + ": taken meanwhile (0 rows updated), looking again");
    }
  }

  asio::awaitable<void> book_under_lock() {
    zkcoord::lock show_lock(*zk_, options_.lock_path, {.app_id = customer_});
    auto held = co_await show_lock.async_acquire(asio::use_awaitable);
    const std::int64_t token = held.token().value();
    examples::emit("holds the lock, fencing token " + std::to_string(token));
    if (const auto seat = co_await check_then_wait()) {
      if (options_.mode == booking_mode::lock) {
        write_unconditionally(*seat);
      } else if (db_.write_fenced(*seat, customer_, token,
                                  options_.broken_fence_check ? fence_check::broken_for_testing
                                                              : fence_check::correct)) {
        examples::emit("wrote " + *seat + " sold to " + customer_ + " with fence " +
                       std::to_string(token));
        confirm(*seat);
      } else {
        examples::emit("rejected " + *seat + ": our token " + std::to_string(token) +
                       " < its fence " + std::to_string(db_.fence_of(*seat)) +
                       ", stale write updated 0 rows, no confirmation");
      }
    }
    // Said before the release: the next holder may report its grant before our reply comes.
    examples::emit("releasing the lock");
    zkcoord::error_code ec;
    co_await held.async_release(asio::redirect_error(asio::use_awaitable, ec));
    if (ec) examples::emit("release-failed: " + ec.message() + " (the lock had been lost)");
  }

  const worker_options& options_;
  zkcoord::session* zk_;
  seats_db db_;
  std::mt19937 random_;
  std::string customer_;
};

int run_without_session(const worker_options& options) {
  asio::io_context io;
  int status = 1;
  booking attempt(options, nullptr);
  examples::emit("ready");
  asio::co_spawn(io, attempt.run(), [&](std::exception_ptr error, int result) {
    status = error ? 1 : result;
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        std::cerr << "error: " << e.what() << std::endl;
      }
    }
  });
  io.run();
  return status;
}

}  // namespace

int run_worker(const worker_options& options) {
  if (!uses_lock(options.mode)) return run_without_session(options);
  zkcoord::session_options session{.connect = options.connect,
                                   .session_timeout = options.session_timeout};
  return examples::run_with_session(session, [&](zkcoord::session& zk) -> asio::awaitable<int> {
    examples::emit("ready session=" + std::to_string(zk.session_id()) +
                   " timeout_ms=" + std::to_string(zk.negotiated_timeout().count()));
    booking attempt(options, &zk);
    co_return co_await attempt.run();
  });
}

}  // namespace seat_booking
