// SPDX-License-Identifier: Apache-2.0
// docs/barriers.md's program: three workers, each on its own session, start a phase together
// through a double barrier and finish it together; a coordinator holds them at a barrier
// first. Prints one line per step; exit status 1 on any unexpected result.
//   zkcoord_snippet_double_barrier CONNECT
#include <zkcoord/barrier.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>

#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace asio = boost::asio;
using namespace std::chrono_literals;

// [snippet:worker]
asio::awaitable<void> worker(zkcoord::session& zk, int id) {
  // Held while the coordinator's barrier node exists.
  zkcoord::barrier gate(zk, "/jobs/nightly/gate");
  co_await gate.async_wait_on_barrier();

  // All three start the phase together, and none goes on until all three are done.
  zkcoord::double_barrier phase(zk, "/jobs/nightly/phase", 3);
  co_await phase.async_enter(30s);  // errc::timeout after 30 s: our node is deleted
  std::cout << "worker " << id << ": all 3 entered\n";
  co_await phase.async_leave(30s);
  std::cout << "worker " << id << ": all 3 left\n";
}
// [end snippet]

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CONNECT\n";
    return 2;
  }
  asio::io_context io;
  auto work = asio::make_work_guard(io);
  std::thread runner([&] { io.run(); });
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  int status = 0;
  try {
    for (int i = 0; i < 4; ++i) {
      sessions.push_back(std::make_unique<zkcoord::session>(
          io.get_executor(), zkcoord::session_options{.connect = argv[1]}));
      sessions.back()->async_connect(asio::use_future).get();
    }
    // [snippet:coordinator]
    zkcoord::barrier gate(*sessions[0], "/jobs/nightly/gate");
    gate.async_set_barrier(asio::use_future).get();  // workers wait from now on
    // [end snippet]
    std::vector<std::future<void>> workers;
    for (int i = 1; i <= 3; ++i)
      workers.push_back(asio::co_spawn(io, worker(*sessions[i], i), asio::use_future));
    std::this_thread::sleep_for(200ms);
    std::cout << "coordinator: opening the gate\n";
    gate.async_remove_barrier(asio::use_future).get();
    for (auto& w : workers) w.get();
  } catch (const std::exception& e) {
    std::cerr << "double_barrier: " << e.what() << "\n";
    status = 1;
  }
  asio::post(io, [&] {
    for (auto& s : sessions) s->close();
    work.reset();
  });
  runner.join();
  return status;
}
