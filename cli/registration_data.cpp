// SPDX-License-Identifier: Apache-2.0
#include "registration_data.hpp"

#include "argument_limits.hpp"
#include "exit_code.hpp"

#include <zkcoord/service_discovery.hpp>
#include <zkcoord/service_instance.hpp>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

namespace zkcoord::cli {
namespace {

bool looks_like_json(const std::string& argument) {
  const auto first = argument.find_first_not_of(" \t\r\n");
  return first != std::string::npos && argument[first] == '{';
}

// Reads at most one byte more than the bound, so a huge file is refused without reading it all.
std::string read_json_file(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw usage_error("cannot read --service-json file '" + file + "': " + std::strerror(errno));
  std::string text(max_member_data_size + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw usage_error("cannot read --service-json file '" + file + "'");
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

void check_size(const std::string& what, std::size_t size) {
  if (size > max_member_data_size)
    throw usage_error(what + " is longer than " + std::to_string(max_member_data_size) + " bytes");
}

// `field` of the instance must be `expected` (PATH's last name, ID), or unset: then it is that.
void match_field(std::string& field, const std::string& expected, const char* json_key,
                 const char* operand) {
  if (field.empty()) field = expected;
  if (field != expected)
    throw usage_error(std::string("--service-json: ") + json_key + " \"" + field + "\" is not " +
                      operand + " \"" + expected + "\" (Curator finds instance ID of service " +
                      "NAME at BASE/NAME/ID)");
}

std::string service_data(const command_line& cl, std::int64_t now_ms) {
  const std::string& argument = *cl.service_json;
  const std::string json = looks_like_json(argument) ? argument : read_json_file(argument);
  check_size("--service-json", json.size());
  auto decoded = decode_service_instance(json);
  if (!decoded) throw usage_error("--service-json: " + decoded.message());
  service_instance instance = std::move(*decoded.value);
  match_field(instance.name, cl.path.substr(cl.path.rfind('/') + 1), "name",
              "PATH's last node name");
  match_field(instance.id, cl.member_id, "id", "ID");
  if (instance.registration_time_utc == 0) instance.registration_time_utc = now_ms;
  if (auto problem = service_registration_problem(instance); !problem.empty())
    throw usage_error("--service-json: " + problem);
  auto encoded = encode_service_instance(instance);
  if (!encoded) throw usage_error("--service-json: " + encoded.message());
  check_size("--service-json (as written)", encoded.value->size());
  return std::move(*encoded.value);
}

}  // namespace

std::string registration_data(const command_line& cl, std::int64_t now_ms) {
  if (cl.service_json) return service_data(cl, now_ms);
  return cl.member_data.value_or("");
}

}  // namespace zkcoord::cli
