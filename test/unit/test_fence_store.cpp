// SPDX-License-Identifier: Apache-2.0
// The fence store the lock tests write through (test-matrix row 13): lower token rejected,
// equal token accepted, higher token advances, and under concurrent writers the log replays to
// the same decisions. Both the in-memory store and the cross-process file store.
#include "support/fence_store.hpp"

#include "support/file_fence_store.hpp"

#define BOOST_TEST_MODULE fence_store
#include <boost/test/unit_test.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

using zkcoord::test::fence_store;
using zkcoord::test::file_fence_store;

namespace {

struct temp_store_dir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("zkcoord-fence-" + std::to_string(::getpid()) +
                                                "-" + std::to_string(std::random_device{}()));
  ~temp_store_dir() { std::filesystem::remove_all(path); }
};

// Replays the log in arrival order with the rule alone and checks every decision.
void check_log_replays(const fence_store& store) {
  std::map<std::string, std::int64_t> highest, value;
  std::uint64_t seq = 0;
  for (const auto& e : store.entries()) {
    BOOST_TEST(e.seq == seq++);
    auto& h = highest[e.resource];
    BOOST_TEST(e.highest_before == h);
    BOOST_TEST(e.accepted == (e.token >= h));
    if (!e.accepted) continue;
    h = e.token;
    if (e.what == fence_store::kind::write) value[e.resource] = e.value;
  }
  for (auto& [resource, v] : value) {
    BOOST_TEST(store.read(resource) == v);
    BOOST_TEST(store.highest_token(resource) == highest[resource]);
  }
  BOOST_TEST(store.stale_accepted() == 0u);
}

}  // namespace

BOOST_AUTO_TEST_CASE(lower_token_rejected_equal_accepted_higher_advances) {
  fence_store store;
  BOOST_TEST(store.write("seat", 10, 1, "a"));
  BOOST_TEST(store.write("seat", 10, 2, "a"));  // the current holder writes again
  BOOST_TEST(!store.write("seat", 9, 3, "stale"));
  BOOST_TEST(store.read("seat") == 2);
  BOOST_TEST(store.write("seat", 11, 4, "b"));
  BOOST_TEST(!store.write("seat", 10, 5, "a"));
  BOOST_TEST(store.read("seat") == 4);
  BOOST_TEST(store.highest_token("seat") == 11);
  BOOST_TEST(store.accepted_writes("seat") == 3);
  BOOST_TEST(store.rejected() == 2u);
  BOOST_TEST(store.entries().size() == 5u);
  check_log_replays(store);
}

BOOST_AUTO_TEST_CASE(resources_are_fenced_independently) {
  fence_store store;
  BOOST_TEST(store.write("x", 50, 1, "a"));
  BOOST_TEST(store.write("y", 7, 1, "b"));
  BOOST_TEST(!store.write("x", 49, 2, "c"));
  BOOST_TEST(store.highest_token("y") == 7);
}

BOOST_AUTO_TEST_CASE(fenced_read_shuts_out_an_older_holders_later_write) {
  fence_store store;
  BOOST_TEST(store.write("n", 5, 10, "old"));
  // The old holder (5) read 10 and paused; the new holder (9) reads, then the old one writes.
  BOOST_TEST(store.read("n", 9, "new").value_or(-1) == 10);
  BOOST_TEST(!store.write("n", 5, 11, "old"));
  BOOST_TEST(store.write("n", 9, 11, "new"));
  BOOST_TEST(!store.read("n", 8, "older").has_value());
  BOOST_TEST(store.read("n") == 11);
  check_log_replays(store);
}

BOOST_AUTO_TEST_CASE(concurrent_writers_with_random_tokens_replay_to_the_same_decisions) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      fence_store store;
      std::vector<std::thread> writers;
      for (int w = 0; w < 8; ++w)
        writers.emplace_back([&store, w, seed] {
          std::mt19937 rng(seed * 100 + static_cast<unsigned>(w));
          std::uniform_int_distribution<std::int64_t> token(1, 400);
          const std::string resource = "r" + std::to_string(rng() % 3);
          for (int i = 0; i < 500; ++i) {
            const auto t = token(rng);
            if (rng() % 4 == 0)
              store.read(resource, t, "w" + std::to_string(w));
            else
              store.write(resource, t, i, "w" + std::to_string(w));
          }
        });
      for (auto& t : writers) t.join();
      BOOST_TEST(store.entries().size() == 8u * 500u);
      check_log_replays(store);
    }
  }
}

// A correct lock (grants in token order, no overlap): every write accepted, no lost update.
// A broken one (holders overlap): overlapping stale writes are rejected and, with fenced
// reads, still no update is lost.
BOOST_AUTO_TEST_CASE(read_modify_write_under_correct_and_overlapping_holders) {
  for (bool overlap : {false, true}) {
    BOOST_TEST_CONTEXT("overlapping holders: " << overlap) {
      fence_store store;
      std::mutex lock;
      std::atomic<std::int64_t> next_token{100};
      std::vector<std::thread> clients;
      for (int c = 0; c < 6; ++c)
        clients.emplace_back([&, c] {
          const std::string me = "c" + std::to_string(c);
          for (int i = 0; i < 300; ++i) {
            std::unique_lock held(lock);
            const auto token = ++next_token;
            if (overlap) held.unlock();  // "believes" it holds, but does not exclude anyone
            std::optional<std::int64_t> value;
            if (overlap)
              value = store.read("ctr", token, me);
            else
              value = store.read("ctr");
            if (!value) continue;  // refused: a newer holder has read
            if (overlap) std::this_thread::yield();
            store.write("ctr", token, *value + 1, me);
          }
        });
      for (auto& t : clients) t.join();
      BOOST_TEST(store.read("ctr") == store.accepted_writes("ctr"));  // no lost update
      BOOST_TEST(store.stale_accepted() == 0u);
      if (!overlap) BOOST_TEST(store.rejected() == 0u);
      if (!overlap) BOOST_TEST(store.read("ctr") == 6 * 300);
      BOOST_TEST_MESSAGE("overlap=" << overlap << " rejected=" << store.rejected()
                                    << " accepted=" << store.accepted_writes("ctr"));
      check_log_replays(store);
    }
  }
}

BOOST_AUTO_TEST_CASE(file_store_same_rules_and_log) {
  temp_store_dir dir;
  file_fence_store store(dir.path);
  BOOST_TEST(store.write(10, 1, "a"));
  BOOST_TEST(store.write(10, 2, "a"));
  BOOST_TEST(!store.write(9, 3, "stale"));
  BOOST_TEST(store.write(11, 4, "b"));
  store.enter(11, "b");
  BOOST_TEST(store.read(11, "b") == 4);
  store.exit(11, "b");
  const auto s = store.snapshot();
  BOOST_TEST(s.highest == 11);
  BOOST_TEST(s.value == 4);
  BOOST_TEST(s.accepted == 3);
  BOOST_TEST(s.rejected == 1);
  BOOST_TEST(s.inside == 0);
  BOOST_TEST(s.max_inside == 1);
  const std::vector<std::string> expected = {"accept 10 1 a", "accept 10 2 a", "reject 9 3 stale",
                                             "accept 11 4 b", "enter 11 1 b",  "read 11 4 b",
                                             "exit 11 0 b"};
  BOOST_TEST(store.log_lines() == expected, boost::test_tools::per_element());
}

// Threads of this process and a forked process increment through the store, each increment
// under the store's own file lock only: the lock must exclude both, or increments get lost.
BOOST_AUTO_TEST_CASE(file_store_excludes_threads_and_processes) {
  temp_store_dir dir;
  file_fence_store store(dir.path);
  auto increment_many = [&](const std::string& who, int n) {
    for (int i = 0; i < n; ++i) {
      store.enter(1, who);
      store.exit(1, who);
    }
  };
  const pid_t child = ::fork();
  BOOST_REQUIRE(child >= 0);
  if (child == 0) {
    increment_many("proc", 300);
    ::_exit(0);
  }
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] { increment_many("t" + std::to_string(t), 300); });
  for (auto& t : threads) t.join();
  int status = 0;
  BOOST_REQUIRE(::waitpid(child, &status, 0) == child);
  BOOST_TEST(WIFEXITED(status));
  BOOST_TEST(store.log_lines().size() == 2u * 4u * 300u);
  BOOST_TEST(store.snapshot().inside == 0);  // every enter/exit pair counted: nothing lost
}
