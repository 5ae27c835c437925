// SPDX-License-Identifier: Apache-2.0
// Interoperability of the counters on ONE path each: Apache Curator (test/interop/
// CuratorCounter.java, compiled here at test time against Debian's jars) and zkcoord increment
// at the same time, and the final value is the sum of every increment, read back by each side
// from the other's bytes:
// - DistributedAtomicLong with distributed_atomic_long, optimistic, then both promoted to the
//   lock at one lock path (no lock node left behind);
// - SharedCount, kazoo's Counter(support_curator=True), DistributedAtomicInteger, zkcoord's
//   shared_count and distributed_atomic_int on one 4-byte counter.
// Missing java, javac, the Curator jars, python3 or kazoo FAILS the test.
#include <zkcoord/counter.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE counter_interop
#include <boost/test/unit_test.hpp>

#include "support/interop_cluster.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

using namespace zkcoord;
namespace fs = std::filesystem;
using test::tuple_future;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;
const char* python = "/usr/bin/python3";

struct cluster_fixture : test::interop_cluster {
  cluster_fixture() : interop_cluster(sources / "CuratorCounter.java", work / "classes") {
    BOOST_REQUIRE_MESSAGE(
        std::system((std::string(python) + " -c 'import kazoo' 2>/dev/null").c_str()) == 0,
        "python3-kazoo is missing: run scripts/install-deps");
  }
};
BOOST_TEST_GLOBAL_FIXTURE(cluster_fixture);

std::string connect() {
  return test::interop_cluster::connect_string();
}

/// A peer program running beside the test, its stdout read when it ends.
class peer {
 public:
  explicit peer(const std::string& command) : command_(command) {
    pipe_ = ::popen(command.c_str(), "r");
    BOOST_REQUIRE_MESSAGE(pipe_, "cannot start " << command);
  }
  ~peer() {
    if (pipe_) ::pclose(pipe_);
  }
  /// Its last "value V" line; fails the test if it did not end well.
  long long value() {
    std::string out;
    char buf[512];
    while (std::fgets(buf, sizeof buf, pipe_)) out += buf;
    const int status = ::pclose(pipe_);
    pipe_ = nullptr;
    BOOST_REQUIRE_MESSAGE(status == 0, command_ << " failed (" << status << "): " << out);
    const auto at = out.rfind("value ");
    BOOST_REQUIRE_MESSAGE(at != std::string::npos, command_ << " printed no value: " << out);
    return std::stoll(out.substr(at + 6));
  }

 private:
  std::string command_;
  FILE* pipe_ = nullptr;
};

std::string curator(const std::string& mode, const std::string& path, int n,
                    const std::string& lock_path = {}) {
  return "java -cp " + test::curator_classpath(work / "classes") + " CuratorCounter " + connect() +
         " " + mode + " " + path + " " + std::to_string(n) +
         (lock_path.empty() ? "" : " " + lock_path) + " 2>&1";
}

std::string kazoo(const std::string& path, int n) {
  return std::string(python) + " " + (sources / "kazoo_counter.py").string() + " " + connect() +
         " " + path + " " + std::to_string(n) + " 2>&1";
}

using client = test::connected_client;

// Failures on the adder threads, asserted on the test's thread (Boost.Test is not
// thread-safe).
struct thread_failures {
  std::mutex mutex;
  std::vector<std::string> messages;
  void add(std::string m) {
    std::lock_guard lock(mutex);
    messages.push_back(std::move(m));
  }
  void check() {
    BOOST_TEST(messages.empty(),
               messages.size() << " failures, first: " << (messages.empty() ? "" : messages[0]));
  }
};

// `n` increments through `Counter` on its own session; each must be written exactly once.
template <class Counter>
std::thread zkcoord_adder(const std::string& path, int n, atomic_counter_options options,
                          thread_failures& failures) {
  return std::thread([=, &failures] {
    client c;
    Counter counter(*c.s, path, options);
    // "Not written" is an answer the API gives under contention (every optimistic try, and the
    // compare-and-set inside the lock, lost to a writer that does not take the lock, such as
    // Curator's own optimistic first try): nothing was written, so the caller tries again.
    for (int i = 0; i < n; ++i) {
      int tries = 0;
      for (;;) {
        auto [ec, r] = test::get(counter.async_increment(tuple_future));
        if (ec) return failures.add("zkcoord increment " + std::to_string(i) + ": " + ec.message());
        if (r.succeeded) break;
        if (++tries == 50)
          return failures.add("zkcoord increment " + std::to_string(i) + ": not written 50 times");
      }
    }
  });
}

// `n` increments of a shared_count, each a try_set retried until it wins.
std::thread shared_count_adder(const std::string& path, int n, thread_failures& failures) {
  return std::thread([=, &failures] {
    client c;
    shared_count count(*c.s, path, 0);
    auto [ec, seen] = test::get(count.async_get(tuple_future));
    if (ec) return failures.add("shared_count get: " + ec.message());
    for (int i = 0; i < n; ++i) {
      for (;;) {
        auto [e, r] = test::get(count.async_try_set(seen, seen.value + 1, tuple_future));
        if (e) return failures.add("shared_count try_set: " + e.message());
        seen = r.current;
        if (r.succeeded) break;
      }
    }
  });
}

std::size_t children_of(session& s, const std::string& path) {
  auto [ec, list] = test::get(s.async_children(path, tuple_future));
  if (ec == zk_errc::no_node) return 0;
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  return list.names.size();
}

}  // namespace

BOOST_AUTO_TEST_CASE(curator_atomic_long_and_zkcoord_sum_on_one_path) {
  const std::string path = "/interop/counter/long";
  const int per_side = 150;
  peer java(curator("long-add", path, per_side));
  thread_failures failures;
  std::vector<std::thread> adders;
  for (int i = 0; i < 2; ++i)
    adders.push_back(zkcoord_adder<distributed_atomic_long>(
        path, per_side, {.max_tries = 1000, .retry_delay = std::chrono::milliseconds(1)},
        failures));
  const long long java_last = java.value();
  for (auto& t : adders) t.join();
  failures.check();
  BOOST_TEST(java_last <= 3 * per_side);

  client observer;
  distributed_atomic_long counter(*observer.s, path);
  auto [ec, r] = test::get(counter.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  BOOST_TEST(r.post_value == 3 * per_side);
  BOOST_TEST(peer(curator("long-get", path, 0)).value() == 3 * per_side);
}

BOOST_AUTO_TEST_CASE(promoted_to_one_lock_path_curator_and_zkcoord_sum) {
  const std::string path = "/interop/counter/promoted", lock_path = "/interop/counter/lock";
  const int per_side = 60;
  peer java(curator("long-add", path, per_side, lock_path));
  thread_failures failures;
  std::vector<std::thread> adders;
  for (int i = 0; i < 2; ++i)
    adders.push_back(zkcoord_adder<distributed_atomic_long>(
        path, per_side, {.max_tries = 3, .lock_path = lock_path}, failures));
  java.value();
  for (auto& t : adders) t.join();
  failures.check();

  client observer;
  distributed_atomic_long counter(*observer.s, path);
  auto [ec, r] = test::get(counter.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  BOOST_TEST(r.post_value == 3 * per_side);
  BOOST_TEST(peer(curator("long-get", path, 0)).value() == 3 * per_side);
  BOOST_TEST(children_of(*observer.s, lock_path) == 0u);
}

BOOST_AUTO_TEST_CASE(shared_count_kazoo_and_atomic_int_share_four_bytes) {
  const std::string path = "/interop/counter/shared";
  const int n = 40;
  {
    // Created by zkcoord with its seed, so Curator's SharedCount never reads an empty node.
    client c;
    shared_count count(*c.s, path, 0);
    auto [ec, v] = test::get(count.async_get(tuple_future));
    BOOST_TEST_REQUIRE(!ec, ec.message());
    BOOST_TEST(v.value == 0);
  }
  peer shared(curator("shared-add", path, n));
  peer atomic_int(curator("int-add", path, n));
  peer py(kazoo(path, n));
  thread_failures failures;
  std::vector<std::thread> adders;
  adders.push_back(shared_count_adder(path, n, failures));
  adders.push_back(zkcoord_adder<distributed_atomic_int>(
      path, n, {.max_tries = 1000, .retry_delay = std::chrono::milliseconds(1)}, failures));
  shared.value();
  atomic_int.value();
  py.value();
  for (auto& t : adders) t.join();
  failures.check();

  const long long total = 5 * n;
  client observer;
  shared_count count(*observer.s, path, 0);
  auto [ec, v] = test::get(count.async_get(tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  BOOST_TEST(v.value == total);
  BOOST_TEST(v.version == total);  // every increment one versioned set
  BOOST_TEST(peer(curator("shared-get", path, 0)).value() == total);
  BOOST_TEST(peer(curator("int-get", path, 0)).value() == total);
  BOOST_TEST(peer(kazoo(path, 0)).value() == total);
}
