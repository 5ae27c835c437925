// SPDX-License-Identifier: Apache-2.0
// The tool's argument parsing, durations and output formats, without a server.
#include "command_line.hpp"

#include "chroot_check.hpp"
#include "duration.hpp"
#include "exit_code.hpp"
#include "json.hpp"
#include "leader_format.hpp"
#include "locks_format.hpp"
#include "terminal_text.hpp"
#include "watch_command.hpp"
#include "zookeeper_errors.hpp"

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

// ---- refused before connecting: what the C client, the server or the environment cannot take

namespace {

std::string usage_message_of(std::vector<std::string> args) {
  try {
    parse(std::move(args));
  } catch (const cli_error& e) {
    return e.status() == exit_code::usage ? e.what()
                                          : "not a usage error: " + std::string(e.what());
  }
  return "accepted";
}

std::string nested_path(std::size_t depth) {
  std::string path;
  for (std::size_t i = 0; i < depth; ++i) path += "/d";
  return path;
}

}  // namespace

BOOST_AUTO_TEST_CASE(durations_are_bounded_by_what_the_c_client_and_the_lock_can_use) {
  // From 2^30 ms the C client's int arithmetic overflows and the session never connects.
  BOOST_TEST(usage_message_of({"--session-timeout", "100000h", "locks"}) ==
             "--session-timeout 100000h is too long (at most 24h)");
  BOOST_TEST(parse({"--session-timeout", "24h", "locks"}).global.session_timeout == 24h);
  BOOST_TEST(usage_message_of({"--session-timeout", "1441m", "locks"}) ==
             "--session-timeout 1441m is too long (at most 24h)");
  BOOST_TEST(usage_message_of({"--connect-timeout", "0s", "locks"}) ==
             "--connect-timeout must be greater than 0");
  BOOST_TEST(usage_message_of({"--connect-timeout", "25h", "locks"}) ==
             "--connect-timeout 25h is too long (at most 24h)");
  BOOST_TEST(usage_message_of({"lock", "/a", "--timeout", "100000h", "true"}) ==
             "--timeout 100000h is too long (at most 24h)");
  BOOST_TEST(parse({"lock", "/a", "--timeout", "0s", "true"}).timeout.value() == 0ms);
  BOOST_TEST(usage_message_of({"lock", "/a", "--grace", "61m", "true"}) ==
             "--grace 61m is too long (at most 1h)");
  BOOST_TEST(parse({"lock", "/a", "--grace", "1h", "true"}).grace == 1h);
}

BOOST_AUTO_TEST_CASE(double_dash_before_the_command_word_is_a_usage_error) {
  // It would otherwise end our options there and run "--" as COMMAND.
  // The list of commands grows; what it starts with and that it names them does not change.
  const std::string message =
      usage_message_of({"--connect", "zk:1", "--", "lock", "/b", "--", "echo"});
  BOOST_TEST(message.rfind("'--' before the command word (lock, locks, elect, leader, ", 0) == 0u,
             message);
  BOOST_TEST(message.find("register, members, server)") != std::string::npos, message);
  BOOST_TEST((parse({"--connect", "zk:1", "lock", "/b", "--", "echo"}).child_argv ==
              std::vector<std::string>{"echo"}));
}

BOOST_AUTO_TEST_CASE(lock_paths_are_bounded_in_length_and_depth) {
  std::string longest = "/" + std::string(1023, 'x');
  BOOST_TEST(parse({"lock", longest, "true"}).path == longest);
  BOOST_TEST(usage_message_of({"lock", longest + "x", "true"}) ==
             "lock: path is 1025 bytes long; at most 1024 are allowed");
  BOOST_TEST(usage_message_of({"lock", "/" + std::string(131'000, 'x'), "true"}) ==
             "lock: path is 131001 bytes long; at most 1024 are allowed");
  BOOST_TEST(parse({"lock", nested_path(32), "true"}).path == nested_path(32));
  BOOST_TEST(usage_message_of({"lock", nested_path(33), "true"}) ==
             "lock: path is 33 levels deep; at most 32 are allowed");
  BOOST_TEST(usage_message_of({"lock", nested_path(4000), "true"}) ==
             "lock: path is 8000 bytes long; at most 1024 are allowed");
  // `locks` creates nothing: any valid path may be listed.
  BOOST_TEST(parse({"locks", nested_path(40)}).path == nested_path(40));
}

BOOST_AUTO_TEST_CASE(the_servers_own_tree_is_not_a_lock_path) {
  const std::string refused =
      "lock: /zookeeper is the server's own tree (quotas, configuration); choose another path";
  BOOST_TEST(usage_message_of({"lock", "/zookeeper", "true"}) == refused);
  BOOST_TEST(usage_message_of({"lock", "/zookeeper/x", "true"}) == refused);
  BOOST_TEST(usage_message_of({"--connect", "zk:1/zookeeper", "lock", "/x", "true"}) == refused);
  BOOST_TEST(usage_message_of({"--connect", "zk:1/zookeeper/quota", "lock", "/", "true"}) ==
             refused);
  BOOST_TEST(parse({"lock", "/zookeeperx", "true"}).path == "/zookeeperx");
  BOOST_TEST(parse({"--connect", "zk:1/app", "lock", "/zookeeper", "true"}).path == "/zookeeper");
  BOOST_TEST(parse({"locks", "/zookeeper"}).path == "/zookeeper");
}

BOOST_AUTO_TEST_CASE(control_bytes_are_escaped_for_the_terminal) {
  BOOST_TEST(escape_control_bytes("/a\x1b[31mred\a") == "/a\\x1b[31mred\\x07");
  BOOST_TEST(escape_control_bytes("two\nlines\r") == "two\\x0alines\\x0d");
  BOOST_TEST(escape_control_bytes(std::string("nul\0del\x7f", 8)) == "nul\\x00del\\x7f");
  // C1 controls (here CSI, U+009B) and bytes that are not UTF-8 are escaped byte by byte.
  BOOST_TEST(escape_control_bytes("c1\xc2\x9b"
                                  "2J") == "c1\\xc2\\x9b2J");
  BOOST_TEST(escape_control_bytes("bad\xff\xc3") == "bad\\xff\\xc3");
  BOOST_TEST(escape_control_bytes("/jobs/\xc3\xbc"
                                  "ber \xe2\x82\xac \xf0\x9f\x94\x92 a\\b") ==
             "/jobs/\xc3\xbc"
             "ber \xe2\x82\xac \xf0\x9f\x94\x92 a\\b");
}

BOOST_AUTO_TEST_CASE(a_missing_chroot_is_a_configuration_error) {
  auto missing = chroot_error({}, std::nullopt, "zk:1,zk:2/app/x");
  BOOST_REQUIRE(missing.has_value());
  BOOST_TEST(missing->status() == exit_code::bad_config);
  BOOST_TEST(std::string(missing->what()).find("the chroot /app/x of --connect does not exist") ==
             0u);
  BOOST_TEST(!chroot_error({}, node_stat{}, "zk:1/app").has_value());
  BOOST_TEST(!chroot_error({}, std::nullopt, "zk:1").has_value());  // no chroot, nothing to say
  auto failed = chroot_error(make_error_code(zk_errc::no_auth), std::nullopt, "zk:1/app");
  BOOST_REQUIRE(failed.has_value());
  BOOST_TEST(failed->status() == exit_code::no_permission);
}

BOOST_AUTO_TEST_CASE(an_unresolvable_host_has_its_own_status) {
  auto e = error_for(make_error_code(errc::unknown_host), "cannot connect to nosuchhost:1");
  BOOST_TEST(e.status() == exit_code::unknown_host);
  BOOST_TEST(
      std::string(e.what()) ==
      "cannot connect to nosuchhost:1: no host name of the connect string could be resolved");
}

BOOST_AUTO_TEST_CASE(read_and_write_locks) {
  BOOST_TEST((parse({"lock", "/p", "true"}).side == lock_side::exclusive));
  BOOST_TEST((parse({"lock", "--read", "/p", "true"}).side == lock_side::read));
  BOOST_TEST((parse({"lock", "/p", "--write", "--", "true"}).side == lock_side::write));
  // After PATH, COMMAND's first word starts COMMAND: its --read is its own.
  auto cl = parse({"lock", "/p", "cat", "--read"});
  BOOST_TEST((cl.side == lock_side::exclusive));
  BOOST_TEST((cl.child_argv == std::vector<std::string>{"cat", "--read"}));
  BOOST_TEST(usage_status_of({"lock", "--read", "--write", "/p", "true"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"locks", "--read"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"elect", "--read", "--id", "a", "/p", "true"}) == exit_code::usage);
}

BOOST_AUTO_TEST_CASE(elect_command_line) {
  auto cl = parse({"elect", "/services/billing", "--id", "host-1:8080", "--timeout", "30s", "--",
                   "serve", "--port", "8080"});
  BOOST_TEST((cl.command == command_kind::elect));
  BOOST_TEST(cl.path == "/services/billing");
  BOOST_TEST(cl.participant_id.value() == "host-1:8080");
  BOOST_TEST(cl.timeout.value() == 30s);
  BOOST_TEST((cl.child_argv == std::vector<std::string>{"serve", "--port", "8080"}));
  // Every malformed elect is a usage error before anything connects.
  for (std::vector<std::string> bad : {
           std::vector<std::string>{"elect", "/p", "true"},          // no --id
           {"elect", "--id", "a", "/p"},                             // no COMMAND
           {"elect", "--id", "a", "/p", "--"},                       // nothing after --
           {"elect", "--id", "", "/p", "true"},                      // empty id
           {"elect", "--id", "a/b", "/p", "true"},                   // '/' in the id
           {"elect", "--id", "a\x1b[2J", "/p", "true"},              // control character
           {"elect", "--id", std::string(1025, 'x'), "/p", "true"},  // too long
           {"elect", "--id", "a", "--timeout", "0s", "/p", "true"},  // no try for elect
           {"elect", "--id", "a", "relative", "true"},               // bad path
           {"elect", "--id", "a", "/zookeeper/quota", "true"},       // server's tree
           {"elect", "--id", "a", "--describe", "x", "/p", "true"},  // lock only
       }) {
    BOOST_TEST(usage_status_of(bad) == exit_code::usage, bad[1] << " " << bad.back());
  }
  BOOST_TEST(
      parse({"elect", "--id", std::string(1024, 'x'), "/p", "true"}).participant_id->size() ==
      1024u);
}

BOOST_AUTO_TEST_CASE(leader_command_line) {
  auto cl = parse({"leader", "/services/billing", "--watch", "--json"});
  BOOST_TEST((cl.command == command_kind::leader));
  BOOST_TEST(cl.path == "/services/billing");
  BOOST_TEST(cl.watch);
  BOOST_TEST(cl.json);
  BOOST_TEST(!parse({"leader", "/p"}).watch);
  BOOST_TEST(usage_status_of({"leader"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"leader", "/p", "extra"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"leader", "/p", "--id", "a"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"leader", "/p", "--timeout", "1s"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"lock", "/p", "--watch", "true"}) == exit_code::usage);
}

BOOST_AUTO_TEST_CASE(leader_output) {
  std::vector<participant> none;
  BOOST_TEST(format_leader_text("/e", none) == "no leader of /e (no participant)\n");
  BOOST_TEST(format_leader_json("/e", none) ==
             "{\"path\":\"/e\",\"leader\":null,\"participants\":[]}\n");
  std::vector<participant> two{{.id = "a\x1b",
                                .node = "_c_1-latch-0000000001",
                                .term = fencing_token(0x100000005),
                                .session_id = 0x10,
                                .leader = true},
                               {.id = "b",
                                .node = "_c_2-latch-0000000002",
                                .term = fencing_token(0x100000009),
                                .session_id = 0x11,
                                .leader = false}};
  BOOST_TEST(format_leader_text("/e", two) ==
             "leader a\\x1b (term 4294967301, session 0x10, node _c_1-latch-0000000001); 2 "
             "participants\n");
  BOOST_TEST(format_leader_json("/e", two) ==
             "{\"path\":\"/e\",\"leader\":{\"id\":\"a\\u001b\",\"node\":\"_c_1-latch-0000000001\","
             "\"term\":4294967301,\"session\":\"0x10\"},\"participants\":[{\"id\":\"a\\u001b\","
             "\"node\":\"_c_1-latch-0000000001\",\"term\":4294967301,\"session\":\"0x10\","
             "\"leader\":true},{\"id\":\"b\",\"node\":\"_c_2-latch-0000000002\",\"term\":"
             "4294967305,\"session\":\"0x11\",\"leader\":false}]}\n");
}

BOOST_AUTO_TEST_CASE(wrong_recipe_has_its_own_status) {
  BOOST_TEST(error_for(make_error_code(errc::recipe_mismatch), "x").status() ==
             exit_code::wrong_recipe);
}

// A member id held by another live session frees once that session ends: try again later.
BOOST_AUTO_TEST_CASE(already_registered_is_a_temporary_failure) {
  BOOST_TEST(error_for(make_error_code(errc::already_registered), "x").status() ==
             exit_code::lock_timeout);
}

BOOST_AUTO_TEST_CASE(version_only_without_a_command) {
  BOOST_TEST(parse({"--version"}).version);
  BOOST_TEST(!parse({"--version"}).help);
  BOOST_TEST(usage_status_of({"lock", "/p", "--version", "true"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"--version", "locks"}) == exit_code::usage);
  BOOST_TEST(!parse({"locks"}).version);
}

BOOST_AUTO_TEST_CASE(combined_short_flags_are_each_flag) {
  auto vh = parse({"-vh"});
  BOOST_TEST(vh.global.verbose);
  BOOST_TEST(vh.help);
  auto lock = parse({"lock", "-hv"});
  BOOST_TEST((lock.command == command_kind::lock));
  BOOST_TEST(lock.help);
  BOOST_TEST(lock.global.verbose);
  // Flags that take no value only; an unknown letter names itself.
  BOOST_TEST(usage_message_of({"-vx", "locks"}) == "unknown option '-x' in '-vx'");
  // After PATH the command's own flags are the command's.
  BOOST_TEST(
      (parse({"lock", "/a", "ls", "-la"}).child_argv == std::vector<std::string>{"ls", "-la"}));
}

BOOST_AUTO_TEST_CASE(hold_instead_of_a_command) {
  auto cl = parse({"lock", "/a", "--hold"});
  BOOST_TEST(cl.hold);
  BOOST_TEST(cl.child_argv.empty());
  BOOST_TEST(parse({"lock", "--hold", "--write", "--timeout", "2s", "/a"}).hold);
  BOOST_TEST(parse({"elect", "--id", "me", "/e", "--hold"}).hold);
  BOOST_TEST(parse({"semaphore", "--leases", "2", "/s", "--hold"}).hold);
  BOOST_TEST(usage_message_of({"lock", "/a", "--hold", "true"})
                 .rfind("lock: --hold takes no COMMAND", 0) == 0u);
  BOOST_TEST(usage_status_of({"lock", "/a", "--hold", "--", "true"}) == exit_code::usage);
  BOOST_TEST(usage_status_of({"lock", "/a", "--hold", "--"}) == exit_code::usage);
  BOOST_TEST(usage_message_of({"lock", "/a", "--hold", "--grace", "1s"}) ==
             "lock: --grace goes with COMMAND, not with --hold (nothing runs to be terminated)");
  BOOST_TEST(usage_message_of({"locks", "--hold"}) == "--hold does not apply to 'locks'");
  BOOST_TEST(usage_message_of({"register", "/g", "id", "--hold"}) ==
             "--hold does not apply to 'register'");
  BOOST_TEST(usage_message_of({"lock", "/a"}) == "lock: missing COMMAND after PATH (or --hold)");
}

BOOST_AUTO_TEST_CASE(locks_watch) {
  BOOST_TEST(parse({"locks", "--watch"}).watch);
  BOOST_TEST(parse({"locks", "/a", "--watch", "--json"}).watch);
  BOOST_TEST(usage_status_of({"lock", "/a", "--watch", "true"}) == exit_code::usage);
}

// ---- watch: its command line and its output lines

BOOST_AUTO_TEST_CASE(watch_command_line_and_lines) {
  auto cl = parse({"watch", "/app", "--depth", "2", "--json"});
  BOOST_TEST((cl.command == command_kind::watch));
  BOOST_TEST(cl.path == "/app");
  BOOST_TEST(cl.depth.value() == 2u);
  BOOST_TEST(cl.json);
  BOOST_TEST(!parse({"watch", "/app"}).depth.has_value());
  BOOST_TEST(usage_message_of({"watch", "/app", "--depth", "x"}) ==
             "invalid --depth 'x' (expected a whole number from 0 to 100000)");
  BOOST_TEST(usage_message_of({"watch"}) == "watch: missing PATH");
  BOOST_TEST(usage_message_of({"watch", "/a", "--watch"}) == "--watch does not apply to 'watch'");
  BOOST_TEST(usage_message_of({"members", "/a", "--depth", "1"}) ==
             "--depth does not apply to 'members'");

  node_stat stat;
  stat.czxid = 5;
  stat.mzxid = 7;
  stat.version = 1;
  BOOST_TEST(format_cache_node("/app", cached_node{"v\x1b", stat}, false) ==
             "/app [2 bytes] v\\x1b\n");
  BOOST_TEST(format_cache_node("/app", cached_node{"", stat}, false) == "/app [0 bytes]\n");
  BOOST_TEST(format_cache_event({cache_event_type::updated, "/app/x", std::string(100, 'a'), stat},
                                false) ==
             "updated /app/x [100 bytes] " + std::string(80, 'a') + "...\n");
  BOOST_TEST(format_cache_event({cache_event_type::removed, "/app/x", "gone", stat}, false) ==
             "removed /app/x\n");
  BOOST_TEST(format_cache_event({cache_event_type::suspended, "", "", {}}, false) == "suspended\n");
  BOOST_TEST(format_cache_event({cache_event_type::added, "/a", "d", stat}, true) ==
             "{\"event\":\"added\",\"path\":\"/a\",\"size\":1,\"data\":\"d\",\"czxid\":5,"
             "\"mzxid\":7,\"version\":1}\n");
  BOOST_TEST(format_cache_event({cache_event_type::lost, "", "", {}}, true) ==
             "{\"event\":\"lost\"}\n");
}
