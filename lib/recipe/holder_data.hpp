// SPDX-License-Identifier: Apache-2.0
// The data of a lock node: who created it, for people and tools inspecting the lock.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace zkcoord::detail {

/// Who a lock node belongs to.
///
/// Stored as "host=<host>;pid=<pid>;session=0x<hex>;start=<unix seconds>;app=<app id>",
/// readable as is in zkCli's `get`. In values, '%', ';', '=' and control characters are
/// written as %XX. Decoding ignores unknown keys (room for later fields) and leaves missing
/// ones zero or empty (data written before session and start existed). Data that is not in
/// this format (Curator stores the client's IP address, kazoo its identifier) is returned
/// whole as `app_id`.
struct holder_info {
  std::string host = {};
  int pid = 0;
  /// The session that created the node (also its ephemeralOwner), for readers of the data.
  std::int64_t session_id = 0;
  /// When the holder's process started, seconds since the Unix epoch: with host and pid it
  /// tells a process apart from a later one that reuses the pid. 0: not recorded.
  std::int64_t process_start = 0;
  std::string app_id = {};
  friend bool operator==(const holder_info&, const holder_info&) = default;
};

std::string encode_holder_data(const holder_info& holder);
holder_info decode_holder_data(std::string_view data);

/// This process: its host name, pid and start time, with the given session and app id.
holder_info this_process_holder(std::string app_id, std::int64_t session_id = 0);

/// When this process started, seconds since the Unix epoch (from /proc; 0 if unknown).
std::int64_t this_process_start_time();

}  // namespace zkcoord::detail
