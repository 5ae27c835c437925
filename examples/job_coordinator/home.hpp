// SPDX-License-Identifier: Apache-2.0
// Which worker is a job's home: rendezvous (highest-random-weight) hashing over the live
// members. Sans-I/O: every worker computes the same answer from the same member list, a job's
// home changes only when its home leaves (or a new member outranks it), and when a member
// leaves only that member's jobs move, spread over the others.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace job_coordinator {

/// The weight of `member` for `job`: a 64-bit hash of both, the same in every process and on
/// every platform (FNV-1a, then a SplitMix64 finaliser so that near-equal names spread).
std::uint64_t rendezvous_weight(std::string_view member, std::string_view job);

/// The member with the highest weight for `job` (ties, which need a 64-bit collision, go to
/// the smaller id); nullopt when there are no members. The order of `members` does not matter.
std::optional<std::string> home_of(std::string_view job, const std::vector<std::string>& members);

}  // namespace job_coordinator
