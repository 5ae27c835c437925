// SPDX-License-Identifier: Apache-2.0
// The counters' sans-I/O rules: Curator's and kazoo's byte layouts, the typed error for data of
// the wrong length, the shared_count cache that moves forward only by mzxid, and the plan of one
// compare-and-set attempt.
#include "counter/counter_codec.hpp"

#include <zkcoord/counter.hpp>

#define BOOST_TEST_MODULE counter_codec
#include <boost/test/unit_test.hpp>

#include <limits>
#include <string>

using namespace zkcoord;
using namespace zkcoord::detail;
using kind = atomic_request::kind;

namespace {
std::string bytes(std::initializer_list<unsigned char> list) {
  return {list.begin(), list.end()};
}
}  // namespace

BOOST_AUTO_TEST_CASE(encodings_are_big_endian_as_java_writes_them) {
  // ByteBuffer.putInt(1) / putLong(1), and kazoo's struct.pack(">i", -2).
  BOOST_TEST(encode_counter(1, 4) == bytes({0, 0, 0, 1}));
  BOOST_TEST(encode_counter(1, 8) == bytes({0, 0, 0, 0, 0, 0, 0, 1}));
  BOOST_TEST(encode_counter(-2, 4) == bytes({0xff, 0xff, 0xff, 0xfe}));
  BOOST_TEST(encode_counter(0x0102030405060708, 8) == bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  BOOST_TEST(encode_counter(258, 4) == bytes({0, 0, 1, 2}));
}

BOOST_AUTO_TEST_CASE(decoding_round_trips_every_width_and_sign) {
  for (const std::int64_t v : {std::int64_t{0}, std::int64_t{1}, std::int64_t{-1},
                               std::int64_t{std::numeric_limits<std::int32_t>::max()},
                               std::int64_t{std::numeric_limits<std::int32_t>::min()}}) {
    BOOST_TEST_CONTEXT(v) {
      BOOST_TEST(decode_counter(encode_counter(v, 4), 4, 0).value == v);
      BOOST_TEST(decode_counter(encode_counter(v, 8), 8, 0).value == v);
    }
  }
  const std::int64_t big = std::numeric_limits<std::int64_t>::min() + 5;
  BOOST_TEST(decode_counter(encode_counter(big, 8), 8, 0).value == big);
  BOOST_TEST(!decode_counter(encode_counter(big, 8), 8, 0).ec);
}

BOOST_AUTO_TEST_CASE(empty_data_reads_as_the_given_value) {
  // Curator's DistributedAtomicValue reads empty data as 0; kazoo's Counter creates its node
  // empty, and a shared_count reads that as its seed.
  BOOST_TEST(!decode_counter("", 8, 0).ec);
  BOOST_TEST(decode_counter("", 8, 0).value == 0);
  BOOST_TEST(decode_counter("", 4, 17).value == 17);
}

BOOST_AUTO_TEST_CASE(wrong_lengths_give_the_typed_error) {
  for (const std::string& data : {std::string("abc"), std::string(5, '\0'), std::string(8, 'x'),
                                  std::string("hello world")}) {
    BOOST_TEST_CONTEXT(data.size()) {
      const decoded_counter d = decode_counter(data, 4, 0);
      BOOST_TEST(d.ec == make_error_code(errc::bad_counter_data));
    }
  }
  // A DistributedAtomicInteger's 4 bytes are not a long.
  BOOST_TEST(decode_counter(encode_counter(1, 4), 8, 0).ec ==
             make_error_code(errc::bad_counter_data));
  const error_code ec = make_error_code(errc::bad_counter_data);
  BOOST_TEST(ec.message().find("wrong length") != std::string::npos);
  BOOST_TEST(ec == condition::permanent);
  BOOST_TEST(ec != condition::connection_loss);
  BOOST_TEST(ec != condition::invalid_argument);
}

BOOST_AUTO_TEST_CASE(the_cache_moves_forward_only_by_mzxid) {
  std::optional<versioned_count> cached;
  const versioned_count first{.value = 10, .version = 0, .mzxid = 100};
  BOOST_TEST(moves_forward(cached, first));  // nothing cached: version 0 is taken (CURATOR-329)
  cached = first;
  // A slow read answered after a newer write (CURATOR-688): a lower mzxid never replaces.
  BOOST_TEST(!moves_forward(cached, versioned_count{.value = 9, .version = 5, .mzxid = 99}));
  BOOST_TEST(!moves_forward(cached, first));  // the same write again
  BOOST_TEST(moves_forward(cached, versioned_count{.value = 11, .version = 1, .mzxid = 101}));
  // Versions wrap around (and restart at 0 when the node is re-created): only mzxid orders.
  const versioned_count wrapped{
      .value = 12, .version = std::numeric_limits<std::int32_t>::min(), .mzxid = 200};
  BOOST_TEST(moves_forward(cached, wrapped));
  cached = versioned_count{
      .value = 5, .version = std::numeric_limits<std::int32_t>::max(), .mzxid = 150};
  BOOST_TEST(moves_forward(cached, versioned_count{.value = 1, .version = 0, .mzxid = 151}));
}

BOOST_AUTO_TEST_CASE(version_minus_one_cannot_be_checked) {
  BOOST_TEST(!checkable_version(-1));
  BOOST_TEST(checkable_version(0));
  BOOST_TEST(checkable_version(std::numeric_limits<std::int32_t>::min()));
  BOOST_TEST(checkable_version(-2));
}

BOOST_AUTO_TEST_CASE(an_add_wraps_around_like_java) {
  const atomic_step int_step = plan_atomic_step({.what = kind::add, .operand = 1},
                                                std::numeric_limits<std::int32_t>::max(), 4);
  BOOST_TEST(int_step.write);
  BOOST_TEST(int_step.new_value == std::numeric_limits<std::int32_t>::min());
  const atomic_step long_step = plan_atomic_step({.what = kind::add, .operand = 1},
                                                 std::numeric_limits<std::int64_t>::max(), 8);
  BOOST_TEST(long_step.new_value == std::numeric_limits<std::int64_t>::min());
  BOOST_TEST(plan_atomic_step({.what = kind::add, .operand = -5}, 3, 8).new_value == -2);
}

BOOST_AUTO_TEST_CASE(each_operation_plans_its_write) {
  const atomic_step get = plan_atomic_step({.what = kind::get}, 42, 8);
  BOOST_TEST(!get.write);
  BOOST_TEST(get.succeeded);
  const atomic_step set = plan_atomic_step({.what = kind::try_set, .operand = 7}, 42, 8);
  BOOST_TEST(set.write);
  BOOST_TEST(set.new_value == 7);
  const atomic_step cas_hit =
      plan_atomic_step({.what = kind::compare_and_set, .operand = 9, .expected = 42}, 42, 8);
  BOOST_TEST(cas_hit.write);
  BOOST_TEST(cas_hit.new_value == 9);
  const atomic_step cas_miss =
      plan_atomic_step({.what = kind::compare_and_set, .operand = 9, .expected = 41}, 42, 8);
  BOOST_TEST(!cas_miss.write);
  BOOST_TEST(!cas_miss.succeeded);
  BOOST_TEST(!retries({.what = kind::compare_and_set}));
  BOOST_TEST(retries({.what = kind::add}));
  BOOST_TEST(retries({.what = kind::try_set}));
}
