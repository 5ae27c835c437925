// SPDX-License-Identifier: Apache-2.0
// The watches and reads behind every group_view of one group on one session object: a
// children watch on the group (an exists watch while it is missing) and a data watch on each
// member, each armed by the read it covers and re-armed by the read its event causes. It
// publishes a snapshot whenever nothing is outstanding and the members differ from the last
// one, and completes the viewers' waits from it.
//
// Faults: a read cut off by connection loss is retried after a short delay, keeping the
// watches (the C client re-registers them on reconnect) and the published snapshot, so a
// short disconnection shows nothing to viewers. An expiry ends every watch: the group is read
// from scratch on the next session, the last snapshot published until then.
#pragma once

#include "membership/group_members.hpp"
#include "session/session_impl.hpp"

#include <zkcoord/membership.hpp>

#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/steady_timer.hpp>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace zkcoord::detail {

class group_tracker : public std::enable_shared_from_this<group_tracker> {
 public:
  group_tracker(const std::shared_ptr<session_impl>& session, std::string path);
  ~group_tracker();

  /// The tracker of `path` on `session`, shared by every viewer of it (made on first use).
  static std::shared_ptr<group_tracker> of(const std::shared_ptr<session_impl>& session,
                                           const std::string& path);

  const std::string& path() const noexcept { return path_; }

  /// A viewer: its reported version and its pending wait.
  std::uint64_t add_viewer();
  void remove_viewer(std::uint64_t viewer);
  /// Completes once the published snapshot is newer than the one this viewer got last.
  void wait(std::uint64_t viewer, completion<std::vector<member_info>> handler);

 private:
  using lock_type = std::unique_lock<std::mutex>;
  struct member_slot {
    watch data_watch;
    bool reading = false;
    bool read_again = false;  ///< its watch fired while a read was in flight
  };
  struct viewer_slot {
    std::uint64_t reported = 0;  ///< the version last completed to it (0: none yet)
    std::optional<completion<std::vector<member_info>>> waiter;
    handler_executor executor;
    boost::asio::cancellation_slot cancel;
  };

  void start(lock_type& lock);
  void list(lock_type& lock);
  void on_listing(std::uint64_t epoch, error_code ec, child_list listed);
  void watch_for_creation(lock_type& lock, session_impl& impl);
  void on_exists(std::uint64_t epoch, error_code ec, std::optional<node_stat> stat);
  void on_group_watch(std::uint64_t epoch, error_code ec);
  void read_member(lock_type& lock, const std::string& name);
  void on_member(std::uint64_t epoch, const std::string& name, error_code ec, node_data node);
  void on_member_watch(std::uint64_t epoch, const std::string& name, error_code ec);
  void retry_later(lock_type& lock, std::optional<std::string> member);
  void on_retry_timer();
  void start_afresh(lock_type& lock);
  void fail_viewers(lock_type& lock, error_code ec);
  void publish_if_settled(lock_type& lock);
  void serve(lock_type& lock);
  std::shared_ptr<session_impl> live_session(lock_type& lock);

  const std::weak_ptr<session_impl> session_;
  const std::shared_ptr<spdlog::logger> logger_;
  const std::string path_;
  std::mutex mutex_;
  boost::asio::steady_timer retry_timer_;

  std::uint64_t epoch_ = 1;  ///< replies and events of an earlier epoch are stale
  bool started_ = false;
  bool closed_ = false;
  group_members members_;
  watch group_watch_;  ///< children watch (exists watch while the group is missing)
  bool listing_ = false;
  bool list_again_ = false;
  bool checking_existence_ = false;
  std::map<std::string, member_slot> slots_;
  std::size_t reads_in_flight_ = 0;
  bool retry_pending_ = false;
  bool retry_list_ = false;
  std::set<std::string> retry_reads_;

  std::optional<std::vector<member_info>> published_;
  std::uint64_t version_ = 0;  ///< of published_ (0: nothing published yet)
  std::map<std::uint64_t, viewer_slot> viewers_;
  std::uint64_t next_viewer_ = 1;
};

/// What a group_view owns: its viewer id on the shared tracker.
class group_viewer {
 public:
  /// A viewer of `path` on `session` (a path refused here fails every wait with bad_path).
  group_viewer(const std::shared_ptr<session_impl>& session, std::string path);
  ~group_viewer();
  const std::string& path() const noexcept { return path_; }
  void wait(completion<std::vector<member_info>> handler);

 private:
  std::shared_ptr<group_tracker> tracker_;  ///< null for a path refused up front
  std::weak_ptr<session_impl> session_;
  std::string path_;
  std::uint64_t id_ = 0;
};

}  // namespace zkcoord::detail
