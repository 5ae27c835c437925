// SPDX-License-Identifier: Apache-2.0
// Fuzz target: Curator's ServiceInstance JSON (lib/membership/service_instance_json).
//
// Properties: decoding takes any bytes and gives an instance or a service_json error with a
// detail, never an exception; whatever decodes survives being written back (decode(encode(x)) ==
// x) and the encoding is canonical (encoding the decoded encoding gives the same bytes); an
// instance built from any fields encodes unless a string is not UTF-8 or the payload not JSON,
// and then round-trips.
#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "fuzz_targets.hpp"

#include <zkcoord/service_instance.hpp>

namespace zkcoord::fuzz {
namespace {

void check_round_trip(const service_instance& instance, const std::string& encoding) {
  const auto again = decode_service_instance(encoding);
  ZKCOORD_FUZZ_CHECK(again.value.has_value(), "our encoding " + printable(encoding) +
                                                  " does not decode: " + again.message());
  ZKCOORD_FUZZ_CHECK(*again.value == instance, "decode(encode(x)) != x for " + printable(encoding));
  const auto canonical = encode_service_instance(*again.value, {.write_enabled = true});
  ZKCOORD_FUZZ_CHECK(canonical.value == encoding,
                     "encoding not canonical: " + printable(encoding) + " then " +
                         printable(canonical.value.value_or("<error>")));
}

void check_decode(std::string_view data) {
  const auto decoded = decode_service_instance(data);
  if (!decoded) {
    ZKCOORD_FUZZ_CHECK(
        decoded.error.category() == service_json_category() && !decoded.detail.empty(),
        "decode of " + printable(data) + " failed without a service_json error");
    return;
  }
  const auto encoded = encode_service_instance(*decoded.value, {.write_enabled = true});
  ZKCOORD_FUZZ_CHECK(encoded.value.has_value(),
                     "decoded " + printable(data) + " does not encode: " + encoded.message());
  check_round_trip(*decoded.value, *encoded.value);
}

}  // namespace

void fuzz_service_instance(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  check_decode(input.rest());
  service_instance instance;
  const auto flags = input.take_integer<std::uint8_t>();
  instance.type = static_cast<service_type>(flags % 4);
  instance.enabled = (flags & 4) != 0;
  if (flags & 8) instance.port = input.take_integer<std::int32_t>();
  if (flags & 16) instance.ssl_port = input.take_integer<std::int32_t>();
  instance.registration_time_utc = input.take_integer<std::int64_t>();
  instance.name = input.take_until('\0');
  instance.id = input.take_until('\0');
  if (flags & 32) instance.address = input.take_until('\0');
  if (flags & 64) instance.uri = parse_uri_spec(input.take_until('\0'));
  if (flags & 128) instance.payload_json = std::string(input.rest());
  const auto encoded = encode_service_instance(instance, {.write_enabled = true});
  if (!encoded) {
    const bool explained = encoded.error == make_error_code(service_json_errc::invalid_utf8) ||
                           (encoded.error == make_error_code(service_json_errc::bad_payload) &&
                            instance.payload_json.has_value());
    ZKCOORD_FUZZ_CHECK(explained, "encode refused: " + encoded.message());
    return;
  }
  // The payload comes back canonical: compare with it in place of the raw text.
  service_instance expected = instance;
  const auto decoded = decode_service_instance(*encoded.value);
  if (decoded && instance.payload_json) expected.payload_json = decoded.value->payload_json;
  check_round_trip(expected, *encoded.value);
}

}  // namespace zkcoord::fuzz
