// SPDX-License-Identifier: Apache-2.0
// What the job guard does, decided without any I/O (unit-tested in test/cli): which processes
// get which signal when, what zkcoord is told, and when the guard is done. The guard's loop
// (job_guard.cpp) feeds it events and carries out its actions.
#pragma once

#include "guard_protocol.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace zkcoord::cli {

class guard_decisions {
 public:
  using nanoseconds = std::int64_t;  ///< CLOCK_MONOTONIC

  struct actions {
    bool terminate_all = false;  ///< SIGTERM and SIGCONT to every process of the job
    bool kill_all = false;       ///< SIGKILL to every process of the job
    std::vector<guard_message> reports;
    bool done = false;  ///< nothing of the job is alive: the guard may exit
  };

  /// The job has just started: its top process runs, the lease runs until `deadline`.
  guard_decisions(nanoseconds grace, nanoseconds deadline) : grace_(grace), deadline_(deadline) {}

  /// zkcoord moved the lease deadline (earlier too: min() once the lock is lost).
  actions renew(nanoseconds deadline, nanoseconds now);
  /// zkcoord lost the lock: SIGTERM now, SIGKILL after the grace.
  actions terminate(nanoseconds now);
  /// zkcoord's end of the socket closed: it died or gave up. Nothing may outlive it.
  actions zkcoord_gone();
  /// Children were reaped. `top_status`: the top process was among them, with this status;
  /// `remaining`: how many processes of the job are still alive.
  actions reaped(std::optional<int> top_status, std::size_t remaining, nanoseconds now);
  /// Time passed (the guard wakes at next_wakeup()).
  actions tick(nanoseconds now);
  /// When tick() must run next.
  nanoseconds next_wakeup(nanoseconds now) const;

  bool killing() const noexcept { return killing_; }

  /// How often SIGKILL is repeated while processes remain: orphans of killed processes are
  /// handed to the guard (a subreaper) only once their parent is gone.
  static constexpr nanoseconds kill_repeat = 10'000'000;

 private:
  void check_deadlines(nanoseconds now, actions& out);
  void start_killing(guard_report why, actions& out);
  void report(actions& out, guard_report type, std::int32_t value = 0) const;

  nanoseconds grace_;
  nanoseconds deadline_;
  std::optional<nanoseconds> kill_at_;
  bool top_alive_ = true;
  bool killing_ = false;
  bool finished_ = false;
};

}  // namespace zkcoord::cli
