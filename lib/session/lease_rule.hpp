// SPDX-License-Identifier: Apache-2.0
// The lease rule, sans I/O: how long a quorum-acknowledged reply proves the session alive on
// the leader, how often renewals go out, and when the session must act on a lease that ran
// out. docs/session.md ("The lease") derives it from ZooKeeper's own code paths.
#pragma once

#include <zkcoord/session.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace zkcoord::detail {

using lease_clock = std::chrono::steady_clock;

/// The parameters of the rule for one negotiated timeout.
struct lease_rule {
  std::chrono::nanoseconds timeout{};      ///< tau
  std::chrono::nanoseconds tick_bound{};   ///< t: tickTime, or timeout / 2 when unknown
  std::chrono::nanoseconds renew_every{};  ///< H
  std::chrono::nanoseconds late_ping{};    ///< J
  double clock_drift = 0;                  ///< rho
  std::chrono::nanoseconds margin{};       ///< delta

  static lease_rule of(const lease_options& options, std::chrono::milliseconds timeout);

  /// (1 - rho)(tau - t/2 - G - J) - delta, where G is the longest the session may have gone
  /// without sending anything before the request: H, or `gap` (the time since the session's
  /// previous request was sent) when longer, capped at timeout/3 + ping_slack (the C client
  /// pings after a third of the timeout without a send). Zero or less: it proves nothing.
  std::chrono::nanoseconds length(std::chrono::nanoseconds gap = {}) const;
  /// The deadline a quorum-acknowledged reply to a request sent at `sent`, `gap` after the
  /// session's previous request, proves.
  lease_clock::time_point deadline_from(lease_clock::time_point sent,
                                        std::chrono::nanoseconds gap = {}) const;

  /// How late the C client's idle ping may come after a third of the timeout.
  static constexpr std::chrono::milliseconds ping_slack{100};
};

/// Why `options` cannot be used ("" when they can): a drift outside [0, 0.5), negative
/// durations, a zero renewal cadence, an empty check path.
std::string lease_options_problem(const lease_options& options);

/// When the session reports its own expiry, given what it knows now (see docs/session.md):
/// while the lease is wanted, at the proven deadline, once that deadline lies past the moment
/// the interest began (the lease was live then, or a renewal was answered since); otherwise,
/// only when suspended, at the last contact + the timeout (a liveness rule, not a bound: what
/// applies to a lease nobody wants, and to one that had lapsed before it was wanted until a
/// renewal proves it again). nullopt: no local expiry is due.
struct local_expiry_input {
  bool wanted = false;
  bool suspended = false;
  lease_clock::time_point proven_deadline{};   ///< lease_rule::deadline_from(last quorum reply)
  lease_clock::time_point wanted_since{};      ///< when the current interest began
  lease_clock::time_point contact_deadline{};  ///< last answered request's send time + tau
};
struct local_expiry {
  lease_clock::time_point at;
  bool by_lease = false;  ///< the wanted lease's deadline, not the contact rule
};
std::optional<local_expiry> local_expiry_at(const local_expiry_input& in);

/// The old rule (any answered request renews, deadline = send time + tau), for the tests that
/// show it failing: on when $ZKCOORD_TEST_OLD_LEASE_RULE is "1" at the first call. Never in
/// production use.
bool old_lease_rule_for_testing();

}  // namespace zkcoord::detail
