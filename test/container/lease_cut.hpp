// SPDX-License-Identifier: Apache-2.0
// The cut of container_lease_partition: which member to cut off from the quorum for a cut kind,
// and an isolation that is always healed, also when a check throws halfway through a case, so
// the next case finds the ensemble whole.
#pragma once

#include <zkcoord/testing/container_ensemble.hpp>

#include "container/lease_cases.hpp"

#include <chrono>
#include <cstddef>
#include <exception>
#include <iostream>

namespace zkcoord::test {

/// Picked anew for each case (a leader cut moves the leadership): the current leader, or the
/// member after it (a follower).
inline std::size_t member_to_cut(const testing::container_ensemble& zk, cut_kind cut) {
  const std::size_t leader = zk.wait_for_leader(std::chrono::seconds(60));
  return cut == cut_kind::leader ? leader : (leader + 1) % zk.size();
}

class cut_guard {
 public:
  cut_guard(testing::container_ensemble& zk, std::size_t member) : zk_(zk), member_(member) {}
  ~cut_guard() {
    if (!isolated_) return;
    try {
      zk_.heal(member_);
    } catch (const std::exception& e) {
      std::cerr << "cut_guard: heal of zk" << member_ + 1 << " failed: " << e.what() << '\n';
    }
  }
  cut_guard(const cut_guard&) = delete;
  cut_guard& operator=(const cut_guard&) = delete;

  void isolate() {
    isolated_ = true;  // before: a disconnect that throws halfway may still have happened
    zk_.isolate(member_);
  }
  /// Reconnects the member and waits until the ensemble serves with every member again.
  void heal() {
    isolated_ = false;
    zk_.heal(member_);
    zk_.wait_for_leader(std::chrono::seconds(60));
  }

 private:
  testing::container_ensemble& zk_;
  std::size_t member_;
  bool isolated_ = false;
};

}  // namespace zkcoord::test
