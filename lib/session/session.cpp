// SPDX-License-Identifier: Apache-2.0
// The public session facade and its small companions.
#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/session.hpp>

#include "session_impl.hpp"

namespace zkcoord {

session::session(executor_type ex, session_options options)
    : impl_(std::make_shared<detail::session_impl>(std::move(ex), std::move(options))) {}

session::~session() {
  if (!impl_) return;
  impl_->close();
  // A handle closed after an expiry may still hand work to the executor: the user may destroy
  // the executor (its io_context) as soon as this returns.
  impl_->wait_for_closers();
}

session::executor_type session::get_executor() const noexcept {
  return impl_->executor();
}
void session::close() {
  impl_->close();
}
state_subscription session::subscribe(std::function<void(session_state)> listener) {
  return impl_->subscribe(std::move(listener));
}
session_state session::state() const noexcept {
  return impl_->state();
}
std::int64_t session::session_id() const noexcept {
  return impl_->session_id();
}
std::chrono::milliseconds session::negotiated_timeout() const noexcept {
  return impl_->negotiated_timeout();
}
std::chrono::steady_clock::time_point session::lease_deadline() const noexcept {
  return impl_->lease_deadline();
}
lease_keeper session::keep_lease() {
  return impl_->keep_lease();
}
request_counts session::sent_requests() const noexcept {
  return impl_->sent_requests();
}
std::string session::connected_server() const {
  return impl_->connected_server();
}
const std::shared_ptr<spdlog::logger>& session::logger() const noexcept {
  return impl_->logger();
}

state_subscription& state_subscription::operator=(state_subscription&& o) noexcept {
  if (this != &o) {
    reset();
    impl_ = std::move(o.impl_);
    id_ = o.id_;
    o.id_ = 0;
  }
  return *this;
}

void state_subscription::reset() noexcept {
  if (id_ == 0) return;
  if (auto impl = impl_.lock()) impl->unsubscribe(id_);
  id_ = 0;
}

lease_keeper& lease_keeper::operator=(lease_keeper&& o) noexcept {
  if (this != &o) {
    reset();
    impl_ = std::move(o.impl_);
    o.impl_.reset();
  }
  return *this;
}

void lease_keeper::reset() noexcept {
  if (auto impl = impl_.lock()) impl->unwant_lease();
  impl_.reset();
}

namespace detail {
session_credentials credentials_of(const session& s) {
  return detail::session_access::impl(s)->credentials();
}
bool replace_servers(const session& s, const std::string& hosts) {
  return detail::session_access::impl(s)->replace_servers(hosts);
}
std::size_t requests_in_flight(const session& s) {
  return detail::session_access::impl(s)->requests_in_flight();
}
state_subscription subscribe_state(const session& s, std::function<void(session_state)> listener) {
  return detail::session_access::impl(s)->subscribe(std::move(listener));
}
}  // namespace detail

}  // namespace zkcoord
