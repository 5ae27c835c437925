// SPDX-License-Identifier: Apache-2.0
// What one metrics report costs, alone: the reports of one lock cycle (an acquire started and
// granted, its create, listing and delete, the lease renewed by the create) made in a loop on
// one thread, through the zkcoord::prometheus observer, and through a counting observer (one
// relaxed atomic increment per report). Against a lock cycle's own client CPU
// (zkcoord-lock-bench's cpu= figure) this is what metrics add to it.
//   usage: zkcoord-metrics-report-bench [CYCLES]
#include <zkcoord/metrics.hpp>
#include <zkcoord/prometheus.hpp>

#include <prometheus/registry.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>

namespace {

using steady = std::chrono::steady_clock;

struct counting_observer : zkcoord::metrics_observer {
  void request_sent(zkcoord::request_type) noexcept override { bump(); }
  void lease_renewed(steady::duration) noexcept override { bump(); }
  void acquire_started(const zkcoord::recipe_labels&) noexcept override { bump(); }
  void acquire_finished(const zkcoord::recipe_labels&, zkcoord::error_code,
                        steady::duration) noexcept override {
    bump();
  }
  void bump() noexcept { reports.fetch_add(1, std::memory_order_relaxed); }
  std::atomic<std::uint64_t> reports{0};
};

// The reports of one lock cycle, as the session and the lock make them; returns their number.
int one_cycle(zkcoord::metrics_observer& o) {
  const zkcoord::recipe_labels lock{zkcoord::recipe_kind::lock, "/bench/l0"};
  o.acquire_started(lock);
  o.request_sent(zkcoord::request_type::create);
  o.request_sent(zkcoord::request_type::children);
  o.lease_renewed(std::chrono::seconds(3));
  o.acquire_finished(lock, {}, std::chrono::milliseconds(4));
  o.request_sent(zkcoord::request_type::remove);
  o.lease_renewed(std::chrono::seconds(3));
  return 7;
}

// Nanoseconds per report over `cycles` cycles through `o`.
double ns_per_report(zkcoord::metrics_observer& o, long cycles) {
  long reports = 0;
  const auto t0 = steady::now();
  for (long i = 0; i < cycles; ++i) reports += one_cycle(o);
  const std::chrono::duration<double, std::nano> took = steady::now() - t0;
  return took.count() / static_cast<double>(reports);
}

}  // namespace

int main(int argc, char** argv) {
  const long cycles = argc > 1 ? std::atol(argv[1]) : 1000000;
  counting_observer counting;
  auto prometheus = zkcoord::make_prometheus_observer(std::make_shared<::prometheus::Registry>());
  ns_per_report(*prometheus, cycles / 10);  // warm-up
  const double counting_ns = ns_per_report(counting, cycles);
  const double prometheus_ns = ns_per_report(*prometheus, cycles);
  std::printf(
      "metrics-report cycles=%ld reports_per_cycle=7 counting=%.1fns/report "
      "prometheus=%.1fns/report prometheus_per_cycle=%.2fus\n",
      cycles, counting_ns, prometheus_ns, prometheus_ns * 7 / 1000);
  return 0;
}
