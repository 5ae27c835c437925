// SPDX-License-Identifier: Apache-2.0
// How `zkcoord locks` prints what it found: an aligned table per lock, or JSON.
#pragma once

#include <zkcoord/lock.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace zkcoord::cli {

/// One lock path and its contenders in grant order (holder first).
struct lock_listing {
  std::string path;
  std::vector<contender> contenders;
};

/// A session id as ZooKeeper prints it ("0x10a3f").
std::string hex_session(std::int64_t id);

/// For people: "LOCK <path>" and a table (ROLE TOKEN SESSION AGE HOST PID APP NODE) per lock.
std::string format_locks_text(const std::vector<lock_listing>& locks);

/// For scripts: {"locks":[{"path":..,"contenders":[{"role","node","token","session","host",
/// "pid","app_id","age_ms"}]}]}, one line. Sessions are hex strings as ZooKeeper prints them.
std::string format_locks_json(const std::vector<lock_listing>& locks);

}  // namespace zkcoord::cli
