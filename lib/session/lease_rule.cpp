// SPDX-License-Identifier: Apache-2.0
#include "lease_rule.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace zkcoord::detail {

lease_rule lease_rule::of(const lease_options& options, std::chrono::milliseconds timeout) {
  lease_rule r;
  r.timeout = timeout;
  // The server's minimum session timeout is 2 ticks (minSessionTimeout's default), so a
  // negotiated timeout bounds the tick from above.
  r.tick_bound = options.tick_time ? std::chrono::nanoseconds(*options.tick_time) : r.timeout / 2;
  r.renew_every =
      options.renew_every ? std::chrono::nanoseconds(*options.renew_every) : r.timeout / 8;
  r.late_ping = options.late_ping;
  r.clock_drift = options.clock_drift;
  r.margin = options.margin;
  return r;
}

std::chrono::nanoseconds lease_rule::length(std::chrono::nanoseconds gap) const {
  const auto silence = std::max(renew_every, std::min(gap, timeout / 3 + ping_slack));
  const auto span = timeout - tick_bound / 2 - silence - late_ping;
  const auto scaled = std::chrono::nanoseconds(static_cast<std::chrono::nanoseconds::rep>(
      static_cast<double>(span.count()) * (1.0 - clock_drift)));
  return scaled - margin;
}

lease_clock::time_point lease_rule::deadline_from(lease_clock::time_point sent,
                                                  std::chrono::nanoseconds gap) const {
  if (sent == lease_clock::time_point::min()) return lease_clock::time_point::min();
  return sent + std::chrono::duration_cast<lease_clock::duration>(length(gap));
}

std::string lease_options_problem(const lease_options& o) {
  if (!(o.clock_drift >= 0 && o.clock_drift < 0.5))
    return "lease clock_drift must be at least 0 and below 0.5";
  if (o.tick_time && o.tick_time->count() <= 0) return "lease tick_time must be positive";
  if (o.renew_every && o.renew_every->count() <= 0) return "lease renew_every must be positive";
  if (o.late_ping.count() < 0 || o.margin.count() < 0)
    return "lease late_ping and margin must not be negative";
  if (o.check_path.empty() || o.check_path.front() != '/')
    return "lease check_path must be an absolute path";
  return {};
}

std::optional<local_expiry> local_expiry_at(const local_expiry_input& in) {
  // Proven past the moment it became wanted: it was live then, or a renewal came since.
  if (in.wanted && in.proven_deadline > in.wanted_since)
    return local_expiry{in.proven_deadline, true};
  if (in.suspended) return local_expiry{in.contact_deadline, false};
  return std::nullopt;
}

bool old_lease_rule_for_testing() {
  static const bool on = [] {
    const char* v = std::getenv("ZKCOORD_TEST_OLD_LEASE_RULE");
    return v && std::strcmp(v, "1") == 0;
  }();
  return on;
}

}  // namespace zkcoord::detail
