// SPDX-License-Identifier: Apache-2.0
// One process of the cache-regeneration example: serves its share of the requests for one
// cache entry concurrently (one coroutine each) on one ZooKeeper session.
#pragma once

#include "cache_regen/options.hpp"

namespace cache_regen {

/// Returns the process exit status.
int run_worker(const worker_options& options);

}  // namespace cache_regen
