// SPDX-License-Identifier: Apache-2.0
// The cache-regeneration run: for each mode (plain, dedup) starts the processes with an
// empty cache entry, lets every request miss it at once, and reports how many times the
// value was computed and how long the requests took.
#pragma once

#include "cache_regen/options.hpp"

#include <string>

namespace cache_regen {

/// Returns the process exit status (0 when every request was served).
int run_orchestrator(const run_options& options, const std::string& connect);

}  // namespace cache_regen
