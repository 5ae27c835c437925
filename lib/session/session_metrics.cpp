// SPDX-License-Identifier: Apache-2.0
// What the session tells its metrics observer beyond a plain call (zkcoord/metrics.hpp):
// the name of a request's kind, and the lease's margin.
#include "session/session_impl.hpp"

namespace zkcoord::detail {

request_type request_type_of(request_kind kind) noexcept {
  if (kind == &request_counters::creates) return request_type::create;
  if (kind == &request_counters::removes) return request_type::remove;
  if (kind == &request_counters::sets) return request_type::set;
  if (kind == &request_counters::gets) return request_type::get;
  if (kind == &request_counters::exists) return request_type::exists;
  if (kind == &request_counters::listings) return request_type::children;
  if (kind == &request_counters::multis) return request_type::multi;
  if (kind == &request_counters::syncs) return request_type::sync;
  return request_type::lease_renewal;
}

void session_impl::report_lease_margin_locked() const noexcept {
  options_.metrics->lease_renewed(lease_deadline_locked() - steady::now());
}

}  // namespace zkcoord::detail
