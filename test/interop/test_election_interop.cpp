// SPDX-License-Identifier: Apache-2.0
// Interoperability: an Apache Curator LeaderLatch (Java, test/interop/CuratorLatch.java, the
// Debian Curator jars) and two zkcoord election participants on ONE election path. Leadership
// goes round Curator -> zkcoord-1 -> zkcoord-2 -> Curator three times, each leader leaving and
// rejoining at the tail. Asserted at every step: Curator's getLeader().getId(), its
// getParticipants() order and zkcoord's async_participants agree on who leads, and it is the
// one actually elected; Curator's hasLeadership() is false and its listener never reports
// leadership while a zkcoord participant leads; terms (czxids) increase across both clients;
// no node is left behind. Missing java, javac or the Curator jars FAIL the test.
#include <zkcoord/election.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE election_interop
#include <boost/test/unit_test.hpp>

#include "support/curator_java.hpp"
#include "support/election_listing.hpp"
#include "support/holder_child.hpp"

#include <filesystem>
#include <sstream>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;
using test::field;
using test::ids_of;
using test::participants_of;
using test::tuple_future;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;

// What Curator's "query" command answered.
struct curator_view {
  bool has_leadership = false;
  std::string leader;
  std::vector<std::string> ids;
};

std::vector<std::string> split_ids(const std::string& text) {
  std::vector<std::string> ids;
  std::istringstream in(text);
  for (std::string id; std::getline(in, id, ',');) ids.push_back(id);
  return ids;
}

// The Curator program, read as one ordered stream: a listener's "isLeader" line that arrives
// while `zkcoord_leads` is set was printed before the answer we were waiting for, i.e. while a
// zkcoord participant led (or so shortly before its release that no query came in between).
class curator_latch {
 public:
  curator_latch(const std::string& connect, const std::string& path, const std::string& id)
      : child_({"java", "-cp", test::curator_classpath(work / "classes"), "CuratorLatch", connect,
                path, id}) {
    next_with("ready");
  }
  ~curator_latch() {
    child_.write_line("quit");
    BOOST_TEST(child_.wait_exit(30s).value_or(-1) == 0);
  }

  /// Sends `command` and returns the line that answers it.
  std::string ask(const std::string& command, const std::string& answer) {
    child_.write_line(command);
    return next_with(answer);
  }
  curator_view query() {
    const std::string line = ask("query", "state ");
    return {field(line, "has") == "true", field(line, "leader"), split_ids(field(line, "ids"))};
  }
  /// Waits for the listener to report leadership; returns the term (its node's czxid).
  std::int64_t await_leadership() {
    next_with("isLeader");
    return last_term_;
  }

  bool zkcoord_leads = false;
  int leadership_reports_while_zkcoord_led = 0;

 private:
  std::string next_with(const std::string& prefix) {
    for (;;) {
      const auto line = child_.read_line(60s);
      BOOST_REQUIRE_MESSAGE(line.has_value(),
                            "Curator said nothing (waiting for " << prefix << ")");
      BOOST_TEST_MESSAGE("curator: " << *line);
      BOOST_REQUIRE_MESSAGE(line->rfind("error", 0) != 0, "Curator: " << *line);
      if (line->rfind("isLeader", 0) == 0) {
        last_term_ = std::stoll(field(*line, "czxid"));
        if (zkcoord_leads) ++leadership_reports_while_zkcoord_led;
      }
      if (line->rfind(prefix, 0) == 0) return *line;
    }
  }

  test::piped_child child_;
  std::int64_t last_term_ = 0;
};

// One zkcoord participant on its own session.
struct zkcoord_participant {
  zkcoord_participant(test::io_thread& io, const std::string& connect, const std::string& path,
                      std::string id)
      : s(io.executor(), session_options{.connect = connect}), e(s, path, std::move(id)) {
    test::get(s.async_connect(asio::use_future));
  }
  session s;
  election e;
  test::campaign_future campaign;
};

// Campaigns `p` and waits until its node is listed (so the queue order is known).
void campaign_queued(zkcoord_participant& p, session& reader, const std::string& path) {
  p.campaign = test::campaign_queued(p.e, reader, path);
}

// Both sides see `leader` first and the same queue; the listed leader's term is `term`.
void check_agreement(curator_latch& curator, session& reader, const std::string& path,
                     const std::string& leader, std::int64_t term) {
  const auto listed = participants_of(reader, path);
  BOOST_REQUIRE(!listed.empty());
  BOOST_TEST(listed.front().leader);
  BOOST_TEST(listed.front().id == leader);
  BOOST_TEST(listed.front().term.value() == term);
  const curator_view view = curator.query();
  BOOST_TEST(view.leader == leader);
  BOOST_TEST(view.ids == ids_of(listed), boost::test_tools::per_element());
  BOOST_TEST(view.has_leadership == (leader == "curator-0"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(curator_leader_latch_and_zkcoord_hand_leadership_round) {
  test::compile_curator_program(sources / "CuratorLatch.java", work / "classes");
  testing::test_cluster cluster;
  const std::string path = testing::unique_path("election-interop");
  test::io_thread io;
  session reader(io.executor(), session_options{.connect = cluster.connect_string()});
  test::get(reader.async_connect(asio::use_future));

  curator_latch curator(cluster.connect_string(), path, "curator-0");
  std::int64_t term = curator.await_leadership();  // alone on the path
  zkcoord_participant z1(io, cluster.connect_string(), path, "zkcoord-1");
  zkcoord_participant z2(io, cluster.connect_string(), path, "zkcoord-2");
  campaign_queued(z1, reader, path);
  campaign_queued(z2, reader, path);
  BOOST_TEST(ids_of(participants_of(reader, path)) ==
                 (std::vector<std::string>{"curator-0", "zkcoord-1", "zkcoord-2"}),
             boost::test_tools::per_element());
  check_agreement(curator, reader, path, "curator-0", term);
  BOOST_TEST((z1.campaign.wait_for(300ms) == std::future_status::timeout),
             "zkcoord elected while Curator leads");

  for (int round = 0; round < 3; ++round) {
    BOOST_TEST_CONTEXT("round " << round) {
      // Curator leaves and rejoins at the tail: zkcoord-1 is elected.
      curator.ask("close", "closed");
      curator.ask("start", "started");
      // Curator creates its node in the background: wait until it is listed.
      test::await_participant_count(reader, path, 3);
      for (zkcoord_participant* next : {&z1, &z2}) {
        BOOST_REQUIRE(next->campaign.wait_for(10s) == std::future_status::ready);
        auto [ec, held] = next->campaign.get();
        BOOST_REQUIRE_MESSAGE(!ec, ec.message());
        curator.zkcoord_leads = true;
        BOOST_TEST(held.token().value() > term);
        term = held.token().value();
        check_agreement(curator, reader, path, next->e.participant_id(), term);
        // Just before the hand-over Curator still does not think it leads.
        BOOST_TEST(!curator.query().has_leadership);
        BOOST_REQUIRE(!std::get<0>(test::get(held.async_release(tuple_future))));
        curator.zkcoord_leads = false;
        campaign_queued(*next, reader, path);  // rejoin at the tail
      }
      // zkcoord-2 left: Curator, now first, is elected.
      const std::int64_t curator_term = curator.await_leadership();
      BOOST_TEST(curator_term > term);
      term = curator_term;
      check_agreement(curator, reader, path, "curator-0", term);
      BOOST_TEST((z1.campaign.wait_for(100ms) == std::future_status::timeout),
                 "zkcoord elected while Curator leads");
    }
  }
  BOOST_TEST(curator.leadership_reports_while_zkcoord_led == 0);

  // Everyone leaves: no node stays.
  curator.ask("close", "closed");
  BOOST_REQUIRE(z1.campaign.wait_for(10s) == std::future_status::ready);
  auto [ec, held] = z1.campaign.get();
  BOOST_REQUIRE(!ec);
  BOOST_TEST(!std::get<0>(test::get(held.async_release(tuple_future))));
  BOOST_REQUIRE(z2.campaign.wait_for(10s) == std::future_status::ready);
  auto [ec2, held2] = z2.campaign.get();
  BOOST_REQUIRE(!ec2);
  BOOST_TEST(!std::get<0>(test::get(held2.async_release(tuple_future))));
  BOOST_TEST(participants_of(reader, path).empty());
}
