// SPDX-License-Identifier: Apache-2.0
// The ServiceInstance JSON codec against the bytes Curator 5.4.0's default JsonInstanceSerializer
// writes (checked against the Debian jars), round trips, and data that must give an error.
#include <zkcoord/service_instance.hpp>

#define BOOST_TEST_MODULE service_instance_json
#include <boost/test/unit_test.hpp>

#include <limits>
#include <string>
#include <vector>

using namespace zkcoord;

namespace {

// What Curator 5.4.0 with Jackson 2.14 writes for the instance below.
const std::string curator_sample =
    R"({"name":"svc","id":"id-1","address":"10.0.0.1","port":8080,"sslPort":null,)"
    R"("payload":"hello","registrationTimeUTC":1700000000000,"serviceType":"DYNAMIC",)"
    R"("uriSpec":{"parts":[{"value":"scheme","variable":true},)"
    R"({"value":"://foo.com:","variable":false},{"value":"port","variable":true}]}})";

service_instance sample_instance() {
  service_instance i;
  i.name = "svc";
  i.id = "id-1";
  i.address = "10.0.0.1";
  i.port = 8080;
  i.payload_json = json_string_payload("hello");
  i.registration_time_utc = 1700000000000;
  i.uri = parse_uri_spec("{scheme}://foo.com:{port}");
  return i;
}

std::string encoded(const service_instance& i, service_json_options options = {}) {
  const auto result = encode_service_instance(i, options);
  BOOST_REQUIRE_MESSAGE(result, result.message());
  return *result.value;
}

service_instance decoded(const std::string& json) {
  const auto result = decode_service_instance(json);
  BOOST_REQUIRE_MESSAGE(result, json << ": " << result.message());
  return *result.value;
}

struct refusal {
  std::string json;
  service_json_errc expected;
  std::string field;  // the detail names it
};

}  // namespace

BOOST_AUTO_TEST_CASE(encodes_the_bytes_curator_writes) {
  BOOST_TEST(encoded(sample_instance()) == curator_sample);
}

BOOST_AUTO_TEST_CASE(decodes_what_curator_writes_field_by_field) {
  const service_instance i = decoded(curator_sample);
  BOOST_TEST(i.name == "svc");
  BOOST_TEST(i.id == "id-1");
  BOOST_TEST(i.address.value() == "10.0.0.1");
  BOOST_TEST(i.port.value() == 8080);
  BOOST_TEST(!i.ssl_port.has_value());
  BOOST_TEST(i.payload_json.value() == "\"hello\"");
  BOOST_TEST(string_payload(i).value() == "hello");
  BOOST_TEST(i.registration_time_utc == 1700000000000);
  BOOST_TEST((i.type == service_type::dynamic));
  BOOST_REQUIRE(i.uri.has_value());
  BOOST_REQUIRE(i.uri->parts.size() == 3u);
  BOOST_TEST(i.uri->parts[1].value == "://foo.com:");
  BOOST_TEST(!i.uri->parts[1].variable);
  BOOST_TEST(i.uri->parts[2].value == "port");
  BOOST_TEST(i.uri->parts[2].variable);
  BOOST_TEST(i.enabled);
  BOOST_TEST((i == sample_instance()));
}

// All nulls: a bare instance as the builder leaves it without address, port or payload.
BOOST_AUTO_TEST_CASE(writes_nulls_as_null_and_the_enum_name) {
  service_instance i;
  i.name = "n";
  i.id = "x";
  i.type = service_type::dynamic_sequential;
  BOOST_TEST(encoded(i) ==
             R"({"name":"n","id":"x","address":null,"port":null,"sslPort":null,"payload":null,)"
             R"("registrationTimeUTC":0,"serviceType":"DYNAMIC_SEQUENTIAL","uriSpec":null})");
}

BOOST_AUTO_TEST_CASE(object_payload_keeps_its_java_class_and_key_order) {
  service_instance i = sample_instance();
  i.payload_json = R"({ "@class" : "java.util.HashMap", "z":"1", "a":[1,2.5,true,null] })";
  const std::string json = encoded(i);
  BOOST_TEST(
      json.find(R"("payload":{"@class":"java.util.HashMap","z":"1","a":[1,2.5,true,null]},)") !=
          std::string::npos,
      json);
  BOOST_TEST(decoded(json).payload_json.value() ==
             R"({"@class":"java.util.HashMap","z":"1","a":[1,2.5,true,null]})");
}

// Jackson escapes '"', '\', \b \t \n \f \r, other control characters as upper-case \u00XX, and
// writes '/', DEL and non-ASCII as they are.
BOOST_AUTO_TEST_CASE(strings_are_escaped_as_jackson_escapes_them) {
  service_instance i;
  i.name = std::string("q\"b\\s/\b\t\n\f\r\x01\x1f\x7f\xc3\xa9\xf0\x9f\x98\x80", 20);
  i.id = std::string("nul\0", 4);
  const std::string json = encoded(i);
  BOOST_TEST(json.rfind(R"({"name":"q\"b\\s/\b\t\n\f\r\u0001\u001F)"
                        "\x7f\xc3\xa9\xf0\x9f\x98\x80"
                        R"(","id":"nul\u0000",)",
                        0) == 0,
             json);
  BOOST_TEST((decoded(json) == i));
}

BOOST_AUTO_TEST_CASE(round_trips) {
  std::vector<service_instance> instances;
  instances.push_back(sample_instance());
  for (auto type : {service_type::dynamic, service_type::static_, service_type::permanent,
                    service_type::dynamic_sequential}) {
    service_instance i = sample_instance();
    i.type = type;
    i.port = std::numeric_limits<std::int32_t>::min();
    i.ssl_port = std::numeric_limits<std::int32_t>::max();
    i.registration_time_utc = std::numeric_limits<std::int64_t>::min();
    i.uri = uri_spec{};
    instances.push_back(i);
  }
  service_instance big = sample_instance();
  big.registration_time_utc = std::numeric_limits<std::int64_t>::max();
  big.payload_json = "-42";
  big.address.reset();
  big.uri.reset();
  instances.push_back(big);
  service_instance doubles = sample_instance();
  // Numbers stay as written: Java reads 1.0 as a Double and 1 as an Integer.
  doubles.payload_json = "[1.5,1.0,-0.25,1e+300,1E400,12345678901234567890,9999999990000000000000]";
  instances.push_back(doubles);
  for (const auto& i : instances) {
    const std::string json = encoded(i);
    BOOST_TEST_CONTEXT(json) {
      BOOST_TEST((decoded(json) == i));
      BOOST_TEST(encoded(decoded(json)) == json);  // one canonical form
    }
  }
}

BOOST_AUTO_TEST_CASE(enabled_is_written_only_when_asked_and_read_when_present) {
  service_instance i = sample_instance();
  BOOST_TEST(encoded(i).find("enabled") == std::string::npos);
  BOOST_TEST(encoded(i, {.write_enabled = true}) ==
             curator_sample.substr(0, curator_sample.size() - 1) + R"(,"enabled":true})");
  i.enabled = false;
  BOOST_TEST(!decoded(encoded(i, {.write_enabled = true})).enabled);
}

BOOST_AUTO_TEST_CASE(unknown_keys_are_ignored_and_missing_keys_take_curators_defaults) {
  const service_instance i =
      decoded(R"({"future":{"x":[1,{"y":null}]},"id":"only","name":"s","other":7})");
  BOOST_TEST(i.id == "only");
  BOOST_TEST(i.name == "s");
  BOOST_TEST(!i.address.has_value());
  BOOST_TEST(!i.port.has_value());
  BOOST_TEST(!i.payload_json.has_value());
  BOOST_TEST(i.registration_time_utc == 0);
  BOOST_TEST((i.type == service_type::dynamic));
  BOOST_TEST(!i.uri.has_value());
  BOOST_TEST(i.enabled);
  BOOST_TEST(decoded("{}").name.empty());
  // Integral doubles are integers to Jackson too; a repeated key: the last wins, as in Jackson.
  BOOST_TEST(decoded(R"({"port":8080.0})").port.value() == 8080);
  BOOST_TEST(decoded(R"({"port":1,"port":2})").port.value() == 2);
  BOOST_TEST(decoded(R"({"uriSpec":{}})").uri.value().parts.empty());
}

// The payload is kept as its writer wrote it, without whitespace: the last of repeated keys,
// whatever escapes spell the key, numbers exactly.
BOOST_AUTO_TEST_CASE(payload_text_is_kept_as_written) {
  BOOST_TEST(decoded(R"({"payload" : [ 9999999990000000000000 , 1.0, 1e400, "a b\u0041" ] })")
                 .payload_json.value() == R"([9999999990000000000000,1.0,1e400,"a b\u0041"])");
  BOOST_TEST(decoded(R"({"payload":1,"x":{"payload":2},"payload":"last"})").payload_json.value() ==
             "\"last\"");
  BOOST_TEST(decoded(R"({"pay\u006coad":{"k":[]}})").payload_json.value() == R"({"k":[]})");
  BOOST_TEST(!decoded(R"({"payload":null})").payload_json.has_value());
  BOOST_TEST(string_payload(decoded(R"({"payload":"\u00e9\n"})")).value() == "\xc3\xa9\n");
}

BOOST_AUTO_TEST_CASE(malformed_data_is_a_typed_error_naming_the_field) {
  using e = service_json_errc;
  const std::vector<refusal> cases = {
      {"", e::not_json, ""},
      {"{", e::not_json, ""},
      {"{\"name\":\"a\"} trailing", e::not_json, ""},
      {"{\"name\":\"\xff\"}", e::not_json, ""},
      {"{'name':'a'}", e::not_json, ""},
      {std::string("\x00\x01", 2), e::not_json, ""},
      {"[]", e::not_an_object, ""},
      {"\"svc\"", e::not_an_object, ""},
      {"null", e::not_an_object, ""},
      {R"({"name":null})", e::wrong_type, "name"},
      {R"({"id":5})", e::wrong_type, "id"},
      {R"({"address":["a"]})", e::wrong_type, "address"},
      {R"({"port":"8080"})", e::wrong_type, "port"},
      {R"({"port":80.5})", e::wrong_type, "port"},
      {R"({"port":true})", e::wrong_type, "port"},
      {R"({"port":2147483648})", e::out_of_range, "port"},
      {R"({"sslPort":-2147483649})", e::out_of_range, "sslPort"},
      {R"({"port":18446744073709551615})", e::out_of_range, "port"},
      {R"({"port":100000000000000000000000})", e::out_of_range, "port"},
      {R"({"port":1e400})", e::out_of_range, "port"},
      {R"({"registrationTimeUTC":9223372036854775808})", e::out_of_range, "registrationTimeUTC"},
      {R"({"registrationTimeUTC":9.3e18})", e::out_of_range, "registrationTimeUTC"},
      {R"({"registrationTimeUTC":null})", e::wrong_type, "registrationTimeUTC"},
      {R"({"serviceType":"dynamic"})", e::unknown_service_type, "serviceType"},
      {R"({"serviceType":1})", e::wrong_type, "serviceType"},
      {R"({"uriSpec":"{scheme}://x"})", e::wrong_type, "uriSpec"},
      {R"({"uriSpec":{"parts":{}}})", e::wrong_type, "uriSpec.parts"},
      {R"({"uriSpec":{"parts":[{"value":"a"},7]}})", e::wrong_type, "uriSpec.parts[1]"},
      {R"({"uriSpec":{"parts":[{"value":1}]}})", e::wrong_type, "value"},
      {R"({"uriSpec":{"parts":[{"variable":"yes"}]}})", e::wrong_type, "uriSpec.parts[0].variable"},
      {R"({"enabled":"true"})", e::wrong_type, "enabled"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(c.json) {
      const auto result = decode_service_instance(c.json);
      BOOST_TEST(!result);
      BOOST_TEST(result.error == make_error_code(c.expected), result.message());
      BOOST_TEST(result.detail.find(c.field) != std::string::npos, result.detail);
      BOOST_TEST((result.error == condition::permanent));
    }
  }
}

// Every prefix of a valid document is an error, and none crashes.
BOOST_AUTO_TEST_CASE(every_truncation_is_an_error) {
  for (std::size_t n = 0; n < curator_sample.size(); ++n) {
    const auto result = decode_service_instance(curator_sample.substr(0, n));
    BOOST_TEST(!result, "prefix of " << n << " bytes decoded");
    BOOST_TEST(result.error == make_error_code(service_json_errc::not_json), n);
  }
}

BOOST_AUTO_TEST_CASE(nesting_is_limited_without_recursion_limits_of_the_stack) {
  const auto nested = [](std::size_t depth) {
    return R"({"payload":)" + std::string(depth, '[') + std::string(depth, ']') + "}";
  };
  // The document is level 1, so the payload may nest max_depth - 1 arrays.
  BOOST_TEST(decode_service_instance(nested(service_json_max_depth - 1)).value.has_value());
  const auto deep = decode_service_instance(nested(service_json_max_depth));
  BOOST_TEST(deep.error == make_error_code(service_json_errc::too_deep));
  const auto very_deep = decode_service_instance(nested(1'000'000));
  BOOST_TEST(very_deep.error == make_error_code(service_json_errc::too_deep));
  const auto unbalanced = decode_service_instance(std::string(1'000'000, '{'));
  BOOST_TEST(!unbalanced);
}

BOOST_AUTO_TEST_CASE(encoding_refuses_what_java_could_not_read) {
  service_instance bad_name = sample_instance();
  bad_name.name = "\xc3";  // a truncated sequence
  auto result = encode_service_instance(bad_name);
  BOOST_TEST(result.error == make_error_code(service_json_errc::invalid_utf8));
  BOOST_TEST(result.detail == "name");
  for (const char* surrogate_or_overlong : {"\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80"}) {
    service_instance i = sample_instance();
    i.address = surrogate_or_overlong;
    BOOST_TEST(encode_service_instance(i).error ==
               make_error_code(service_json_errc::invalid_utf8));
  }
  for (const char* payload : {"", "{", "1 2", "hello", "[1,]", "\"\xff\""}) {
    BOOST_TEST_CONTEXT(payload) {
      service_instance i = sample_instance();
      i.payload_json = payload;
      BOOST_TEST(encode_service_instance(i).error ==
                 make_error_code(service_json_errc::bad_payload));
    }
  }
  service_instance spaced = sample_instance();
  spaced.payload_json = " 42 ";
  BOOST_TEST(encoded(spaced).find(R"("payload":42,)") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(uri_spec_templates_split_as_curator_splits_them) {
  const auto parts = [](std::string_view t) {
    std::string out;
    const auto spec = parse_uri_spec(t);
    for (const auto& p : spec.value().parts) out += "[" + p.value + (p.variable ? ",v]" : "]");
    return out;
  };
  BOOST_TEST(parts("{scheme}://foo.com:{port}") == "[scheme,v][://foo.com:][port,v]");
  BOOST_TEST(parts("{}") == "");
  BOOST_TEST(parts("") == "");
  BOOST_TEST(parts("a{}b") == "[a][b]");
  for (const char* refused : {"abc{x", "a}b", "{a{b}}", "x{{y}"})
    BOOST_TEST(!parse_uri_spec(refused).has_value(), refused);
}

BOOST_AUTO_TEST_CASE(errors_have_messages_and_are_permanent) {
  for (int v = 1; v <= static_cast<int>(service_json_errc::invalid_utf8); ++v) {
    const error_code ec = make_error_code(static_cast<service_json_errc>(v));
    BOOST_TEST(ec.message().find("unknown") == std::string::npos, ec.message());
    BOOST_TEST((ec == condition::permanent));
    BOOST_TEST(!(ec == condition::connection_loss));
  }
  BOOST_TEST(std::string(service_json_category().name()) == "zkcoord.service_json");
}
