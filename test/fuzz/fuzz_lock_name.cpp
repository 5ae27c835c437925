// SPDX-License-Identifier: Apache-2.0
// Fuzz target: lock node names (lib/lock/node_name, lib/lock/sequence), the contender order
// built from a listing (lib/lock/queue) and the contender descriptions (lib/lock/contender_list).
//
// Input: a 32-bit sequence, a 64-bit ctime, a 32-bit clock (s), a uuid line, then
// '\n'-separated children; each child's node data is the text after a '\t' in its line.
#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "fuzz_targets.hpp"

#include "lock/contender_list.hpp"
#include "recipe/contender_queue.hpp"
#include "recipe/holder_data.hpp"
#include "recipe/node_name.hpp"
#include "recipe/sequence.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

namespace zkcoord::fuzz {
namespace {

using detail::parse_lock_sequence;

// What ZooKeeper appends to a sequential node's name: printf's "%010d" of the counter.
std::string format_sequence(std::int32_t value) {
  char out[16];
  std::snprintf(out, sizeof out, "%010d", value);
  return out;
}

// A sequence is only ever read from the name's own tail: a marker, then "%010d" of it.
void check_parse(std::string_view name) {
  const auto sequence = parse_lock_sequence(name);
  if (!sequence) return;
  const std::string tail = format_sequence(*sequence);
  const bool marked = name.ends_with(std::string(detail::curator_lock_marker) + tail) ||
                      name.ends_with(std::string(detail::kazoo_lock_marker) + tail);
  ZKCOORD_FUZZ_CHECK(marked, "parse_lock_sequence read " + std::to_string(*sequence) + " from " +
                                 printable(name) + ", which does not end in a marker + " + tail);
}

// Names built the way zkcoord, Curator and kazoo build them parse back to their sequence.
void check_round_trip(const std::string& uuid, std::int32_t sequence) {
  const std::string prefix = detail::protected_node_prefix(uuid);
  const std::string ours = prefix + format_sequence(sequence);
  ZKCOORD_FUZZ_CHECK(
      parse_lock_sequence(ours) == sequence,
      "protected name " + printable(ours) + " does not parse back to " + std::to_string(sequence));
  ZKCOORD_FUZZ_CHECK(detail::has_protected_prefix(ours, prefix),
                     "has_protected_prefix misses its own prefix in " + printable(ours));
  const std::string kazoo =
      uuid + std::string(detail::kazoo_lock_marker) + format_sequence(sequence);
  ZKCOORD_FUZZ_CHECK(
      parse_lock_sequence(kazoo) == sequence,
      "kazoo name " + printable(kazoo) + " does not parse back to " + std::to_string(sequence));
  if (ours.find('/') == std::string::npos) {
    ZKCOORD_FUZZ_CHECK(detail::node_name_of("/locks/job/" + ours) == ours,
                       "node_name_of loses " + printable(ours));
  }
}

std::vector<std::string> names_of(const detail::contender_queue& queue) {
  std::vector<std::string> names;
  for (const auto& node : queue.nodes()) names.push_back(node.name);
  return names;
}

void check_queue(const std::vector<std::string>& children) {
  const detail::contender_queue queue(children);
  const auto& nodes = queue.nodes();
  const auto contenders =
      static_cast<std::size_t>(std::count_if(children.begin(), children.end(), [](auto& c) {
        return detail::parse_sequenced_name(c).has_value();
      }));
  ZKCOORD_FUZZ_CHECK(nodes.size() == contenders, "contender_queue kept " +
                                                     std::to_string(nodes.size()) + " of " +
                                                     std::to_string(contenders) + " contenders");
  // The grant order does not depend on the order of the server's listing.
  const std::vector<std::string> reversed(children.rbegin(), children.rend());
  ZKCOORD_FUZZ_CHECK(names_of(detail::contender_queue(reversed)) == names_of(queue),
                     "contender_queue order depends on the listing order");
  const bool non_negative =
      std::all_of(nodes.begin(), nodes.end(), [](auto& n) { return n.sequence >= 0; });
  const bool negative =
      std::all_of(nodes.begin(), nodes.end(), [](auto& n) { return n.sequence < 0; });
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const std::string& name = nodes[i].name;
    const detail::sequenced_name queued{nodes[i].kind, nodes[i].sequence};
    ZKCOORD_FUZZ_CHECK(detail::parse_sequenced_name(name) == queued,
                       "queued sequence of " + printable(name) + " is not its parsed one");
    ZKCOORD_FUZZ_CHECK(queue.position_of(name) == i,
                       "position_of(" + printable(name) + ") is not " + std::to_string(i));
    ZKCOORD_FUZZ_CHECK(
        queue.predecessor_of(name) == (i == 0 ? std::nullopt : std::optional(nodes[i - 1].name)),
        "predecessor_of(" + printable(name) + ") is not the node ahead of it");
    if (i == 0) continue;
    const auto& before = nodes[i - 1];
    if (non_negative || negative) {  // no overflow in the listing: plain (sequence, name) order
      ZKCOORD_FUZZ_CHECK(
          std::pair(before.sequence, std::string_view(before.name)) <
              std::pair(nodes[i].sequence, std::string_view(name)),
          "contenders out of order: " + printable(before.name) + " before " + printable(name));
    }
  }
  for (const auto& child : children) {
    if (!detail::parse_sequenced_name(child))
      ZKCOORD_FUZZ_CHECK(!queue.position_of(child), printable(child) + " is not a contender");
  }
}

// make_contenders: the queue's order, limited to the nodes that were read, identity from the
// node data, the first one the holder, never a negative age.
void check_contenders(const std::vector<std::string>& children,
                      const std::map<std::string, node_data>& read, std::int64_t now_ms) {
  const std::chrono::system_clock::time_point now{std::chrono::milliseconds(now_ms)};
  const auto contenders = detail::make_contenders(children, read, now);
  std::vector<std::string> expected;
  const detail::contender_queue queue(children);
  for (const auto& node : queue.nodes()) {
    if (read.count(node.name)) expected.push_back(node.name);
  }
  ZKCOORD_FUZZ_CHECK(contenders.size() == expected.size(),
                     "make_contenders returned " + std::to_string(contenders.size()) + " of " +
                         std::to_string(expected.size()));
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    const auto& c = contenders[i];
    const node_data& data = read.at(expected[i]);
    const auto holder = detail::decode_holder_data(data.data);
    ZKCOORD_FUZZ_CHECK(c.node == expected[i], "contender " + std::to_string(i) + " is " +
                                                  printable(c.node) + ", not " +
                                                  printable(expected[i]));
    ZKCOORD_FUZZ_CHECK(c.holder == (i == 0), "holder flag wrong at " + std::to_string(i));
    ZKCOORD_FUZZ_CHECK(
        c.token == fencing_token(data.stat.czxid) && c.session_id == data.stat.ephemeral_owner,
        "token or session not from the Stat of " + printable(c.node));
    ZKCOORD_FUZZ_CHECK(c.host == holder.host && c.pid == holder.pid && c.app_id == holder.app_id,
                       "identity not from the data of " + printable(c.node));
    ZKCOORD_FUZZ_CHECK(c.age.count() >= 0, "negative age for " + printable(c.node));
  }
}

}  // namespace

void fuzz_lock_name(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  check_parse(input.rest());
  const auto sequence = input.take_integer<std::int32_t>();
  const auto ctime = input.take_integer<std::int64_t>();
  // Our clock, within +-68 years of the epoch (system_clock counts nanoseconds in 64 bits).
  const std::int64_t now_ms = std::int64_t{input.take_integer<std::int32_t>()} * 1000;
  const std::string uuid = input.take_until('\n');
  check_round_trip(uuid, sequence);

  // A listing has no duplicates; "name\tdata" lines give children and their node data.
  std::vector<std::string> children;
  std::set<std::string> seen;
  std::map<std::string, node_data> read;
  std::int64_t czxid = 0;
  for (const std::string& line : input.split_rest('\n')) {
    const auto tab = line.find('\t');
    const std::string name = line.substr(0, tab);
    check_parse(name);
    if (!seen.insert(name).second) continue;
    children.push_back(name);
    if (tab == std::string::npos) continue;  // vanished before its data was read
    node_stat stat;
    stat.czxid = ++czxid;
    stat.ephemeral_owner = czxid * 7;
    // Any ctime, even INT64_MIN: it is the server's, and clocks and servers can be wrong.
    stat.ctime = static_cast<std::int64_t>(static_cast<std::uint64_t>(ctime) +
                                           static_cast<std::uint64_t>(czxid));
    read.emplace(name, node_data{line.substr(tab + 1), stat});
  }
  check_queue(children);
  check_contenders(children, read, now_ms);
}

}  // namespace zkcoord::fuzz
