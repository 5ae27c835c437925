// SPDX-License-Identifier: Apache-2.0
// The cache of the cache-regeneration example: one SQLite table of entries shared by every
// process, and a log of every regeneration (how many times the expensive value was computed).
#pragma once

#include "common/sqlite_db.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace cache_regen {

class cache_db {
 public:
  explicit cache_db(const std::filesystem::path& file);

  void create();
  std::optional<std::string> get(const std::string& key);
  /// Stores the fresh value and logs the regeneration, in one transaction.
  void put_regenerated(const std::string& key, const std::string& value, const std::string& worker);
  int regenerations(const std::string& key);

 private:
  examples::sqlite_db db_;
};

}  // namespace cache_regen
