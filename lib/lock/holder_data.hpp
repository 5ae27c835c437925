// The data of a lock node: who created it, for people and tools inspecting the lock.
#pragma once

#include <string>
#include <string_view>

namespace zkcoord::detail {

/// Who a lock node belongs to.
///
/// Stored as "host=<host>;pid=<pid>;app=<app id>", readable as is in zkCli's `get`. In values,
/// '%', ';', '=' and control characters are written as %XX. Decoding ignores unknown keys
/// (room for later fields). Data that is not in this format (Curator stores the client's IP
/// address, kazoo its identifier) is returned whole as `app_id`.
struct holder_info {
  std::string host;
  int pid = 0;
  std::string app_id;
  friend bool operator==(const holder_info&, const holder_info&) = default;
};

std::string encode_holder_data(const holder_info& holder);
holder_info decode_holder_data(std::string_view data);

/// This process: its host name and pid, with the given app id.
holder_info this_process_holder(std::string app_id);

}  // namespace zkcoord::detail
