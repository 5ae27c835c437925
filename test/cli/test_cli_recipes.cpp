// SPDX-License-Identifier: Apache-2.0
// `zkcoord elect`, `zkcoord leader`, `zkcoord lock --read|--write` and `zkcoord semaphore`
// run as a user runs them: separate processes against a real ZooKeeper, checked by exit
// status, output, the command's environment and the znodes left behind.
#include "cli/cli_process.hpp"

#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>

#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE cli_recipes
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <chrono>
#include <fstream>
#include <memory>
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

// A command that records its token, says it runs, and runs until told to stop (file NAME.stop).
std::vector<std::string> job(const fixture& f, const std::string& name) {
  return {"sh", "-c",
          "echo \"$ZKCOORD_FENCING_TOKEN\" > \"$1.token\"; touch \"$1.running\"; "
          "while [ ! -e \"$1.stop\" ]; do sleep 0.02; done; rm -f \"$1.running\"; exit 3",
          "sh", f.file(name)};
}

std::vector<std::string> concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

void stop(const fixture& f, const std::string& name) {
  std::ofstream(f.file(name + ".stop")).put('x');
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(elect_command, fixture)

BOOST_AUTO_TEST_CASE(one_leader_runs_at_a_time_and_the_next_takes_over_with_a_higher_term) {
  const std::string path = root + "/election";
  cli_process a(zkcoord(concat({"elect", path, "--id", "worker-a", "--"}, job(*this, "a"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  cli_process b(zkcoord(concat({"elect", path, "--id", "worker-b", "--"}, job(*this, "b"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return children(path).size() == 2; }));

  // `leader` names the one that runs, without taking part.
  auto shown = run_cli(zkcoord({"leader", path}), clean_env);
  BOOST_TEST(shown.status == 0, shown.err);
  BOOST_TEST(shown.out.rfind("leader worker-a (term ", 0) == 0u, shown.out);
  BOOST_TEST(shown.out.find("; 2 participants\n") != std::string::npos, shown.out);
  auto json = run_cli(zkcoord({"leader", path, "--json"}), clean_env);
  BOOST_TEST(json.status == 0, json.err);
  BOOST_TEST(json.out.find("\"leader\":{\"id\":\"worker-a\"") != std::string::npos, json.out);
  BOOST_TEST(!exists("b.running"), "the second participant runs only once elected");

  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);  // the command's status
  BOOST_REQUIRE(eventually([&] { return exists("b.running"); }));
  BOOST_TEST(std::stoll(read("b.token")) > std::stoll(read("a.token")));
  auto after = run_cli(zkcoord({"leader", path}), clean_env);
  BOOST_TEST(after.out.rfind("leader worker-b ", 0) == 0u, after.out);
  stop(*this, "b");
  BOOST_TEST(b.wait(20s).status == 3);
  BOOST_TEST(eventually([&] { return children(path).empty(); }));
  auto none = run_cli(zkcoord({"leader", path}), clean_env);
  BOOST_TEST(none.status == 0);
  BOOST_TEST(none.out == "no leader of " + path + " (no participant)\n");
}

BOOST_AUTO_TEST_CASE(the_node_holds_the_participant_id_as_curator_leader_latch_writes_it) {
  const std::string path = root + "/latch";
  cli_process a(zkcoord(concat({"elect", path, "--id", "host-1:8080", "--"}, job(*this, "a"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  auto nodes = children(path);
  BOOST_REQUIRE_EQUAL(nodes.size(), 1u);
  BOOST_TEST(nodes[0].find("-latch-") != std::string::npos, nodes[0]);
  auto [ec, data] = test::get(zk.async_get(join_path(path, nodes[0]), tuple_future));
  BOOST_REQUIRE(!ec);
  BOOST_TEST(data.data == "host-1:8080");
  BOOST_TEST(read("a.token") == std::to_string(data.stat.czxid) + "\n");
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
}

BOOST_AUTO_TEST_CASE(lost_leadership_terminates_the_command) {
  const std::string path = root + "/lost";
  cli_process a(zkcoord(concat({"elect", path, "--id", "a", "--grace", "2s", "--"},
                               {"sh", "-c",
                                "trap 'echo TERM > \"$1\"; exit 0' TERM; touch \"$1.ready\"; "
                                "while true; do sleep 0.05; done",
                                "sh", file("signal")})),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("signal.ready"); }));
  auto nodes = children(path);
  BOOST_REQUIRE_EQUAL(nodes.size(), 1u);
  auto [ec] = test::get(zk.async_remove(join_path(path, nodes[0]), -1, tuple_future));
  BOOST_REQUIRE(!ec);
  auto r = a.wait(20s);
  BOOST_TEST(r.status == 76);
  BOOST_TEST(read("signal") == "TERM\n");
  BOOST_TEST(r.err.find("leadership of " + path + " lost") != std::string::npos, r.err);
}

BOOST_AUTO_TEST_CASE(timeout_while_another_leads) {
  const std::string path = root + "/busy";
  cli_process a(zkcoord(concat({"elect", path, "--id", "a", "--"}, job(*this, "a"))), clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  auto r = run_cli(
      zkcoord({"elect", path, "--id", "b", "--timeout", "700ms", "touch", file("ran")}), clean_env);
  BOOST_TEST(r.status == 75, r.err);
  BOOST_TEST(r.err.find("leadership of " + path) != std::string::npos, r.err);
  BOOST_TEST(!exists("ran"));
  BOOST_TEST(eventually([&] { return children(path).size() == 1; }));  // only the leader's
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
}

BOOST_AUTO_TEST_CASE(a_lock_path_is_refused_with_its_own_status_and_leaves_no_node) {
  const std::string path = root + "/a-lock";
  cli_process holder(zkcoord(concat({"lock", path, "--"}, job(*this, "l"))), clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("l.running"); }));
  auto r = run_cli(zkcoord({"elect", path, "--id", "x", "touch", file("ran")}), clean_env);
  BOOST_TEST(r.status == 65, r.err);
  BOOST_TEST(!exists("ran"));
  auto shown = run_cli(zkcoord({"leader", path}), clean_env);
  BOOST_TEST(shown.status == 65, shown.err);
  BOOST_TEST(children(path).size() == 1u);  // the lock holder's only
  stop(*this, "l");
  BOOST_TEST(holder.wait(20s).status == 3);
}

BOOST_AUTO_TEST_CASE(leader_watch_prints_each_change_and_ends_on_sigterm) {
  const std::string path = root + "/watched";
  cli_process watcher(zkcoord({"leader", path, "--watch"}), clean_env);
  BOOST_REQUIRE(
      eventually([&] { return watcher.out_so_far().find("no leader") != std::string::npos; }));
  cli_process a(zkcoord(concat({"elect", path, "--id", "first", "--"}, job(*this, "a"))),
                clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("a.running"); }));
  BOOST_TEST(
      eventually([&] { return watcher.out_so_far().find("leader first ") != std::string::npos; }));
  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);
  BOOST_TEST(eventually([&] {
    const std::string out = watcher.out_so_far();
    return out.find("no leader", out.find("leader first ")) != std::string::npos;
  }));
  watcher.signal(SIGTERM);
  auto r = watcher.wait(10s);
  BOOST_TEST(r.status == 0, r.err);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(read_write_lock, fixture)

BOOST_AUTO_TEST_CASE(readers_share_and_a_writer_waits_for_them) {
  const std::string path = root + "/rw";
  cli_process r1(zkcoord(concat({"lock", "--read", path, "--"}, job(*this, "r1"))), clean_env);
  cli_process r2(zkcoord(concat({"lock", "--read", path, "--"}, job(*this, "r2"))), clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("r1.running") && exists("r2.running"); }));
  cli_process w(zkcoord(concat({"lock", "--write", path, "--"}, job(*this, "w"))), clean_env);
  BOOST_REQUIRE(eventually([&] { return children(path).size() == 3; }));
  bool read_node = false, write_node = false;
  for (const auto& n : children(path)) {
    read_node |= n.find("-__READ__") != std::string::npos;
    write_node |= n.find("-__WRIT__") != std::string::npos;
  }
  BOOST_TEST(read_node);
  BOOST_TEST(write_node);
  // A reader that comes after the waiting writer waits too (fair).
  cli_process r3(zkcoord(concat({"lock", "--read", path, "--"}, job(*this, "r3"))), clean_env);
  BOOST_REQUIRE(eventually([&] { return children(path).size() == 4; }));
  BOOST_TEST(!exists("w.running"));
  BOOST_TEST(!exists("r3.running"));
  stop(*this, "r1");
  stop(*this, "r2");
  BOOST_TEST(r1.wait(20s).status == 3);
  BOOST_TEST(r2.wait(20s).status == 3);
  BOOST_REQUIRE(eventually([&] { return exists("w.running"); }));
  BOOST_TEST(!exists("r3.running"));
  BOOST_TEST(std::stoll(read("w.token")) > std::stoll(read("r2.token")));
  stop(*this, "w");
  BOOST_TEST(w.wait(20s).status == 3);
  BOOST_REQUIRE(eventually([&] { return exists("r3.running"); }));
  stop(*this, "r3");
  BOOST_TEST(r3.wait(20s).status == 3);
  BOOST_TEST(eventually([&] { return children(path).empty(); }));
}

BOOST_AUTO_TEST_CASE(try_write_while_a_reader_holds_is_busy) {
  const std::string path = root + "/busy";
  cli_process r(zkcoord(concat({"lock", "--read", path, "--"}, job(*this, "r"))), clean_env);
  BOOST_REQUIRE(eventually([&] { return exists("r.running"); }));
  auto w = run_cli(zkcoord({"lock", "--write", "--timeout", "0s", path, "touch", file("ran")}),
                   clean_env);
  BOOST_TEST(w.status == 75, w.err);
  BOOST_TEST(w.err.find("write lock " + path) != std::string::npos, w.err);
  BOOST_TEST(!exists("ran"));
  // Another reader is not blocked by a reader.
  auto r2 = run_cli(zkcoord({"lock", "--read", "--timeout", "0s", path, "touch", file("ran")}),
                    clean_env);
  BOOST_TEST(r2.status == 0, r2.err);
  BOOST_TEST(exists("ran"));
  // An exclusive lock on a read-write path is another recipe: refused, nothing left.
  auto plain = run_cli(zkcoord({"lock", path, "touch", file("plain")}), clean_env);
  BOOST_TEST(plain.status == 65, plain.err);
  BOOST_TEST(!exists("plain"));
  BOOST_TEST(children(path).size() == 1u);
  stop(*this, "r");
  BOOST_TEST(r.wait(20s).status == 3);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_FIXTURE_TEST_SUITE(semaphore_command, fixture)

BOOST_AUTO_TEST_CASE(two_leases_run_two_commands_at_once_and_a_third_waits_for_one) {
  const std::string path = root + "/semaphore";
  auto semaphore = [&](const std::string& name) {
    return zkcoord(concat({"semaphore", path, "--leases", "2", "--"}, job(*this, name)));
  };
  cli_process a(semaphore("a"), clean_env);
  cli_process b(semaphore("b"), clean_env);
  // Both commands run at the same time: each is still running when the other has started.
  BOOST_REQUIRE(eventually([&] { return exists("a.running") && exists("b.running"); }));
  BOOST_TEST(children(path + "/leases").size() == 2u);
  BOOST_TEST(eventually([&] { return children(path + "/locks").empty(); }));

  // Trying once with both leases taken: refused, its nodes deleted, its command never run.
  auto busy = run_cli(
      zkcoord({"semaphore", path, "--leases", "2", "--timeout", "0s", "touch", file("ran")}),
      clean_env);
  BOOST_TEST(busy.status == 75, busy.err);
  BOOST_TEST(busy.err.find("every lease of semaphore " + path + " is taken") != std::string::npos,
             busy.err);
  BOOST_TEST(!exists("ran"));

  // The third waits with its lease node counted (3 children > 2 leases), holding the
  // internal lock; its command has not started.
  cli_process c(semaphore("c"), clean_env);
  BOOST_REQUIRE(eventually([&] {
    return children(path + "/leases").size() == 3u && children(path + "/locks").size() == 1u;
  }));
  BOOST_TEST(!exists("c.running"));
  BOOST_TEST(exists("a.running"));
  BOOST_TEST(exists("b.running"));

  stop(*this, "a");
  BOOST_TEST(a.wait(20s).status == 3);  // the command's status
  BOOST_REQUIRE(eventually([&] { return exists("c.running"); }));
  BOOST_TEST(exists("b.running"));  // b and c now hold the two leases
  BOOST_TEST(std::stoll(read("c.token")) > std::stoll(read("b.token")));
  stop(*this, "b");
  stop(*this, "c");
  BOOST_TEST(b.wait(20s).status == 3);
  BOOST_TEST(c.wait(20s).status == 3);
  BOOST_TEST(eventually(
      [&] { return children(path + "/leases").empty() && children(path + "/locks").empty(); }));
}

BOOST_AUTO_TEST_CASE(missing_zero_negative_malformed_or_huge_leases_are_usage_errors) {
  const std::string path = root + "/bad-leases";
  auto missing = run_cli(zkcoord({"semaphore", path, "--", "touch", file("ran")}), clean_env);
  BOOST_TEST(missing.status == 64, missing.err);
  BOOST_TEST(missing.err.find("missing --leases") != std::string::npos, missing.err);
  for (const std::string value : {"0", "-1", "abc", "2x", " 2", "+2", "1.5", "", "10001",
                                  "4294967297", "99999999999999999999"}) {
    BOOST_TEST_CONTEXT("--leases '" << value << "'") {
      auto r = run_cli(zkcoord({"semaphore", path, "--leases", value, "--", "touch", file("ran")}),
                       clean_env);
      BOOST_TEST(r.status == 64, r.err);
      BOOST_TEST(r.err.find("invalid --leases '" + value + "'") != std::string::npos, r.err);
    }
  }
  auto other = run_cli(zkcoord({"lock", "--leases", "2", path, "true"}), clean_env);
  BOOST_TEST(other.status == 64, other.err);
  BOOST_TEST(other.err.find("--leases does not apply to 'lock'") != std::string::npos, other.err);
  // The largest N is accepted (and runs).
  auto most = run_cli(zkcoord({"semaphore", path, "--leases", "10000", "--", "touch", file("ran")}),
                      clean_env);
  BOOST_TEST(most.status == 0, most.err);
  BOOST_TEST(exists("ran"));
  BOOST_TEST(eventually(
      [&] { return children(path + "/leases").empty() && children(path + "/locks").empty(); }));
}

BOOST_AUTO_TEST_SUITE_END()
