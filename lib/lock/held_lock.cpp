// The held_lock handle: accessors over its grant, and the waits and release it forwards to the
// attempt that was granted.
#include "lock/lock_attempt.hpp"

#include <zkcoord/lock.hpp>

namespace zkcoord {

using detail::held_lock_state;

namespace {
const std::string no_path;
}

held_lock::held_lock(std::shared_ptr<held_lock_state> state) noexcept : state_(std::move(state)) {}

held_lock::~held_lock() {
  if (state_) state_->attempt().drop_handle();
}

held_lock& held_lock::operator=(held_lock&& other) noexcept {
  if (this != &other) {
    if (state_) state_->attempt().drop_handle();
    state_ = std::move(other.state_);
  }
  return *this;
}

fencing_token held_lock::token() const noexcept {
  return state_ ? state_->grant().token() : fencing_token();
}
const std::string& held_lock::path() const noexcept {
  return state_ ? state_->grant().path : no_path;
}
std::int64_t held_lock::session_id() const noexcept {
  return state_ ? state_->attempt().session_id() : 0;
}
std::int32_t held_lock::node_version() const noexcept {
  return state_ ? state_->grant().stat.version : 0;
}
std::chrono::steady_clock::time_point held_lock::valid_until() const noexcept {
  return state_ ? state_->attempt().valid_until() : std::chrono::steady_clock::time_point::min();
}
bool held_lock::owns() const noexcept {
  return state_ && state_->attempt().owns();
}
bool held_lock::in_doubt() const noexcept {
  return state_ && state_->attempt().owns() && state_->attempt().in_doubt();
}

void held_lock::start_wait_lost(std::shared_ptr<held_lock_state> state,
                                detail::void_completion handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::not_held));
  }
  state->attempt().wait_lost(std::move(handler));
}

void held_lock::start_release(std::shared_ptr<held_lock_state> state,
                              detail::void_completion handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::not_held));
  }
  state->attempt().release(std::move(handler));
}

}  // namespace zkcoord
