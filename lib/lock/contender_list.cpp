// SPDX-License-Identifier: Apache-2.0
// Contender descriptions: order from the sequence, identity from the node data and Stat.
#include "lock/contender_list.hpp"

#include "recipe/contender_queue.hpp"
#include "recipe/holder_data.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace zkcoord::detail {
namespace {

std::chrono::milliseconds age_of(const node_stat& stat, std::chrono::system_clock::time_point now) {
  const auto now_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  // ctime is the server's clock: clamp, clocks of different hosts disagree. Compared before
  // subtracting, and the difference taken unsigned: a wild ctime must not overflow.
  if (stat.ctime >= now_ms) return std::chrono::milliseconds(0);
  const auto age = static_cast<std::uint64_t>(now_ms) - static_cast<std::uint64_t>(stat.ctime);
  constexpr auto longest = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  return std::chrono::milliseconds(static_cast<std::int64_t>(std::min(age, longest)));
}

// Node data is anyone's to write: a start time a nanosecond clock cannot hold is not recorded.
std::chrono::system_clock::time_point start_of(const holder_info& holder) {
  constexpr std::int64_t latest = std::int64_t{1} << 40;  // some 35,000 years after 1970
  if (holder.process_start <= 0 || holder.process_start > latest) return {};
  return std::chrono::system_clock::time_point(std::chrono::seconds(holder.process_start));
}

}  // namespace

std::vector<contender> make_contenders(const std::vector<std::string>& children,
                                       const std::map<std::string, node_data>& read,
                                       std::chrono::system_clock::time_point now) {
  std::vector<contender> out;
  const contender_queue queue(children);
  bool writer_ahead = false;  // a node that excludes readers, among those listed so far
  for (const auto& node : queue.nodes()) {
    const auto it = read.find(node.name);
    if (it == read.end()) continue;
    const holder_info holder = decode_holder_data(it->second.data);
    // Readers share: each holds while no writer (or exclusive node) is ahead. A semaphore's
    // lease nodes each hold a lease. Anything else holds only first.
    const bool holds = node.kind == node_kind::read    ? !writer_ahead
                       : node.kind == node_kind::lease ? true
                                                       : out.empty();
    if (node.kind != node_kind::read && node.kind != node_kind::lease) writer_ahead = true;
    out.push_back(contender{.node = node.name,
                            .token = fencing_token(it->second.stat.czxid),
                            .session_id = it->second.stat.ephemeral_owner,
                            .host = holder.host,
                            .pid = holder.pid,
                            .app_id = holder.app_id,
                            .process_start = start_of(holder),
                            .age = age_of(it->second.stat, now),
                            .holder = holds});
  }
  return out;
}

}  // namespace zkcoord::detail
