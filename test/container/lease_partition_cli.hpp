// SPDX-License-Identifier: Apache-2.0
// The sound lease end to end, through the `zkcoord lock` tool as users run it: its job guard
// kills COMMAND a tenth of the session timeout before the lease deadline, and the tool keeps
// the lease renewed while the job runs. The holder's tool talks to one member only; its job
// appends CLOCK_REALTIME nanoseconds (`date +%s%N`) to file A every 10 ms. A second tool on
// the other members queues for the same path with a job that appends one line to file B.
// The holder's member is cut off from the quorum (a follower or the leader). The contract:
// the last line the holder's job wrote comes before the first line of the successor's job
// (one host clock for both: the containers share the host's). The tools run with the default
// lease options (tick unknown) and --session-timeout 4s.
#pragma once

#include <zkcoord/session.hpp>
#include <zkcoord/testing/container_ensemble.hpp>

#include <boost/asio/use_future.hpp>
#include <boost/test/unit_test.hpp>

#include "cli/cli_process.hpp"
#include "container/lease_cases.hpp"
#include "container/lease_cut.hpp"
#include "container/lease_report.hpp"
#include "container/minority_partition.hpp"
#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#ifndef ZKCOORD_CLI_BINARY
#error "ZKCOORD_CLI_BINARY must name the built zkcoord tool"
#endif

namespace zkcoord::test {

/// A scratch directory for the jobs' files, removed with everything in it.
class scratch_dir {
 public:
  scratch_dir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "zkcoord-lease-cli-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) throw std::system_error(errno, std::generic_category(), "mkdtemp");
    path_ = tmpl;
  }
  ~scratch_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  scratch_dir(const scratch_dir&) = delete;
  scratch_dir& operator=(const scratch_dir&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

/// The complete lines of a job's file as nanosecond stamps (a line being written is skipped).
inline std::vector<long long> stamps_in(const std::string& file) {
  std::ifstream in(file);
  std::vector<long long> stamps;
  std::string line;
  while (std::getline(in, line) && !in.eof()) stamps.push_back(std::stoll(line));
  return stamps;
}

/// Polls `done` every 10 ms until it holds or `bound` passes; returns whether it held.
inline bool poll_until(const std::function<bool()>& done, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

inline void run_cli_lease_partition(testing::container_ensemble& zk, io_thread& io,
                                    const lease_case& c, lease_figures& figures) {
  namespace asio = boost::asio;
  using steady = std::chrono::steady_clock;
  using namespace std::chrono_literals;

  const std::size_t member = member_to_cut(zk, c.cut);
  const std::string member_name = "zk" + std::to_string(member + 1);
  const std::string path = case_path(c);
  const std::string majority = majority_connect(zk, member);
  scratch_dir dir;
  const std::string file_a = dir.file("A"), file_b = dir.file("B");
  partition_timeline events;
  cut_guard cut(zk, member);

  // Declared after the cut guard: on an early failure both tools are killed (their process
  // groups) before the member is healed.
  cli_process holder({ZKCOORD_CLI_BINARY, "lock", path, "--connect",
                      zk.member_connect_string(member), "--session-timeout", "4s", "--", "sh", "-c",
                      "while :; do date +%s%N >> '" + file_a + "'; sleep 0.01; done"});
  BOOST_REQUIRE_MESSAGE(poll_until([&] { return !stamps_in(file_a).empty(); }, 30s),
                        "the holder's job never ran; zkcoord said: " << holder.err_so_far());
  cli_process successor({ZKCOORD_CLI_BINARY, "lock", path, "--connect", majority,
                         "--session-timeout", "4s", "--", "sh", "-c",
                         "date +%s%N >> '" + file_b + "'"});

  // The successor must be queued (its node listed behind the holder's) before the cut, or the
  // case would measure how fast it starts rather than the lease.
  session observer(io.executor(), {.connect = majority, .session_timeout = lease_session_timeout});
  get(observer.async_connect(asio::use_future));
  const bool queued = poll_until(
      [&] {
        auto [ec, children] = get(observer.async_children(path, tuple_future));
        return !ec && children.names.size() == 2;
      },
      30s);
  observer.close();
  BOOST_REQUIRE_MESSAGE(queued, "the successor never queued; it said: " << successor.err_so_far());
  BOOST_REQUIRE(stamps_in(file_b).empty());

  events.cut_now();
  const auto cut_steady = steady::now();
  const auto cut_real = std::chrono::system_clock::now();
  events.add("cut: " + member_name + " (the " + name_of(c.cut) + " the holder's zkcoord is on) " +
             "disconnected from the quorum network");
  cut.isolate();
  events.add("cut: docker network disconnect returned");

  // Both tools end on their own: the holder's when its lease runs out (its job is endless), the
  // successor's once its one-line job is done. Their exit times to 10 ms.
  std::optional<steady::time_point> holder_exit, successor_exit;
  const bool ended = poll_until(
      [&] {
        if (!holder_exit && !holder.running()) holder_exit = steady::now();
        if (!successor_exit && !successor.running()) successor_exit = steady::now();
        return holder_exit && successor_exit;
      },
      90s);
  BOOST_REQUIRE_MESSAGE(ended, "the tools did not end within 90 s of the cut; holder said: "
                                   << holder.err_so_far()
                                   << "; successor said: " << successor.err_so_far());
  const cli_result holder_result = holder.wait(), successor_result = successor.wait();
  const auto a = stamps_in(file_a), b = stamps_in(file_b);
  BOOST_REQUIRE(!a.empty());

  // One host clock: a stamp's offset from the cut's realtime reading is its offset from the cut.
  const long long cut_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(cut_real.time_since_epoch()).count();
  auto at = [&](long long ns) { return cut_steady + std::chrono::nanoseconds(ns - cut_ns); };
  figures.add("last_A-cut_ms", at(a.back()) - cut_steady);
  events.add("holder's job: last line written", at(a.back()));
  events.add("holder's zkcoord exited with " + std::to_string(holder_result.status), *holder_exit);
  events.add("successor's zkcoord exited with " + std::to_string(successor_result.status),
             *successor_exit);
  if (!b.empty()) {
    figures.add("first_B-cut_ms", at(b.front()) - cut_steady);
    figures.add_ms("last_A-first_B_ms", (a.back() - b.front()) / 1'000'000);
    events.add("successor's job: first line written", at(b.front()));
  }

  // The successor's job ran (its tool exits 0 with it), after the holder's was dead: the safety
  // bound, end to end.
  BOOST_TEST(successor_result.status == 0,
             "the successor's zkcoord said: " << successor_result.err);
  BOOST_TEST(!b.empty(), "the successor's job wrote nothing");
  if (!b.empty())
    BOOST_TEST(a.back() < b.front(), "the holder's job wrote "
                                         << (a.back() - b.front()) / 1'000'000
                                         << " ms after the successor's started");
  // 76: the lock was lost while COMMAND ran (the guard's lease kill or the reported loss).
  BOOST_TEST(holder_result.status == 76, "the holder's zkcoord said: " << holder_result.err);

  cut.heal();
  events.add("heal: " + member_name + " reconnected, every member serves again");
  const std::string text = "lease partition " + case_name(c) + "; " + events.text() +
                           "\nholder's zkcoord stderr:\n" + holder_result.err +
                           "successor's zkcoord stderr:\n" + successor_result.err;
  BOOST_TEST_MESSAGE(text);
  std::cout << text << std::endl;
}

}  // namespace zkcoord::test
