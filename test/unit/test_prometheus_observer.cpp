// SPDX-License-Identifier: Apache-2.0
// zkcoord::prometheus without a server: each report moves the series docs/metrics.md names,
// every fixed series exists at zero from the start, closing one's own session is no loss, and
// the path label is there only when asked for.
#include <zkcoord/prometheus.hpp>

#define BOOST_TEST_MODULE prometheus_observer
#include <boost/test/unit_test.hpp>

#include <prometheus/registry.h>

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;

namespace {

constexpr double missing = -1;  // no series: no value these tests expect is negative

// The value of the series `name` with exactly `labels` (histograms: their sample count).
double value_of(prometheus::Registry& registry, const std::string& name,
                const std::map<std::string, std::string>& labels = {}) {
  for (const auto& family : registry.Collect()) {
    if (family.name != name) continue;
    for (const auto& metric : family.metric) {
      std::map<std::string, std::string> got;
      for (const auto& l : metric.label) got[l.name] = l.value;
      if (got != labels) continue;
      switch (family.type) {
        case prometheus::MetricType::Counter:
          return metric.counter.value;
        case prometheus::MetricType::Gauge:
          return metric.gauge.value;
        case prometheus::MetricType::Histogram:
          return static_cast<double>(metric.histogram.sample_count);
        default:
          return missing;
      }
    }
  }
  return missing;
}

std::map<std::string, std::string> recipe(const char* kind) {
  return {{"recipe", kind}};
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_fixed_series_exists_at_zero) {
  auto registry = std::make_shared<prometheus::Registry>();
  auto observer = make_prometheus_observer(registry);
  for (const char* k : {"lock", "read_lock", "write_lock", "semaphore", "election", "membership"}) {
    BOOST_TEST_CONTEXT(k) {
      BOOST_TEST(value_of(*registry, "zkcoord_grants_total", recipe(k)) == 0.0);
      BOOST_TEST(value_of(*registry, "zkcoord_acquire_seconds", recipe(k)) == 0.0);
      BOOST_TEST(value_of(*registry, "zkcoord_acquire_failures_total", recipe(k)) == 0.0);
      BOOST_TEST(value_of(*registry, "zkcoord_losses_total", recipe(k)) == 0.0);
      BOOST_TEST(value_of(*registry, "zkcoord_waiting", recipe(k)) == 0.0);
    }
  }
  BOOST_TEST(value_of(*registry, "zkcoord_requests_total", {{"kind", "lease_renewal"}}) == 0.0);
  BOOST_TEST(value_of(*registry, "zkcoord_session_state_changes_total", {{"state", "expired"}}) ==
             0.0);
  BOOST_TEST(value_of(*registry, "zkcoord_reconnects_total") == 0.0);
  BOOST_TEST(value_of(*registry, "zkcoord_expiries_total") == 0.0);
  BOOST_TEST(value_of(*registry, "zkcoord_lease_margin_seconds") == 0.0);
}

BOOST_AUTO_TEST_CASE(reports_move_their_series) {
  auto registry = std::make_shared<prometheus::Registry>();
  auto observer = make_prometheus_observer(registry);
  const recipe_labels lock{recipe_kind::lock, "/a"};
  observer->acquire_started(lock);
  observer->acquire_started(lock);
  BOOST_TEST(value_of(*registry, "zkcoord_waiting", recipe("lock")) == 2.0);
  observer->acquire_finished(lock, {}, 3ms);
  observer->acquire_finished(lock, make_error_code(errc::timeout), 1s);
  BOOST_TEST(value_of(*registry, "zkcoord_waiting", recipe("lock")) == 0.0);
  BOOST_TEST(value_of(*registry, "zkcoord_grants_total", recipe("lock")) == 1.0);
  BOOST_TEST(value_of(*registry, "zkcoord_acquire_seconds", recipe("lock")) == 1.0);
  BOOST_TEST(value_of(*registry, "zkcoord_acquire_failures_total", recipe("lock")) == 1.0);

  observer->ownership_lost(lock, make_error_code(errc::lock_lost));
  observer->ownership_lost(lock, make_error_code(errc::closed));  // a shutdown: no loss
  BOOST_TEST(value_of(*registry, "zkcoord_losses_total", recipe("lock")) == 1.0);

  observer->request_sent(request_type::create);
  observer->request_sent(request_type::create);
  observer->request_sent(request_type::children);
  BOOST_TEST(value_of(*registry, "zkcoord_requests_total", {{"kind", "create"}}) == 2.0);
  BOOST_TEST(value_of(*registry, "zkcoord_requests_total", {{"kind", "children"}}) == 1.0);

  for (auto s : {session_state::connecting, session_state::connected, session_state::suspended,
                 session_state::reconnected, session_state::expired, session_state::connected})
    observer->session_state_changed(s);
  BOOST_TEST(value_of(*registry, "zkcoord_session_state_changes_total", {{"state", "connected"}}) ==
             2.0);
  BOOST_TEST(value_of(*registry, "zkcoord_reconnects_total") == 1.0);
  BOOST_TEST(value_of(*registry, "zkcoord_expiries_total") == 1.0);

  observer->lease_renewed(2500ms);
  BOOST_TEST(value_of(*registry, "zkcoord_lease_margin_seconds") == 2.5);
}

BOOST_AUTO_TEST_CASE(the_path_label_only_when_asked_for) {
  auto registry = std::make_shared<prometheus::Registry>();
  auto observer = make_prometheus_observer(registry, {.path_label = true});
  observer->acquire_started({recipe_kind::semaphore, "/jobs"});
  observer->acquire_finished({recipe_kind::semaphore, "/jobs"}, {}, 1ms);
  const std::map<std::string, std::string> labels{{"recipe", "semaphore"}, {"path", "/jobs"}};
  BOOST_TEST(value_of(*registry, "zkcoord_grants_total", labels) == 1.0);
  BOOST_TEST(value_of(*registry, "zkcoord_waiting", labels) == 0.0);
  BOOST_TEST(value_of(*registry, "zkcoord_grants_total", recipe("semaphore")) == missing);
}

BOOST_AUTO_TEST_CASE(observers_sharing_a_registry_share_its_series) {
  auto registry = std::make_shared<prometheus::Registry>();
  auto first = make_prometheus_observer(registry);
  auto second = make_prometheus_observer(registry);
  first->request_sent(request_type::get);
  second->request_sent(request_type::get);
  BOOST_TEST(value_of(*registry, "zkcoord_requests_total", {{"kind", "get"}}) == 2.0);
}
