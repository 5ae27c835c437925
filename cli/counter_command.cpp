// SPDX-License-Identifier: Apache-2.0
#include "counter_command.hpp"

#include "exit_code.hpp"
#include "watch_loop.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/counter.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <charconv>
#include <iostream>
#include <limits>
#include <memory>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);

// The CLI is one writer among many: plenty of tries, a little random spread between them.
constexpr atomic_counter_options cli_options() {
  return {.max_tries = 100, .retry_delay = std::chrono::milliseconds(20)};
}

std::int64_t parse_number(const std::string& word, int bytes, std::string_view what) {
  std::int64_t value = 0;
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, value);
  if (word.empty() || ec == std::errc::invalid_argument || ptr != end)
    throw usage_error("counter: " + std::string(what) + " '" + word + "' is not a whole number");
  const bool fits = bytes == 8 || (value >= std::numeric_limits<std::int32_t>::min() &&
                                   value <= std::numeric_limits<std::int32_t>::max());
  if (ec == std::errc::result_out_of_range || !fits)
    throw usage_error("counter: " + std::string(what) + " '" + word + "' does not fit in " +
                      std::to_string(bytes) + " bytes");
  return value;
}

template <class T>
asio::awaitable<void> run_on(session& zk, const command_line& cl) {
  basic_distributed_atomic<T> counter(zk, cl.path, cli_options());
  using action = counter_request::action;
  const counter_request& req = cl.counter;
  std::string doing;
  error_code ec;
  bool succeeded = false;
  std::int64_t pre = 0, post = 0;
  const auto take = [&](const std::tuple<error_code, atomic_result<T>>& result) {
    ec = std::get<0>(result);
    succeeded = std::get<1>(result).succeeded;
    pre = std::get<1>(result).pre_value;
    post = std::get<1>(result).post_value;
  };
  switch (req.what) {
    case action::get:
      doing = "cannot read the counter " + cl.path;
      take(co_await counter.async_get(use_tuple));
      break;
    case action::add:
      doing = "cannot add to the counter " + cl.path;
      take(co_await counter.async_add(static_cast<T>(req.first), use_tuple));
      break;
    case action::set:
      doing = "cannot set the counter " + cl.path;
      take(co_await counter.async_try_set(static_cast<T>(req.first), use_tuple));
      break;
    case action::cas:
      doing = "cannot compare-and-set the counter " + cl.path;
      take(co_await counter.async_compare_and_set(static_cast<T>(req.first),
                                                  static_cast<T>(req.second), use_tuple));
      break;
  }
  if (ec) throw error_for(ec, doing);
  if (!succeeded && req.what == action::cas)
    throw cli_error(exit_code::cas_lost, "cas: the counter " + cl.path + " holds " +
                                             std::to_string(pre) + ", not " +
                                             std::to_string(req.first) + "; nothing written");
  if (!succeeded)
    throw cli_error(exit_code::lock_timeout, doing + ": other writers changed it first, " +
                                                 std::to_string(cli_options().max_tries) +
                                                 " times; try again");
  std::cout << post << "\n" << std::flush;
}

}  // namespace

bool is_negative_number(std::string_view arg) {
  if (arg.size() < 2 || arg[0] != '-') return false;
  for (char c : arg.substr(1))
    if (c < '0' || c > '9') return false;
  return true;
}

int parse_counter_bytes(std::string_view value) {
  if (value == "4") return 4;
  if (value == "8") return 8;
  throw usage_error("invalid --bytes '" + std::string(value) +
                    "' (expected 4 for an int, as Curator's SharedCount and "
                    "DistributedAtomicInteger, or 8 for a long, as DistributedAtomicLong)");
}

counter_request parse_counter_operands(const std::vector<std::string>& words, int bytes) {
  using action = counter_request::action;
  counter_request req;
  req.bytes = bytes;
  auto want = [&](std::size_t n, const char* usage) {
    if (words.size() < n + 1)
      throw usage_error(std::string("counter: ") + words[0] + " needs " + usage);
    if (words.size() > n + 1) throw usage_error("unexpected argument '" + words[n + 1] + "'");
  };
  if (words.empty()) return req;
  const std::string& op = words[0];
  if (op == "get") {
    want(0, "");
  } else if (op == "add") {
    want(1, "N (add N, N may be negative)");
    req.what = action::add;
    req.first = parse_number(words[1], bytes, "N");
  } else if (op == "set") {
    want(1, "N (set N)");
    req.what = action::set;
    req.first = parse_number(words[1], bytes, "N");
  } else if (op == "cas") {
    want(2, "OLD and NEW (cas OLD NEW)");
    req.what = action::cas;
    req.first = parse_number(words[1], bytes, "OLD");
    req.second = parse_number(words[2], bytes, "NEW");
  } else {
    throw usage_error("counter: unknown operation '" + op +
                      "' (expected get, add N, set N or cas OLD NEW)");
  }
  return req;
}

int run_counter_command(const command_line& cl) {
  return run_watch_loop(cl, make_session_options(cl.global, make_logger(cl.global.verbose)),
                        [&cl](session& zk) {
                          return show_next([&zk, &cl]() -> asio::awaitable<void> {
                            if (cl.counter.bytes == 4)
                              co_await run_on<std::int32_t>(zk, cl);
                            else
                              co_await run_on<std::int64_t>(zk, cl);
                          });
                        });
}

}  // namespace zkcoord::cli
