// SPDX-License-Identifier: Apache-2.0
// The ownership handle: accessors over its grant, and the waits and release it forwards to the
// attempt that was granted.
#include "recipe/contender_attempt.hpp"

#include <zkcoord/ownership.hpp>

namespace zkcoord {

using detail::ownership_state;

namespace {
const std::string no_path;
}

ownership::ownership(std::shared_ptr<ownership_state> state) noexcept : state_(std::move(state)) {}

ownership::~ownership() {
  if (state_) state_->attempt().drop_handle();
}

ownership& ownership::operator=(ownership&& other) noexcept {
  if (this != &other) {
    if (state_) state_->attempt().drop_handle();
    state_ = std::move(other.state_);
  }
  return *this;
}

fencing_token ownership::token() const noexcept {
  return state_ ? state_->grant().token() : fencing_token();
}
const std::string& ownership::path() const noexcept {
  return state_ ? state_->grant().path : no_path;
}
std::int64_t ownership::session_id() const noexcept {
  return state_ ? state_->attempt().session_id() : 0;
}
std::int32_t ownership::node_version() const noexcept {
  return state_ ? state_->grant().stat.version : 0;
}
std::chrono::steady_clock::time_point ownership::valid_until() const noexcept {
  return state_ ? state_->attempt().valid_until() : std::chrono::steady_clock::time_point::min();
}
bool ownership::owns() const noexcept {
  return state_ && state_->attempt().owns();
}
bool ownership::in_doubt() const noexcept {
  return state_ && state_->attempt().owns() && state_->attempt().in_doubt();
}

void ownership::start_wait_lost(std::shared_ptr<ownership_state> state,
                                detail::void_completion handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::not_held));
  }
  state->attempt().wait_lost(std::move(handler));
}

void ownership::start_release(std::shared_ptr<ownership_state> state,
                              detail::void_completion handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::not_held));
  }
  state->attempt().release(std::move(handler));
}

}  // namespace zkcoord
