// SPDX-License-Identifier: Apache-2.0
// An independent model of the server's path check, for the fuzz targets: the bytes decoded as
// Java decodes them (jute reads a path with new String(bytes, UTF-8)), then PathUtils's loop
// over UTF-16 code units, written from its Java source rather than from lib/path.cpp.
#pragma once

#include <string_view>

namespace zkcoord::fuzz {

enum class character_ranges {
  /// PathUtils exactly: its comparisons are strict ('c > \u0000 && c < \u001f', ...), so the
  /// range ends U+001F, U+007F, U+009F, U+D800, U+F8FF, U+FFF0, U+FFFF pass the server.
  server,
  /// zkcoord's documented, slightly stricter set: the same ranges with their ends refused.
  zkcoord,
};

/// Whether a ZooKeeper server accepts `path` (`sequential`: checked with "1" appended, as the
/// server does for a sequential create). Malformed UTF-8 decodes to U+FFFD, which is refused.
bool zookeeper_accepts_path(std::string_view path, bool sequential, character_ranges ranges);

}  // namespace zkcoord::fuzz
