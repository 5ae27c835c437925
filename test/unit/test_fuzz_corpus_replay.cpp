// SPDX-License-Identifier: Apache-2.0
// Replays every committed fuzz corpus (test/fuzz/corpus/<target>/) through the fuzz targets'
// bodies, so the normal build checks the properties on every input the fuzzer ever kept,
// including the ones that once broke them. A missing or empty corpus fails: the replay cannot
// pass by finding nothing. Also the named regression tests of the fuzzers' findings.
#include "fuzz_targets.hpp"

#include <zkcoord/path.hpp>

#include "lock/contender_list.hpp"
#include "recipe/sequence.hpp"

#define BOOST_TEST_MODULE fuzz_corpus_replay
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using fuzz_body = void (*)(const std::uint8_t*, std::size_t);

std::vector<fs::path> corpus_of(const std::string& target) {
  const fs::path dir = fs::path(ZKCOORD_FUZZ_CORPUS_DIR) / target;
  BOOST_REQUIRE_MESSAGE(fs::is_directory(dir), "no corpus directory " << dir);
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(entry.path());
  }
  BOOST_REQUIRE_MESSAGE(!files.empty(), "empty corpus " << dir);
  std::sort(files.begin(), files.end());
  return files;
}

std::string contents_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot read " << file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void replay(const std::string& target, fuzz_body body) {
  const auto files = corpus_of(target);
  std::size_t failed = 0;
  for (const auto& file : files) {
    const std::string input = contents_of(file);
    try {
      body(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    } catch (const std::exception& e) {
      ++failed;
      BOOST_ERROR(target << " on " << file << ": " << e.what());
    }
  }
  BOOST_TEST_MESSAGE(target << ": " << files.size() << " inputs replayed, " << failed << " failed");
}

}  // namespace

BOOST_AUTO_TEST_CASE(corpus_fuzz_path) {
  replay("fuzz_path", zkcoord::fuzz::fuzz_path);
}
BOOST_AUTO_TEST_CASE(corpus_fuzz_lock_name) {
  replay("fuzz_lock_name", zkcoord::fuzz::fuzz_lock_name);
}
BOOST_AUTO_TEST_CASE(corpus_fuzz_holder_data) {
  replay("fuzz_holder_data", zkcoord::fuzz::fuzz_holder_data);
}
BOOST_AUTO_TEST_CASE(corpus_fuzz_command_line) {
  replay("fuzz_command_line", zkcoord::fuzz::fuzz_command_line);
}
BOOST_AUTO_TEST_CASE(corpus_fuzz_service_instance) {
  replay("fuzz_service_instance", zkcoord::fuzz::fuzz_service_instance);
}

// fuzz_path: the server reads a path as Java UTF-16, where a code point past U+FFFF is a
// surrogate pair that PathUtils refuses; path_problem used to accept it (and overlong UTF-8,
// which the server decodes to the refused U+FFFD).
BOOST_AUTO_TEST_CASE(regression_path_outside_the_basic_plane_or_overlong_is_refused) {
  BOOST_TEST(!zkcoord::path_problem("/lock\xf0\x9f\x94\x92").empty());          // U+1F512
  BOOST_TEST(!zkcoord::path_problem("/a\xf4\x8f\xbf\xbf").empty());             // U+10FFFF
  BOOST_TEST(!zkcoord::path_problem("/a\xc1\x81").empty());                     // overlong 'A'
  BOOST_TEST(!zkcoord::path_problem("/a\xe0\x80\xaf").empty());                 // overlong '/'
  BOOST_TEST(zkcoord::path_problem("/\xc3\xa9t\xc3\xa9\xe2\x82\xac").empty());  // "/été€"
}

// fuzz_lock_name: "%010d" writes -58 as "-000000058"; the eleven-character "-0000000058" (and
// "-000000000") are never a sequence, but parse_lock_sequence read them as -58 (and 0).
BOOST_AUTO_TEST_CASE(regression_lock_sequence_only_as_printf_writes_it) {
  using zkcoord::detail::parse_lock_sequence;
  BOOST_TEST(!parse_lock_sequence("_c_c-lock--0000000058").has_value());
  BOOST_TEST(!parse_lock_sequence("k__lock__-000000000").has_value());
  BOOST_TEST((parse_lock_sequence("_c_c-lock--000000058") == std::optional(-58)));
  BOOST_TEST((parse_lock_sequence("_c_c-lock--1000000000") == std::optional(-1000000000)));
}

// fuzz_lock_name: a contender's age is our clock minus the server's ctime; a ctime near
// INT64_MIN overflowed the subtraction (UB, seen by UBSan). Now it is clamped.
BOOST_AUTO_TEST_CASE(regression_contender_age_of_a_wild_ctime_is_clamped) {
  using namespace std::chrono;
  const std::string name = "_c_a-lock-0000000001";
  zkcoord::node_data ancient;
  ancient.stat.ctime = std::numeric_limits<std::int64_t>::min() + 4;
  zkcoord::node_data future;
  future.stat.ctime = std::numeric_limits<std::int64_t>::max();
  const system_clock::time_point now{seconds(1767225600)};
  const auto old = zkcoord::detail::make_contenders({name}, {{name, ancient}}, now);
  const auto young = zkcoord::detail::make_contenders({name}, {{name, future}}, now);
  BOOST_REQUIRE(old.size() == 1u);
  BOOST_REQUIRE(young.size() == 1u);
  BOOST_TEST(old[0].age.count() == std::numeric_limits<std::int64_t>::max());
  BOOST_TEST(young[0].age.count() == 0);
}
