// SPDX-License-Identifier: Apache-2.0
// docs/containers.md: a service tested against ZooKeeper in containers, cut off from the
// quorum. Run by test/container (container_docs_example); needs a Docker engine and the images
// of scripts/docker-images.
// [snippet:container_test]
#include <zkcoord/session.hpp>
#include <zkcoord/testing/container_ensemble.hpp>

#include <boost/asio.hpp>
#include <boost/asio/use_future.hpp>

#include <future>
#include <iostream>
#include <thread>

namespace asio = boost::asio;
using namespace std::chrono_literals;

int main() {
  zkcoord::testing::container_ensemble zk;  // 3 containers; returns once a leader serves
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });

  // The service under test talks to member 0 only: cut member 0 off and the service is alone.
  zkcoord::session service(io.get_executor(),
                           {.connect = zk.member_connect_string(0), .session_timeout = 4s});
  std::promise<void> expired;
  std::once_flag once;
  auto states = service.subscribe([&](zkcoord::session_state s) {
    if (s == zkcoord::session_state::expired) std::call_once(once, [&] { expired.set_value(); });
  });
  service.async_connect(asio::use_future).get();
  zk.isolate(0);  // member 0 leaves the quorum; the service still reaches it
  const bool noticed = expired.get_future().wait_for(30s) == std::future_status::ready;
  zk.heal(0);
  std::cout << (noticed ? "the cut-off service saw its session expire\n" : "it never noticed\n");
  service.close();
  work.reset();
  runner.join();
  return noticed ? 0 : 1;
}
// [end snippet]
