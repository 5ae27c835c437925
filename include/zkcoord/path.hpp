// SPDX-License-Identifier: Apache-2.0
// Validation of ZooKeeper paths and connect strings, before anything is sent.
#pragma once

#include <zkcoord/export.hpp>

#include <string>
#include <string_view>

namespace zkcoord {

/// Why `path` is not a valid ZooKeeper path, or "" when it is. With `sequential`, a trailing
/// '/' is allowed (the server appends the sequence number), as in ZooKeeper's PathUtils.
ZKCOORD_EXPORT std::string path_problem(std::string_view path, bool sequential = false);

/// Why `connect` is not a valid "host:port[,host:port...][/chroot]" string, or "" when it is.
ZKCOORD_EXPORT std::string connect_string_problem(std::string_view connect);

/// "/a/b" for ("/a", "b"); "/b" for ("/", "b").
ZKCOORD_EXPORT std::string join_path(std::string_view parent, std::string_view child);

/// "/a" for "/a/b"; "/" for "/a" and "/".
ZKCOORD_EXPORT std::string parent_path(std::string_view path);

}  // namespace zkcoord
