// SPDX-License-Identifier: Apache-2.0
// Prints the containers' logs to the test log when the current Boost.Test case has failed
// (checks that do not throw, e.g. BOOST_TEST, leave no exception for the harness to see).
#pragma once

#include <zkcoord/testing/container_ensemble.hpp>

#include <boost/test/framework.hpp>
#include <boost/test/results_collector.hpp>
#include <boost/test/tree/test_unit.hpp>

#include <iostream>

namespace zkcoord::test {

class container_logs_on_failure {
 public:
  explicit container_logs_on_failure(const testing::container_ensemble& zk) : zk_(zk) {}
  ~container_logs_on_failure() {
    namespace ut = boost::unit_test;
    if (!ut::results_collector.results(ut::framework::current_test_case().p_id).passed()) {
      std::cerr << "test failed: the containers' logs follow\n";
      zk_.print_logs(std::cerr);
    }
  }
  container_logs_on_failure(const container_logs_on_failure&) = delete;
  container_logs_on_failure& operator=(const container_logs_on_failure&) = delete;

 private:
  const testing::container_ensemble& zk_;
};

}  // namespace zkcoord::test
