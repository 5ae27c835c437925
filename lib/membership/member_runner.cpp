// SPDX-License-Identifier: Apache-2.0
// The member driver's life cycle: the join, session states, the handle's waits, data updates
// and leave, and retiring once the machine finished. Also the public membership functions.
#include "membership/member_runner.hpp"

#include "session/c_types.hpp"

#include <zkcoord/path.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {
namespace {
// "<group path>/<id>" -> the group path, what a member's metrics are labelled with.
std::string group_of(const std::string& node_path) {
  const auto slash = node_path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : node_path.substr(0, slash);
}
}  // namespace

member_registry::claim_result member_registry::claim(const std::string& node_path,
                                                     std::function<void()> retry) {
  std::lock_guard lock(mutex_);
  const auto [it, fresh] = paths_.try_emplace(node_path);
  if (fresh) return claim_result::claimed;
  if (!it->second.leaving) return claim_result::taken;
  it->second.waiting.push_back(std::move(retry));
  return claim_result::queued;
}

void member_registry::mark_leaving(const std::string& node_path) {
  std::lock_guard lock(mutex_);
  if (const auto it = paths_.find(node_path); it != paths_.end()) it->second.leaving = true;
}

std::vector<std::function<void()>> member_registry::release(const std::string& node_path) {
  std::lock_guard lock(mutex_);
  const auto it = paths_.find(node_path);
  if (it == paths_.end()) return {};
  auto waiting = std::move(it->second.waiting);
  paths_.erase(it);
  return waiting;
}

member_runner::member_runner(const std::shared_ptr<session_impl>& session, member_config config,
                             std::string id)
    : driver(session),
      id_(std::move(id)),
      path_(config.node_path),
      fsm_(std::move(config)),
      metrics_(session->options().metrics, recipe_kind::membership, group_of(path_)) {}

member_runner::~member_runner() = default;

handler_executor member_runner::completion_executor() const {
  auto impl = session_.lock();
  return impl ? impl->tracked_executor() : handler_executor(executor_);
}

void member_runner::start(session_impl& impl, completion<membership> handler) {
  auto slot = boost::asio::get_associated_cancellation_slot(handler);
  std::shared_ptr<void> keep;
  std::lock_guard lock(mutex_);
  join_executor_ = impl.tracked_executor();
  join_handler_.emplace(std::move(handler));
  attach(impl);
  if (slot.is_connected()) {
    slot.assign([weak = weak_from_this()](boost::asio::cancellation_type) {
      if (auto self = weak.lock())
        self->feed(
            member_event::abort_requested{make_error_code(boost::asio::error::operation_aborted)});
    });
  }
  logger_->debug("member {}: joining on session 0x{:x}", path_, fsm_.session_id());
  metrics_.acquire_started();
  perform(fsm_.start());
  // An expiry between the caller's check and our subscription would go unnoticed until a
  // request fails.
  const session_state s = impl.state();
  if (s == session_state::closed || s == session_state::expired ||
      impl.session_id() != fsm_.session_id())
    feed_locked(member_event::session_changed{
        s == session_state::closed ? s : session_state::expired, impl.session_id()});
  keep = std::move(retiring_);
}

void member_runner::feed_locked(const member_event_t& event) {
  perform(fsm_.resume(event));
  if (marked_leaving_ || !fsm_.removing() || fsm_.current_state() == member_fsm::state::done)
    return;
  marked_leaving_ = true;
  if (auto impl = session_.lock()) impl->layer_state<member_registry>().mark_leaving(path_);
}

void member_runner::on_session_state(session_state s) {
  auto impl = session_.lock();
  const std::int64_t id = impl ? impl->session_id() : 0;
  std::shared_ptr<void> keep;
  std::lock_guard lock(mutex_);
  logger_->debug("member {}: session {} (0x{:x}) in state {}", path_, to_string(s), id,
                 to_string(fsm_.current_state()));
  feed_locked(member_event::session_changed{s, id});
  if (s == session_state::connected || s == session_state::reconnected) flush_parked();
  keep = std::move(retiring_);
}

registration member_runner::current() const {
  std::lock_guard lock(mutex_);
  return fsm_.current();
}

// ---- the handle ---------------------------------------------------------------------------

void member_runner::wait_reregistered(completion<registration> handler) {
  auto slot = boost::asio::get_associated_cancellation_slot(handler);
  const handler_executor ex = completion_executor();
  std::lock_guard lock(mutex_);
  const registration now = fsm_.current();
  if (now.number > reported_number_) {
    reported_number_ = now.number;
    return complete_via(ex, std::move(handler), error_code{}, now);
  }
  if (ended_) return complete_via(ex, std::move(handler), ended_, now);
  if (leave_requested_) {
    return complete_via(ex, std::move(handler),
                        make_error_code(boost::asio::error::operation_aborted), now);
  }
  const std::uint64_t id = next_waiter_id_++;
  waiters_.push_back(reregistration_waiter{id, std::move(handler), ex});
  if (slot.is_connected()) {
    slot.assign([weak = weak_from_this(), id](boost::asio::cancellation_type) {
      if (auto self = weak.lock()) self->cancel_waiter(id);
    });
  }
}

void member_runner::cancel_waiter(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
    if (it->id != id) continue;
    complete_via(it->executor, std::move(it->handler),
                 make_error_code(boost::asio::error::operation_aborted), fsm_.current());
    waiters_.erase(it);
    return;
  }
}

void member_runner::set_data(std::string data, void_completion handler) {
  const handler_executor ex = completion_executor();
  std::shared_ptr<void> keep;
  std::lock_guard lock(mutex_);
  if (ended_) return complete_via(ex, std::move(handler), ended_);
  if (leave_requested_) {
    return complete_via(ex, std::move(handler),
                        make_error_code(boost::asio::error::operation_aborted));
  }
  if (data.size() > max_data_size) {
    logger_->warn("member {}: node data too large for a ZooKeeper node", path_);
    return complete_via(ex, std::move(handler), make_error_code(errc::data_too_large));
  }
  const std::uint64_t generation = next_generation_++;
  sets_.push_back(pending_set{generation, std::move(handler), ex});
  feed_locked(member_event::data_requested{std::move(data), generation});
  keep = std::move(retiring_);
}

void member_runner::leave(std::optional<void_completion> handler) {
  const handler_executor ex = completion_executor();
  std::shared_ptr<void> keep;
  std::lock_guard lock(mutex_);
  if (leave_requested_ || ended_) {
    if (handler) complete_via(ex, std::move(*handler), make_error_code(errc::not_held));
    return;
  }
  leave_requested_ = true;
  active_ = false;
  if (handler) {
    leave_executor_ = ex;
    leave_handler_.emplace(std::move(*handler));
  }
  end_handle_waits(make_error_code(boost::asio::error::operation_aborted));
  feed_locked(member_event::leave_requested{});
  keep = std::move(retiring_);
}

void member_runner::drop_handle() {
  {
    std::lock_guard lock(mutex_);
    end_handle_waits(make_error_code(boost::asio::error::operation_aborted));
    if (leave_requested_ || ended_) return;
  }
  leave(std::nullopt);
}

// Completes the re-registration waits and the pending data updates with `ec`.
void member_runner::end_handle_waits(error_code ec) {
  for (auto& w : waiters_) complete_via(w.executor, std::move(w.handler), ec, fsm_.current());
  waiters_.clear();
  for (auto& s : sets_) complete_via(s.executor, std::move(s.handler), ec);
  sets_.clear();
}

// Called under the mutex when the machine has finished: nothing more will be sent.
void member_runner::retire() {
  watch_ = watch();
  active_ = false;
  retire_driver([&](session_impl& impl) {
    // Joins of this id that waited for our delete go ahead now.
    for (auto& retry : impl.layer_state<member_registry>().release(path_))
      boost::asio::post(executor_, std::move(retry));
    // A join that never registered leaves no parent it created.
    if (!ever_registered_) remove_created_parents(impl, fsm_.session_id(), "a failed join");
  });
}

void start_join(const std::shared_ptr<session_impl>& session, std::string group_path,
                std::string id, std::string data, completion<membership> handler) {
  const auto fail = [&](error_code ec) {
    complete_via(session->tracked_executor(), std::move(handler), ec, membership());
  };
  if (const std::string why = path_problem(group_path); !why.empty()) {
    session->logger()->warn("member: group path refused: {}", why);
    return fail(make_error_code(errc::bad_path));
  }
  if (const std::string why = member_id_problem(id); !why.empty()) {
    session->logger()->warn("member of {}: id refused: {}", group_path, why);
    return fail(make_error_code(errc::bad_argument));
  }
  if (data.size() > max_data_size) {
    session->logger()->warn("member of {}: node data too large for a ZooKeeper node", group_path);
    return fail(make_error_code(errc::data_too_large));
  }
  if (const error_code ec = session_problem(*session)) return fail(ec);
  std::string node_path = join_path(group_path, id);
  // The handler waits here in case a member of this session with this id is deleting its node:
  // the join then runs again once that one is gone.
  auto parked = std::make_shared<completion<membership>>(std::move(handler));
  auto retry = [weak = std::weak_ptr<session_impl>(session), group_path, id, data, parked] {
    auto impl = weak.lock();
    if (!impl) {
      return complete_via(handler_executor(boost::asio::system_executor()), std::move(*parked),
                          make_error_code(errc::closed), membership());
    }
    start_join(impl, group_path, id, data, std::move(*parked));
  };
  switch (session->layer_state<member_registry>().claim(node_path, std::move(retry))) {
    case member_registry::claim_result::claimed:
      break;
    case member_registry::claim_result::queued:
      return;
    case member_registry::claim_result::taken:
      session->logger()->warn("member {}: a member of this session already has this id", node_path);
      return complete_via(session->tracked_executor(), std::move(*parked),
                          make_error_code(errc::already_registered), membership());
  }
  completion<membership> own(std::move(*parked));
  member_config config{.node_path = std::move(node_path),
                       .data = std::move(data),
                       .session_id = session->session_id(),
                       .renews_after_expiry = session->options().renew_after_expiry};
  auto runner = std::make_shared<member_runner>(session, std::move(config), std::move(id));
  runner->start(*session, std::move(own));
}

}  // namespace zkcoord::detail

namespace zkcoord {

namespace {
const std::string no_string;
}

const char* to_string(registration_cause c) noexcept {
  switch (c) {
    case registration_cause::joined:
      return "joined";
    case registration_cause::session_expired:
      return "session_expired";
    case registration_cause::node_deleted:
      return "node_deleted";
  }
  return "unknown";
}

membership::membership(std::shared_ptr<detail::member_runner> state) noexcept
    : state_(std::move(state)) {}

membership::~membership() {
  if (state_) state_->drop_handle();
}

membership& membership::operator=(membership&& other) noexcept {
  if (this != &other) {
    if (state_) state_->drop_handle();
    state_ = std::move(other.state_);
  }
  return *this;
}

const std::string& membership::id() const noexcept {
  return state_ ? state_->id() : no_string;
}
const std::string& membership::path() const noexcept {
  return state_ ? state_->path() : no_string;
}
registration membership::current() const {
  return state_ ? state_->current() : registration{};
}
bool membership::active() const noexcept {
  return state_ && state_->active();
}

namespace {
template <class Handler, class... Args>
void complete_empty(Handler handler, error_code ec, Args... args) {
  detail::complete_via(detail::handler_executor(boost::asio::system_executor()), std::move(handler),
                       ec, std::move(args)...);
}
}  // namespace

void membership::start_wait_reregistered(std::shared_ptr<detail::member_runner> state,
                                         detail::completion<registration> handler) {
  if (!state)
    return complete_empty(std::move(handler), make_error_code(errc::not_held), registration{});
  state->wait_reregistered(std::move(handler));
}

void membership::start_set_data(std::shared_ptr<detail::member_runner> state, std::string data,
                                detail::void_completion handler) {
  if (!state) return complete_empty(std::move(handler), make_error_code(errc::not_held));
  state->set_data(std::move(data), std::move(handler));
}

void membership::start_leave(std::shared_ptr<detail::member_runner> state,
                             detail::void_completion handler) {
  if (!state) return complete_empty(std::move(handler), make_error_code(errc::not_held));
  state->leave(std::move(handler));
}

}  // namespace zkcoord
