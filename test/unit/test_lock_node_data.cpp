// SPDX-License-Identifier: Apache-2.0
// Lock-node naming (Curator's protected layout) and the holder data written into the node.
#include "recipe/holder_data.hpp"
#include "recipe/node_name.hpp"
#include "recipe/sequence.hpp"

#define BOOST_TEST_MODULE lock_node_data
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <ostream>

using namespace zkcoord::detail;

namespace zkcoord::detail {
std::ostream& operator<<(std::ostream& os, const holder_info& h) {
  return os << "{host=" << h.host << " pid=" << h.pid << " session=" << h.session_id
            << " start=" << h.process_start << " app=" << h.app_id << "}";
}
}  // namespace zkcoord::detail

BOOST_AUTO_TEST_CASE(protected_prefix_has_curators_layout) {
  BOOST_TEST(protected_node_prefix("0f3e0b6a-1234") == "_c_0f3e0b6a-1234-lock-");
  const std::string prefix = new_protected_node_prefix();
  BOOST_TEST(prefix.size() == std::string("_c_-lock-").size() + 36);
  BOOST_TEST(prefix.starts_with("_c_"));
  BOOST_TEST(prefix.ends_with("-lock-"));
  BOOST_TEST(new_protected_node_prefix() != prefix);
  // What the server makes of it is a lock node.
  BOOST_TEST(parse_lock_sequence(prefix + "0000000012").value() == 12);
}

BOOST_AUTO_TEST_CASE(recognises_own_prefix_only) {
  const std::string prefix = protected_node_prefix("aaaa");
  BOOST_TEST(has_protected_prefix("_c_aaaa-lock-0000000001", prefix));
  BOOST_TEST(!has_protected_prefix("_c_aaab-lock-0000000001", prefix));
  BOOST_TEST(!has_protected_prefix("_c_aaaa-lock", prefix));
  BOOST_TEST(!has_protected_prefix("_c_aaaa-lock-0000000001", ""));
}

BOOST_AUTO_TEST_CASE(node_name_is_the_last_component) {
  BOOST_TEST(node_name_of("/locks/a/_c_x-lock-0000000001") == "_c_x-lock-0000000001");
  BOOST_TEST(node_name_of("/n") == "n");
}

BOOST_AUTO_TEST_CASE(holder_data_is_readable_and_round_trips) {
  const holder_info holder{.host = "web-1",
                           .pid = 4242,
                           .session_id = 0x1000abc,
                           .process_start = 1764627051,
                           .app_id = "billing"};
  BOOST_TEST(encode_holder_data(holder) ==
             "host=web-1;pid=4242;session=0x1000abc;start=1764627051;app=billing");
  BOOST_TEST(decode_holder_data(encode_holder_data(holder)) == holder);
  // Session ids with the high bit set (server ids >= 128) keep their bits.
  const holder_info high{.host = "h", .pid = 1, .session_id = -0x7f00000000000001};
  BOOST_TEST(encode_holder_data(high).find(";session=0x80ffffffffffffff;") != std::string::npos);
  BOOST_TEST(decode_holder_data(encode_holder_data(high)) == high);
}

BOOST_AUTO_TEST_CASE(holder_data_of_earlier_versions_still_decodes) {
  // Written before session and start were recorded.
  const holder_info old = decode_holder_data("host=web-1;pid=4242;app=billing");
  BOOST_TEST(old == (holder_info{.host = "web-1", .pid = 4242, .app_id = "billing"}));
}

BOOST_AUTO_TEST_CASE(holder_data_escapes_separators) {
  const holder_info holder{.host = "h;x=1", .pid = 1, .app_id = std::string("a%b\n\0c", 6)};
  const std::string data = encode_holder_data(holder);
  BOOST_TEST(data == "host=h%3Bx%3D1;pid=1;session=0x0;start=0;app=a%25b%0A%00c");
  BOOST_TEST(decode_holder_data(data) == holder);
}

BOOST_AUTO_TEST_CASE(holder_data_tolerates_unknown_keys_and_bad_escapes) {
  const holder_info decoded = decode_holder_data("v=2;host=h;zone=eu;pid=77;app=x%G1%4");
  BOOST_TEST(decoded.host == "h");
  BOOST_TEST(decoded.pid == 77);
  BOOST_TEST(decoded.app_id == "x%G1%4");
}

BOOST_AUTO_TEST_CASE(foreign_data_is_shown_as_app_id) {
  // Curator writes the client's IP address; kazoo its identifier.
  const holder_info curator = decode_holder_data("10.0.0.7");
  BOOST_TEST(curator.app_id == "10.0.0.7");
  BOOST_TEST(curator.host.empty());
  BOOST_TEST(curator.pid == 0);
  BOOST_TEST(decode_holder_data("").app_id.empty());
}

BOOST_AUTO_TEST_CASE(this_process_is_named) {
  const holder_info me = this_process_holder("app", 0x1234);
  BOOST_TEST(!me.host.empty());
  BOOST_TEST(me.pid > 0);
  BOOST_TEST(me.session_id == 0x1234);
  BOOST_TEST(me.app_id == "app");
  // The process started before this test ran, and not before the year 2020.
  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  BOOST_TEST(me.process_start <= now + 1);
  BOOST_TEST(me.process_start > 1577836800);
}
