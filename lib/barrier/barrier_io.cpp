// SPDX-License-Identifier: Apache-2.0
// The barriers' awaitable I/O (see barrier_io.hpp).
#include "barrier/barrier_io.hpp"

#include <zkcoord/path.hpp>

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/this_coro.hpp>

namespace zkcoord::detail::barrier_io {

namespace asio = boost::asio;

namespace {

template <class T, class Start>
auto call(Start start) {
  return asio::async_initiate<decltype(tuple_awaitable), void(error_code, T)>(
      [start = std::move(start)](auto handler) mutable {
        start(completion<T>(std::move(handler)));
      },
      tuple_awaitable);
}

auto call_void(auto start) {
  return asio::async_initiate<decltype(tuple_awaitable), void(error_code)>(
      [start = std::move(start)](auto handler) mutable {
        start(void_completion(std::move(handler)));
      },
      tuple_awaitable);
}

asio::awaitable<error_code> create_once(impl_ptr impl, std::string path, create_mode mode) {
  // GCC 12 destroys temporaries of a co_await expression twice: every operand with a
  // destructor is a named local here and below.
  auto start = [impl, path = std::move(path), mode](completion<created_node> h) mutable {
    session_access::create(impl, std::move(h), std::move(path), {},
                           create_options{.mode = mode, .acl_entries = {}});
  };
  auto op = call<created_node>(std::move(start));
  auto result = co_await std::move(op);
  co_return std::get<0>(result);
}

}  // namespace

asio::awaitable<error_code> create(impl_ptr impl, std::string path, create_mode mode,
                                   bool parents) {
  auto first = create_once(impl, path, mode);
  error_code ec = co_await std::move(first);
  if (ec != zk_errc::no_node || !parents) co_return ec;
  // Create the ancestors outermost first; someone else's (or a container's) is fine.
  std::vector<std::string> ancestors;
  for (std::string p = parent_path(path); p != "/"; p = parent_path(p)) ancestors.push_back(p);
  for (auto it = ancestors.rbegin(); it != ancestors.rend(); ++it) {
    auto parent = create_once(impl, *it, create_mode::container);
    const error_code pec = co_await std::move(parent);
    if (pec && pec != zk_errc::node_exists) co_return pec;
  }
  auto again = create_once(impl, std::move(path), mode);
  co_return co_await std::move(again);
}

asio::awaitable<std::tuple<error_code, std::optional<node_stat>>> exists(impl_ptr impl,
                                                                         std::string path,
                                                                         watch* w) {
  auto start = [impl, path = std::move(path), w](completion<std::optional<node_stat>> h) mutable {
    session_access::exists(impl, std::move(h), std::move(path), w);
  };
  auto op = call<std::optional<node_stat>>(std::move(start));
  auto result = co_await std::move(op);
  co_return result;
}

asio::awaitable<std::tuple<error_code, std::vector<std::string>>> children(impl_ptr impl,
                                                                           std::string path) {
  auto start = [impl, path = std::move(path)](completion<child_list> h) mutable {
    session_access::children(impl, std::move(h), std::move(path));
  };
  auto op = call<child_list>(std::move(start));
  auto result = co_await std::move(op);
  std::tuple<error_code, std::vector<std::string>> out(std::get<0>(result),
                                                       std::move(std::get<1>(result).names));
  co_return out;
}

asio::awaitable<error_code> remove(impl_ptr impl, std::string path) {
  auto start = [impl, path = std::move(path)](void_completion h) mutable {
    session_access::remove(impl, std::move(h), std::move(path), any_version);
  };
  auto op = call_void(std::move(start));
  auto result = co_await std::move(op);
  const error_code ec = std::get<0>(result);
  if (ec == zk_errc::no_node) co_return error_code();
  co_return ec;
}

asio::awaitable<error_code> wait_for(watch& w, deadline until) {
  if (!until) {
    auto op = w.async_wait(tuple_awaitable);
    auto result = co_await std::move(op);
    co_return std::get<0>(result);
  }
  using namespace asio::experimental::awaitable_operators;
  asio::steady_timer timer(co_await asio::this_coro::executor, *until);
  auto either = w.async_wait(tuple_awaitable) || timer.async_wait(tuple_awaitable);
  auto outcome = co_await std::move(either);
  if (outcome.index() == 1) co_return make_error_code(errc::timeout);
  co_return std::get<0>(std::get<0>(outcome));
}

bool passed(const deadline& until) {
  return until && std::chrono::steady_clock::now() >= *until;
}

}  // namespace zkcoord::detail::barrier_io
