// SPDX-License-Identifier: Apache-2.0
#include "cache_regen/cache_db.hpp"

namespace cache_regen {

cache_db::cache_db(const std::filesystem::path& file) : db_(file) {}

void cache_db::create() {
  db_.exec(
      "CREATE TABLE cache (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
      "CREATE TABLE regenerations (id INTEGER PRIMARY KEY, key TEXT NOT NULL,"
      "  worker TEXT NOT NULL);");
}

std::optional<std::string> cache_db::get(const std::string& key) {
  auto read = db_.prepare("SELECT value FROM cache WHERE key = ?");
  read.bind(1, key);
  return read.step() ? read.column_text(0) : std::nullopt;
}

void cache_db::put_regenerated(const std::string& key, const std::string& value,
                               const std::string& worker) {
  examples::with_write_transaction(db_, [&] {
    auto put = db_.prepare(
        "INSERT INTO cache (key, value) VALUES (?, ?)"
        " ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    put.bind(1, key).bind(2, value);
    put.step();
    auto log = db_.prepare("INSERT INTO regenerations (key, worker) VALUES (?, ?)");
    log.bind(1, key).bind(2, worker);
    log.step();
  });
}

int cache_db::regenerations(const std::string& key) {
  auto count = db_.prepare("SELECT COUNT(*) FROM regenerations WHERE key = ?");
  count.bind(1, key);
  count.step();
  return static_cast<int>(count.column_int64(0));
}

}  // namespace cache_regen
