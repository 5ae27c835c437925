// SPDX-License-Identifier: Apache-2.0
#include "try_it/lesson_verdict.hpp"

#include <algorithm>

namespace zkcoord::cli::try_it {
namespace {

std::string token_text(std::optional<std::int64_t> token) {
  return token ? std::to_string(*token) : std::string("?");
}

char other(char worker) {
  return worker == 'A' ? 'B' : 'A';
}

std::optional<std::int64_t> token_of(const run_facts& f, char worker) {
  return worker == 'A' ? f.token_a : f.token_b;
}

std::string oversold_text(const run_facts& f, int unhonoured) {
  std::string text = "Two fans paid for one seat: ";
  // The last write that took the seat: the late one.
  const auto late = std::find_if(f.writes.rbegin(), f.writes.rend(),
                                 [](const write_fact& w) { return w.accepted; });
  const char w = late != f.writes.rend() ? late->worker : 'A';
  const auto mine = token_of(f, w), theirs = token_of(f, other(w));
  const std::string who = std::string(1, w), them = std::string(1, other(w));
  if (late != f.writes.rend() && late->token && theirs && *theirs > *late->token) {
    text += who + "'s late write carried token " + std::to_string(*late->token) +
            " after the database had seen " + std::to_string(*theirs) +
            ", and the fence check let it through.";
  } else if (late != f.writes.rend() && late->overwrote) {
    text += who + "'s late write";
    if (mine) text += " (token " + std::to_string(*mine) + ")";
    text += " overwrote " + them + "'s sale";
    if (theirs) text += " (token " + std::to_string(*theirs) + ")";
    text += f.a_lease_expired && w == 'A'
                ? ": A's lease had run out while it was frozen, and nothing checked."
                : ": nothing checked.";
  } else {
    text += std::to_string(unhonoured + 1) + " confirmations for one seat.";
  }
  text += " Both got a confirmation; the seat is " +
          (f.seats.empty() || !f.seats.front().holder ? std::string("nobody's")
                                                      : *f.seats.front().holder + "'s") +
          ".";
  return text;
}

}  // namespace

std::string customer_of(char worker) {
  return worker == 'A' ? "fan_a" : "fan_b";
}

const char* to_string(verdict_kind kind) noexcept {
  switch (kind) {
    case verdict_kind::oversold:
      return "oversold";
    case verdict_kind::refused:
      return "refused";
    case verdict_kind::one_sale:
      return "one-sale";
    case verdict_kind::no_sale:
      return "no-sale";
  }
  return "?";
}

verdict judge(const run_facts& f) {
  const auto unhonoured = static_cast<int>(std::count_if(
      f.confirmations.begin(), f.confirmations.end(), [](auto& c) { return !c.honoured; }));
  if (unhonoured > 0) return {verdict_kind::oversold, oversold_text(f, unhonoured)};

  const bool sold = !f.seats.empty() && f.seats.front().holder;
  const auto refused = std::find_if(f.writes.begin(), f.writes.end(), [](const write_fact& w) {
    return !w.accepted && w.token && w.fence && *w.fence > *w.token;
  });
  if (sold && refused != f.writes.end()) {
    const char w = refused->worker;
    return {verdict_kind::refused,
            std::string(1, w) + "'s late write carried token " + token_text(refused->token) +
                " after the database had seen " + token_text(refused->fence) +
                ": refused. One sale, to " + *f.seats.front().holder + "."};
  }
  if (!sold) return {verdict_kind::no_sale, "No sale: C14 is still free."};

  const std::string& holder = *f.seats.front().holder;
  const auto lost = std::find_if(f.writes.begin(), f.writes.end(),
                                 [](const write_fact& w) { return !w.accepted && !w.token; });
  if (lost != f.writes.end()) {
    const char w = lost->worker;
    return {verdict_kind::one_sale, "One sale, to " + holder + ": " + std::string(1, other(w)) +
                                        "'s UPDATE ... WHERE holder IS NULL sold C14, and " +
                                        std::string(1, w) +
                                        "'s late one changed 0 rows. No lock needed."};
  }
  if (f.params.mode != protection::conditional && !f.a_lease_expired)
    return {verdict_kind::one_sale,
            "One sale, to " + holder + ": A's pause (" + std::to_string(f.params.pause_s) +
                " s) did not outlast its lease (" + std::to_string(f.params.lease_s) +
                " s), so A still held the lock when it wrote, and B found C14 sold."};
  return {verdict_kind::one_sale, "One sale, to " + holder + "."};
}

}  // namespace zkcoord::cli::try_it
