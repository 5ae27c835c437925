// SPDX-License-Identifier: Apache-2.0
// The Prometheus metrics observer: every series a report can touch is made up front (one per
// recipe kind, request kind and session state), so a report is an atomic update of a
// prometheus-cpp counter or gauge, or a histogram observation (prometheus-cpp's Histogram
// takes its own mutex: once per grant). Only the opt-in path label looks series up, under a
// mutex.
#include <zkcoord/prometheus.hpp>

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>

#include <array>
#include <map>
#include <mutex>
#include <string>
#include <utility>

namespace zkcoord {
namespace {

namespace pm = ::prometheus;

constexpr std::array recipe_kinds = {recipe_kind::lock,       recipe_kind::read_lock,
                                     recipe_kind::write_lock, recipe_kind::semaphore,
                                     recipe_kind::election,   recipe_kind::membership};
constexpr std::array request_types = {
    request_type::create, request_type::remove, request_type::set,
    request_type::get,    request_type::exists, request_type::children,
    request_type::multi,  request_type::sync,   request_type::lease_renewal};
constexpr std::array session_states = {session_state::connecting, session_state::connected,
                                       session_state::suspended,  session_state::reconnected,
                                       session_state::expired,    session_state::closed};

double seconds(std::chrono::steady_clock::duration d) noexcept {
  return std::chrono::duration<double>(d).count();
}

// The series of one recipe kind (and path, with the path label).
struct recipe_series {
  pm::Histogram* acquire;
  pm::Counter* grants;
  pm::Counter* failures;
  pm::Counter* losses;
  pm::Gauge* waiting;
};

class prometheus_observer final : public metrics_observer {
 public:
  prometheus_observer(std::shared_ptr<pm::Registry> registry, prometheus_options options);

  void request_sent(request_type t) noexcept override {
    requests_[static_cast<std::size_t>(t)]->Increment();
  }
  void session_state_changed(session_state s) noexcept override {
    states_[static_cast<std::size_t>(s)]->Increment();
    if (s == session_state::reconnected) reconnects_->Increment();
    if (s == session_state::expired) expiries_->Increment();
  }
  void lease_renewed(std::chrono::steady_clock::duration margin) noexcept override {
    lease_margin_->Set(seconds(margin));
  }
  void acquire_started(const recipe_labels& r) noexcept override { series(r).waiting->Increment(); }
  void acquire_finished(const recipe_labels& r, error_code ec,
                        std::chrono::steady_clock::duration waited) noexcept override {
    const recipe_series& s = series(r);
    s.waiting->Decrement();
    if (ec) {
      s.failures->Increment();
      return;
    }
    s.grants->Increment();
    s.acquire->Observe(seconds(waited));
  }
  void ownership_lost(const recipe_labels& r, error_code reason) noexcept override {
    // Closing one's own session ends what it held: a shutdown, not a loss.
    if (reason == errc::closed) return;
    series(r).losses->Increment();
  }

 private:
  recipe_series make_series(pm::Labels labels);
  const recipe_series& series(const recipe_labels& r) noexcept;

  const std::shared_ptr<pm::Registry> registry_;
  const prometheus_options options_;
  pm::Family<pm::Histogram>& acquire_;
  pm::Family<pm::Counter>& grants_;
  pm::Family<pm::Counter>& failures_;
  pm::Family<pm::Counter>& losses_;
  pm::Family<pm::Gauge>& waiting_;
  std::array<recipe_series, recipe_kinds.size()> by_kind_{};
  std::array<pm::Counter*, request_types.size()> requests_{};
  std::array<pm::Counter*, session_states.size()> states_{};
  pm::Counter* reconnects_;
  pm::Counter* expiries_;
  pm::Gauge* lease_margin_;
  std::mutex by_path_mutex_;
  std::map<std::pair<recipe_kind, std::string>, recipe_series, std::less<>> by_path_;
};

prometheus_observer::prometheus_observer(std::shared_ptr<pm::Registry> registry,
                                         prometheus_options options)
    : registry_(std::move(registry)),
      options_(std::move(options)),
      acquire_(pm::BuildHistogram()
                   .Name("zkcoord_acquire_seconds")
                   .Help("Time from an acquire's start to its grant (lock, read_lock, write_lock, "
                         "semaphore, election: leadership, membership: the join)")
                   .Register(*registry_)),
      grants_(pm::BuildCounter()
                  .Name("zkcoord_grants_total")
                  .Help("Acquires that ended in a grant")
                  .Register(*registry_)),
      failures_(pm::BuildCounter()
                    .Name("zkcoord_acquire_failures_total")
                    .Help("Acquires that ended without a grant (timeout, busy, cancelled, "
                          "session ended, error)")
                    .Register(*registry_)),
      losses_(pm::BuildCounter()
                  .Name("zkcoord_losses_total")
                  .Help("Grants lost without being released (node deleted, session expired); "
                        "a member's registrations that ended")
                  .Register(*registry_)),
      waiting_(pm::BuildGauge()
                   .Name("zkcoord_waiting")
                   .Help("Acquires in progress")
                   .Register(*registry_)) {
  auto& requests = pm::BuildCounter()
                       .Name("zkcoord_requests_total")
                       .Help("Requests handed to the ZooKeeper C client, by kind")
                       .Register(*registry_);
  for (request_type t : request_types)
    requests_[static_cast<std::size_t>(t)] = &requests.Add({{"kind", to_string(t)}});
  auto& states = pm::BuildCounter()
                     .Name("zkcoord_session_state_changes_total")
                     .Help("Session state changes, by the state entered")
                     .Register(*registry_);
  for (session_state s : session_states)
    states_[static_cast<std::size_t>(s)] = &states.Add({{"state", to_string(s)}});
  reconnects_ = &pm::BuildCounter()
                     .Name("zkcoord_reconnects_total")
                     .Help("Contact regained with the same session after a suspension")
                     .Register(*registry_)
                     .Add({});
  expiries_ = &pm::BuildCounter()
                   .Name("zkcoord_expiries_total")
                   .Help("Sessions expired (reported by the server or by the lease deadline)")
                   .Register(*registry_)
                   .Add({});
  lease_margin_ = &pm::BuildGauge()
                       .Name("zkcoord_lease_margin_seconds")
                       .Help(
                           "How long the lease lasted after its latest renewal (a reply a "
                           "quorum acknowledged)")
                       .Register(*registry_)
                       .Add({});
  if (!options_.path_label)
    for (recipe_kind k : recipe_kinds)
      by_kind_[static_cast<std::size_t>(k)] = make_series({{"recipe", to_string(k)}});
}

recipe_series prometheus_observer::make_series(pm::Labels labels) {
  return {&acquire_.Add(labels, options_.acquire_buckets), &grants_.Add(labels),
          &failures_.Add(labels), &losses_.Add(labels), &waiting_.Add(labels)};
}

const recipe_series& prometheus_observer::series(const recipe_labels& r) noexcept {
  if (!options_.path_label) return by_kind_[static_cast<std::size_t>(r.kind)];
  std::lock_guard lock(by_path_mutex_);
  auto key = std::pair(r.kind, std::string(r.path));
  auto it = by_path_.find(key);
  if (it == by_path_.end()) {
    auto made = make_series({{"recipe", to_string(r.kind)}, {"path", key.second}});
    it = by_path_.emplace(std::move(key), made).first;
  }
  return it->second;
}

}  // namespace

std::shared_ptr<metrics_observer> make_prometheus_observer(
    std::shared_ptr<prometheus::Registry> registry, prometheus_options options) {
  return std::make_shared<prometheus_observer>(std::move(registry), std::move(options));
}

}  // namespace zkcoord
