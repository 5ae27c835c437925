// SPDX-License-Identifier: Apache-2.0
// Turning a lock path's children and their data into the `contender` list of
// async_contenders, with no I/O.
#pragma once

#include <zkcoord/lock.hpp>
#include <zkcoord/ops.hpp>

#include <chrono>
#include <map>
#include <string>
#include <vector>

namespace zkcoord::detail {

/// The contenders among `children` in grant order, each holder marked (the first; on a
/// read-write lock's path every reader with no writer ahead). Children without
/// an entry in `read` (they vanished before their data was read) are left out.
std::vector<contender> make_contenders(const std::vector<std::string>& children,
                                       const std::map<std::string, node_data>& read,
                                       std::chrono::system_clock::time_point now);

}  // namespace zkcoord::detail
