// SPDX-License-Identifier: Apache-2.0
// The Asio driver of one member_fsm: performs its actions on the session (requests pinned to
// the session each was decided for, one watch, requests parked until reconnect), feeds back
// results, watch and session events, and serves the membership handle (re-registration waits,
// data updates, leave).
//
// Threading: every entry point takes `mutex_`; the machine is resumed and its actions are
// performed under it. Nothing done under it calls back synchronously (requests, watch removal
// and user completions are all posted).
//
// Lifetime: the session keeps the runner alive (session_impl::keep_alive) from start() until
// the machine finished, so a leave (or an aborted join's delete) outlives the handle, never
// the session. Continuations and listeners hold weak_ptrs only.
#pragma once

#include "membership/member_fsm.hpp"
#include "recipe/attempt_driver.hpp"
#include "recipe/recipe_metrics.hpp"
#include "session/session_impl.hpp"

#include <zkcoord/membership.hpp>

#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::detail {

/// The member node paths a member of this session object holds (or is joining or leaving):
/// a second member with the same id on one session would share, then delete, the first's node.
/// A join behind a member that is leaving (or whose join was aborted) waits until that one has
/// deleted its node. Lock order: a runner's mutex, then this one's.
class member_registry {
 public:
  enum class claim_result { claimed, taken, queued };
  /// Claims `node_path`; queued: `retry` runs (posted) once the leaving holder let go.
  claim_result claim(const std::string& node_path, std::function<void()> retry);
  /// The holder of `node_path` is leaving: joins behind it wait instead of failing.
  void mark_leaving(const std::string& node_path);
  /// Frees `node_path`; returns the joins that waited for it.
  std::vector<std::function<void()>> release(const std::string& node_path);

 private:
  struct holder {
    bool leaving = false;
    std::vector<std::function<void()>> waiting;
  };
  std::mutex mutex_;
  std::map<std::string, holder> paths_;
};

class member_runner
    : public std::enable_shared_from_this<member_runner>,
      private attempt_driver<member_runner, member_action_t, member_action::request> {
  using driver = attempt_driver<member_runner, member_action_t, member_action::request>;
  friend driver;

 public:
  member_runner(const std::shared_ptr<session_impl>& session, member_config config, std::string id);
  ~member_runner();
  member_runner(const member_runner&) = delete;
  member_runner& operator=(const member_runner&) = delete;

  /// Creates our node; `handler` completes exactly once (member, error, cancellation).
  void start(session_impl& impl, completion<membership> handler);

  void wait_reregistered(completion<registration> handler);
  void set_data(std::string data, void_completion handler);
  void leave(std::optional<void_completion> handler);
  /// The handle is gone: its waits end with operation_aborted and the member leaves.
  void drop_handle();

  const std::string& id() const noexcept { return id_; }
  const std::string& path() const noexcept { return path_; }
  registration current() const;
  bool active() const noexcept { return active_.load(); }

 private:
  struct pending_set {
    std::uint64_t generation;
    void_completion handler;
    handler_executor executor;
  };
  struct reregistration_waiter {
    std::uint64_t id;
    completion<registration> handler;
    handler_executor executor;
  };

  void feed_locked(const member_event_t& event);
  void on_session_state(session_state s);
  void cancel_waiter(std::uint64_t id);
  void end_handle_waits(error_code ec);
  handler_executor completion_executor() const;

  // member_runner_actions.cpp
  void perform(member_actions actions) { perform_all(std::move(actions)); }
  using driver::perform;  // requests: sent
  void perform(const member_action::drop_watch& a);
  void perform(const member_action::complete_join& a);
  void perform(const member_action::report_registration& a);
  void perform(const member_action::data_written& a);
  void perform(const member_action::report_ended& a);
  void perform(const member_action::complete_leave& a);
  void perform(const member_action::finished& a);
  void send_now(const member_action::create_node& r, session_impl& impl);
  void send_now(const member_action::create_parents& r, session_impl& impl);
  void send_now(const member_action::read_node& r, session_impl& impl);
  void send_now(const member_action::set_data& r, session_impl& impl);
  void send_now(const member_action::delete_node& r, session_impl& impl);
  void retire();

  const std::string id_;
  const std::string path_;
  member_fsm fsm_;
  recipe_metrics metrics_;  // mutex_; labelled with the group's path

  bool ever_registered_ = false;
  bool marked_leaving_ = false;

  watch watch_;

  std::optional<completion<membership>> join_handler_;
  handler_executor join_executor_;
  std::optional<void_completion> leave_handler_;
  handler_executor leave_executor_;
  bool leave_requested_ = false;
  std::list<reregistration_waiter> waiters_;
  std::uint64_t next_waiter_id_ = 1;
  std::uint64_t reported_number_ = 1;  // the join's registration is the handle's first report
  std::list<pending_set> sets_;
  std::uint64_t next_generation_ = 1;
  error_code ended_;
  std::atomic<bool> active_{false};
};

}  // namespace zkcoord::detail
