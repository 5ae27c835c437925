// SPDX-License-Identifier: Apache-2.0
// The driver of one persistent_node: creates the node, adopts and overwrites one that exists,
// watches it, creates it again after a deletion, a reconnect or a new session, writes data
// updates, and deletes it on close.
//
// Threading: every entry point takes `mutex_`. Requests sent under it never call back
// synchronously (the session posts every completion); the state subscription and the watch
// are ended outside it.
//
// Lifetime: in-flight requests and timers hold a shared_ptr to the state, so a close's delete
// outlives the handle; the state listener and watch waits hold weak_ptrs only.
#pragma once

#include "session/session_impl.hpp"

#include <zkcoord/persistent_node.hpp>

#include <boost/asio/steady_timer.hpp>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace zkcoord::detail {

class persistent_node_state : public std::enable_shared_from_this<persistent_node_state> {
 public:
  persistent_node_state(std::shared_ptr<session_impl> impl, std::string path, std::string data,
                        persistent_node_options options);
  ~persistent_node_state();

  /// Subscribes to the session's states and sends the first create (unless the arguments are
  /// bad: then every wait reports why).
  void start();
  void wait_initial(std::chrono::milliseconds timeout, void_completion handler);
  void set_data(std::string data, void_completion handler);
  void close(std::optional<void_completion> handler);

  const std::string& base_path() const noexcept { return base_path_; }
  std::string actual_path() const;
  std::string data() const;
  /// Called (on the session's executor) after every create or take-over of the node.
  void on_kept(std::function<void()> hook);
  /// Why the arguments were refused (nothing is ever sent), or success.
  error_code problem() const noexcept { return problem_; }

 private:
  struct waiter {
    std::uint64_t id;
    void_completion handler;
    handler_executor executor;
    std::shared_ptr<boost::asio::steady_timer> timer;
  };
  struct set_waiter {
    std::uint64_t generation;
    void_completion handler;
    handler_executor executor;
  };

  void on_state(session_state s);
  void create_locked();
  void send_create();
  void send_find();
  /// `attempt`: the setData of a take-over (it ends the create attempt), not a data update.
  void send_set(std::uint64_t generation, bool attempt);
  void arm_watch_locked();
  void retry_later_locked();
  void send_delete();
  void on_create_reply(error_code ec, const created_node& node, const std::string& path,
                       std::uint64_t generation);
  void on_attempt_error(error_code ec);
  void kept_locked(std::uint64_t written);
  void initial_done_locked(error_code ec);
  void written_locked(std::uint64_t generation);
  void fail_sets_locked(error_code ec);
  void close_done_locked(error_code ec);
  void end_wait(std::uint64_t id, error_code ec);
  bool ephemeral() const noexcept;

  const std::shared_ptr<session_impl> impl_;
  const std::string base_path_;
  const persistent_node_options options_;
  std::string create_path_;  // base path, or with the protection prefix in its name
  std::string prefix_;       // "_c_<uuid>-" with protected_name, else ""
  error_code problem_;       // bad arguments: nothing is ever sent

  mutable std::mutex mutex_;
  std::string data_;
  std::uint64_t data_generation_ = 1;
  std::uint64_t written_generation_ = 0;
  std::string actual_;
  bool creating_ = false;
  bool again_ = false;
  bool maybe_created_ = false;  // a create with unknown path lost its reply
  bool created_once_ = false;
  bool closed_ = false;
  bool deleting_ = false;
  bool close_finished_ = false;
  int parent_attempts_ = 0;
  error_code failed_;  // the last error retrying cannot fix (cleared by the next attempt)
  watch watch_;
  state_subscription subscription_;
  std::shared_ptr<boost::asio::steady_timer> retry_timer_;
  std::list<waiter> waiters_;
  std::uint64_t next_waiter_ = 1;
  std::list<set_waiter> sets_;
  std::list<std::pair<void_completion, handler_executor>> close_waiters_;
  std::function<void()> kept_hook_;
};

}  // namespace zkcoord::detail
