// SPDX-License-Identifier: Apache-2.0
#include "seat_booking/seats_db.hpp"

namespace seat_booking {

seats_db::seats_db(const std::filesystem::path& file) : db_(file) {}

void seats_db::create(int seats, int first) {
  db_.exec(
      "CREATE TABLE seats (show_id TEXT NOT NULL, seat TEXT NOT NULL, holder TEXT,"
      "  fence INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (show_id, seat));"
      "CREATE TABLE confirmations (id INTEGER PRIMARY KEY, customer TEXT NOT NULL,"
      "  seat TEXT NOT NULL);");
  auto insert = db_.prepare("INSERT INTO seats (show_id, seat) VALUES (?, ?)");
  for (int i = 0; i < seats; ++i) {
    insert.bind(1, show_id).bind(2, "C" + std::to_string(first + i));
    insert.step();
    insert.reset();
  }
}

std::optional<std::string> seats_db::pick_free_seat(std::mt19937& random) {
  auto query = db_.prepare("SELECT seat FROM seats WHERE show_id = ? AND holder IS NULL");
  query.bind(1, show_id);
  std::vector<std::string> free;
  while (query.step()) free.push_back(*query.column_text(0));
  if (free.empty()) return std::nullopt;
  std::uniform_int_distribution<std::size_t> pick(0, free.size() - 1);
  return free[pick(random)];
}

std::optional<std::string> seats_db::write_unconditional(const std::string& seat,
                                                         const std::string& customer) {
  return examples::with_write_transaction(db_, [&] {
    auto read = db_.prepare("SELECT holder FROM seats WHERE show_id = ? AND seat = ?");
    read.bind(1, show_id).bind(2, seat);
    std::optional<std::string> previous = read.step() ? read.column_text(0) : std::nullopt;
    auto write = db_.prepare("UPDATE seats SET holder = ? WHERE show_id = ? AND seat = ?");
    write.bind(1, customer).bind(2, show_id).bind(3, seat);
    write.step();
    return previous;
  });
}

bool seats_db::write_fenced(const std::string& seat, const std::string& customer,
                            std::int64_t token, fence_check check) {
  auto write =
      db_.prepare(check == fence_check::correct ? "UPDATE seats SET holder = ?, fence = ?"
                                                  " WHERE show_id = ? AND seat = ? AND fence < ?"
                                                : "UPDATE seats SET holder = ?, fence = ?"
                                                  " WHERE show_id = ? AND seat = ? AND fence <> ?");
  write.bind(1, customer).bind(2, token).bind(3, show_id).bind(4, seat).bind(5, token);
  write.step();
  return db_.changes() == 1;
}

bool seats_db::write_if_free(const std::string& seat, const std::string& customer) {
  auto write =
      db_.prepare("UPDATE seats SET holder = ? WHERE show_id = ? AND seat = ? AND holder IS NULL");
  write.bind(1, customer).bind(2, show_id).bind(3, seat);
  write.step();
  return db_.changes() == 1;
}

std::int64_t seats_db::fence_of(const std::string& seat) {
  auto read = db_.prepare("SELECT fence FROM seats WHERE show_id = ? AND seat = ?");
  read.bind(1, show_id).bind(2, seat);
  return read.step() ? read.column_int64(0) : 0;
}

void seats_db::confirm(const std::string& customer, const std::string& seat) {
  auto insert = db_.prepare("INSERT INTO confirmations (customer, seat) VALUES (?, ?)");
  insert.bind(1, customer).bind(2, seat);
  insert.step();
}

std::vector<seat_row> seats_db::seats() {
  auto query = db_.prepare("SELECT seat, holder, fence FROM seats WHERE show_id = ? ORDER BY seat");
  query.bind(1, show_id);
  std::vector<seat_row> rows;
  while (query.step()) {
    rows.push_back({*query.column_text(0), query.column_text(1), query.column_int64(2)});
  }
  return rows;
}

std::vector<confirmation_row> seats_db::confirmations() {
  auto query = db_.prepare(
      "SELECT c.customer, c.seat, s.holder IS NOT NULL AND s.holder = c.customer"
      " FROM confirmations c LEFT JOIN seats s ON s.show_id = ? AND s.seat = c.seat"
      " ORDER BY c.id");
  query.bind(1, show_id);
  std::vector<confirmation_row> rows;
  while (query.step()) {
    rows.push_back({*query.column_text(0), *query.column_text(1), query.column_int64(2) != 0});
  }
  return rows;
}

booking_outcome seats_db::outcome() {
  booking_outcome result;
  for (const auto& seat : seats()) {
    ++result.seats;
    if (seat.holder) ++result.sold;
  }
  for (const auto& confirmation : confirmations()) {
    ++result.confirmations;
    if (!confirmation.honoured) ++result.oversold;
  }
  return result;
}

}  // namespace seat_booking
