// SPDX-License-Identifier: Apache-2.0
// Performing the lock machine's actions: its requests go out pinned to the attempt's session
// (their results come back as events), after_reconnect requests wait for the session to be
// connected again, and the caller-facing actions complete the caller's handlers.
#include "recipe/contender_attempt.hpp"

#include "recipe/shared_listings.hpp"
#include "session/container_parents.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/path.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

using namespace contender_action;

namespace {

bool session_ended(const error_code& ec) {
  return ec == condition::session_expired || ec == errc::closed || ec == zk_errc::closing;
}

}  // namespace

// Our own node's watch, while held, waits for someone to wait for the lock's loss.
void contender_attempt::perform(const watch_node& a) {
  if (owns_ && grant_ && a.path == grant_->path && lost_waiters_.empty()) {
    deferred_own_watch_ = a;
    return;
  }
  send(a);
}

void contender_attempt::arm_deferred_own_watch() {
  if (!deferred_own_watch_) return;
  const contender_action::watch_node request = std::move(*deferred_own_watch_);
  deferred_own_watch_.reset();
  send(request);
}

void contender_attempt::send_now(const create_node& r, session_impl& impl) {
  request_create(impl, pin_, r.path_prefix, r.data, create_mode::ephemeral_sequential, {},
                 [weak = weak_from_this(), tag = r.tag](error_code ec, created_node n) {
                   if (auto self = weak.lock())
                     self->feed(contender_event::node_created{tag, ec, n.path, n.stat});
                 });
}

void contender_attempt::send_now(const create_parents& r, session_impl& impl) {
  send_create_parents<contender_event::parents_created>(impl, pin_, r.path, r.tag);
}

void contender_attempt::send_now(const list_children& r, session_impl& impl) {
  auto listed = [weak = weak_from_this(), tag = r.tag](error_code ec,
                                                       std::shared_ptr<const contender_queue> q,
                                                       std::optional<std::uint64_t> stamp) {
    if (auto self = weak.lock())
      self->feed(contender_event::children_listed{tag, ec, std::move(q), std::nullopt, stamp});
  };
  if (!r.sync_first)
    return impl.layer_state<shared_listings>().request(impl, pin_, r.path, std::move(listed));
  // Looking for our node after a lost create reply (rare): a listing of our own, after a sync.
  // The sync is answered before the listing (one session, in order): its own result does not
  // matter, a failure shows in the listing's.
  request_sync(impl, pin_, r.path, [](error_code) {});
  request_children(impl, pin_, r.path, nullptr, [listed](error_code ec, child_list l) {
    listed(ec, ec ? nullptr : std::make_shared<const contender_queue>(l.names), std::nullopt);
  });
}

void contender_attempt::send_now(const read_node& r, session_impl& impl) {
  request_exists(
      impl, pin_, r.path, nullptr,
      [weak = weak_from_this(), tag = r.tag](error_code ec, std::optional<node_stat> stat) {
        if (auto self = weak.lock()) self->feed(contender_event::node_read{tag, ec, stat});
      });
}

void contender_attempt::send_now(const watch_node& r, session_impl& impl) {
  send_watched_get(r.tag, r.path, impl);
}

void contender_attempt::send_now(const watch_own_node& r, session_impl& impl) {
  send_watched_get(r.tag, r.path, impl);
}

void contender_attempt::send_watched_get(std::uint64_t tag, const std::string& path,
                                         session_impl& impl) {
  request_get(
      impl, pin_, path, &watches_[tag], [weak = weak_from_this(), tag](error_code ec, node_data d) {
        if (auto self = weak.lock())
          self->feed(
              contender_event::node_read{tag, ec, ec ? std::nullopt : std::optional(d.stat)});
      });
  await_watch(tag);
}

void contender_attempt::send_now(const watch_children& r, session_impl& impl) {
  request_children(impl, pin_, r.path, &watches_[r.tag],
                   [weak = weak_from_this(), tag = r.tag](error_code ec, child_list l) {
                     auto self = weak.lock();
                     if (!self) return;
                     self->feed(contender_event::children_listed{
                         tag, ec, ec ? nullptr : std::make_shared<const contender_queue>(l.names)});
                   });
  await_watch(r.tag);
}

void contender_attempt::await_watch(std::uint64_t tag) {
  watches_[tag].async_wait([weak = weak_from_this(), tag](error_code ec, watch_event event) {
    auto self = weak.lock();
    if (!self) return;
    {
      std::lock_guard lock(self->mutex_);
      self->watches_.erase(tag);  // fired or ended: nothing left to remove
    }
    if (!ec) {
      return self->feed(contender_event::watch_fired{tag, event.type == watch_event_type::deleted});
    }
    // A watch ended by the session's end: make sure the machine hears of it even if the
    // state event is still on its way.
    if (ec == condition::session_expired) self->on_session_state(session_state::expired);
    if (ec == errc::closed) self->on_session_state(session_state::closed);
  });
}

void contender_attempt::send_now(const delete_node& r, session_impl& impl) {
  request_remove(impl, pin_, r.path, any_version,
                 [weak = weak_from_this(), tag = r.tag, path = r.path](error_code ec) {
                   auto self = weak.lock();
                   if (!self) return;
                   if (ec && ec != zk_errc::no_node && ec != condition::connection_loss &&
                       !session_ended(ec)) {
                     self->logger()->warn(
                         "node {} could not be deleted ({}); it stays until the session ends", path,
                         ec.message());
                   }
                   self->feed(contender_event::node_deleted{tag, ec});
                 });
}

// ---- caller-facing actions ---------------------------------------------------------------

void contender_attempt::perform(const drop_watch& a) {
  if (deferred_own_watch_ && deferred_own_watch_->tag == a.tag) deferred_own_watch_.reset();
  const auto it = watches_.find(a.tag);
  if (it == watches_.end()) return;
  it->second = watch();  // removes it from the client and the server
  watches_.erase(it);
}

void contender_attempt::perform(const complete_acquire& a) {
  timeout_timer_.cancel();
  acquire_pending_ = false;
  metrics_.acquire_finished(a.ec);
  if (!acquire_handler_) return;
  completion<ownership> handler(std::move(*acquire_handler_));
  acquire_handler_.reset();
  ownership held;
  if (a.grant) {
    owns_ = true;
    grant_ = a.grant;
    logger_->debug("{} {}: granted {} (token {})", fsm_.config().policy.name(),
                   fsm_.config().lock_path, a.grant->path, a.grant->token().to_string());
    held = ownership_access::make_ownership(
        std::make_shared<ownership_state>(shared_from_this(), *a.grant));
  }
  complete_via(acquire_executor_, std::move(handler), a.ec, std::move(held));
  // A held lock is not pending work: it must not keep the caller's run() going.
  acquire_executor_ = executor_;
}

void contender_attempt::perform(const set_in_doubt& a) {
  in_doubt_ = a.in_doubt;
}

void contender_attempt::perform(const report_lost& a) {
  owns_ = false;
  lease_.reset();
  in_doubt_ = false;
  lost_reason_ = a.reason;
  metrics_.lost(a.reason);
  // Losing a lock because this process closed its session is expected: not a warning.
  logger_->log(a.reason == errc::closed ? spdlog::level::info : spdlog::level::warn,
               "{} {}: lost {} ({})", fsm_.config().policy.name(), fsm_.config().lock_path,
               grant_ ? grant_->path : std::string(), a.reason.message());
  for (auto& w : lost_waiters_) complete_via(w.executor, std::move(w.handler), a.reason);
  lost_waiters_.clear();
}

void contender_attempt::perform(const complete_release& a) {
  // The machine says lock_lost for a node already gone; when the session's end took it,
  // that end is the more useful answer (lock.hpp: "session_expired or closed").
  error_code ec = a.ec;
  if (ec == errc::lock_lost && lost_reason_ && lost_reason_ != errc::lock_lost) ec = lost_reason_;
  if (release_handler_) {
    void_completion handler(std::move(*release_handler_));
    release_handler_.reset();
    complete_via(release_executor_, std::move(handler), ec);
    release_executor_ = executor_;
    return;
  }
  // Released by the handle's destructor: nobody to tell but the log.
  if (!ec) return;
  const bool expected = ec == errc::lock_lost || session_ended(ec);
  logger_->log(expected ? spdlog::level::info : spdlog::level::warn, "{} {}: release of {}: {}",
               fsm_.config().policy.name(), fsm_.config().lock_path,
               grant_ ? grant_->path : std::string(), ec.message());
}

void contender_attempt::perform(const finished&) {
  retire();
}

}  // namespace zkcoord::detail
