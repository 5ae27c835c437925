// SPDX-License-Identifier: Apache-2.0
#include "try_it/worker_events.hpp"

#include <charconv>
#include <string>

namespace zkcoord::cli::try_it {
namespace {

using boost::json::object;

// The number right after `after ` in `line` ("our token 4294967329 < ...").
std::optional<std::int64_t> token_after(std::string_view line, std::string_view after) {
  const auto at = line.find(after);
  if (at == std::string_view::npos) return std::nullopt;
  auto rest = line.substr(at + after.size());
  if (!rest.starts_with(' ')) return std::nullopt;
  rest.remove_prefix(1);
  return parse_token(rest.substr(0, rest.find_first_not_of("0123456789")));
}

object event(const char* type, char worker) {
  return object{{"type", type}, {"worker", std::string(1, worker)}};
}

void put_token(object& e, const char* name, std::int64_t token) {
  e[name] = std::to_string(token);
}

const char* write_kind(protection mode) {
  switch (mode) {
    case protection::lock:
      return "unconditional";
    case protection::fenced:
      return "fenced";
    case protection::conditional:
      return "conditional";
  }
  return "?";
}

// The seat a line names right after its first word ("checked C14: free").
std::string seat_in(std::string_view line) {
  const auto space = line.find(' ');
  if (space == std::string_view::npos) return {};
  auto rest = line.substr(space + 1);
  return std::string(rest.substr(0, rest.find_first_of(" :")));
}

write_fact write_of(char worker, bool accepted) {
  write_fact w;
  w.worker = worker;
  w.accepted = accepted;
  return w;
}

// `held`: the writer's token, shown also where the write does not carry it (fencing off).
object write_event(char worker, std::string_view line, const write_fact& w, protection mode,
                   std::optional<std::int64_t> held) {
  auto e = event("write", worker);
  e["seat"] = seat_in(line);
  e["kind"] = write_kind(mode);
  e["accepted"] = w.accepted;
  if (const auto token = w.token ? w.token : held) put_token(e, "token", *token);
  if (w.fence) put_token(e, "fence", *w.fence);
  if (w.overwrote) e["overwrote"] = *w.overwrote;
  return e;
}

}  // namespace

std::optional<std::int64_t> parse_token(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const auto* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value, 10);
  if (ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

std::optional<object> read_worker_line(char worker, std::string_view line, run_facts& facts) {
  const protection mode = facts.params.mode;
  if (line.starts_with("ready")) {
    auto e = event("ready", worker);
    if (const auto at = line.find("timeout_ms="); at != std::string_view::npos)
      e["timeout_ms"] = std::stoll(std::string(line.substr(at + 11)));
    return e;
  }
  if (line.starts_with("holds the lock")) {
    const auto token = token_after(line, "fencing token");
    if (!token) return std::nullopt;
    (worker == 'A' ? facts.token_a : facts.token_b) = *token;
    auto e = event("granted", worker);
    put_token(e, "token", *token);
    return e;
  }
  if (line.starts_with("checked")) {
    auto e = event("checked", worker);
    e["seat"] = seat_in(line);
    e["free"] = line.ends_with("free");
    return e;
  }
  if (line.starts_with("sold-out")) return event("sold_out", worker);
  const auto own_token = worker == 'A' ? facts.token_a : facts.token_b;
  if (line.starts_with("wrote") || line.starts_with("overwrote")) {
    auto w = write_of(worker, true);
    if (mode == protection::fenced) w.token = own_token;
    if (line.starts_with("overwrote")) {
      // "overwrote C14: it was sold to fan_b, now fan_a  <-- ..."
      const auto at = line.find("sold to ");
      if (at != std::string_view::npos) {
        auto rest = line.substr(at + 8);
        w.overwrote = std::string(rest.substr(0, rest.find(',')));
      }
    }
    facts.writes.push_back(w);
    return write_event(worker, line, w, mode, own_token);
  }
  if (line.starts_with("rejected")) {
    // "rejected C14: our token 4294967329 < its fence 4294967332, stale write updated 0 rows"
    auto w = write_of(worker, false);
    w.token = token_after(line, "our token");
    w.fence = token_after(line, "its fence");
    facts.writes.push_back(w);
    return write_event(worker, line, w, mode, own_token);
  }
  if (line.starts_with("lost-race")) {
    auto w = write_of(worker, false);
    facts.writes.push_back(w);
    return write_event(worker, line, w, mode, own_token);
  }
  if (line.starts_with("confirmed")) {
    auto e = event("confirmed", worker);
    e["seat"] = seat_in(line);
    return e;
  }
  if (line.starts_with("releasing")) return event("released", worker);
  if (line.starts_with("release-failed")) {
    auto e = event("release_failed", worker);
    const auto colon = line.find(": ");
    e["message"] =
        colon == std::string_view::npos ? std::string(line) : std::string(line.substr(colon + 2));
    return e;
  }
  return std::nullopt;
}

}  // namespace zkcoord::cli::try_it
