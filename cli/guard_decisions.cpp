// SPDX-License-Identifier: Apache-2.0
#include "guard_decisions.hpp"

#include <algorithm>

namespace zkcoord::cli {

void guard_decisions::report(actions& out, guard_report type, std::int32_t value) const {
  out.reports.push_back({static_cast<std::uint32_t>(type), value, 0});
}

void guard_decisions::start_killing(guard_report why, actions& out) {
  out.kill_all = true;
  if (killing_) return;
  killing_ = true;
  report(out, why);
}

// The lease comes first: past it the next holder may be granted at any moment, so no grace
// applies. The grace is for losses zkcoord noticed while the lease still ran.
void guard_decisions::check_deadlines(nanoseconds now, actions& out) {
  if (finished_ || killing_) return;
  if (now >= deadline_) return start_killing(guard_report::lease_kill, out);
  if (kill_at_ && now >= *kill_at_) start_killing(guard_report::grace_kill, out);
}

guard_decisions::actions guard_decisions::renew(nanoseconds deadline, nanoseconds now) {
  deadline_ = deadline;
  actions out;
  check_deadlines(now, out);
  return out;
}

guard_decisions::actions guard_decisions::terminate(nanoseconds now) {
  actions out;
  if (finished_ || killing_) return out;
  out.terminate_all = true;
  kill_at_ = std::min(kill_at_.value_or(now + grace_), now + grace_);
  return out;
}

guard_decisions::actions guard_decisions::zkcoord_gone() {
  actions out;
  if (finished_) return out;
  out.kill_all = true;
  killing_ = true;
  return out;
}

guard_decisions::actions guard_decisions::reaped(std::optional<int> top_status,
                                                 std::size_t remaining, nanoseconds now) {
  actions out;
  if (finished_) return out;
  if (top_status && top_alive_) {
    top_alive_ = false;
    report(out, guard_report::exited, *top_status);
    // What the command left running must not hold on to a lock that is about to go.
    if (remaining > 0 && !killing_) {
      report(out, guard_report::leftovers, static_cast<std::int32_t>(remaining));
      auto term = terminate(now);
      out.terminate_all = term.terminate_all;
    }
  }
  if (!top_alive_ && remaining == 0) {
    finished_ = true;
    report(out, guard_report::finished);
    out.done = true;
    return out;
  }
  check_deadlines(now, out);
  return out;
}

guard_decisions::actions guard_decisions::tick(nanoseconds now) {
  actions out;
  if (finished_) return out;
  if (killing_)
    out.kill_all = true;
  else
    check_deadlines(now, out);
  return out;
}

guard_decisions::nanoseconds guard_decisions::next_wakeup(nanoseconds now) const {
  if (killing_) return now + kill_repeat;
  return std::min(deadline_, kill_at_.value_or(deadline_));
}

}  // namespace zkcoord::cli
