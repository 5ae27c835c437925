// SPDX-License-Identifier: Apache-2.0
// What idle sessions cost: connects SESSIONS sessions on one io_context, lets them ping for
// SECONDS, and prints the process's threads and resident set before and after. Without CONNECT
// it starts its own ZooKeeper (maxClientCnxns=0: a standalone server lets 60 connections per
// address by default). The line names the C client the library was built on.
//   usage: zkcoord-idle-sessions SESSIONS [SECONDS] [CONNECT]
#include "bench_stats.hpp"

#include <zkcoord/session.hpp>
#include <zkcoord/testing/server.hpp>

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace asio = boost::asio;

int main(int argc, char** argv) {
  if (argc < 2 || argc > 4) {
    std::fprintf(stderr, "usage: %s SESSIONS [SECONDS] [CONNECT]\n", argv[0]);
    return 2;
  }
  const int count = std::atoi(argv[1]);
  const double seconds = argc > 2 ? std::atof(argv[2]) : 5.0;
  if (count <= 0 || seconds < 0) {
    std::fprintf(stderr, "SESSIONS must be positive and SECONDS not negative\n");
    return 2;
  }
  std::optional<zkcoord::testing::server> own;
  std::string connect;
  if (argc > 3) {
    connect = argv[3];
  } else {
    zkcoord::testing::server_options options;
    options.log_level = "WARN";
    options.extra_config.emplace_back("maxClientCnxns", "0");
    own.emplace(options);
    connect = own->connect_string();
  }

  asio::io_context io;
  const long threads_before = zkcoord::bench::proc_status_kib("Threads");
  const long rss_before = zkcoord::bench::proc_status_kib("VmRSS");
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  sessions.reserve(count);
  int connected = 0, failed = 0;
  for (int i = 0; i < count; ++i) {
    sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = connect}));
    sessions.back()->async_connect([&](zkcoord::error_code ec) {
      if (ec && failed++ == 0) std::fprintf(stderr, "connect: %s\n", ec.message().c_str());
      if (!ec) ++connected;
    });
  }
  while (connected + failed < count) io.run_one();
  if (failed) return 1;
  // Idle: only the sessions' pings run.
  io.run_for(std::chrono::duration_cast<std::chrono::steady_clock::duration>(
      std::chrono::duration<double>(seconds)));
  const long threads_after = zkcoord::bench::proc_status_kib("Threads");
  const long rss_after = zkcoord::bench::proc_status_kib("VmRSS");
  std::printf(
      "zkcoord-idle-sessions client=%s sessions=%d threads_before=%ld threads_after=%ld "
      "threads_per_session=%.2f rss_before_kib=%ld rss_after_kib=%ld rss_per_session_kib=%.1f\n",
      ZKCOORD_BENCH_CLIENT, count, threads_before, threads_after,
      double(threads_after - threads_before) / count, rss_before, rss_after,
      double(rss_after - rss_before) / count);
  for (auto& s : sessions) s->close();
  return 0;
}
