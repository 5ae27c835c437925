// SPDX-License-Identifier: Apache-2.0
// Performing the member machine's actions: requests pinned to the session each was decided for
// (their results come back as events), after_reconnect requests parked until the session is
// connected again, and the caller-facing actions completing the handle's handlers.
#include "membership/member_runner.hpp"

#include "session/container_parents.hpp"
#include "session/session_requests.hpp"

#include <boost/asio/error.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

using namespace member_action;

void member_runner::send_now(const create_node& r, session_impl& impl) {
  request_create(impl, r.session, r.path, r.data, create_mode::ephemeral, {},
                 [weak = weak_from_this(), tag = r.tag](error_code ec, created_node n) {
                   if (auto self = weak.lock()) self->feed(member_event::created{tag, ec, n.stat});
                 });
}

void member_runner::send_now(const create_parents& r, session_impl& impl) {
  send_create_parents<member_event::parents_created>(impl, r.session, r.path, r.tag);
}

void member_runner::send_now(const read_node& r, session_impl& impl) {
  auto reply = [weak = weak_from_this(), tag = r.tag](error_code ec,
                                                      std::optional<node_stat> stat) {
    if (auto self = weak.lock()) self->feed(member_event::node_read{tag, ec, stat});
  };
  if (!r.watch) return request_exists(impl, r.session, r.path, nullptr, std::move(reply));
  // An exists watch: it fires on the node's deletion and data changes, and (when the node is
  // absent) on its creation.
  request_exists(impl, r.session, r.path, &watch_, std::move(reply));
  watch_.async_wait(
      [weak = weak_from_this(), tag = r.tag, pin = r.session](error_code ec, watch_event) {
        auto self = weak.lock();
        if (!self) return;
        if (!ec) return self->feed(member_event::watch_fired{tag});
        // A watch ended by its session's end: make sure the machine hears of it even if the state
        // event is still on its way. It names the watch's session: delivered late, it must not
        // end the next one.
        if (ec == condition::session_expired)
          self->feed(member_event::session_changed{session_state::expired, pin});
        if (ec == errc::closed) self->on_session_state(session_state::closed);
      });
}

void member_runner::send_now(const member_action::set_data& r, session_impl& impl) {
  request_set(impl, r.session, r.path, r.data, r.version,
              [weak = weak_from_this(), tag = r.tag](error_code ec, node_stat stat) {
                if (auto self = weak.lock()) self->feed(member_event::data_set{tag, ec, stat});
              });
}

void member_runner::send_now(const delete_node& r, session_impl& impl) {
  request_remove(impl, r.session, r.path, r.version,
                 [weak = weak_from_this(), tag = r.tag](error_code ec) {
                   if (auto self = weak.lock()) self->feed(member_event::node_deleted{tag, ec});
                 });
}

// ---- caller-facing actions ----------------------------------------------------------------

void member_runner::perform(const drop_watch&) {
  watch_ = watch();  // removes it from the client and the server
}

void member_runner::perform(const complete_join& a) {
  metrics_.acquire_finished(a.ec);
  if (!join_handler_) return;
  completion<membership> handler(std::move(*join_handler_));
  join_handler_.reset();
  membership member;
  if (a.first) {
    ever_registered_ = true;
    active_ = true;
    logger_->info("member {}: registered on session 0x{:x} (czxid 0x{:x})", path_,
                  a.first->session_id, a.first->czxid);
    member = membership(shared_from_this());
  }
  complete_via(join_executor_, std::move(handler), a.ec, std::move(member));
  join_executor_ = executor_;  // a member is not pending work
}

void member_runner::perform(const report_registration& a) {
  logger_->warn("member {}: registered again ({}) on session 0x{:x}, registration {}", path_,
                to_string(a.now.cause), a.now.session_id, a.now.number);
  // The previous registration ended: others saw the member absent.
  metrics_.lost(a.now.cause == registration_cause::session_expired
                    ? make_error_code(zk_errc::session_expired)
                    : make_error_code(errc::lock_lost));
  if (waiters_.empty()) return;
  reported_number_ = a.now.number;
  for (auto& w : waiters_) complete_via(w.executor, std::move(w.handler), error_code{}, a.now);
  waiters_.clear();
}

void member_runner::perform(const data_written& a) {
  for (auto it = sets_.begin(); it != sets_.end();) {
    if (it->generation > a.generation) {
      ++it;
      continue;
    }
    complete_via(it->executor, std::move(it->handler), error_code{});
    it = sets_.erase(it);
  }
}

void member_runner::perform(const report_ended& a) {
  if (active_) metrics_.lost(a.reason);
  ended_ = a.reason;
  active_ = false;
  logger_->log(a.reason == errc::closed ? spdlog::level::info : spdlog::level::warn,
               "member {}: ended: {}", path_, a.reason.message());
  end_handle_waits(a.reason);
}

void member_runner::perform(const complete_leave& a) {
  if (!leave_handler_) {
    if (a.ec && a.ec != errc::closed) logger_->warn("member {}: leave: {}", path_, a.ec.message());
    return;
  }
  void_completion handler(std::move(*leave_handler_));
  leave_handler_.reset();
  complete_via(leave_executor_, std::move(handler), a.ec);
  leave_executor_ = executor_;
}

void member_runner::perform(const finished&) {
  retire();
}

}  // namespace zkcoord::detail
