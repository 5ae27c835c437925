// SPDX-License-Identifier: Apache-2.0
// A service instance as Apache Curator's x-discovery stores it: the `ServiceInstance` JSON that
// Curator 5.4's default JsonInstanceSerializer writes into the node `base/<name>/<id>`, and the
// codec between it and a C++ struct. Sans-I/O: no session, no server (registration on top of the
// membership recipe is in service_discovery.hpp).
#pragma once

#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace zkcoord {

/// Curator's `ServiceType`, written as its enum name. It decides the node mode in Curator
/// (DYNAMIC: ephemeral; STATIC, PERMANENT: persistent; DYNAMIC_SEQUENTIAL: ephemeral sequential).
enum class service_type { dynamic, static_, permanent, dynamic_sequential };

/// One part of a Curator `UriSpec`: literal text, or the name of a variable ({port}, {scheme}...).
struct uri_spec_part {
  std::string value;
  bool variable = false;
  bool operator==(const uri_spec_part&) const = default;
};

/// Curator's `UriSpec`: JSON {"parts":[{"value":...,"variable":...},...]}.
struct uri_spec {
  std::vector<uri_spec_part> parts;
  bool operator==(const uri_spec&) const = default;
};

/// The parts of a UriSpec template, as Curator's `new UriSpec("{scheme}://host:{port}")` splits
/// it: text inside braces is a variable, the rest literal, empty parts dropped. nullopt where
/// Curator throws: a brace inside a variable, a '}' without '{', a variable not closed.
ZKCOORD_EXPORT std::optional<uri_spec> parse_uri_spec(std::string_view template_text);

/// The fields of Curator's `ServiceInstance`. Optional fields are JSON null when empty.
struct service_instance {
  std::string name;                      ///< the service name (the parent node's name)
  std::string id;                        ///< the instance id (the node's name)
  std::optional<std::string> address;    ///< host name or IP
  std::optional<std::int32_t> port;      ///< Java Integer
  std::optional<std::int32_t> ssl_port;  ///< Java Integer
  /// The payload as JSON text, nullopt for null. Curator writes a String or number payload bare
  /// ("\"hello\"", "42") and an object with its Java class inside:
  /// {"@class":"java.util.HashMap","k":"v"}. Decoding gives it back as its writer wrote it,
  /// numbers and escapes included, without the whitespace between tokens; encoding checks that
  /// it is one JSON value and writes it without that whitespace.
  std::optional<std::string> payload_json;
  std::int64_t registration_time_utc = 0;  ///< milliseconds since the Unix epoch
  service_type type = service_type::dynamic;
  std::optional<zkcoord::uri_spec> uri;  ///< "uriSpec"
  /// Read from "enabled" when present (true when absent, as Curator defaults it). Written only
  /// with service_json_options::write_enabled: Curator's default (compatible) mode omits it,
  /// because readers before CURATOR-275 reject the key.
  bool enabled = true;

  bool operator==(const service_instance&) const = default;
};

/// Why a service instance could not be encoded or decoded (category "zkcoord.service_json";
/// every value is equivalent to condition::permanent).
enum class service_json_errc : int {
  not_json = 1,          ///< not one JSON text: truncated, bad syntax, invalid UTF-8, trailing data
  too_deep,              ///< nested deeper than service_json_max_depth
  not_an_object,         ///< the document (or a uriSpec part) is not a JSON object
  wrong_type,            ///< a field holds the wrong JSON type (the detail names the field)
  out_of_range,          ///< a number does not fit its field (int32 ports, int64 time, finite)
  unknown_service_type,  ///< serviceType is none of DYNAMIC, STATIC, PERMANENT, DYNAMIC_SEQUENTIAL
  bad_payload,           ///< encode: payload_json is not one JSON value
  invalid_utf8,          ///< encode: a string field is not valid UTF-8 (Java could not read it)
};

ZKCOORD_EXPORT const boost::system::error_category& service_json_category() noexcept;
ZKCOORD_EXPORT error_code make_error_code(service_json_errc e) noexcept;

/// The deepest nesting of arrays and objects the codec accepts (the document itself is 1).
inline constexpr std::size_t service_json_max_depth = 64;

/// The outcome of encode or decode: a value, or an error with a detail naming the field.
template <class T>
struct service_json_result {
  std::optional<T> value;
  error_code error;
  std::string detail;  ///< e.g. "port: 4294967296 does not fit a Java Integer"

  explicit operator bool() const noexcept { return value.has_value(); }
  /// The error's message and the detail, for logs: "...: port: ...".
  std::string message() const {
    return detail.empty() ? error.message() : error.message() + ": " + detail;
  }
};

struct service_json_options {
  bool write_enabled = false;  ///< append "enabled" (Curator's JsonInstanceSerializer(cls, false))
};

/// The JSON Curator's JsonInstanceSerializer writes for `instance`, byte for byte: keys name, id,
/// address, port, sslPort, payload, registrationTimeUTC, serviceType, uriSpec in that order,
/// nulls written as null, strings escaped as Jackson escapes them.
ZKCOORD_EXPORT service_json_result<std::string> encode_service_instance(
    const service_instance& instance, service_json_options options = {});

/// Reads a ServiceInstance JSON written by Curator (or by encode_service_instance). Unknown keys
/// are ignored and missing keys take Curator's defaults. Never throws on bad input: any data
/// gives a value or an error.
ZKCOORD_EXPORT service_json_result<service_instance> decode_service_instance(std::string_view json);

/// `text` as a JSON string: the payload_json of a Java String payload.
ZKCOORD_EXPORT std::string json_string_payload(std::string_view text);
/// The text of a String payload (payload_json holding one JSON string); nullopt otherwise.
ZKCOORD_EXPORT std::optional<std::string> string_payload(const service_instance& instance);

const char* to_string(service_type type) noexcept;  ///< "DYNAMIC", "STATIC", ...

}  // namespace zkcoord

namespace boost::system {
template <>
struct is_error_code_enum<zkcoord::service_json_errc> : std::true_type {};
}  // namespace boost::system
