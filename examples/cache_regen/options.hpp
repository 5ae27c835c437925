// SPDX-License-Identifier: Apache-2.0
// What one cache-regeneration run does: how many processes and requests, with or without
// the dedup lock.
#pragma once

#include "common/command_line.hpp"

#include <chrono>
#include <string>
#include <vector>

namespace cache_regen {

struct run_options {
  int processes = 4;
  int requests = 20;                       ///< in total, spread over the processes
  std::chrono::milliseconds compute{300};  ///< the "expensive" regeneration
  bool run_plain = true;                   ///< every miss regenerates
  bool run_dedup = true;  ///< one regenerates under the lock, the others wait for it
  bool keep = false;
};

/// Parses "[--mode plain|dedup|both] [--processes N] [--requests N] [--compute-ms N] [--keep]".
run_options parse_run_options(const examples::command_line& args);

struct worker_options {
  int id = 0;
  bool dedup = true;
  int requests = 5;
  std::string db;
  std::string connect;
  std::string zk_root;  ///< the lock and the "fresh" notification nodes live under it
  std::string key;
  std::chrono::milliseconds compute{300};
};

std::vector<std::string> worker_argv(const worker_options& options);
worker_options parse_worker_options(const examples::command_line& args);

}  // namespace cache_regen
