// SPDX-License-Identifier: Apache-2.0
// One contender object of any queue recipe (a lock, a write or read lock, an election
// participant): the path it contends on, and its latest acquire attempt. It validates, refuses
// a second acquire while the first is pending or its grant still owned, and starts one
// contender_attempt per acquire with the recipe's grant policy and node data.
#pragma once

#include "recipe/grant_policy.hpp"
#include "recipe/recipe_metrics.hpp"
#include "session/session_impl.hpp"

#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace zkcoord::detail {

class contender_attempt;

class contender_slot {
 public:
  /// `reports`: what its attempts tell the session's metrics observer, labelled with
  /// `metrics_path` (default: `path`).
  contender_slot(const session& s, std::string path,
                 recipe_metrics::reports reports = recipe_metrics::reports::all,
                 std::string metrics_path = {});

  /// Aborts the pending acquire, if any (the recipe object is going away): operation_aborted.
  void abort_pending();

  const std::string& path() const noexcept { return path_; }
  /// The session the recipe object was made on (null once it is gone): for checks a recipe
  /// makes before start(), and their log lines.
  std::shared_ptr<session_impl> live_session() const noexcept { return session_.lock(); }

  /// Whether an acquire of this slot is pending or its grant still owned (a new start would
  /// fail with errc::already_held).
  bool busy();

  /// What the node of one attempt holds, given the session id it is created on.
  using node_data_of = std::function<std::string(std::int64_t session_id)>;

  /// Starts an acquire: errc::bad_path, the session's state (not_connected, closed,
  /// session_expired), errc::already_held, errc::data_too_large, or an attempt that completes
  /// `handler` exactly once. `what` names the recipe in log lines ("lock", "election", ...).
  void start(const char* what, const acquire_request& request, grant_policy policy,
             const node_data_of& data, completion<ownership> handler);

 private:
  const std::weak_ptr<session_impl> session_;
  const boost::asio::any_io_executor executor_;
  const std::string path_;
  const recipe_metrics::reports reports_;
  const std::string metrics_path_;
  std::mutex mutex_;
  std::weak_ptr<contender_attempt> current_;  ///< the latest attempt (kept alive by itself/handle)
};

}  // namespace zkcoord::detail
