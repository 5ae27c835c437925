// SPDX-License-Identifier: Apache-2.0
// A SQLite database connection and prepared statements as RAII handles over the C API, with
// the settings every example uses for a file shared by several processes (WAL, busy_timeout).
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

struct sqlite3;
struct sqlite3_stmt;

namespace examples {

class sqlite_statement {
 public:
  sqlite_statement(sqlite3* db, std::string_view sql);
  ~sqlite_statement();
  sqlite_statement(sqlite_statement&& other) noexcept;
  sqlite_statement& operator=(sqlite_statement&&) = delete;
  sqlite_statement(const sqlite_statement&) = delete;
  sqlite_statement& operator=(const sqlite_statement&) = delete;

  /// Binds parameters 1..n in order; returns *this for chaining.
  sqlite_statement& bind(int index, std::int64_t value);
  sqlite_statement& bind(int index, std::string_view value);
  sqlite_statement& bind_null(int index);

  /// Steps once: true when a row is available, false when done. Throws on errors.
  bool step();
  /// Resets the statement and clears its bindings so it can run again.
  void reset();

  std::int64_t column_int64(int column) const;
  /// nullopt for SQL NULL.
  std::optional<std::string> column_text(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

class sqlite_db {
 public:
  /// Opens (creating if needed) the file in WAL mode with the given busy timeout: writers from
  /// other processes are waited for instead of failing with SQLITE_BUSY. Throws
  /// std::runtime_error.
  explicit sqlite_db(const std::filesystem::path& file,
                     std::chrono::milliseconds busy_timeout = std::chrono::seconds(10));
  ~sqlite_db();
  sqlite_db(const sqlite_db&) = delete;
  sqlite_db& operator=(const sqlite_db&) = delete;

  /// Runs one or more statements without results.
  void exec(std::string_view sql);
  sqlite_statement prepare(std::string_view sql);
  /// The single integer the query returns (its first column of its first row).
  std::int64_t query_int64(std::string_view sql);
  /// Rows changed by the last INSERT/UPDATE/DELETE on this connection.
  int changes() const;

 private:
  sqlite3* db_ = nullptr;
};

/// Runs `body` inside BEGIN IMMEDIATE ... COMMIT (ROLLBACK when it throws).
template <class Body>
auto with_write_transaction(sqlite_db& db, Body&& body) {
  db.exec("BEGIN IMMEDIATE");
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      db.exec("COMMIT");
    } else {
      auto result = body();
      db.exec("COMMIT");
      return result;
    }
  } catch (...) {
    db.exec("ROLLBACK");
    throw;
  }
}

}  // namespace examples
