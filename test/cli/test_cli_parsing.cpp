// The tool's argument parsing, durations and output formats, without a server.
#include "command_line.hpp"

#include "duration.hpp"
#include "exit_code.hpp"
#include "json.hpp"
#include "locks_format.hpp"

#define BOOST_TEST_MODULE cli_parsing
#include <boost/test/unit_test.hpp>

#include <string>
#include <vector>

using namespace zkcoord;
using namespace zkcoord::cli;
using namespace std::chrono_literals;

namespace {

command_line parse(std::vector<std::string> args, const char* env = nullptr) {
  return parse_command_line(args, env);
}

int usage_status_of(std::vector<std::string> args, const char* env = nullptr) {
  try {
    parse(std::move(args), env);
  } catch (const cli_error& e) {
    return e.status();
  }
  return 0;
}

}  // namespace

BOOST_AUTO_TEST_CASE(durations) {
  BOOST_TEST(parse_duration("500ms").value() == 500ms);
  BOOST_TEST(parse_duration("5s").value() == 5s);
  BOOST_TEST(parse_duration("2m").value() == 2min);
  BOOST_TEST(parse_duration("1h").value() == 1h);
  BOOST_TEST(parse_duration("0s").value() == 0ms);
  for (const char* bad : {"", "5", "s", "-1s", "1.5s", "5 s", "5sec", "99999999999999999999h"})
    BOOST_TEST(!parse_duration(bad).has_value(), bad);
  BOOST_TEST(format_duration(250ms) == "250ms");
  BOOST_TEST(format_duration(1500ms) == "1.5s");
  BOOST_TEST(format_duration(200s) == "3m20s");
}

BOOST_AUTO_TEST_CASE(lock_command_line) {
  auto cl = parse({"--connect", "zk1:2181,zk2:2181/app", "lock", "--timeout=5s", "/jobs/a",
                   "--grace", "1s", "--", "backup", "--fast"});
  BOOST_TEST((cl.command == command_kind::lock));
  BOOST_TEST(cl.global.connect == "zk1:2181,zk2:2181/app");
  BOOST_TEST(cl.path == "/jobs/a");
  BOOST_TEST(cl.timeout.value() == 5s);
  BOOST_TEST(cl.grace == 1s);
  BOOST_TEST((cl.child_argv == std::vector<std::string>{"backup", "--fast"}));
}

BOOST_AUTO_TEST_CASE(the_command_starts_at_the_first_word_after_path) {
  auto cl = parse({"lock", "/a", "sh", "-c", "x", "--timeout", "1s"});
  BOOST_TEST((cl.child_argv == std::vector<std::string>{"sh", "-c", "x", "--timeout", "1s"}));
  BOOST_TEST(!cl.timeout.has_value());
}

BOOST_AUTO_TEST_CASE(connect_string_sources) {
  BOOST_TEST(parse({"locks"}).global.connect == "127.0.0.1:2181");
  BOOST_TEST(parse({"locks"}, "zk:1").global.connect == "zk:1");
  BOOST_TEST(parse({"locks", "--connect", "zk:2"}, "zk:1").global.connect == "zk:2");
  // The server command does not use it, so a stale variable does not stop it.
  BOOST_TEST((parse({"server"}, "bad connect").command == command_kind::server));
}

BOOST_AUTO_TEST_CASE(options_of_every_command) {
  auto cl = parse({"-v", "--auth", "user:pa:ss", "--session-timeout", "2s", "--connect-timeout",
                   "750ms", "locks", "--json"});
  BOOST_TEST(cl.global.verbose);
  BOOST_TEST(cl.global.digest->first == "user");
  BOOST_TEST(cl.global.digest->second == "pa:ss");
  BOOST_TEST(cl.global.session_timeout == 2s);
  BOOST_TEST(cl.global.connect_timeout.value() == 750ms);
  BOOST_TEST(cl.json);
  BOOST_TEST(cl.path == "/");
}

BOOST_AUTO_TEST_CASE(help) {
  BOOST_TEST(parse({"--help"}).help);
  BOOST_TEST((parse({"help", "lock"}).command == command_kind::lock));
  auto cl = parse({"lock", "--help"});  // no PATH needed for help
  BOOST_TEST(cl.help);
}

BOOST_AUTO_TEST_CASE(usage_errors) {
  const std::vector<std::vector<std::string>> bad{
      {},
      {"frob"},
      {"lock"},
      {"lock", "/a"},
      {"lock", "/a", "--"},
      {"lock", "a", "true"},
      {"lock", "/a/", "true"},
      {"lock", "--timeout", "5", "/a", "true"},
      {"lock", "/a", "--timeout"},
      {"--auth", "user", "locks"},
      {"--auth", ":pw", "locks"},
      {"--connect", "nohostport", "locks"},
      {"locks", "--grace", "1s"},
      {"server", "--connect", "zk:1"},
      {"locks", "/a", "/b"},
      {"--json=yes", "locks"},
      {"--session-timeout", "0s", "locks"},
  };
  for (const auto& args : bad) {
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    BOOST_TEST(usage_status_of(args) == exit_code::usage, joined);
  }
  BOOST_TEST(usage_status_of({"locks"}, "not a connect string") == exit_code::usage);
}

BOOST_AUTO_TEST_CASE(json_strings) {
  BOOST_TEST(json_string("a\"b\\c\n") == "\"a\\\"b\\\\c\\n\"");
  BOOST_TEST(json_string(std::string("\x01", 1)) == "\"\\u0001\"");
  BOOST_TEST(json_string("caf\xC3\xA9") == "\"caf\xC3\xA9\"");
  BOOST_TEST(json_string("bad\xFF") == "\"bad\xEF\xBF\xBD\"");
}

BOOST_AUTO_TEST_CASE(locks_output) {
  contender holder{.node = "_c_x-lock-0000000001",
                   .token = fencing_token(4294967302),
                   .session_id = 0x1000abc,
                   .host = "web1",
                   .pid = 42,
                   .app_id = "backup",
                   .age = 1500ms,
                   .holder = true};
  contender waiter{.node = "other",
                   .token = fencing_token(7),
                   .session_id = 0,
                   .host = "",
                   .pid = 0,
                   .app_id = "10.0.0.1",
                   .age = {},
                   .holder = false};
  std::vector<lock_listing> locks{{"/jobs/a", {holder, waiter}}};
  BOOST_TEST(format_locks_json(locks) ==
             "{\"locks\":[{\"path\":\"/jobs/a\",\"contenders\":["
             "{\"role\":\"holder\",\"node\":\"_c_x-lock-0000000001\",\"token\":4294967302,"
             "\"session\":\"0x1000abc\",\"host\":\"web1\",\"pid\":42,\"app_id\":\"backup\","
             "\"age_ms\":1500},"
             "{\"role\":\"waiter\",\"node\":\"other\",\"token\":7,\"session\":\"0x0\","
             "\"host\":\"\",\"pid\":0,\"app_id\":\"10.0.0.1\",\"age_ms\":0}]}]}\n");
  auto text = format_locks_text(locks);
  BOOST_TEST(text.find("LOCK /jobs/a\n") == 0u);
  BOOST_TEST(text.find("holder 4294967302 0x1000abc") != std::string::npos, text);
  BOOST_TEST(text.find("waiter 7") != std::string::npos, text);
}
