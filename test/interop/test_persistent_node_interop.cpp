// SPDX-License-Identifier: Apache-2.0
// Interoperability of the persistent nodes with Apache Curator (test/interop/
// CuratorPersistentNode.java, compiled here at test time against Debian's jars):
// - a Curator PersistentNode's data is read by zkcoord, and a zkcoord persistent_node's by
//   Curator; each deletes its node on close;
// - persistent_ttl_node and Curator's PersistentTtlNode on the same layout: Curator sees the
//   parent that zkcoord's touches keep alive past several ttls, zkcoord sees Curator's parent
//   and its touched `touch` child, and each side's nodes are reaped by the server after it
//   stopped.
// Missing java, javac or the Curator jars FAILS the test.
#include <zkcoord/persistent_node.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE persistent_node_interop
#include <boost/test/unit_test.hpp>

#include "support/interop_cluster.hpp"

#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace fs = std::filesystem;
using test::tuple_future;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;

struct cluster_fixture : test::interop_cluster {
  static testing::server_options options() {
    testing::server_options o;
    o.container_check_interval = 200ms;  // TTL and container nodes reaped within a test
    return o;
  }
  cluster_fixture()
      : interop_cluster(sources / "CuratorPersistentNode.java", work / "classes", options()) {}
};
BOOST_TEST_GLOBAL_FIXTURE(cluster_fixture);

std::string curator(const std::string& args) {
  return "java -cp " + test::curator_classpath(work / "classes") + " CuratorPersistentNode " +
         test::interop_cluster::connect_string() + " " + args + " 2>&1";
}

/// A Curator program running beside the test.
class peer {
 public:
  explicit peer(const std::string& args) : command_(curator(args)) {
    pipe_ = ::popen(command_.c_str(), "r");
    BOOST_REQUIRE_MESSAGE(pipe_, "cannot start " << command_);
  }
  ~peer() {
    if (pipe_) ::pclose(pipe_);
  }
  /// Blocks for its next output line.
  std::string line() {
    char buf[4096];
    if (!std::fgets(buf, sizeof buf, pipe_)) return {};
    std::string s = buf;
    while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
    return s;
  }
  /// The rest of its output; fails the test unless it exited 0.
  std::string finish() {
    std::string out;
    char buf[4096];
    while (std::fgets(buf, sizeof buf, pipe_)) out += buf;
    const int status = ::pclose(pipe_);
    pipe_ = nullptr;
    BOOST_REQUIRE_MESSAGE(status == 0, command_ << " failed (" << status << "): " << out);
    return out;
  }

 private:
  std::string command_;
  FILE* pipe_ = nullptr;
};

struct client : test::connected_client {
  client() : connected_client(session_options{.session_timeout = 6000ms}) {}
};

std::optional<node_data> read(session& s, const std::string& path) {
  auto [ec, got] = test::get(s.async_get(path, tuple_future));
  if (ec == zk_errc::no_node) return std::nullopt;
  BOOST_REQUIRE_MESSAGE(!ec, "get " << path << ": " << ec.message());
  return got;
}

template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds bound) {
  const auto deadline = std::chrono::steady_clock::now() + bound;
  while (!pred()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

}  // namespace

BOOST_AUTO_TEST_CASE(curator_and_zkcoord_read_each_others_persistent_node) {
  client c;
  peer java("node /pn-interop/curator from-curator 3");
  BOOST_TEST_REQUIRE(java.line() == "created");
  auto got = read(*c.s, "/pn-interop/curator");
  BOOST_TEST_REQUIRE(got.has_value());
  BOOST_TEST(got->data == "from-curator");
  BOOST_TEST(got->stat.ephemeral_owner != 0);
  java.finish();
  BOOST_TEST(!read(*c.s, "/pn-interop/curator").has_value());  // Curator's close deleted it

  persistent_node ours(*c.s, "/pn-interop/zkcoord", "from-zkcoord");
  auto [ec] = test::get(ours.async_wait_for_initial_create(15000ms, tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  const std::string out = peer("read /pn-interop/zkcoord").finish();
  BOOST_TEST(out.find("data from-zkcoord") != std::string::npos, out);
}

// zkcoord's ttl node outlives several ttls because of its touches, as Curator sees it; then the
// server reaps it once we stopped.
BOOST_AUTO_TEST_CASE(curator_sees_zkcoord_ttl_node_kept_alive_by_its_touches) {
  client c;
  const std::string path = "/pn-interop/ttl-zkcoord";
  persistent_ttl_node ours(*c.s, path, 1000ms, "zk-ttl");
  auto [ec] = test::get(ours.async_wait_for_initial_create(15000ms, tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  const std::string alive = peer("alive " + path + " 4").finish();  // 4 ttls
  BOOST_TEST(alive.find("alive") != std::string::npos, alive);
  const std::string out = peer("read " + path).finish();
  BOOST_TEST(out.find("data zk-ttl") != std::string::npos, out);
  ours.close();
  BOOST_TEST(eventually([&] { return !read(*c.s, path).has_value(); }, 20000ms));
}

// Curator's PersistentTtlNode, seen by zkcoord: the parent with its data and the TTL `touch`
// child, touched while Curator runs; both reaped after Curator closed (Debian's Curator 5.4
// makes the parent a CONTAINER, later Curator a TTL node: either goes once `touch` is reaped).
BOOST_AUTO_TEST_CASE(zkcoord_sees_curators_ttl_node_and_its_touched_child) {
  client c;
  const std::string path = "/pn-interop/ttl-curator";
  peer java("ttl " + path + " from-curator-ttl 1000 4");
  BOOST_TEST_REQUIRE(java.line() == "created");
  auto parent = read(*c.s, path);
  BOOST_TEST_REQUIRE(parent.has_value());
  BOOST_TEST(parent->data == "from-curator-ttl");
  // Curator touches after ttl / 2: the child is there within a few of its periods.
  BOOST_TEST(eventually([&] { return read(*c.s, path + "/touch").has_value(); }, 5000ms));
  const auto first = read(*c.s, path + "/touch");
  BOOST_TEST(eventually(
      [&] {
        auto now = read(*c.s, path + "/touch");
        return now && first && now->stat.mzxid > first->stat.mzxid;
      },
      5000ms));
  java.finish();
  BOOST_TEST(eventually([&] { return !read(*c.s, path).has_value(); }, 20000ms));

  // And ours on the same path: taken over like Curator's would be, kept by our touches.
  persistent_ttl_node ours(*c.s, path, 1000ms, "zk-after");
  auto [ec] = test::get(ours.async_wait_for_initial_create(15000ms, tuple_future));
  BOOST_TEST_REQUIRE(!ec, ec.message());
  const std::string out = peer("read " + path).finish();
  BOOST_TEST(out.find("data zk-after") != std::string::npos, out);
}
