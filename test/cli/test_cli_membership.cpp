// SPDX-License-Identifier: Apache-2.0
// `zkcoord register` and `zkcoord members` run as a user runs them: separate processes against a
// real ZooKeeper, checked by exit status, output and the member nodes left behind.
#include "cli/cli_process.hpp"

#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>

#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli_membership
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <chrono>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::cli_process;
using test::run_cli;
using test::tuple_future;

namespace {

using fixture = test::cli_fixture;
using test::clean_env;
using test::eventually;
using test::global_server;

BOOST_TEST_GLOBAL_FIXTURE(global_server);

// A command that records its member node, says it runs, and runs until told to stop (file
// NAME.stop), then exits 3.
std::vector<std::string> job(const fixture& f, const std::string& name) {
  return {"sh", "-c",
          "echo \"$ZKCOORD_MEMBER_NODE\" > \"$1.node\"; touch \"$1.running\"; "
          "while [ ! -e \"$1.stop\" ]; do sleep 0.02; done; exit 3",
          "sh", f.file(name)};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void stop(const fixture& f, const std::string& name) {
  std::ofstream(f.file(name + ".stop")).put('x');
}

std::optional<node_data> node(fixture& f, const std::string& path) {
  auto [ec, data] = test::get(f.zk.async_get(path, tuple_future));
  if (ec == zk_errc::no_node) return std::nullopt;
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  return data;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(register_command, fixture)

BOOST_AUTO_TEST_CASE(the_node_lives_while_the_command_runs_and_its_status_is_passed_through) {
  const std::string group = root + "/workers";
  cli_process a(
      zkcoord(concat({"register", group, "w-1", "--data", "host-1:8080"}, job(*this, "a"))),
      clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  auto held = node(*this, group + "/w-1");
  BOOST_REQUIRE(held.has_value());
  BOOST_TEST(held->data == "host-1:8080");
  BOOST_TEST(held->stat.ephemeral_owner != 0);
  BOOST_TEST(read("a.node") == group + "/w-1\n");
  stop(*this, "a");
  auto r = a.wait(20s);
  BOOST_TEST(r.status == 3, r.err);  // the command's
  BOOST_TEST(r.err == "");
  BOOST_TEST(!node(*this, group + "/w-1").has_value());  // gone when zkcoord exits, not later
}

BOOST_AUTO_TEST_CASE(a_second_registration_of_the_id_exits_75_and_leaves_the_first_untouched) {
  const std::string group = root + "/dup";
  cli_process a(zkcoord(concat({"register", group, "same", "--data", "first"}, job(*this, "a"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  auto before = node(*this, group + "/same");
  BOOST_REQUIRE(before.has_value());
  auto b = run_cli(zkcoord({"register", group, "same", "--data", "second", "touch", file("ran")}),
                   clean_env);
  BOOST_TEST(b.status == 75, b.err);
  BOOST_TEST(
      b.err.find("another live session is registered under this member id") != std::string::npos,
      b.err);
  BOOST_TEST(!exists("ran"));
  auto after = node(*this, group + "/same");
  BOOST_REQUIRE(after.has_value());
  BOOST_TEST(after->data == "first");
  BOOST_TEST(after->stat.czxid == before->stat.czxid);
  BOOST_TEST(after->stat.ephemeral_owner == before->stat.ephemeral_owner);
  BOOST_TEST(a.running());
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
}

BOOST_AUTO_TEST_CASE(a_deleted_node_is_made_again_and_the_re_registration_is_told) {
  const std::string group = root + "/kept";
  cli_process a(zkcoord(concat({"register", group, "w", "--data", "d"}, job(*this, "a"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  auto first = node(*this, group + "/w");
  BOOST_REQUIRE(first.has_value());
  auto [ec] = test::get(zk.async_remove(group + "/w", -1, tuple_future));
  BOOST_REQUIRE(!ec);
  BOOST_TEST(eventually([&] {
    return a.err_so_far().find("re-registered " + group + "/w because its node was deleted " +
                               "(registration 2, session 0x") != std::string::npos;
  }));
  auto again = node(*this, group + "/w");
  BOOST_REQUIRE(again.has_value());
  BOOST_TEST(again->data == "d");
  BOOST_TEST(again->stat.czxid > first->stat.czxid);
  BOOST_TEST(a.running());  // the command goes on
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
  BOOST_TEST(!node(*this, group + "/w").has_value());
}

BOOST_AUTO_TEST_CASE(service_json_is_written_as_curator_writes_it) {
  const std::string group = root + "/services/orders";
  cli_process a(zkcoord(concat({"register", group, "o-1", "--service-json",
                                R"({"address":"10.0.0.1","port":8080,"payload":"eu"})"},
                               job(*this, "a"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  auto held = node(*this, group + "/o-1");
  BOOST_REQUIRE(held.has_value());
  const std::string prefix =
      R"({"name":"orders","id":"o-1","address":"10.0.0.1","port":8080,"sslPort":null,)"
      R"("payload":"eu","registrationTimeUTC":)";
  BOOST_TEST(held->data.rfind(prefix, 0) == 0u, held->data);
  BOOST_TEST(held->data.find(R"(,"serviceType":"DYNAMIC","uriSpec":null})") != std::string::npos,
             held->data);
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
}

BOOST_AUTO_TEST_CASE(bad_input_is_a_usage_error_and_creates_nothing) {
  const std::string group = root + "/bad";
  const std::vector<std::vector<std::string>> bad{
      {"register", group, "a/b", "touch", file("ran")},
      {"register", group, "..", "touch", file("ran")},
      {"register", group, "id"},
      {"register", group + "/", "id", "touch", file("ran")},
      {"register", group, "id", "--data", std::string(65537, 'x'), "touch", file("ran")},
      {"register", group, "id", "--bogus", "touch", file("ran")},
      {"register", group, "id", "--service-json", "{\"port\":", "touch", file("ran")},
      {"register", group, "id", "--service-json", file("missing.json"), "touch", file("ran")},
  };
  for (const auto& args : bad) {
    auto r = run_cli(zkcoord(args), clean_env);
    BOOST_TEST(r.status == 64, args[2] << " " << args.size() << ": " << r.err);
    BOOST_TEST(r.err_lines().size() == 1u, r.err);
  }
  BOOST_TEST(!exists("ran"));
  BOOST_TEST(children(root).empty());  // not even the group
  auto missing = run_cli(zkcoord({"register", group, "id", "no-such-command-zkcoord"}), clean_env);
  BOOST_TEST(missing.status == 127, missing.err);
  BOOST_TEST(children(root).empty());
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(members_command, fixture)

BOOST_AUTO_TEST_CASE(members_lists_both_registrations) {
  const std::string group = root + "/pair";
  cli_process a(
      zkcoord(concat({"register", group, "alpha", "--data", "a\x1b]0;x"}, job(*this, "a"))),
      clean_env);
  cli_process b(zkcoord(concat({"register", group, "beta", "--data", "b-data"}, job(*this, "b"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running") && exists("b.running"); }));
  auto text = run_cli(zkcoord({"members", group}), clean_env);
  BOOST_TEST(text.status == 0, text.err);
  BOOST_TEST(text.out.rfind("2 members of " + group + "\nID ", 0) == 0u, text.out);
  BOOST_TEST(text.out.find("\nalpha ") != std::string::npos, text.out);
  BOOST_TEST(text.out.find("a\\x1b]0;x\n") != std::string::npos, text.out);  // escaped
  BOOST_TEST(text.out.find('\x1b') == std::string::npos);
  BOOST_TEST(text.out.find("\nbeta ") != std::string::npos, text.out);
  BOOST_TEST(text.out.find(" b-data\n") != std::string::npos, text.out);
  auto json = run_cli(zkcoord({"members", group, "--json"}), clean_env);
  BOOST_TEST(json.status == 0, json.err);
  BOOST_TEST(json.out.find(R"({"id":"alpha","session":"0x)") != std::string::npos, json.out);
  BOOST_TEST(json.out.find(R"({"id":"beta","session":"0x)") != std::string::npos, json.out);
  BOOST_TEST(json.out.find(R"("data":"b-data"})") != std::string::npos, json.out);
  stop(*this, "a");
  stop(*this, "b");
  BOOST_TEST(a.wait(20s).status == 3);
  BOOST_TEST(b.wait(20s).status == 3);
  auto none = run_cli(zkcoord({"members", group}), clean_env);
  BOOST_TEST(none.status == 0, none.err);
  BOOST_TEST(none.out == "no members of " + group + "\n");
}

BOOST_AUTO_TEST_CASE(members_watch_json_prints_the_group_after_a_member_leaves) {
  const std::string group = root + "/watched";
  cli_process a(zkcoord(concat({"register", group, "stays"}, job(*this, "a"))), clean_env);
  cli_process b(zkcoord(concat({"register", group, "leaves"}, job(*this, "b"))), clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running") && exists("b.running"); }));
  cli_process watcher(zkcoord({"members", group, "--watch", "--json"}), clean_env);
  BOOST_REQUIRE(eventually(
      [&] { return watcher.out_so_far().find(R"("id":"leaves")") != std::string::npos; }));
  stop(*this, "b");
  BOOST_TEST(b.wait(20s).status == 3);
  const std::string after =
      "{\"path\":\"" + group + "\",\"members\":[{\"id\":\"stays\",\"session\":\"0x";
  BOOST_TEST(eventually([&] {
               const std::string out = watcher.out_so_far();
               const auto second_line = out.find('\n') + 1;
               return second_line != 0 && out.find(after, second_line) != std::string::npos &&
                      out.find("leaves", second_line) == std::string::npos;
             }),
             watcher.out_so_far());
  watcher.signal(SIGTERM);
  auto r = watcher.wait(10s);
  BOOST_TEST(r.status == 0, r.err);
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
}

BOOST_AUTO_TEST_CASE(members_watch_text_names_the_member_that_left) {
  const std::string group = root + "/watched-text";
  cli_process watcher(zkcoord({"members", group, "--watch"}), clean_env);
  BOOST_REQUIRE(
      eventually([&] { return watcher.out_so_far() == "no members of " + group + "\n"; }));
  cli_process a(zkcoord(concat({"register", group, "w", "--data", "x"}, job(*this, "a"))),
                clean_env);
  BOOST_TEST(eventually(
      [&] { return watcher.out_so_far().find("\njoined w (session 0x") != std::string::npos; }));
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
  BOOST_TEST(
      eventually([&] { return watcher.out_so_far().find("\nleft w\n") != std::string::npos; }),
      watcher.out_so_far());
  watcher.signal(SIGINT);
  BOOST_TEST(watcher.wait(10s).status == 0);
}

BOOST_AUTO_TEST_SUITE_END()
