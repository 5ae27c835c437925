// SPDX-License-Identifier: Apache-2.0
// Conversions between zkcoord's value types and the C client's structs.
#pragma once

#include <zkcoord/ops.hpp>
#include <zkcoord/types.hpp>

#include <zookeeper/zookeeper.h>

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace zkcoord::detail {

/// Node data above this is refused before sending: the server's default jute.maxbuffer is
/// 1 MiB for the whole request, so 1 KiB is left for the path and the envelope.
inline constexpr std::size_t max_data_size = 1024 * 1024 - 1024;

/// The event of a C client watcher call (its ZOO_*_EVENT type).
inline watch_event_type event_type_of(int zk_type) {
  if (zk_type == ZOO_CREATED_EVENT) return watch_event_type::created;
  if (zk_type == ZOO_DELETED_EVENT) return watch_event_type::deleted;
  if (zk_type == ZOO_CHANGED_EVENT) return watch_event_type::data_changed;
  return watch_event_type::children_changed;
}

/// The completion of a request whose reply nobody needs (a watch removal).
inline void ignore_reply(int, const void*) {}

inline node_stat to_node_stat(const Stat& s) {
  return node_stat{s.czxid,    s.mzxid,    s.pzxid,          s.ctime,      s.mtime,      s.version,
                   s.cversion, s.aversion, s.ephemeralOwner, s.dataLength, s.numChildren};
}

inline int to_zk_mode(create_mode m) {
  switch (m) {
    case create_mode::persistent:
      return ZOO_PERSISTENT;
    case create_mode::ephemeral:
      return ZOO_EPHEMERAL;
    case create_mode::persistent_sequential:
      return ZOO_PERSISTENT_SEQUENTIAL;
    case create_mode::ephemeral_sequential:
      return ZOO_EPHEMERAL_SEQUENTIAL;
    case create_mode::container:
      return ZOO_CONTAINER;
    case create_mode::persistent_with_ttl:
      return ZOO_PERSISTENT_WITH_TTL;
    case create_mode::persistent_sequential_with_ttl:
      return ZOO_PERSISTENT_SEQUENTIAL_WITH_TTL;
  }
  return ZOO_PERSISTENT;
}

/// Why `ttl` does not fit `mode` ("" if it does): a TTL mode needs 1 ms <= ttl <= max_node_ttl,
/// the other modes no ttl.
inline std::string ttl_problem(create_mode mode, std::chrono::milliseconds ttl) {
  if (!has_ttl(mode)) {
    if (ttl.count() != 0) return "a ttl is only for the persistent_*with_ttl create modes";
    return {};
  }
  if (ttl.count() <= 0) return "a TTL node needs a ttl of at least 1 ms";
  if (ttl > max_node_ttl)
    return "ttl " + std::to_string(ttl.count()) + " ms exceeds ZooKeeper's maximum of " +
           std::to_string(max_node_ttl.count()) + " ms";
  return {};
}

/// An ACL_vector whose strings stay owned by this object.
class c_acl {
 public:
  explicit c_acl(acl entries) : source_(std::move(entries)) {
    entries_.reserve(source_.size());
    for (auto& e : source_)
      entries_.push_back(ACL{static_cast<int32_t>(e.perms), Id{e.scheme.data(), e.id.data()}});
    vector_ = ACL_vector{static_cast<int32_t>(entries_.size()), entries_.data()};
  }
  c_acl(const c_acl&) = delete;
  c_acl& operator=(const c_acl&) = delete;
  c_acl(c_acl&&) = delete;
  ACL_vector* get() { return &vector_; }

 private:
  acl source_;
  std::vector<ACL> entries_;
  ACL_vector vector_{};
};

}  // namespace zkcoord::detail
