// SPDX-License-Identifier: Apache-2.0
// Fuzz target: lock-node data (lib/lock/holder_data).
//
// Properties: decoding takes any bytes; encode -> decode is the identity for every holder,
// whatever bytes its host and app id hold and whatever its session and start time; the
// encoding is one zkCli-readable line of five fields; data in no zkcoord field comes back whole as
// the app id (Curator's, kazoo's data).
#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "fuzz_targets.hpp"

#include "recipe/holder_data.hpp"

#include <algorithm>

namespace zkcoord::fuzz {
namespace {

using detail::decode_holder_data;
using detail::encode_holder_data;
using detail::holder_info;

std::string describe(const holder_info& h) {
  return "{host " + printable(h.host) + ", pid " + std::to_string(h.pid) + ", session " +
         std::to_string(h.session_id) + ", start " + std::to_string(h.process_start) + ", app " +
         printable(h.app_id) + "}";
}

void check_round_trip(const holder_info& holder) {
  const std::string encoded = encode_holder_data(holder);
  const holder_info decoded = decode_holder_data(encoded);
  ZKCOORD_FUZZ_CHECK(decoded == holder, describe(holder) + " encoded as " + printable(encoded) +
                                            " decodes to " + describe(decoded));
  ZKCOORD_FUZZ_CHECK(std::count(encoded.begin(), encoded.end(), ';') == 4 &&
                         std::count(encoded.begin(), encoded.end(), '=') == 5,
                     "encoding is not five fields: " + printable(encoded));
  ZKCOORD_FUZZ_CHECK(std::none_of(encoded.begin(), encoded.end(),
                                  [](unsigned char c) { return c < 0x20 || c == 0x7f; }),
                     "control character in the encoding " + printable(encoded));
}

bool has_zkcoord_field(std::string_view data) {
  for (std::string_view field : {"host=", "pid=", "session=", "start=", "app="}) {
    for (auto at = data.find(field); at != std::string_view::npos; at = data.find(field, at + 1)) {
      if (at == 0 || data[at - 1] == ';') return true;
    }
  }
  return false;
}

void check_decode(std::string_view data) {
  const holder_info decoded = decode_holder_data(data);
  if (!has_zkcoord_field(data)) {
    ZKCOORD_FUZZ_CHECK(
        decoded == (holder_info{.app_id = std::string(data)}),
        "foreign data " + printable(data) + " not returned whole: " + describe(decoded));
  }
  // Whatever was decoded survives being written back.
  check_round_trip(decoded);
}

}  // namespace

void fuzz_holder_data(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  check_decode(input.rest());
  holder_info holder;
  holder.pid = input.take_integer<int>();
  holder.session_id = input.take_integer<std::int64_t>();
  holder.process_start = input.take_integer<std::int64_t>();
  holder.host = input.take_until('\0');
  holder.app_id = std::string(input.rest());
  check_round_trip(holder);
}

}  // namespace zkcoord::fuzz
