// SPDX-License-Identifier: Apache-2.0
// Request and result types of the session's operations, including the ops of a multi.
#pragma once

#include <zkcoord/error.hpp>
#include <zkcoord/types.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace zkcoord {

/// Any version (ZooKeeper's -1): skip the version check.
inline constexpr std::int32_t any_version = -1;

/// The longest ttl a TTL node may have (ZooKeeper's EphemeralType.TTL.maxValue(), 2^40 - 1 ms).
inline constexpr std::chrono::milliseconds max_node_ttl{0xFFFFFFFFFFLL};

struct create_options {
  create_mode mode = create_mode::persistent;
  /// Empty: the session's default ACL (session_options::default_acl).
  acl acl_entries = {};
  /// For the *_with_ttl modes only: in [1 ms, max_node_ttl] (else errc::bad_argument, nothing
  /// sent). Must stay 0 for the other modes.
  std::chrono::milliseconds ttl{0};
};

struct created_node {
  std::string path;  ///< the actual path (with the sequence suffix for sequential nodes)
  node_stat stat;    ///< its Stat: stat.czxid is what fencing tokens are made of
};

struct node_data {
  std::string data;
  node_stat stat;
};

struct child_list {
  std::vector<std::string> names;  ///< child names, unsorted, without the parent path
  node_stat stat;                  ///< the parent's Stat
};

namespace op {
struct check {
  std::string path;
  std::int32_t version = any_version;
};
struct create {
  std::string path;
  std::string data;
  create_options options = {};
};
struct set {
  std::string path;
  std::string data;
  std::int32_t version = any_version;
};
struct remove {
  std::string path;
  std::int32_t version = any_version;
};
}  // namespace op

/// One operation of a multi (ZooKeeper transaction).
using multi_op = std::variant<op::check, op::create, op::set, op::remove>;

/// The result of one operation of a multi.
struct op_result {
  /// This op's own outcome; ops rolled back because another failed carry
  /// zk_errc::runtime_inconsistency.
  error_code ec;
  std::string path;  ///< op::create: the created path
  node_stat stat;    ///< op::create / op::set: the node's new Stat
};

}  // namespace zkcoord
