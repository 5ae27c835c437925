// SPDX-License-Identifier: Apache-2.0
// Connect strings taken apart and put back with numeric addresses (lib/session/resolve_hosts.*),
// what the C client is handed instead of host names (docs/session.md, "Name resolution").
#include "session/resolve_hosts.hpp"

#define BOOST_TEST_MODULE resolve_hosts
#include <boost/test/unit_test.hpp>

#include <boost/asio/io_context.hpp>

#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>

#include <filesystem>

using namespace zkcoord;
using zkcoord::detail::connect_parts;
using zkcoord::detail::format_connect_string;
using zkcoord::detail::host_port;
using zkcoord::detail::numeric_host;
using zkcoord::detail::parse_connect_string;
namespace asio = boost::asio;
using asio::ip::tcp;

namespace {

connect_parts parsed(std::string_view connect) {
  connect_parts parts;
  const std::string why = parse_connect_string(connect, parts);
  BOOST_TEST(why.empty(), connect << ": " << why);
  return parts;
}

std::string problem(std::string_view connect) {
  connect_parts parts;
  parts.hosts.push_back({"left", 1});
  std::string why = parse_connect_string(connect, parts);
  BOOST_TEST(parts.hosts.empty(), connect << ": nothing is left in `out` on failure");
  return why;
}

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task"))
    ++n;
  return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(hosts_ports_and_chroot_in_order) {
  const auto p = parsed("zk1:2181,10.0.0.2:2182, zk3.example.com:2183/app/one");
  const std::vector<host_port> want{{"zk1", 2181}, {"10.0.0.2", 2182}, {"zk3.example.com", 2183}};
  BOOST_TEST((p.hosts == want));
  BOOST_TEST(p.chroot == "/app/one");
  BOOST_TEST(parsed("localhost:2181").chroot.empty());
  BOOST_TEST(parsed("localhost:2181/").chroot == "/");
}

BOOST_AUTO_TEST_CASE(ipv6_literals_bracketed_or_as_the_c_client_reads_them) {
  const auto p = parsed("[::1]:2181,fe80::1:2182,[2001:db8::7]:65535/c");
  const std::vector<host_port> want{{"::1", 2181}, {"fe80::1", 2182}, {"2001:db8::7", 65535}};
  BOOST_TEST((p.hosts == want));
  BOOST_TEST(p.chroot == "/c");
}

BOOST_AUTO_TEST_CASE(malformed_connect_strings_say_why) {
  BOOST_TEST(problem("").find("names no host") != std::string::npos);
  BOOST_TEST(problem("/chroot").find("names no host") != std::string::npos);
  BOOST_TEST(problem("a:1,,b:2").find("empty host entry") != std::string::npos);
  BOOST_TEST(problem("a:1,").find("empty host entry") != std::string::npos);
  BOOST_TEST(problem("localhost").find("must be host:port") != std::string::npos);
  BOOST_TEST(problem(":2181").find("must be host:port") != std::string::npos);
  for (const char* bad : {"h:0", "h:65536", "h:99999", "h:", "h:12x", "h:-1", "h: 1"})
    BOOST_TEST(problem(bad).find("invalid port") != std::string::npos, bad);
  BOOST_TEST(problem("[::1:2181").find("no closing ']'") != std::string::npos);
  BOOST_TEST(problem("[::1]2181").find("[address]:port") != std::string::npos);
  BOOST_TEST(problem("[::1]").find("[address]:port") != std::string::npos);
  BOOST_TEST(problem("[zk1]:2181").find("IPv6") != std::string::npos);
  BOOST_TEST(problem("[10.0.0.1]:2181").find("IPv6") != std::string::npos);
  BOOST_TEST(problem("[::1]:0").find("invalid port") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(numeric_hosts_need_no_resolver) {
  BOOST_TEST(numeric_host("127.0.0.1").has_value());
  BOOST_TEST(numeric_host("::1").has_value());
  BOOST_TEST(numeric_host("2001:db8::7").has_value());
  BOOST_TEST(!numeric_host("localhost").has_value());
  BOOST_TEST(!numeric_host("zk1.example.com").has_value());
  BOOST_TEST(!numeric_host("[::1]").has_value());
  BOOST_TEST(!numeric_host("").has_value());
}

BOOST_AUTO_TEST_CASE(formatted_for_the_c_client_ipv6_without_brackets) {
  const std::vector<tcp::endpoint> servers{
      {asio::ip::make_address("127.0.0.1"), 2181},
      {asio::ip::make_address("::1"), 2182},
      // As given: duplicates stay (the C client keeps them too).
      {asio::ip::make_address("127.0.0.1"), 2181},
  };
  BOOST_TEST(format_connect_string(servers, "") == "127.0.0.1:2181,::1:2182,127.0.0.1:2181");
  BOOST_TEST(format_connect_string(servers, "/app") ==
             "127.0.0.1:2181,::1:2182,127.0.0.1:2181/app");
  // What the C client does with it: split at the last colon, so "::1" and 2182.
  const auto back = parsed(format_connect_string(servers, "/app"));
  BOOST_TEST(back.hosts[1].host == "::1");
  BOOST_TEST(back.hosts[1].port == 2182);
  BOOST_TEST(back.chroot == "/app");
}

BOOST_AUTO_TEST_CASE(a_numeric_connect_string_resolves_without_a_resolver_thread) {
  asio::io_context io;
  auto log = std::make_shared<spdlog::logger>(
      "resolve_hosts", std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16));
  const std::size_t before = threads_of_this_process();
  error_code got_ec = make_error_code(errc::closed);
  std::string got;
  detail::resolve_connect_string(io.get_executor(), "127.0.0.1:2181,[::1]:2182/x", log,
                                 [&](error_code ec, const std::string& numeric) {
                                   got_ec = ec;
                                   got = numeric;
                                 });
  io.run();
  BOOST_TEST(!got_ec);
  BOOST_TEST(got == "127.0.0.1:2181,::1:2182/x");
  BOOST_TEST(threads_of_this_process() == before);
}

BOOST_AUTO_TEST_CASE(a_malformed_connect_string_fails_typed) {
  asio::io_context io;
  auto log = std::make_shared<spdlog::logger>(
      "resolve_hosts", std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(16));
  error_code got_ec;
  bool called = false;
  detail::resolve_connect_string(io.get_executor(), "a:1,,b:2", log,
                                 [&](error_code ec, const std::string&) {
                                   got_ec = ec;
                                   called = true;
                                 });
  io.run();
  BOOST_TEST(called);
  BOOST_TEST(got_ec == errc::bad_connect_string);
}
