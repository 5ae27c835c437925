// SPDX-License-Identifier: Apache-2.0
#include "job_coordinator/home.hpp"

namespace job_coordinator {
namespace {

std::uint64_t fnv1a(std::uint64_t hash, std::string_view bytes) {
  for (const unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

std::uint64_t splitmix64_finalise(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace

std::uint64_t rendezvous_weight(std::string_view member, std::string_view job) {
  // The length prefix keeps ("ab", "c") and ("a", "bc") apart.
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  hash = fnv1a(hash, std::to_string(member.size()));
  hash = fnv1a(hash, ":");
  hash = fnv1a(hash, member);
  hash = fnv1a(hash, "/");
  hash = fnv1a(hash, job);
  return splitmix64_finalise(hash);
}

std::optional<std::string> home_of(std::string_view job, const std::vector<std::string>& members) {
  const std::string* best = nullptr;
  std::uint64_t best_weight = 0;
  for (const auto& member : members) {
    const auto weight = rendezvous_weight(member, job);
    if (!best || weight > best_weight || (weight == best_weight && member < *best)) {
      best = &member;
      best_weight = weight;
    }
  }
  if (!best) return std::nullopt;
  return *best;
}

}  // namespace job_coordinator
