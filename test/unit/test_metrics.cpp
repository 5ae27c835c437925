// SPDX-License-Identifier: Apache-2.0
// The metrics plumbing without a server: what one recipe attempt reports (one end per start,
// the end of a pending acquire when it is dropped, the reports each kind of attempt makes),
// the name of every request kind, and the label values.
#include "recipe/recipe_metrics.hpp"

#define BOOST_TEST_MODULE metrics
#include <boost/test/unit_test.hpp>

#include "session/session_impl.hpp"

#include <memory>
#include <string>
#include <vector>

using namespace zkcoord;
using zkcoord::detail::recipe_metrics;

namespace {

struct recording_observer : metrics_observer {
  void acquire_started(const recipe_labels& r) noexcept override { record("started", r, {}); }
  void acquire_finished(const recipe_labels& r, error_code ec,
                        std::chrono::steady_clock::duration) noexcept override {
    record("finished", r, ec);
  }
  void ownership_lost(const recipe_labels& r, error_code reason) noexcept override {
    record("lost", r, reason);
  }
  void record(const char* what, const recipe_labels& r, error_code ec) {
    events.push_back(std::string(what) + " " + to_string(r.kind) + " " + std::string(r.path) +
                     (ec ? " " + ec.message() : ""));
  }
  std::vector<std::string> events;
};

}  // namespace

BOOST_AUTO_TEST_CASE(one_end_per_start) {
  auto o = std::make_shared<recording_observer>();
  recipe_metrics m(o, recipe_kind::lock, "/l");
  m.acquire_finished({});  // nothing started: nothing to end
  m.acquire_started();
  m.acquire_finished({});
  m.acquire_finished(make_error_code(errc::timeout));  // already ended
  m.lost(make_error_code(errc::lock_lost));
  const std::vector<std::string> expected{
      "started lock /l", "finished lock /l",
      "lost lock /l " + make_error_code(errc::lock_lost).message()};
  BOOST_TEST(o->events == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_pending_acquire_dropped_with_its_attempt_ends_as_closed) {
  auto o = std::make_shared<recording_observer>();
  {
    recipe_metrics m(o, recipe_kind::election, "/e");
    m.acquire_started();
    recipe_metrics moved(std::move(m));  // the end is reported once, by the one that owns it
  }
  const std::vector<std::string> expected{
      "started election /e", "finished election /e " + make_error_code(errc::closed).message()};
  BOOST_TEST(o->events == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(what_each_kind_of_attempt_reports) {
  auto o = std::make_shared<recording_observer>();
  recipe_metrics guard(o, recipe_kind::lock, "/s/locks", recipe_metrics::reports::none);
  recipe_metrics lease(o, recipe_kind::semaphore, "/s", recipe_metrics::reports::losses_only);
  for (recipe_metrics* m : {&guard, &lease}) {
    m->acquire_started();
    m->acquire_finished({});
    m->lost(make_error_code(errc::lock_lost));
  }
  const std::vector<std::string> expected{"lost semaphore /s " +
                                          make_error_code(errc::lock_lost).message()};
  BOOST_TEST(o->events == expected, boost::test_tools::per_element());
  recipe_metrics unobserved(nullptr, recipe_kind::lock, "/l");  // no observer: no report
  unobserved.acquire_started();
  unobserved.lost(make_error_code(errc::lock_lost));
}

BOOST_AUTO_TEST_CASE(node_kinds_name_their_recipes) {
  using detail::node_kind;
  BOOST_TEST((detail::recipe_of(node_kind::lock) == recipe_kind::lock));
  BOOST_TEST((detail::recipe_of(node_kind::read) == recipe_kind::read_lock));
  BOOST_TEST((detail::recipe_of(node_kind::write) == recipe_kind::write_lock));
  BOOST_TEST((detail::recipe_of(node_kind::latch) == recipe_kind::election));
  BOOST_TEST((detail::recipe_of(node_kind::lease) == recipe_kind::semaphore));
}

BOOST_AUTO_TEST_CASE(request_kinds_are_named_as_request_counts_counts_them) {
  using detail::request_counters;
  using detail::request_type_of;
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::creates))) == "create");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::removes))) == "remove");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::sets))) == "set");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::gets))) == "get");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::exists))) == "exists");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::listings))) == "children");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::multis))) == "multi");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::syncs))) == "sync");
  BOOST_TEST(std::string(to_string(request_type_of(&request_counters::lease_renewals))) ==
             "lease_renewal");
  BOOST_TEST(std::string(to_string(recipe_kind::read_lock)) == "read_lock");
  BOOST_TEST(std::string(to_string(recipe_kind::membership)) == "membership");
}
