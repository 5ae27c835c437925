// SPDX-License-Identifier: Apache-2.0
// Which cases container_lease_partition runs, chosen by the environment as a plain list:
//   default (CI)                  sync_limit 10, tick 200 ms: the lock and the CLI, each under a
//                                 follower cut and a leader cut (4 cases, one ensemble)
//   ZKCOORD_LEASE_MATRIX=full     sync_limit {2, 5, 10} x tick {200, 500} ms x cut {follower,
//                                 leader} x {lock, write_lock, election, semaphore, cli}
//   ZKCOORD_LEASE_MATRIX_RUNS=N   the CLI cases N times each (default 1): the CLI is the
//                                 end-to-end path whose margin (the guard's kill a tenth of the
//                                 timeout early) is most exposed to the machine's scheduling.
#pragma once

#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkcoord::test {

/// Whose server is cut off from the quorum: a follower's (the majority keeps its leader) or
/// the leader's (the two others elect a new one).
enum class cut_kind { follower, leader };

inline const char* name_of(cut_kind c) {
  return c == cut_kind::follower ? "follower" : "leader";
}

/// One ensemble configuration: syncLimit (ticks) and tickTime.
struct ensemble_config {
  int sync_limit = 10;
  std::chrono::milliseconds tick{200};
  bool operator==(const ensemble_config&) const = default;
};

struct lease_case {
  ensemble_config config;
  cut_kind cut = cut_kind::follower;
  std::string recipe;  ///< "lock", "write_lock", "election", "semaphore" or "cli"
  int run = 1;         ///< 1..runs for the CLI cases, 1 otherwise
};

/// "S=10 t=200 cut=follower recipe=lock run=1": how the case is named in the test log and in
/// the `lease-case` lines scripts/test-lease-matrix reads.
inline std::string case_name(const lease_case& c) {
  return "S=" + std::to_string(c.config.sync_limit) +
         " t=" + std::to_string(c.config.tick.count()) + " cut=" + name_of(c.cut) +
         " recipe=" + c.recipe + " run=" + std::to_string(c.run);
}

/// A fresh lock path per case: nothing a previous case left (a node not yet gone with its
/// expired session) can stand in the queue.
inline std::string case_path(const lease_case& c) {
  return "/lease-partition/S" + std::to_string(c.config.sync_limit) + "-t" +
         std::to_string(c.config.tick.count()) + "/" + name_of(c.cut) + "-" + c.recipe + "-" +
         std::to_string(c.run);
}

inline int lease_matrix_runs() {
  const char* v = std::getenv("ZKCOORD_LEASE_MATRIX_RUNS");
  if (!v || !*v) return 1;
  const int runs = std::atoi(v);
  if (runs < 1) throw std::invalid_argument("ZKCOORD_LEASE_MATRIX_RUNS must be a positive count");
  return runs;
}

/// The cases to run, grouped by ensemble configuration (each configuration's cases are
/// consecutive, so one ensemble serves them all).
inline std::vector<lease_case> selected_lease_cases() {
  const char* matrix = std::getenv("ZKCOORD_LEASE_MATRIX");
  const bool full = matrix && std::string(matrix) == "full";
  if (matrix && *matrix && !full)
    throw std::invalid_argument("ZKCOORD_LEASE_MATRIX must be unset or \"full\"");
  const int runs = lease_matrix_runs();

  std::vector<ensemble_config> configs{{10, std::chrono::milliseconds(200)}};
  std::vector<std::string> recipes{"lock"};
  if (full) {
    configs.clear();
    for (int s : {2, 5, 10})
      for (int t : {200, 500}) configs.push_back({s, std::chrono::milliseconds(t)});
    recipes = {"lock", "write_lock", "election", "semaphore"};
  }
  std::vector<lease_case> cases;
  for (const auto& config : configs)
    for (cut_kind cut : {cut_kind::follower, cut_kind::leader}) {
      for (const auto& recipe : recipes) cases.push_back({config, cut, recipe, 1});
      for (int run = 1; run <= runs; ++run) cases.push_back({config, cut, "cli", run});
    }
  return cases;
}

}  // namespace zkcoord::test
