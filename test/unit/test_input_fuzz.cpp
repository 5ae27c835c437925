// SPDX-License-Identifier: Apache-2.0
// Test-matrix row 17 (the input half; the state machine's half is unit_contender_fsm_property):
// random inputs for path validation, sequence-suffix parsing and contender ordering, checked
// against independent properties rather than against a copy of the code under test.
#include <zkcoord/path.hpp>

#include "recipe/contender_queue.hpp"
#include "recipe/sequence.hpp"

#define BOOST_TEST_MODULE input_fuzz
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace zkcoord;
using zkcoord::detail::contender_queue;
using zkcoord::detail::parse_lock_sequence;

namespace {

std::mt19937 random_engine(20261130);

std::size_t pick(std::size_t n) {
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_engine);
}

// ZooKeeper's PathUtils rules, for paths made of the fuzz alphabet below: '/'-separated, no
// empty, "." or ".." component, no trailing '/' (except "/" itself), no NUL or control
// character (C0, DEL, C1), well-formed UTF-8 ("\xc3\xa9" is the only valid multi-byte sequence
// the alphabet can form). A sequential create's path is checked as ZooKeeper does: with the
// sequence appended ("1" stands for it).
bool zookeeper_accepts(std::string p, bool sequential) {
  if (sequential) p += "1";
  if (p.empty() || p[0] != '/') return false;
  if (p == "/") return true;
  if (p.back() == '/') return false;
  std::size_t start = 1;
  while (start <= p.size()) {
    std::size_t end = p.find('/', start);
    if (end == std::string::npos) end = p.size();
    const std::string part = p.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  for (std::size_t i = 0; i < p.size(); ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    if (c < 0x20 || c == 0x7f) return false;
    if (c == 0xc3) {
      if (i + 1 >= p.size() || static_cast<unsigned char>(p[i + 1]) != 0xa9) return false;
      ++i;
    } else if (c >= 0x80) {
      return false;
    }
  }
  return true;
}

std::string random_path() {
  static const std::vector<std::string> alphabet = {
      "/",    "/",    "/",    ".",    "a",        "-",   "0", " ", std::string(1, '\0'),
      "\x01", "\x7f", "\xc3", "\xa9", "\xc3\xa9", "\xff"};
  std::string p;
  const std::size_t n = pick(10);
  for (std::size_t i = 0; i < n; ++i) p += alphabet[pick(alphabet.size())];
  return p;
}

std::string format_sequence(std::int32_t v) {
  char out[16];
  std::snprintf(out, sizeof out, "%010d", v);
  return out;
}

std::int32_t random_int32() {
  return static_cast<std::int32_t>(std::uniform_int_distribution<std::uint32_t>()(random_engine));
}

}  // namespace

BOOST_AUTO_TEST_CASE(path_validation_agrees_with_zookeepers_rules) {
  int accepted = 0;
  for (int i = 0; i < 200000; ++i) {
    const std::string p = random_path();
    for (const bool sequential : {false, true}) {
      const std::string why = path_problem(p, sequential);
      const bool expected = zookeeper_accepts(p, sequential);
      BOOST_TEST_CONTEXT("path of " << p.size() << " bytes, sequential " << sequential) {
        BOOST_TEST(why.empty() == expected, "path_problem said: '" << why << "'");
        if (!why.empty()) BOOST_TEST(why.find("invalid path") == 0u);
      }
      accepted += expected;
    }
  }
  BOOST_TEST(accepted > 1000);  // the alphabet reaches both outcomes
}

BOOST_AUTO_TEST_CASE(sequence_suffixes_round_trip_and_never_misparse) {
  static const std::vector<std::string> prefixes = {"",       "_c_0f-",  "x",       "lock",
                                                    "-lock-", "__lock_", "a-lock-", "__lock__"};
  static const std::vector<std::string> markers = {"lock-", "__lock__", "-lock-"};
  for (int i = 0; i < 100000; ++i) {
    // Every number ZooKeeper can write behind a marker parses back to itself.
    const std::int32_t v = random_int32();
    const std::string name =
        prefixes[pick(prefixes.size())] + markers[pick(markers.size())] + format_sequence(v);
    BOOST_TEST_CONTEXT(name) {
      BOOST_TEST((parse_lock_sequence(name) == std::optional(v)));
    }

    // Any other name: a number is only ever read from the name's own "%010d" tail.
    std::string junk = prefixes[pick(prefixes.size())];
    const std::size_t n = pick(14);
    for (std::size_t k = 0; k < n; ++k) junk += "0123456789-lock_"[pick(16)];
    if (const auto parsed = parse_lock_sequence(junk)) {
      const std::string tail = format_sequence(*parsed);
      BOOST_TEST_CONTEXT(junk) {
        BOOST_TEST(junk.size() >= tail.size());
        BOOST_TEST(junk.compare(junk.size() - tail.size(), tail.size(), tail) == 0);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(contender_order_is_a_chain_of_predecessors) {
  for (int round = 0; round < 2000; ++round) {
    // Distinct sequences in a window of less than 2^31 (around the overflow or not), plus
    // children that are not contenders.
    const std::uint32_t first = static_cast<std::uint32_t>(random_int32());
    std::set<std::uint32_t> offsets;
    const std::size_t n = 1 + pick(40);
    while (offsets.size() < n) offsets.insert(static_cast<std::uint32_t>(pick(1u << 30)));
    std::vector<std::string> created;  // in creation (= grant) order
    for (const std::uint32_t off : offsets) {
      const auto seq = static_cast<std::int32_t>(first + off);
      created.push_back((pick(2) ? "_c_" + std::to_string(off) + "-lock-"
                                 : "k" + std::to_string(off) + "__lock__") +
                        format_sequence(seq));
    }
    std::vector<std::string> listed = created;
    listed.push_back("config");
    listed.push_back("_c_x-lock-12");
    std::shuffle(listed.begin(), listed.end(), random_engine);

    const contender_queue queue(listed);
    BOOST_TEST_CONTEXT("round " << round << ", first " << first) {
      BOOST_REQUIRE(queue.nodes().size() == created.size());
      for (std::size_t i = 0; i < created.size(); ++i) {
        BOOST_TEST(queue.nodes()[i].name == created[i]);
        BOOST_TEST((queue.position_of(created[i]) == std::optional(i)));
        if (i == 0) {
          BOOST_TEST(!queue.predecessor_of(created[i]));
        } else {
          BOOST_TEST((queue.predecessor_of(created[i]) == std::optional(created[i - 1])));
        }
      }
      BOOST_TEST(!queue.position_of("config"));
      BOOST_TEST(!queue.position_of("_c_x-lock-12"));
    }
  }
}
