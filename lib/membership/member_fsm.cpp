// SPDX-License-Identifier: Apache-2.0
// The member machine's decisions: see member_fsm.hpp.
#include "membership/member_fsm.hpp"

#include <zkcoord/path.hpp>

#include <algorithm>

namespace zkcoord::detail {

using namespace member_action;

namespace {

bool outcome_unknown(const error_code& ec) {
  return ec == condition::connection_loss;
}

}  // namespace

member_fsm::member_fsm(member_config config)
    : config_(std::move(config)), session_(config_.session_id) {}

member_actions member_fsm::start() {
  out_.clear();
  join_pending_ = true;
  send_create(false);
  return std::move(out_);
}

member_actions member_fsm::resume(const member_event_t& event) {
  out_.clear();
  if (state_ == state::done || state_ == state::idle) return {};
  std::visit([this](const auto& e) { on(e); }, event);
  return std::move(out_);
}

// ---- replies ------------------------------------------------------------------------------

void member_fsm::on(const member_event::created& e) {
  if (e.tag != expected_tag_ || state_ != state::creating) return;
  if (!e.ec) {
    create_attempts_ = 0;
    if (removing_) {
      own_ = e.stat;
      return start_delete(false);
    }
    return registered(e.stat, create_generation_);
  }
  if (e.ec == zk_errc::node_exists) {
    state_ = state::checking;
    return send_read(true, false);
  }
  if (e.ec == zk_errc::no_node) {
    if (removing_) return finish_leave({});
    state_ = state::creating_parents;
    expected_tag_ = new_tag();
    out_.push_back(
        create_parents{{expected_tag_, session_, false}, parent_path(config_.node_path)});
    return;
  }
  if (outcome_unknown(e.ec)) {
    // The node may exist: find out whose it is once we can ask again.
    state_ = state::checking;
    return send_read(true, true);
  }
  if (e.ec == errc::closed) return session_closed();
  if (e.ec == condition::session_expired) return session_expired();
  fail(e.ec, false);
}

void member_fsm::on(const member_event::parents_created& e) {
  if (e.tag != expected_tag_ || state_ != state::creating_parents) return;
  if (removing_) return finish_leave({});
  if (!e.ec) return retry_create(make_error_code(zk_errc::no_node), false);
  if (outcome_unknown(e.ec)) return retry_create(e.ec, true);
  if (e.ec == errc::closed) return session_closed();
  if (e.ec == condition::session_expired) return session_expired();
  fail(e.ec, false);
}

void member_fsm::on(const member_event::node_read& e) {
  if (e.tag != expected_tag_) return;
  if (e.ec && e.ec != zk_errc::no_node) {
    if (outcome_unknown(e.ec)) {
      forget_watch();
      return send_read(state_ != state::deleting, true);
    }
    if (e.ec == errc::closed) return session_closed();
    if (e.ec == condition::session_expired) return session_expired();
    if (state_ == state::deleting) return finish_leave(e.ec);
    return fail(e.ec, state_ == state::registered);
  }
  const member_event::node_read read{e.tag, {}, e.ec ? std::nullopt : e.stat};
  switch (state_) {
    case state::checking:
      return on_check(read);
    case state::registered:
      return on_own_read(read);
    case state::awaiting_release:
      return on_release_read(read);
    case state::deleting:
      return on_delete_check(read);
    default:
      return;
  }
}

void member_fsm::on_check(const member_event::node_read& e) {
  if (!e.stat) {
    forget_watch();
    if (removing_) return finish_leave({});
    return retry_create(make_error_code(zk_errc::node_exists), false);
  }
  decide_existing(*e.stat);
}

// A node sits at our path and we did not just create it (or do not know whether we did).
void member_fsm::decide_existing(const node_stat& stat) {
  const std::int64_t owner = stat.ephemeral_owner;
  if (owner == session_) {
    if (!removing_) return adopt(stat);
    own_ = stat;
    return start_delete(false);
  }
  if (removing_) {
    forget_watch();
    return finish_leave({});  // not ours: nothing of ours to delete
  }
  // Our earlier session's node: the server expires that session within its timeout, and the
  // watch armed by this read tells us when the node goes.
  if (owner != 0 && was_ours(owner)) {
    state_ = state::awaiting_release;
    return;
  }
  forget_watch();
  fail(make_error_code(errc::already_registered), false);
}

void member_fsm::on_own_read(const member_event::node_read& e) {
  if (!e.stat) {
    // Someone deleted our node: register again at once.
    forget_watch();
    next_cause_ = registration_cause::node_deleted;
    return send_create(false);
  }
  if (e.stat->ephemeral_owner != session_) {
    // Ours was deleted and another session created one under our id before we read.
    forget_watch();
    return fail(make_error_code(errc::already_registered), false);
  }
  own_ = *e.stat;
  if (data_generation_ > written_generation_ && set_tag_ == 0) send_set();
}

void member_fsm::on_release_read(const member_event::node_read& e) {
  if (!e.stat) {
    forget_watch();
    return send_create(false);
  }
  decide_existing(*e.stat);
}

void member_fsm::on_delete_check(const member_event::node_read& e) {
  if (!e.stat || e.stat->ephemeral_owner != session_) return finish_leave({});
  own_ = *e.stat;
  start_delete(false);
}

void member_fsm::on(const member_event::watch_fired& e) {
  if (e.tag != watch_tag_) return;
  watch_tag_ = 0;
  if (state_ == state::registered || state_ == state::awaiting_release) send_read(true, false);
}

void member_fsm::on(const member_event::data_set& e) {
  if (e.tag != set_tag_) return;
  set_tag_ = 0;
  if (state_ != state::registered) return;
  if (!e.ec) {
    own_.version = e.stat.version;
    own_.mzxid = e.stat.mzxid;
    written_generation_ = std::max(written_generation_, set_generation_);
    out_.push_back(data_written{written_generation_});
    if (data_generation_ > written_generation_) send_set();
    return;
  }
  // bad_version: someone else wrote our node (or it is not ours any more): read it again, the
  // read decides. no_node: our watch fires and the node is created with the latest data.
  // Connection loss: the read after reconnect sends it again.
  if (e.ec == zk_errc::bad_version) return send_read(true, false);
  if (e.ec == zk_errc::no_node || outcome_unknown(e.ec)) return;
  if (e.ec == errc::closed) return session_closed();
  if (e.ec == condition::session_expired) return session_expired();
  fail(e.ec, true);
}

void member_fsm::on(const member_event::node_deleted& e) {
  if (e.tag != expected_tag_ || state_ != state::deleting) return;
  if (!e.ec || e.ec == zk_errc::no_node) return finish_leave({});
  if (e.ec == zk_errc::bad_version) return send_read(false, false);  // still ours? read decides
  if (outcome_unknown(e.ec)) return send_read(false, true);
  if (e.ec == errc::closed) return session_closed();
  if (e.ec == condition::session_expired) return finish_leave({});  // gone with the session
  finish_leave(e.ec);
}

// ---- session and caller -------------------------------------------------------------------

void member_fsm::on(const member_event::session_changed& e) {
  switch (e.state) {
    case session_state::connecting:
    case session_state::suspended:
      return;  // our node may well still be there: nothing to do until we hear more
    case session_state::reconnected:
      if (state_ == state::registered) send_read(true, false);
      return;
    case session_state::expired:
      // Only the end of the session we act on: a late report of an earlier one is stale.
      if (session_live_ && e.session_id == session_) session_expired();
      return;
    case session_state::connected:
      if (e.session_id == session_ && session_live_) {
        if (state_ == state::registered) send_read(true, false);
        return;
      }
      if (session_live_) session_expired();  // its expiry is still on its way to us
      if (state_ == state::awaiting_session) new_session(e.session_id);
      return;
    case session_state::closed:
      return session_closed();
  }
}

void member_fsm::on(const member_event::data_requested& e) {
  config_.data = e.data;
  data_generation_ = e.generation;
  if (state_ == state::registered && set_tag_ == 0) send_set();
}

void member_fsm::on(const member_event::leave_requested&) {
  if (removing_ || join_pending_) return;
  removing_ = true;
  leave_pending_ = true;
  switch (state_) {
    case state::registered:
      return start_delete(false);
    case state::awaiting_session:
    case state::awaiting_release:
      forget_watch();
      return finish_leave({});
    default:
      return;  // a request is in flight; its result leads to the delete (or to nothing to do)
  }
}

void member_fsm::on(const member_event::abort_requested& e) {
  if (!join_pending_) return;
  join_pending_ = false;
  out_.push_back(complete_join{e.reason, std::nullopt});
  removing_ = true;
  if (state_ == state::registered) start_delete(false);
}

// ---- transitions --------------------------------------------------------------------------

void member_fsm::adopt(const node_stat& stat) {
  // Our node from a create whose reply was lost. Which create's data it holds is unknown when
  // several went out: write the latest to be sure.
  registered(stat, written_generation_);
  if (set_tag_ == 0) send_set();
}

void member_fsm::registered(const node_stat& stat, std::uint64_t written) {
  own_ = stat;
  state_ = state::registered;
  create_attempts_ = 0;
  if (written > written_generation_ || current_.number == 0) {
    written_generation_ = std::max(written_generation_, written);
    out_.push_back(data_written{written_generation_});
  }
  current_ = registration{.number = current_.number + 1,
                          .cause = next_cause_,
                          .session_id = stat.ephemeral_owner,
                          .czxid = stat.czxid};
  if (join_pending_) {
    join_pending_ = false;
    out_.push_back(complete_join{{}, current_});
  } else {
    out_.push_back(report_registration{current_});
  }
  // The watch on our node: its deletion or a change from now on fires it.
  send_read(true, false);
  if (data_generation_ > written_generation_ && set_tag_ == 0) send_set();
}

void member_fsm::session_expired() {
  session_live_ = false;
  forget_watch();
  set_tag_ = 0;
  if (join_pending_) return fail(make_error_code(zk_errc::session_expired), false);
  if (removing_) return finish_leave({});  // our node went with the session
  if (!config_.renews_after_expiry) return fail(make_error_code(zk_errc::session_expired), false);
  earlier_sessions_.push_back(session_);
  if (earlier_sessions_.size() > max_earlier_sessions)
    earlier_sessions_.erase(earlier_sessions_.begin());
  next_cause_ = registration_cause::session_expired;
  state_ = state::awaiting_session;
}

void member_fsm::new_session(std::int64_t id) {
  session_ = id;
  session_live_ = true;
  create_attempts_ = 0;
  send_create(false);
}

void member_fsm::session_closed() {
  forget_watch();
  const error_code closed = make_error_code(errc::closed);
  if (join_pending_) {
    join_pending_ = false;
    out_.push_back(complete_join{closed, std::nullopt});
  } else if (!removing_) {
    out_.push_back(report_ended{closed});
  }
  if (leave_pending_) {
    leave_pending_ = false;
    out_.push_back(complete_leave{closed});
  }
  finish();
}

// ---- requests -----------------------------------------------------------------------------

void member_fsm::send_create(bool after_reconnect) {
  state_ = state::creating;
  expected_tag_ = new_tag();
  create_generation_ = data_generation_;
  out_.push_back(
      create_node{{expected_tag_, session_, after_reconnect}, config_.node_path, config_.data});
}

void member_fsm::retry_create(error_code why, bool after_reconnect) {
  if (++create_attempts_ >= max_create_attempts) return fail(why, false);
  send_create(after_reconnect);
}

void member_fsm::send_read(bool watch, bool after_reconnect) {
  expected_tag_ = new_tag();
  if (watch) watch_tag_ = expected_tag_;
  out_.push_back(read_node{{expected_tag_, session_, after_reconnect}, config_.node_path, watch});
}

void member_fsm::send_set() {
  set_tag_ = new_tag();
  set_generation_ = data_generation_;
  out_.push_back(
      set_data{{set_tag_, session_, false}, config_.node_path, config_.data, own_.version});
}

void member_fsm::start_delete(bool after_reconnect) {
  state_ = state::deleting;
  forget_watch();
  set_tag_ = 0;
  expected_tag_ = new_tag();
  out_.push_back(
      delete_node{{expected_tag_, session_, after_reconnect}, config_.node_path, own_.version});
}

// ---- endings ------------------------------------------------------------------------------

bool member_fsm::was_ours(std::int64_t owner) const {
  return std::find(earlier_sessions_.begin(), earlier_sessions_.end(), owner) !=
         earlier_sessions_.end();
}

void member_fsm::fail(error_code ec, bool own_node_exists) {
  if (join_pending_) {
    join_pending_ = false;
    out_.push_back(complete_join{ec, std::nullopt});
  } else if (!removing_) {
    out_.push_back(report_ended{ec});
  }
  removing_ = true;
  if (own_node_exists) return start_delete(false);
  finish_leave({});
}

void member_fsm::finish_leave(error_code ec) {
  if (leave_pending_) {
    leave_pending_ = false;
    out_.push_back(complete_leave{ec});
  }
  finish();
}

void member_fsm::finish() {
  forget_watch();
  state_ = state::done;
  out_.push_back(finished{});
}

void member_fsm::forget_watch() {
  if (watch_tag_ == 0) return;
  watch_tag_ = 0;
  out_.push_back(drop_watch{});
}

const char* to_string(member_fsm::state s) noexcept {
  switch (s) {
    case member_fsm::state::idle:
      return "idle";
    case member_fsm::state::creating:
      return "creating";
    case member_fsm::state::creating_parents:
      return "creating_parents";
    case member_fsm::state::checking:
      return "checking";
    case member_fsm::state::registered:
      return "registered";
    case member_fsm::state::awaiting_release:
      return "awaiting_release";
    case member_fsm::state::awaiting_session:
      return "awaiting_session";
    case member_fsm::state::deleting:
      return "deleting";
    case member_fsm::state::done:
      return "done";
  }
  return "unknown";
}

}  // namespace zkcoord::detail
