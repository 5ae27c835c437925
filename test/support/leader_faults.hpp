// SPDX-License-Identifier: Apache-2.0
// The two faults the ensemble tests apply to the ZooKeeper leader (test-matrix rows 6 and 16),
// as (fault, recover) pairs: each fault returns once the ensemble may take the member back.
#pragma once

#include <zkcoord/testing/ensemble.hpp>

#include <chrono>
#include <cstddef>
#include <thread>

namespace zkcoord::test {

/// Row 6: kill the leader; once another member leads, 10 s more without it; then restart it.
inline void kill_leader(testing::ensemble& zk, std::size_t leader) {
  zk.kill(leader);
  zk.wait_for_leader(std::chrono::seconds(60), leader);
  std::this_thread::sleep_for(std::chrono::seconds(10));
}
inline void restart_leader(testing::ensemble& zk, std::size_t leader) {
  zk.restart(leader);
}

/// Row 16: SIGSTOP the leader for 1.5 session timeouts (it keeps its clients' connections and,
/// once resumed, believes it leads until it hears otherwise); then resume it.
inline auto pause_leader_for(std::chrono::milliseconds session_timeout) {
  return [session_timeout](testing::ensemble& zk, std::size_t leader) {
    const auto paused_at = std::chrono::steady_clock::now();
    zk.pause(leader);
    zk.wait_for_leader(std::chrono::seconds(60), leader);
    std::this_thread::sleep_until(paused_at + session_timeout * 3 / 2);
  };
}
inline void resume_leader(testing::ensemble& zk, std::size_t leader) {
  zk.resume(leader);
}

}  // namespace zkcoord::test
