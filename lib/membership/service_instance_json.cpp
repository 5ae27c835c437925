// SPDX-License-Identifier: Apache-2.0
// encode_service_instance / decode_service_instance: Curator 5.4's ServiceInstance JSON.
#include <zkcoord/service_instance.hpp>

#include "membership/service_json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cmath>
#include <limits>

namespace zkcoord {
namespace {

namespace json = boost::json;

template <class T>
service_json_result<T> failure(service_json_errc e, std::string detail) {
  return {std::nullopt, make_error_code(e), std::move(detail)};
}

// ---------------------------------------------------------------- parsing

const char* kind_name(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "a boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return "a number";
    case json::kind::string:
      return "a string";
    case json::kind::array:
      return "an array";
    case json::kind::object:
      return "an object";
  }
  return "a value";
}

// A decode failure on one field; thrown inside the decoder only, caught at its boundary.
struct field_error {
  service_json_errc code;
  std::string detail;
};

[[noreturn]] void wrong_type(std::string_view field, const char* expected, const json::value& v) {
  throw field_error{service_json_errc::wrong_type,
                    std::string(field) + ": expected " + expected + ", found " + kind_name(v)};
}

std::string number_text(const json::value& v) {
  return json::serialize(v);
}

// An integer in [low, high]. Integral doubles are accepted as Jackson accepts them (8080.0).
std::int64_t integer_in(std::string_view field, const json::value& v, std::int64_t low,
                        std::int64_t high, const char* expected) {
  const auto out_of_range = [&]() -> field_error {
    return {service_json_errc::out_of_range,
            std::string(field) + ": " + number_text(v) + " does not fit " + expected};
  };
  if (v.is_int64()) {
    if (v.get_int64() < low || v.get_int64() > high) throw out_of_range();
    return v.get_int64();
  }
  if (v.is_uint64()) throw out_of_range();  // past INT64_MAX
  if (v.is_double()) {
    const double d = v.get_double();
    if (!std::isfinite(d) || d < -9223372036854775808.0 || d >= 9223372036854775808.0)
      throw out_of_range();
    if (d != std::trunc(d)) wrong_type(field, "an integer", v);
    const auto i = static_cast<std::int64_t>(d);
    if (i < low || i > high) throw out_of_range();
    return i;
  }
  wrong_type(field, "an integer", v);
}

const json::value* member(const json::object& o, std::string_view key) {
  return o.if_contains(key);
}
bool absent_or_null(const json::value* v) {
  return v == nullptr || v->is_null();
}

std::string string_field(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  if (v == nullptr) return {};
  if (!v->is_string()) wrong_type(key, "a string", *v);
  return std::string(v->get_string());
}

std::optional<std::string> nullable_string(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  if (absent_or_null(v)) return std::nullopt;
  if (!v->is_string()) wrong_type(key, "a string or null", *v);
  return std::string(v->get_string());
}

std::optional<std::int32_t> nullable_int32(const json::object& o, std::string_view key) {
  const json::value* v = member(o, key);
  if (absent_or_null(v)) return std::nullopt;
  return static_cast<std::int32_t>(integer_in(key, *v, std::numeric_limits<std::int32_t>::min(),
                                              std::numeric_limits<std::int32_t>::max(),
                                              "a Java Integer"));
}

service_type type_field(const json::object& o) {
  const json::value* v = member(o, "serviceType");
  if (v == nullptr) return service_type::dynamic;
  if (!v->is_string()) wrong_type("serviceType", "a string", *v);
  for (auto t : {service_type::dynamic, service_type::static_, service_type::permanent,
                 service_type::dynamic_sequential}) {
    if (v->get_string() == to_string(t)) return t;
  }
  throw field_error{service_json_errc::unknown_service_type,
                    "serviceType: " + number_text(*v) + " is not a Curator ServiceType"};
}

uri_spec_part part_of(const json::value& v, const std::string& field) {
  if (!v.is_object()) wrong_type(field, "an object", v);
  uri_spec_part part;
  part.value = string_field(v.get_object(), "value");
  if (const json::value* variable = member(v.get_object(), "variable")) {
    if (!variable->is_bool()) wrong_type(field + ".variable", "a boolean", *variable);
    part.variable = variable->get_bool();
  }
  return part;
}

std::optional<uri_spec> uri_field(const json::object& o) {
  const json::value* v = member(o, "uriSpec");
  if (absent_or_null(v)) return std::nullopt;
  if (!v->is_object()) wrong_type("uriSpec", "an object or null", *v);
  uri_spec spec;
  const json::value* parts = member(v->get_object(), "parts");
  if (absent_or_null(parts)) return spec;
  if (!parts->is_array()) wrong_type("uriSpec.parts", "an array", *parts);
  for (std::size_t i = 0; i < parts->get_array().size(); ++i) {
    spec.parts.push_back(
        part_of(parts->get_array()[i], "uriSpec.parts[" + std::to_string(i) + "]"));
  }
  return spec;
}

// The payload as its writer wrote it (numbers exactly), found in the document's text.
std::optional<std::string> payload_field(const json::object& o, std::string_view document) {
  if (absent_or_null(member(o, "payload"))) return std::nullopt;
  const auto text = detail::member_text(document, "payload");
  if (!text) throw field_error{service_json_errc::not_json, "payload: not found in the text"};
  return detail::without_whitespace(*text);
}

service_instance instance_of(const json::object& o, std::string_view document) {
  service_instance instance;
  instance.name = string_field(o, "name");
  instance.id = string_field(o, "id");
  instance.address = nullable_string(o, "address");
  instance.port = nullable_int32(o, "port");
  instance.ssl_port = nullable_int32(o, "sslPort");
  instance.payload_json = payload_field(o, document);
  if (const json::value* time = member(o, "registrationTimeUTC")) {
    instance.registration_time_utc =
        integer_in("registrationTimeUTC", *time, std::numeric_limits<std::int64_t>::min(),
                   std::numeric_limits<std::int64_t>::max(), "a Java long");
  }
  instance.type = type_field(o);
  instance.uri = uri_field(o);
  if (const json::value* enabled = member(o, "enabled")) {
    if (!enabled->is_bool()) wrong_type("enabled", "a boolean", *enabled);
    instance.enabled = enabled->get_bool();
  }
  return instance;
}

// One JSON value, nested at most `max_depth`; the error when it is not.
std::optional<json::value> parse_json(std::string_view text, std::size_t max_depth,
                                      service_json_errc& why, std::string& detail) {
  json::parse_options options;
  options.max_depth = max_depth;
  json::error_code ec;
  json::value value = json::parse(json::string_view(text.data(), text.size()), ec, {}, options);
  if (!ec) return value;
  why = ec == json::error::too_deep ? service_json_errc::too_deep : service_json_errc::not_json;
  detail = ec.message();
  return std::nullopt;
}

// ---------------------------------------------------------------- writing

void append_key(std::string& out, const char* key) {
  out += '"';
  out += key;
  out += "\":";
}

void append_nullable_string(std::string& out, const std::optional<std::string>& s) {
  if (s) {
    detail::append_json_string(out, *s);
  } else {
    out += "null";
  }
}

void append_nullable_int(std::string& out, const std::optional<std::int32_t>& i) {
  out += i ? std::to_string(*i) : "null";
}

void append_uri(std::string& out, const std::optional<uri_spec>& uri) {
  if (!uri) {
    out += "null";
    return;
  }
  out += "{\"parts\":[";
  for (std::size_t i = 0; i < uri->parts.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"value\":";
    detail::append_json_string(out, uri->parts[i].value);
    out += ",\"variable\":";
    out += uri->parts[i].variable ? "true" : "false";
    out += '}';
  }
  out += "]}";
}

// The first string field that Java could not read back, or nullptr.
const char* invalid_utf8_field(const service_instance& instance) {
  if (!detail::is_valid_utf8(instance.name)) return "name";
  if (!detail::is_valid_utf8(instance.id)) return "id";
  if (instance.address && !detail::is_valid_utf8(*instance.address)) return "address";
  if (instance.uri) {
    for (const auto& part : instance.uri->parts) {
      if (!detail::is_valid_utf8(part.value)) return "uriSpec.parts";
    }
  }
  return nullptr;
}

}  // namespace

service_json_result<std::string> encode_service_instance(const service_instance& instance,
                                                         service_json_options options) {
  if (const char* field = invalid_utf8_field(instance))
    return failure<std::string>(service_json_errc::invalid_utf8, field);
  std::string payload = "null";
  if (instance.payload_json) {
    service_json_errc why{};
    std::string detail;
    // The payload sits one level inside the document.
    const auto value = parse_json(*instance.payload_json, service_json_max_depth - 1, why, detail);
    if (!value) return failure<std::string>(service_json_errc::bad_payload, "payload: " + detail);
    payload = detail::without_whitespace(*instance.payload_json);
  }
  std::string out = "{";
  append_key(out, "name");
  detail::append_json_string(out, instance.name);
  out += ',';
  append_key(out, "id");
  detail::append_json_string(out, instance.id);
  out += ',';
  append_key(out, "address");
  append_nullable_string(out, instance.address);
  out += ',';
  append_key(out, "port");
  append_nullable_int(out, instance.port);
  out += ',';
  append_key(out, "sslPort");
  append_nullable_int(out, instance.ssl_port);
  out += ',';
  append_key(out, "payload");
  out += payload;
  out += ',';
  append_key(out, "registrationTimeUTC");
  out += std::to_string(instance.registration_time_utc);
  out += ',';
  append_key(out, "serviceType");
  out += '"';
  out += to_string(instance.type);
  out += "\",";
  append_key(out, "uriSpec");
  append_uri(out, instance.uri);
  if (options.write_enabled) {
    out += ',';
    append_key(out, "enabled");
    out += instance.enabled ? "true" : "false";
  }
  out += '}';
  return {std::move(out), {}, {}};
}

service_json_result<service_instance> decode_service_instance(std::string_view json_text) {
  service_json_errc why{};
  std::string detail;
  const auto document = parse_json(json_text, service_json_max_depth, why, detail);
  if (!document) return failure<service_instance>(why, detail);
  if (!document->is_object())
    return failure<service_instance>(service_json_errc::not_an_object,
                                     std::string("found ") + kind_name(*document));
  try {
    return {instance_of(document->get_object(), json_text), {}, {}};
  } catch (const field_error& e) {
    return failure<service_instance>(e.code, e.detail);
  }
}

std::string json_string_payload(std::string_view text) {
  std::string out;
  detail::append_json_string(out, text);
  return out;
}

std::optional<std::string> string_payload(const service_instance& instance) {
  if (!instance.payload_json) return std::nullopt;
  service_json_errc why{};
  std::string detail;
  const auto value = parse_json(*instance.payload_json, service_json_max_depth, why, detail);
  if (!value || !value->is_string()) return std::nullopt;
  return std::string(value->get_string());
}

}  // namespace zkcoord
