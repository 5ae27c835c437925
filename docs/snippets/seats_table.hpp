// SPDX-License-Identifier: Apache-2.0
// The storage of the fenced-lock snippet: a real (in-memory) SQLite seats table that remembers,
// per seat, the highest fencing token that wrote it, and refuses writes carrying a lower one.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

class seats_table {
 public:
  seats_table() {
    sqlite3* raw = nullptr;
    const int rc = sqlite3_open(":memory:", &raw);
    db_.reset(raw);
    if (rc != SQLITE_OK) fail("open");
    execute(
        "CREATE TABLE seats(show_id TEXT, seat TEXT, holder TEXT, fence INTEGER NOT NULL,"
        " PRIMARY KEY(show_id, seat))");
  }

  void add_free_seat(const std::string& show_id, const std::string& seat) {
    statement insert(*this, "INSERT INTO seats VALUES(?1, ?2, NULL, 0)");
    insert.bind(1, show_id).bind(2, seat).run();
  }

  /// The fenced write: changes the row only if no holder with a token >= `token` wrote it.
  /// Returns the number of rows changed (0: a newer holder wrote, this writer lost the lock).
  int update_if_fence_below(const std::string& show_id, const std::string& seat,
                            const std::string& holder, std::int64_t token) {
    statement update(*this,
                     "UPDATE seats SET holder = ?3, fence = ?4"
                     " WHERE show_id = ?1 AND seat = ?2 AND fence < ?4");
    update.bind(1, show_id).bind(2, seat).bind(3, holder).bind(4, token).run();
    return sqlite3_changes(db_.get());
  }

  struct seat_row {
    std::string holder;  ///< "" while free
    std::int64_t fence = 0;
  };
  seat_row row(const std::string& show_id, const std::string& seat) {
    statement select(*this, "SELECT holder, fence FROM seats WHERE show_id = ?1 AND seat = ?2");
    select.bind(1, show_id).bind(2, seat);
    if (!select.step()) throw std::runtime_error("no seat " + show_id + "/" + seat);
    return {select.text(0), select.number(1)};
  }

 private:
  struct closer {
    void operator()(sqlite3* db) const { sqlite3_close(db); }
  };

  class statement {
   public:
    statement(seats_table& table, const char* sql) : table_(table) {
      if (sqlite3_prepare_v2(table.db_.get(), sql, -1, &stmt_, nullptr) != SQLITE_OK)
        table.fail(sql);
    }
    ~statement() { sqlite3_finalize(stmt_); }
    statement(const statement&) = delete;
    statement& operator=(const statement&) = delete;

    statement& bind(int index, const std::string& text) {
      sqlite3_bind_text(stmt_, index, text.c_str(), -1, SQLITE_TRANSIENT);
      return *this;
    }
    statement& bind(int index, std::int64_t number) {
      sqlite3_bind_int64(stmt_, index, number);
      return *this;
    }
    /// Steps once; true while a row is available.
    bool step() {
      const int rc = sqlite3_step(stmt_);
      if (rc != SQLITE_ROW && rc != SQLITE_DONE) table_.fail("step");
      return rc == SQLITE_ROW;
    }
    void run() { step(); }
    std::string text(int column) {
      auto* value = sqlite3_column_text(stmt_, column);
      return value ? reinterpret_cast<const char*>(value) : "";
    }
    std::int64_t number(int column) { return sqlite3_column_int64(stmt_, column); }

   private:
    seats_table& table_;
    sqlite3_stmt* stmt_ = nullptr;
  };

  void execute(const char* sql) { statement(*this, sql).run(); }

  [[noreturn]] void fail(const std::string& what) {
    throw std::runtime_error("sqlite: " + what + ": " + sqlite3_errmsg(db_.get()));
  }

  std::unique_ptr<sqlite3, closer> db_;
};
