// SPDX-License-Identifier: Apache-2.0
// Pipelined create(EPHEMERAL|SEQUENTIAL)+delete cycles on one session, WINDOW in flight, for
// SECONDS: what the session layer adds over the raw C client (a bare C-client loop with the same
// workload and output line runs beside it when `scripts/bench` is given ZKCOORD_PEERS).
//   usage: zkcoord-pipe-bench CONNECT WINDOW SECONDS
#include <zkcoord/session.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>

namespace asio = boost::asio;
using steady = std::chrono::steady_clock;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s CONNECT WINDOW SECONDS\n", argv[0]);
    return 2;
  }
  const int window = std::atoi(argv[2]);
  const double seconds = std::atof(argv[3]);
  asio::io_context io;
  zkcoord::session zk(io.get_executor(), {.connect = argv[1]});
  long cycles = 0;
  int in_flight = 0;
  bool failed = false, started = false;
  steady::time_point start, end;

  std::function<void()> start_one = [&] {
    ++in_flight;
    zk.async_create("/bench/pipe/n-", "", {zkcoord::create_mode::ephemeral_sequential},
                    [&](zkcoord::error_code ec, zkcoord::created_node node) {
                      if (ec) {
                        std::fprintf(stderr, "create: %s\n", ec.message().c_str());
                        failed = true;
                        return;
                      }
                      zk.async_remove(node.path, zkcoord::any_version, [&](zkcoord::error_code) {
                        ++cycles;
                        --in_flight;
                        if (steady::now() < end) start_one();
                      });
                    });
  };
  zk.async_connect([&](zkcoord::error_code ec) {
    if (ec) {
      std::fprintf(stderr, "connect: %s\n", ec.message().c_str());
      failed = true;
      return;
    }
    zk.async_create("/bench", "", {}, [&](zkcoord::error_code, zkcoord::created_node) {
      zk.async_create("/bench/pipe", "", {}, [&](zkcoord::error_code, zkcoord::created_node) {
        start = steady::now();
        end = start +
              std::chrono::duration_cast<steady::duration>(std::chrono::duration<double>(seconds));
        started = true;
        for (int i = 0; i < window; ++i) start_one();
      });
    });
  });
  // Until the last cycle completed (the session's heartbeat timer keeps run() busy forever).
  while (!failed && !(started && in_flight == 0)) io.run_one();
  const double elapsed = std::chrono::duration<double>(steady::now() - start).count();
  std::printf("zkcoord-pipe window=%d cycles=%ld rate=%.1f/s\n", window, cycles, cycles / elapsed);
  zk.close();
  return failed ? 1 : 0;
}
