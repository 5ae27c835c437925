// SPDX-License-Identifier: Apache-2.0
// `zkcoord register` and `zkcoord members` without a server: their command lines, the data
// `register` writes (--data, --service-json) and how `members` prints a group.
#include "registration_data.hpp"

#include "command_line.hpp"
#include "exit_code.hpp"
#include "members_format.hpp"

#include <zkcoord/service_instance.hpp>

#define BOOST_TEST_MODULE cli_membership_args
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace zkcoord::cli;

namespace {

command_line parse(std::vector<std::string> args) {
  return parse_command_line(args, nullptr);
}

// The message of the usage error `args` must give (64), or "" when parsing succeeds.
std::string usage_message(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const cli_error& e) {
    BOOST_TEST(e.status() == exit_code::usage);
    return e.what();
  }
  return {};
}

std::string data_problem(const command_line& cl) {
  try {
    registration_data(cl, 1700000000000);
  } catch (const cli_error& e) {
    BOOST_TEST(e.status() == exit_code::usage);
    return e.what();
  }
  return {};
}

member_info member(std::string id, std::string data, std::int64_t session = 0x10a, zxid czxid = 5) {
  return {std::move(id), std::move(data), session, czxid, 1764583200123};
}

}  // namespace

BOOST_AUTO_TEST_CASE(register_takes_path_id_then_command_whose_options_stay_its_own) {
  auto cl = parse({"register", "/services/orders", "orders-1", "--data", "host:8080", "--grace",
                   "2s", "sh", "-c", "exec server --data x"});
  BOOST_TEST((cl.command == command_kind::register_member));
  BOOST_TEST(cl.path == "/services/orders");
  BOOST_TEST(cl.member_id == "orders-1");
  BOOST_TEST(cl.member_data.value() == "host:8080");
  BOOST_TEST(cl.grace == std::chrono::seconds(2));
  BOOST_TEST((cl.child_argv == std::vector<std::string>{"sh", "-c", "exec server --data x"}));
  auto dashed = parse({"register", "/g", "id", "--", "--weird-command"});
  BOOST_TEST((dashed.child_argv == std::vector<std::string>{"--weird-command"}));
}

BOOST_AUTO_TEST_CASE(register_refuses_bad_input_before_connecting) {
  BOOST_TEST(usage_message({"register", "/g"}) == "register: missing ID");
  BOOST_TEST(usage_message({"register"}) == "register: missing PATH");
  BOOST_TEST(usage_message({"register", "/g", "id"}) == "register: missing COMMAND after ID");
  BOOST_TEST(usage_message({"register", "/g", "id", "--"}) == "register: missing command after --");
  BOOST_TEST(usage_message({"register", "/g", "a/b", "true"}).find("invalid ID") !=
             std::string::npos);
  BOOST_TEST(usage_message({"register", "/g", "..", "true"}).find("invalid ID") !=
             std::string::npos);
  BOOST_TEST(usage_message({"register", "/g", std::string(256, 'x'), "true"}).find("invalid ID") !=
             std::string::npos);
  BOOST_TEST(usage_message({"register", "g", "id", "true"}).find("must start with") !=
             std::string::npos);
  BOOST_TEST(usage_message({"register", "/zookeeper/g", "id", "true"}).find("/zookeeper") !=
             std::string::npos);
  BOOST_TEST(usage_message({"register", "/g", "id", "--data", std::string(65537, 'd'), "true"}) ==
             "--data is longer than 65536 bytes");
  BOOST_TEST(
      usage_message({"register", "/g", "id", "--data", std::string(65536, 'd'), "true"}).empty());
  BOOST_TEST(usage_message({"register", "/g", "id", "--data", "a", "--service-json", "{}", "true"})
                 .find("exclude each other") != std::string::npos);
  BOOST_TEST(usage_message({"register", "/g", "id", "--bogus", "true"}) ==
             "unknown option '--bogus'");
  BOOST_TEST(usage_message({"register", "/g", "id", "--timeout", "1s", "true"}) ==
             "--timeout does not apply to 'register'");
  BOOST_TEST(usage_message({"members", "/g", "--data", "x"}) ==
             "--data does not apply to 'members'");
  BOOST_TEST(usage_message({"members"}) == "members: missing PATH");
  BOOST_TEST(usage_message({"members", "/g", "/h"}) == "unexpected argument '/h'");
}

BOOST_AUTO_TEST_CASE(members_takes_watch_and_json) {
  auto cl = parse({"members", "/g", "--watch", "--json"});
  BOOST_TEST((cl.command == command_kind::members));
  BOOST_TEST(cl.path == "/g");
  BOOST_TEST(cl.watch);
  BOOST_TEST(cl.json);
}

BOOST_AUTO_TEST_CASE(data_is_the_text_or_the_service_instance_as_curator_writes_it) {
  BOOST_TEST(registration_data(parse({"register", "/g", "id", "true"}), 0) == "");
  BOOST_TEST(registration_data(parse({"register", "/g", "id", "--data", "a b", "true"}), 0) ==
             "a b");
  // Name and id filled from PATH and ID, the time from the clock; whitespace dropped.
  auto cl = parse({"register", "/services/orders", "o-1", "--service-json",
                   R"({ "address": "10.0.0.1", "port": 8080, "payload": "eu" })", "true"});
  const std::string json = registration_data(cl, 1700000000000);
  BOOST_TEST(json ==
             R"({"name":"orders","id":"o-1","address":"10.0.0.1","port":8080,"sslPort":null,)"
             R"("payload":"eu","registrationTimeUTC":1700000000000,"serviceType":"DYNAMIC",)"
             R"("uriSpec":null})");
  // From a file, the same.
  auto file = std::filesystem::temp_directory_path() / "zkcoord-cli-membership-args.json";
  std::ofstream(file) << R"({"name":"orders","id":"o-1","address":"10.0.0.1","port":8080,)"
                         R"("payload":"eu"})";
  auto from_file =
      parse({"register", "/services/orders", "o-1", "--service-json", file.string(), "true"});
  BOOST_TEST(registration_data(from_file, 1700000000000) == json);
  std::filesystem::remove(file);
  BOOST_TEST(data_problem(from_file).find("cannot read --service-json file") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(malformed_or_misplaced_service_json_is_a_usage_error) {
  auto problem = [](std::string json, std::string path = "/s/orders", std::string id = "o-1") {
    return data_problem(parse({"register", path, id, "--service-json", json, "true"}));
  };
  BOOST_TEST(problem(R"({"port": )").find("--service-json: ") == 0u);
  BOOST_TEST(problem(R"({"port": 4294967296})").find("port") != std::string::npos);
  BOOST_TEST(problem(R"({"name": "billing"})").find("name \"billing\" is not") !=
             std::string::npos);
  BOOST_TEST(problem(R"({"id": "o-2"})").find("id \"o-2\" is not ID \"o-1\"") != std::string::npos);
  BOOST_TEST(problem(R"({"serviceType": "STATIC"})").find("--service-json: ") == 0u);
  BOOST_TEST(problem(R"({"serviceType": "STATIC"})") != "");
  BOOST_TEST(problem(R"({"payload": ")" + std::string(70000, 'p') + R"("})")
                 .find("longer than 65536 bytes") != std::string::npos);
  BOOST_TEST(problem(R"({"address": "10.0.0.1"})") == "");
}

BOOST_AUTO_TEST_CASE(members_text_is_a_table_with_escaped_ids_and_data) {
  BOOST_TEST(format_since(1764583200123) == "2025-12-01T10:00:00.123Z");
  BOOST_TEST(format_since(-1) == "1969-12-31T23:59:59.999Z");
  BOOST_TEST(format_members_text("/g", {}) == "no members of /g\n");
  const std::string text =
      format_members_text("/g", {member("a", "x\x1b[31m"), member("bb", "", 0)});
  BOOST_TEST(text ==
             "2 members of /g\n"
             "ID  SESSION  SINCE                     DATA\n"
             "a   0x10a    2025-12-01T10:00:00.123Z  x\\x1b[31m\n"
             "bb  0x0      2025-12-01T10:00:00.123Z\n");
}

BOOST_AUTO_TEST_CASE(watch_lines_name_each_join_leave_and_update) {
  const std::vector<member_info> before{member("a", "1"), member("b", "2"), member("c", "3")};
  const std::vector<member_info> after{member("a", "1"), member("c", "3", 0x10b, 9),
                                       member("d", "4")};
  BOOST_TEST(format_member_changes_text(before, after) ==
             "left b\n"
             "updated c (session 0x10b, since 2025-12-01T10:00:00.123Z): 3\n"
             "joined d (session 0x10a, since 2025-12-01T10:00:00.123Z): 4\n");
  BOOST_TEST(format_member_changes_text(before, before) == "");
  BOOST_TEST(format_member_changes_text(before, {}) == "left a\nleft b\nleft c\n");
}

BOOST_AUTO_TEST_CASE(members_json_is_one_line_per_state) {
  BOOST_TEST(format_members_json("/g", {}) == "{\"path\":\"/g\",\"members\":[]}\n");
  BOOST_TEST(format_members_json("/g", {member("a", "q\"")}) ==
             R"({"path":"/g","members":[{"id":"a","session":"0x10a",)"
             R"("since":"2025-12-01T10:00:00.123Z","since_ms":1764583200123,"czxid":5,)"
             R"("data":"q\""}]})"
             "\n");
}
