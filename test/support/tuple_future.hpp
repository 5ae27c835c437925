// SPDX-License-Identifier: Apache-2.0
// A completion token for tests: the operation returns std::future<std::tuple<error_code, T>>,
// so a test can assert the error code without exceptions. (Boost 1.81's as_tuple does not
// compose with use_future.)
#pragma once

#include <boost/asio/async_result.hpp>
#include <boost/system/error_code.hpp>

#include <future>
#include <memory>
#include <tuple>

namespace zkcoord::test {
struct tuple_future_t {};
inline constexpr tuple_future_t tuple_future{};
}  // namespace zkcoord::test

template <class... Ts>
struct boost::asio::async_result<zkcoord::test::tuple_future_t,
                                 void(boost::system::error_code, Ts...)> {
  using result = std::tuple<boost::system::error_code, std::decay_t<Ts>...>;
  using return_type = std::future<result>;
  template <class Initiation, class... Args>
  static return_type initiate(Initiation&& init, zkcoord::test::tuple_future_t, Args&&... args) {
    auto promise = std::make_shared<std::promise<result>>();
    auto future = promise->get_future();
    std::move(init)(
        [promise](boost::system::error_code ec, Ts... values) {
          promise->set_value(result{ec, std::move(values)...});
        },
        std::forward<Args>(args)...);
    return future;
  }
};
