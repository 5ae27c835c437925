// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: how the recipes' templates reach the session's shared state. Not part
// of the API; may change in any release.
#pragma once

#include <zkcoord/session.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace zkcoord::detail {

struct session_access {
  static const std::shared_ptr<session_impl>& impl(const session& s) noexcept { return s.impl_; }
  // The session's operations on its shared state alone, for recipes that keep no session
  // object (the barriers).
  static void create(const std::shared_ptr<session_impl>& impl, completion<created_node> h,
                     std::string path, std::string data, create_options options) {
    session::detail_start_create(impl, std::move(h), std::move(path), std::move(data),
                                 std::move(options));
  }
  static void exists(const std::shared_ptr<session_impl>& impl,
                     completion<std::optional<node_stat>> h, std::string path, watch* w) {
    session::detail_start_exists(impl, std::move(h), std::move(path), w);
  }
  static void children(const std::shared_ptr<session_impl>& impl, completion<child_list> h,
                       std::string path) {
    session::detail_start_children(impl, std::move(h), std::move(path), nullptr);
  }
  static void remove(const std::shared_ptr<session_impl>& impl, void_completion h, std::string path,
                     std::int32_t version) {
    session::detail_start_remove(impl, std::move(h), std::move(path), version);
  }
};

}  // namespace zkcoord::detail
