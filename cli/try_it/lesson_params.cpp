// SPDX-License-Identifier: Apache-2.0
#include "try_it/lesson_params.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

namespace zkcoord::cli::try_it {
namespace {

std::string range_problem(const char* what, int value, int low, int high, const char* unit) {
  if (value >= low && value <= high) return {};
  return std::string(what) + " " + std::to_string(value) + unit + " is out of range (" +
         std::to_string(low) + " to " + std::to_string(high) + unit + ")";
}

// An integer member: absent keeps `out`; anything but a whole number is a problem.
std::string read_int(const boost::json::object& body, const char* name, int& out) {
  const auto* member = body.if_contains(name);
  if (!member) return {};
  if (member->is_int64() && member->as_int64() >= -1000000 && member->as_int64() <= 1000000) {
    out = static_cast<int>(member->as_int64());
    return {};
  }
  if (member->is_uint64() && member->as_uint64() <= 1000000) {
    out = static_cast<int>(member->as_uint64());
    return {};
  }
  if (member->is_double()) {
    const double d = member->as_double();
    if (d == static_cast<double>(static_cast<long long>(d)) && d >= -1e6 && d <= 1e6) {
      out = static_cast<int>(d);
      return {};
    }
  }
  return std::string(name) + " must be a whole number";
}

}  // namespace

const char* to_string(protection p) noexcept {
  switch (p) {
    case protection::lock:
      return "lock";
    case protection::fenced:
      return "fenced";
    case protection::conditional:
      return "conditional";
  }
  return "?";
}

std::optional<protection> parse_protection(std::string_view name) noexcept {
  if (name == "lock") return protection::lock;
  if (name == "fenced") return protection::fenced;
  if (name == "conditional") return protection::conditional;
  return std::nullopt;
}

std::string lesson_params_problem(const lesson_params& p) {
  using L = lesson_limits;
  for (auto problem : {range_problem("lease", p.lease_s, L::min_lease_s, L::max_lease_s, " s"),
                       range_problem("pause", p.pause_s, L::min_pause_s, L::max_pause_s, " s"),
                       range_problem("time scale", p.scale_ms, L::min_scale_ms, L::max_scale_ms,
                                     " ms per lesson second")})
    if (!problem.empty()) return problem;
  const auto real_lease = p.lease().count();
  if (real_lease < L::min_real_lease_ms)
    return "a lease of " + std::to_string(p.lease_s) + " s at " + std::to_string(p.scale_ms) +
           " ms per lesson second is " + std::to_string(real_lease) +
           " ms of real time: too short for a ZooKeeper session (at least " +
           std::to_string(L::min_real_lease_ms) +
           " ms); choose a longer lease or a slower time scale";
  if (real_lease > L::max_real_lease_ms)
    return "a lease of " + std::to_string(p.lease_s) + " s at " + std::to_string(p.scale_ms) +
           " ms per lesson second is " + std::to_string(real_lease / 1000) +
           " s of real time: longer than the " + std::to_string(L::max_real_lease_ms / 1000) +
           " s this page allows; choose a shorter lease or a faster time scale";
  return {};
}

parsed_params parse_lesson_request(std::string_view body) {
  parsed_params out;
  boost::system::error_code ec;
  const auto value = boost::json::parse(body, ec);
  if (ec) {
    out.problem = "the request is not JSON: " + ec.message();
    return out;
  }
  const auto* object = value.if_object();
  if (!object) {
    out.problem = "the request must be a JSON object";
    return out;
  }
  for (const auto& [key, member] : *object) {
    if (key != "lease_s" && key != "pause_s" && key != "mode" && key != "scale_ms") {
      out.problem = "unknown member \"" + std::string(key) + "\"";
      return out;
    }
  }
  for (auto [name, field] :
       {std::pair{"lease_s", &out.params.lease_s}, std::pair{"pause_s", &out.params.pause_s},
        std::pair{"scale_ms", &out.params.scale_ms}}) {
    if (out.problem = read_int(*object, name, *field); !out.problem.empty()) return out;
  }
  if (const auto* mode = object->if_contains("mode")) {
    const auto* text = mode->if_string();
    const auto parsed = text ? parse_protection(std::string_view(*text)) : std::nullopt;
    if (!parsed) {
      out.problem = "mode must be \"lock\", \"fenced\" or \"conditional\"";
      return out;
    }
    out.params.mode = *parsed;
  }
  out.problem = lesson_params_problem(out.params);
  return out;
}

}  // namespace zkcoord::cli::try_it
