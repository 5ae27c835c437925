// SPDX-License-Identifier: Apache-2.0
// A group view's bookkeeping without a server: what a new listing adds and removes, what the
// snapshot holds (read members only, by id), and the member id rules.
#include "membership/group_members.hpp"

#define BOOST_TEST_MODULE group_members
#include <boost/test/unit_test.hpp>

#include <zkcoord/membership.hpp>

#include <string>
#include <vector>

using namespace zkcoord;
using namespace zkcoord::detail;
using strings = std::vector<std::string>;

namespace {

node_data node(std::string data, std::int64_t owner, zxid czxid) {
  node_data d;
  d.data = std::move(data);
  d.stat.ephemeral_owner = owner;
  d.stat.czxid = czxid;
  d.stat.ctime = 1700000000000;
  return d;
}

strings ids(const std::vector<member_info>& members) {
  strings out;
  for (const auto& m : members) out.push_back(m.id);
  return out;
}

BOOST_AUTO_TEST_CASE(listings_give_what_to_read_and_what_to_forget) {
  group_members g;
  auto first = g.on_listing({"b", "a"});
  BOOST_TEST(first.added == (strings{"a", "b"}), boost::test_tools::per_element());
  BOOST_TEST(first.removed.empty());
  auto second = g.on_listing({"c", "b"});
  BOOST_TEST(second.added == strings{"c"}, boost::test_tools::per_element());
  BOOST_TEST(second.removed == strings{"a"}, boost::test_tools::per_element());
  BOOST_TEST(g.on_listing({"b", "c"}).added.empty());
}

BOOST_AUTO_TEST_CASE(snapshot_holds_read_members_sorted_by_id) {
  group_members g;
  g.on_listing({"w2", "w1", "w3"});
  g.on_read("w2", node("two", 0x11, 0x100000002));
  g.on_read("w1", node("one", 0x10, 0x100000001));
  const auto snap = g.snapshot();
  BOOST_TEST(ids(snap) == (strings{"w1", "w2"}), boost::test_tools::per_element());  // w3 unread
  BOOST_TEST(snap[0].data == "one");
  BOOST_TEST(snap[0].session_id == 0x10);
  BOOST_TEST(snap[0].czxid == 0x100000001);
  BOOST_TEST(snap[0].ctime_ms == 1700000000000);
}

BOOST_AUTO_TEST_CASE(a_member_that_left_is_gone_even_before_the_next_listing) {
  group_members g;
  g.on_listing({"a", "b"});
  g.on_read("a", node("", 1, 1));
  g.on_read("b", node("", 2, 2));
  g.on_gone("a");
  BOOST_TEST(ids(g.snapshot()) == strings{"b"}, boost::test_tools::per_element());
  BOOST_TEST(!g.listed("a"));
  // A read that lands after its member left the listing is not a member again.
  g.on_listing({"b"});
  g.on_read("a", node("late", 1, 1));
  BOOST_TEST(ids(g.snapshot()) == strings{"b"}, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(foreign_and_odd_children_are_members_as_they_are) {
  group_members g;
  g.on_listing({"persistent", "binary"});
  g.on_read("persistent", node("{not json", 0, 5));
  g.on_read("binary", node(std::string("\0\xff", 2), 7, 6));
  const auto snap = g.snapshot();
  BOOST_REQUIRE_EQUAL(snap.size(), 2u);
  BOOST_TEST(snap[0].data == std::string("\0\xff", 2));
  BOOST_TEST(snap[1].session_id == 0);
}

BOOST_AUTO_TEST_CASE(member_ids_are_single_node_names) {
  const std::string longest(max_member_id_size, 'x');
  struct {
    std::string id;
    bool ok;
  } const cases[] = {
      {"worker-1", true},     {"10.0.0.1:8080", true},
      {"ünïcode", true},      {longest, true},
      {longest + "x", false}, {"", false},
      {".", false},           {"..", false},
      {"a/b", false},         {std::string("a\0b", 3), false},
      {"tab\there", false},   {"\xff", false},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("id '" << c.id << "'") {
      const std::string why = member_id_problem(c.id);
      BOOST_TEST(why.empty() == c.ok, why);
    }
  }
}

}  // namespace
