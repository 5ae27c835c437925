// SPDX-License-Identifier: Apache-2.0
#include "common/sqlite_db.hpp"

#include <sqlite3.h>

#include <stdexcept>

namespace examples {
namespace {

[[noreturn]] void fail(sqlite3* db, std::string_view what) {
  throw std::runtime_error("sqlite: " + std::string(what) + ": " + sqlite3_errmsg(db));
}

}  // namespace

sqlite_statement::sqlite_statement(sqlite3* db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v2(db, sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr) !=
      SQLITE_OK) {
    fail(db, sql);
  }
}

sqlite_statement::~sqlite_statement() {
  sqlite3_finalize(stmt_);
}

sqlite_statement::sqlite_statement(sqlite_statement&& other) noexcept
    : db_(other.db_), stmt_(other.stmt_) {
  other.stmt_ = nullptr;
}

sqlite_statement& sqlite_statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

sqlite_statement& sqlite_statement::bind(int index, std::string_view value) {
  if (sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                        SQLITE_TRANSIENT) != SQLITE_OK) {
    fail(db_, "bind");
  }
  return *this;
}

sqlite_statement& sqlite_statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) fail(db_, "bind");
  return *this;
}

bool sqlite_statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  fail(db_, sqlite3_sql(stmt_));
}

void sqlite_statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::int64_t sqlite_statement::column_int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

std::optional<std::string> sqlite_statement::column_text(int column) const {
  const unsigned char* text = sqlite3_column_text(stmt_, column);
  if (text == nullptr) return std::nullopt;
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

sqlite_db::sqlite_db(const std::filesystem::path& file, std::chrono::milliseconds busy_timeout) {
  if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) !=
      SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("sqlite: cannot open " + file.string() + ": " + message);
  }
  sqlite3_busy_timeout(db_, static_cast<int>(busy_timeout.count()));
  exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
}

sqlite_db::~sqlite_db() {
  sqlite3_close(db_);
}

void sqlite_db::exec(std::string_view sql) {
  const std::string text(sql);
  char* message = nullptr;
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string error = message ? message : "unknown error";
    sqlite3_free(message);
    throw std::runtime_error("sqlite: " + text + ": " + error);
  }
}

sqlite_statement sqlite_db::prepare(std::string_view sql) {
  return sqlite_statement(db_, sql);
}

std::int64_t sqlite_db::query_int64(std::string_view sql) {
  auto statement = prepare(sql);
  if (!statement.step()) throw std::runtime_error("sqlite: no row: " + std::string(sql));
  return statement.column_int64(0);
}

int sqlite_db::changes() const {
  return sqlite3_changes(db_);
}

}  // namespace examples
