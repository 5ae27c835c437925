// SPDX-License-Identifier: Apache-2.0
// The seats database of the seat-booking example: one SQLite file shared by every booking
// process. Each write the modes use is here, next to the others, so they can be compared.
#pragma once

#include "common/sqlite_db.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace seat_booking {

inline constexpr const char* show_id = "sh_88";

struct seat_row {
  std::string seat;
  std::optional<std::string> holder;
  std::int64_t fence = 0;
};

struct confirmation_row {
  std::string customer;
  std::string seat;
  bool honoured = false;  ///< the customer holds the seat at the end
};

/// The end state of a run, as the summary line reports it.
struct booking_outcome {
  int seats = 0;
  int sold = 0;           ///< seats with a holder
  int confirmations = 0;  ///< confirmations sent to customers
  /// Confirmations whose customer does not hold the confirmed seat at the end: tickets sold
  /// beyond the seats (a seat sold twice or more counts once per extra customer).
  int oversold = 0;
};

enum class fence_check { correct, broken_for_testing };

class seats_db {
 public:
  explicit seats_db(const std::filesystem::path& file);

  /// Creates the tables with `seats` free seats C<first>, C<first+1>, ... (orchestrator, once
  /// per run).
  void create(int seats, int first = 10);

  /// "Is it free?": a random free seat, nullopt when sold out.
  std::optional<std::string> pick_free_seat(std::mt19937& random);
  /// naive / lock: write "sold" without a condition. Returns the holder it replaced, if any.
  std::optional<std::string> write_unconditional(const std::string& seat,
                                                 const std::string& customer);
  /// fenced: writes only if the seat's fence is below `token` (and raises the fence to it).
  /// fence_check::broken_for_testing compares with `<>` instead of `<`, a plausible bug that
  /// lets a stale token through: the browser test shows it fails on the verdict it causes.
  bool write_fenced(const std::string& seat, const std::string& customer, std::int64_t token,
                    fence_check check = fence_check::correct);
  /// conditional: writes only if the seat is still free. No lock needed.
  bool write_if_free(const std::string& seat, const std::string& customer);
  std::int64_t fence_of(const std::string& seat);
  /// The confirmation sent to the customer (one row per confirmation).
  void confirm(const std::string& customer, const std::string& seat);

  std::vector<seat_row> seats();
  std::vector<confirmation_row> confirmations();
  booking_outcome outcome();

 private:
  examples::sqlite_db db_;
};

}  // namespace seat_booking
