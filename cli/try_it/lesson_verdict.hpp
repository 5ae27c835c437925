// SPDX-License-Identifier: Apache-2.0
// The verdict of one run, in the lesson's words, from what really happened: the writes the
// workers reported and the seats database at the end. Never from the mode that was asked
// for: a fence check that lets a stale write through must show as an oversold seat.
#pragma once

#include "seat_booking/seats_db.hpp"
#include "try_it/lesson_params.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::cli::try_it {

/// One database write a worker reported.
struct write_fact {
  char worker = 'A';  ///< 'A' or 'B'
  bool accepted = false;
  std::optional<std::int64_t> token;     ///< the fencing token it carried (fenced writes)
  std::optional<std::int64_t> fence;     ///< the seat's fence that refused it
  std::optional<std::string> overwrote;  ///< the customer whose sale it replaced
};

/// The seats table and the confirmations, as the seat-booking database reads them.
using seat_fact = seat_booking::seat_row;
using confirmation_fact = seat_booking::confirmation_row;

struct run_facts {
  lesson_params params;
  std::optional<std::int64_t> token_a, token_b;  ///< their grants (lock modes)
  bool a_lease_expired = false;    ///< the server deleted A's lock node while A was frozen
  std::vector<write_fact> writes;  ///< in the order they were reported
  std::vector<seat_fact> seats;
  std::vector<confirmation_fact> confirmations;
};

enum class verdict_kind { oversold, refused, one_sale, no_sale };

struct verdict {
  verdict_kind kind = verdict_kind::no_sale;
  std::string text;
};

const char* to_string(verdict_kind kind) noexcept;  ///< "oversold", "refused", "one-sale", ...

verdict judge(const run_facts& facts);

/// The customer worker `worker` books for: 'A' -> "fan_a".
std::string customer_of(char worker);

}  // namespace zkcoord::cli::try_it
