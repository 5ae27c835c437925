// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: the type-erased handlers that the templates of the public headers hand
// to the library. Not part of the API; may change in any release.
#pragma once

#include <zkcoord/error.hpp>

#include <boost/asio/any_completion_handler.hpp>

#include <chrono>
#include <type_traits>

namespace zkcoord::detail {

class session_impl;
struct watch_state;

template <class T>
using completion = boost::asio::any_completion_handler<void(error_code, T)>;
using void_completion = boost::asio::any_completion_handler<void(error_code)>;

template <class T>
struct is_duration : std::false_type {};
template <class Rep, class Period>
struct is_duration<std::chrono::duration<Rep, Period>> : std::true_type {};

/// Keeps `async_acquire(5s)` (a timeout, default token) from binding to `async_acquire(token)`.
template <class T>
concept token_not_duration = !is_duration<std::remove_cvref_t<T>>::value;

}  // namespace zkcoord::detail
