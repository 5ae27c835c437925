// SPDX-License-Identifier: Apache-2.0
// Path and connect-string validation: invalid input is refused with a message naming it.
#include <zkcoord/path.hpp>

#define BOOST_TEST_MODULE path
#include <boost/test/unit_test.hpp>

using namespace zkcoord;
using namespace std::string_literals;

struct path_case {
  std::string path;
  std::string reason;  // "" = valid
};

BOOST_AUTO_TEST_CASE(invalid_paths_are_refused_with_a_reason) {
  const path_case cases[] = {
      {"", "path is empty"},
      {"//", "must not end with '/'"},
      {"/a//b", "empty node name"},
      {"/.", "relative name \".\""},
      {"/a/./", "must not end with '/'"},
      {"/a/./b", "relative name \".\""},
      {"/a/../b", "relative name \"..\""},
      {"/a/", "must not end with '/'"},
      {"a", "must start with '/'"},
      {"/a\0b"s, "embedded NUL"},
      {"/a\x01", "forbidden character"},
      {"/a\xff", "malformed UTF-8"},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT("path " << c.path) {
      const std::string why = path_problem(c.path);
      BOOST_TEST(why.find(c.reason) != std::string::npos, "got: " << why);
      BOOST_TEST(why.find("invalid path") == 0u);
    }
  }
}

BOOST_AUTO_TEST_CASE(valid_paths_pass) {
  for (const char* p : {"/", "/a", "/a/b-c_d.e", "/zookeeper", "/a/.b", "/\xc3\xa9t\xc3\xa9"}) {
    BOOST_TEST_CONTEXT(p) {
      BOOST_TEST(path_problem(p).empty());
    }
  }
}

BOOST_AUTO_TEST_CASE(sequential_paths_may_end_with_a_slash) {
  BOOST_TEST(path_problem("/locks/", true).empty());
  BOOST_TEST(path_problem("/locks/n-", true).empty());
  BOOST_TEST(!path_problem("/locks//", true).empty());
}

BOOST_AUTO_TEST_CASE(connect_strings) {
  BOOST_TEST(connect_string_problem("127.0.0.1:2181").empty());
  BOOST_TEST(connect_string_problem("a:1,b:2,[::1]:3/chroot/x").empty());
  BOOST_TEST(!connect_string_problem("").empty());
  BOOST_TEST(!connect_string_problem("localhost").empty());
  BOOST_TEST(!connect_string_problem("localhost:0").empty());
  BOOST_TEST(!connect_string_problem("localhost:70000").empty());
  BOOST_TEST(!connect_string_problem("localhost:12x").empty());
  BOOST_TEST(!connect_string_problem("a:1,,b:2").empty());
  BOOST_TEST(connect_string_problem("a:1/bad/").find("chroot") == 0u);
}

BOOST_AUTO_TEST_CASE(joining_and_parents) {
  BOOST_TEST(join_path("/a", "b") == "/a/b");
  BOOST_TEST(join_path("/", "b") == "/b");
  BOOST_TEST(parent_path("/a/b") == "/a");
  BOOST_TEST(parent_path("/a") == "/");
}
