// SPDX-License-Identifier: Apache-2.0
// Interoperability of service registration with Apache Curator x-discovery (Debian's 5.4.0 jar,
// test/interop/CuratorDiscovery.java, compiled here at test time; missing Java or the jar FAILS
// the test): an instance zkcoord registers is found by Curator's ServiceDiscovery with every
// field equal; an instance Curator registers is read back by our decoder field by field (and
// re-encoded to the same bytes); a node of malformed JSON under the service is reported for that
// node alone.
#include <zkcoord/service_discovery.hpp>

#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE discovery_interop
#include <boost/test/unit_test.hpp>

#include "support/curator_java.hpp"

#include <filesystem>
#include <map>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace fs = std::filesystem;

namespace {

const fs::path sources = ZKCOORD_INTEROP_SOURCES;
const fs::path work = ZKCOORD_INTEROP_WORK;

std::string unescape(std::string_view v) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size()) {
      ++i;
      out += v[i] == 't' ? '\t' : v[i] == 'n' ? '\n' : v[i];
    } else {
      out += v[i];
    }
  }
  return out;
}

// An "instance\tkey=value..." line of CuratorDiscovery as a map.
std::map<std::string, std::string> fields_of(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::size_t at = line.find('\t');
  while (at != std::string::npos) {
    const std::size_t next = line.find('\t', at + 1);
    const std::string item = line.substr(at + 1, next == std::string::npos ? next : next - at - 1);
    const auto eq = item.find('=');
    fields[item.substr(0, eq)] = unescape(item.substr(eq + 1));
    at = next;
  }
  return fields;
}

class curator_discovery {
 public:
  curator_discovery(const std::string& connect, const std::string& base)
      : child_({"java", "-cp", test::curator_classpath(work / "classes"), "CuratorDiscovery",
                connect, base}) {
    next();
    BOOST_REQUIRE(last_ == "ready");
  }
  ~curator_discovery() {
    child_.write_line("quit");
    BOOST_TEST(child_.wait_exit(30s).value_or(-1) == 0);
  }
  const std::string& ask(const std::string& command) {
    child_.write_line(command);
    return next();
  }
  const std::string& next() {
    const auto line = child_.read_line(60s);
    BOOST_REQUIRE_MESSAGE(line.has_value(), "Curator said nothing");
    BOOST_TEST_MESSAGE("curator: " << *line);
    BOOST_REQUIRE_MESSAGE(line->rfind("error", 0) != 0, "Curator: " << *line);
    last_ = *line;
    return last_;
  }
  /// queryForInstances(name): the instance lines by id.
  std::map<std::string, std::map<std::string, std::string>> query(const std::string& name) {
    std::map<std::string, std::map<std::string, std::string>> found;
    for (ask("query\t" + name); last_.rfind("instance\t", 0) == 0; next()) {
      auto fields = fields_of(last_);
      found[fields["id"]] = fields;
    }
    BOOST_REQUIRE_MESSAGE(last_ == "end " + std::to_string(found.size()), last_);
    return found;
  }

 private:
  test::piped_child child_;
  std::string last_;
};

struct fixture {
  fixture() {
    test::compile_curator_program(sources / "CuratorDiscovery.java", work / "classes");
    test::get(s.async_connect(asio::use_future));
  }
  testing::test_cluster cluster;
  const std::string base = testing::unique_path("discovery-interop");
  test::io_thread io;
  session s{io.executor(), session_options{.connect = cluster.connect_string()}};
};

// What Curator's describe() prints for our uri_spec.
std::string parts_text(const std::optional<uri_spec>& uri) {
  if (!uri) return "null";
  std::string text;
  for (const auto& p : uri->parts)
    text += "[" + p.value + "," + (p.variable ? "true" : "false") + "]";
  return text;
}

std::string optional_text(const std::optional<std::int32_t>& v) {
  return v ? std::to_string(*v) : "null";
}

service_instance zkcoord_instance(std::string id) {
  service_instance i;
  i.name = "orders";
  i.id = std::move(id);
  i.address = "10.1.2.3";
  i.port = 8080;
  i.ssl_port = 8443;
  i.payload_json = json_string_payload("caf\xc3\xa9 \"quoted\" back\\slash");
  i.registration_time_utc = 1700000000123;
  i.uri = parse_uri_spec("{scheme}://{address}:{port}/v1");
  return i;
}

std::vector<member_info> members_of(session& s, const std::string& path) {
  group_view view(s, path);
  auto [ec, members] = test::get(view.async_wait_change(test::tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  return members;
}

}  // namespace

BOOST_FIXTURE_TEST_CASE(zkcoord_instance_is_found_by_curator_with_every_field, fixture) {
  service_instance with_string = zkcoord_instance("zk-1");
  service_instance with_map = zkcoord_instance("zk-2");
  with_map.payload_json = R"({"@class":"java.util.HashMap","region":"eu-1"})";
  with_map.ssl_port.reset();
  with_map.address.reset();
  with_map.uri.reset();
  service_instance with_number = zkcoord_instance("zk-3");
  with_number.payload_json = "42";
  std::vector<membership> members;
  for (const auto* i : {&with_string, &with_map, &with_number}) {
    auto [ec, m] = test::get(async_register_service(s, base, *i, test::tuple_future));
    BOOST_REQUIRE_MESSAGE(!ec, ec.message());
    BOOST_TEST(m.path() == base + "/orders/" + i->id);
    members.push_back(std::move(m));
  }

  curator_discovery curator(cluster.connect_string(), base);
  const auto found = curator.query("orders");
  BOOST_REQUIRE(found.size() == 3u);
  for (const auto* i : {&with_string, &with_map, &with_number}) {
    BOOST_TEST_CONTEXT(i->id) {
      BOOST_REQUIRE(found.count(i->id) == 1u);
      auto f = found.at(i->id);
      BOOST_TEST(f["name"] == i->name);
      BOOST_TEST(f["address"] == i->address.value_or("null"));
      BOOST_TEST(f["port"] == optional_text(i->port));
      BOOST_TEST(f["sslPort"] == optional_text(i->ssl_port));
      BOOST_TEST(f["time"] == std::to_string(i->registration_time_utc));
      BOOST_TEST(f["type"] == "DYNAMIC");
      BOOST_TEST(f["uri"] == parts_text(i->uri));
      BOOST_TEST(f["enabled"] == "true");
    }
  }
  BOOST_TEST(found.at("zk-1").at("payloadClass") == "java.lang.String");
  BOOST_TEST(found.at("zk-1").at("payload") == "caf\xc3\xa9 \"quoted\" back\\slash");
  BOOST_TEST(found.at("zk-1").at("uriBuilt") == "https://10.1.2.3:8080/v1");
  BOOST_TEST(found.at("zk-2").at("payloadClass") == "java.util.HashMap");
  BOOST_TEST(found.at("zk-2").at("payload") == "{region=eu-1}");
  BOOST_TEST(found.at("zk-3").at("payloadClass") == "java.lang.Integer");
  BOOST_TEST(found.at("zk-3").at("payload") == "42");
  // queryForInstance reads one node the same way.
  BOOST_TEST(fields_of(curator.ask("queryone\torders\tzk-1"))["port"] == "8080");

  // Leaving removes the instance from Curator's view.
  BOOST_REQUIRE(!std::get<0>(test::get(members[0].async_leave(test::tuple_future))));
  BOOST_TEST(curator.query("orders").count("zk-1") == 0u);
}

BOOST_FIXTURE_TEST_CASE(curator_instance_is_read_back_field_by_field_and_byte_for_byte, fixture) {
  curator_discovery curator(cluster.connect_string(), base);
  curator.ask(
      "register\torders\tj-1\t10.9.8.7\t9090\t-\tmap:zone=a \"b\" \xc3\xa9\t1700000000999\t"
      "DYNAMIC\t{scheme}://h:{port}");
  BOOST_REQUIRE(curator.ask("register\torders\tj-2\t-\t-\t443\tstring:hi\\there\t5\tDYNAMIC\t-") ==
                "registered");

  auto [ec, node] = test::get(s.async_get(base + "/orders/j-1", test::tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  BOOST_TEST_MESSAGE("Curator wrote: " << node.data);
  const auto decoded = decode_service_instance(node.data);
  BOOST_REQUIRE_MESSAGE(decoded, decoded.message());
  const service_instance& i = *decoded.value;
  BOOST_TEST(i.name == "orders");
  BOOST_TEST(i.id == "j-1");
  BOOST_TEST(i.address.value() == "10.9.8.7");
  BOOST_TEST(i.port.value() == 9090);
  BOOST_TEST(!i.ssl_port.has_value());
  BOOST_TEST(i.payload_json.value() == R"({"@class":"java.util.HashMap","zone":"a \"b\" )"
                                       "\xc3\xa9"
                                       R"("})");
  BOOST_TEST(i.registration_time_utc == 1700000000999);
  BOOST_TEST((i.type == service_type::dynamic));
  BOOST_TEST(parts_text(i.uri) == "[scheme,true][://h:,false][port,true]");
  BOOST_TEST(i.enabled);
  // Our encoder writes exactly Curator's bytes for what it read.
  BOOST_TEST(encode_service_instance(i).value.value() == node.data);
  BOOST_TEST(node.stat.ephemeral_owner != 0);

  auto [ec2, node2] = test::get(s.async_get(base + "/orders/j-2", test::tuple_future));
  BOOST_REQUIRE(!ec2);
  const auto second = decode_service_instance(node2.data);
  BOOST_REQUIRE_MESSAGE(second, second.message());
  BOOST_TEST(string_payload(*second.value).value() == "hi\\there");
  BOOST_TEST(second.value->ssl_port.value() == 443);
  BOOST_TEST(!second.value->address.has_value());
  BOOST_TEST(encode_service_instance(*second.value).value.value() == node2.data);

  // The group view decodes both; a zkcoord registration under Curator's id is refused and
  // Curator's node stays as it was (Curator itself would have deleted it).
  const auto listed = decode_service_instances(members_of(s, service_path(base, "orders")));
  BOOST_REQUIRE(listed.size() == 2u);
  for (const auto& d : listed) BOOST_TEST(d.instance.value.has_value(), d.node.id);
  service_instance clash = zkcoord_instance("j-1");
  auto [join_ec, m] = test::get(async_register_service(s, base, clash, test::tuple_future));
  BOOST_TEST(join_ec == make_error_code(errc::already_registered), join_ec.message());
  auto [ec3, after] = test::get(s.async_get(base + "/orders/j-1", test::tuple_future));
  BOOST_REQUIRE(!ec3);
  BOOST_TEST(after.stat.czxid == node.stat.czxid);
  BOOST_TEST(after.data == node.data);
}

BOOST_FIXTURE_TEST_CASE(malformed_json_is_reported_for_that_instance_only, fixture) {
  auto [ec, m] =
      test::get(async_register_service(s, base, zkcoord_instance("good"), test::tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, ec.message());
  const std::string service = service_path(base, "orders");
  const std::vector<std::pair<std::string, std::string>> foreign = {
      {"truncated", R"({"name":"orders","id":"truncated","port":80)"},
      {"wrong-type", R"({"name":"orders","id":"wrong-type","port":"eighty"})"},
      {"huge-port", R"({"name":"orders","id":"huge-port","port":1e40})"},
      {"not-json", "host=a;pid=1"},
      {"empty", ""}};
  for (const auto& [id, data] : foreign) {
    auto [create_ec, created] =
        test::get(s.async_create(service + "/" + id, data, create_options{}, test::tuple_future));
    BOOST_REQUIRE_MESSAGE(!create_ec, create_ec.message());
  }
  const auto listed = decode_service_instances(members_of(s, service));
  BOOST_REQUIRE(listed.size() == foreign.size() + 1);
  std::map<std::string, const discovered_instance*> by_id;
  for (const auto& d : listed) by_id[d.node.id] = &d;
  BOOST_TEST(by_id.at("good")->instance.value.has_value());
  BOOST_TEST((*by_id.at("good")->instance.value == zkcoord_instance("good")));
  const std::map<std::string, service_json_errc> expected = {
      {"truncated", service_json_errc::not_json},
      {"wrong-type", service_json_errc::wrong_type},
      {"huge-port", service_json_errc::out_of_range},
      {"not-json", service_json_errc::not_json},
      {"empty", service_json_errc::not_json}};
  for (const auto& [id, errc_expected] : expected) {
    BOOST_TEST_CONTEXT(id) {
      const auto& result = by_id.at(id)->instance;
      BOOST_TEST(!result.value.has_value());
      BOOST_TEST(result.error == make_error_code(errc_expected), result.message());
    }
  }

  // Curator: what its ServiceDiscovery makes of the same service (printed, not asserted: it is
  // Curator's behaviour), and that it still reads the good instance by id.
  curator_discovery curator(cluster.connect_string(), base);
  std::string answer = curator.ask("query\torders");
  while (answer.rfind("instance\t", 0) == 0) answer = curator.next();
  BOOST_TEST_MESSAGE("Curator queryForInstances with malformed siblings: " << answer);
  BOOST_TEST(fields_of(curator.ask("queryone\torders\tgood"))["id"] == "good");
}
