// SPDX-License-Identifier: Apache-2.0
// docs/discovery.md's snippet as a program: registers one instance of the service "orders"
// where Curator's ServiceDiscovery looks for it, then reads the service's instances back and
// prints each one (or why a node someone else wrote does not decode). Exit status 1 on error.
//   zkcoord_snippet_service_registration CONNECT
#include <zkcoord/membership.hpp>
#include <zkcoord/service_discovery.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>

#include <chrono>
#include <cstdint>
#include <iostream>
#include <string>

namespace asio = boost::asio;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);

void log(const std::string& what, const std::string& id, const std::string& why) {
  std::cerr << what << " " << id << ": " << why << "\n";
}
void use(const zkcoord::service_instance& found) {
  std::cout << found.name << "/" << found.id << " at " << found.address.value_or("?") << ":"
            << found.port.value_or(0) << "\n";
}

asio::awaitable<int> tour(zkcoord::session& s, std::int64_t now_ms) {
  // [snippet:register_and_read]
  zkcoord::service_instance me;
  me.name = "orders";     // the service
  me.id = "orders-7f3a";  // the instance: the node's name
  me.address = "10.1.2.3";
  me.port = 8080;
  me.payload_json = zkcoord::json_string_payload("eu-1");  // a Java String payload
  me.registration_time_utc = now_ms;
  me.uri = zkcoord::parse_uri_spec("{scheme}://{address}:{port}");

  auto [ec, member] = co_await zkcoord::async_register_service(s, "/services", me, tuple);
  // member: a zkcoord::membership (async_wait_reregistered, async_set_data, async_leave)

  zkcoord::group_view view(s, zkcoord::service_path("/services", "orders"));
  auto [ec2, members] = co_await view.async_wait_change(tuple);
  for (const auto& found : zkcoord::decode_service_instances(members)) {
    if (!found.instance)
      log("instance", found.node.id, found.instance.message());
    else
      use(*found.instance.value);
  }
  // [end snippet]
  if (ec || ec2) {
    std::cerr << "register: " << ec.message() << ", view: " << ec2.message() << "\n";
    co_return 1;
  }
  co_await member.async_leave(tuple);
  co_return 0;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: zkcoord_snippet_service_registration CONNECT\n";
    return 2;
  }
  asio::io_context io;
  zkcoord::session_options options;
  options.connect = argv[1];
  zkcoord::session s(io.get_executor(), options);
  int status = 1;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        if (auto [ec] = co_await s.async_connect(tuple); ec) {
          std::cerr << "connect: " << ec.message() << "\n";
          co_return;
        }
        const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
            std::chrono::system_clock::now().time_since_epoch());
        status = co_await tour(s, now.count());
      },
      asio::detached);
  io.run();
  return status;
}
