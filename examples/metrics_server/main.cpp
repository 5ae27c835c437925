// SPDX-License-Identifier: Apache-2.0
// metrics_server: one session reporting to zkcoord::prometheus, a lock taken and released in a
// loop, and the metrics served on /metrics by prometheus-cpp's Exposer on a loopback port.
//   zkcoord_metrics_server [--locks N] [--path PATH] [--port PORT] [--no-serve]
// It prints the address it serves on at once, then after the N acquisitions a summary line
// (locks=N and the session's sent_requests(), by request kind) and serves until its standard
// input ends (Ctrl-D, or a closed pipe) or SIGINT/SIGTERM; --no-serve exits instead.
// ZooKeeper: $ZKCOORD_CONNECT, else a throwaway local server. docs/metrics.md shows its parts.
#include "common/command_line.hpp"
#include "common/session_runner.hpp"
#include "common/zookeeper_endpoint.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>

#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <exception>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>

// [snippet:metrics_wiring]
#include <zkcoord/prometheus.hpp>

#include <prometheus/exposer.h>
#include <prometheus/registry.h>

// The registry the observer records into, served on http://127.0.0.1:PORT/metrics.
// The exposer is declared last so that it stops serving (its threads end) before the registry
// it serves goes.
struct metrics_endpoint {
  explicit metrics_endpoint(const std::string& port)
      : registry(std::make_shared<prometheus::Registry>()), exposer("127.0.0.1:" + port) {
    exposer.RegisterCollectable(registry);
  }
  /// The port bound (a free one when asked for port 0).
  int port() const { return exposer.GetListeningPorts().at(0); }

  std::shared_ptr<prometheus::Registry> registry;
  prometheus::Exposer exposer;
};

zkcoord::session_options observed_session(std::string connect, metrics_endpoint& metrics) {
  zkcoord::session_options options;
  options.connect = std::move(connect);
  // Every recipe on the session reports through it: zkcoord_grants_total{recipe="lock"}, ...
  options.metrics = zkcoord::make_prometheus_observer(metrics.registry);
  return options;
}
// [end snippet]

namespace {

namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;

struct settings {
  long locks = 100;
  std::string path = "/zkcoord-examples/metrics";
  std::string port = "0";
  bool serve = true;
};

const char* const usage =
    "usage: zkcoord_metrics_server [--locks N] [--path PATH] [--port PORT] [--no-serve]\n"
    "  --locks N    acquisitions of the lock, each released at once (default 100)\n"
    "  --path PATH  the lock's path (default /zkcoord-examples/metrics)\n"
    "  --port PORT  loopback port of /metrics (default 0: a free one)\n"
    "  --no-serve   exit after the acquisitions instead of serving until stdin ends or "
    "SIGINT/SIGTERM\n"
    "ZooKeeper: $ZKCOORD_CONNECT, else a throwaway local server.\n";

settings parse(const examples::command_line& args) {
  args.require_known({"locks", "path", "port", "no-serve", "help"});
  settings s;
  s.locks = args.get_long("locks", s.locks);
  s.path = args.get("path", s.path);
  s.port = args.get("port", s.port);
  s.serve = !args.has("no-serve");
  if (s.locks < 1) throw std::invalid_argument("--locks must be at least 1");
  return s;
}

asio::awaitable<void> take_locks(zkcoord::session& zk, const settings& s) {
  zkcoord::lock lock(zk, s.path);
  for (long i = 0; i < s.locks; ++i) {
    auto held = co_await lock.async_acquire(asio::use_awaitable);
    // The critical section goes here, its writes fenced with held.token().
    co_await held.async_release(asio::use_awaitable);
  }
}

void print_summary(long locks, const zkcoord::request_counts& r) {
  std::cout << "locks=" << locks << " create=" << r.creates << " remove=" << r.removes
            << " set=" << r.sets << " get=" << r.gets << " exists=" << r.exists
            << " children=" << r.listings << " multi=" << r.multis << " sync=" << r.syncs
            << " lease_renewal=" << r.lease_renewals << std::endl;
}

asio::awaitable<void> read_to_end(asio::posix::stream_descriptor& in) {
  char buffer[256];
  for (;;) {
    auto [ec, n] =
        co_await in.async_read_some(asio::buffer(buffer), asio::as_tuple(asio::use_awaitable));
    if (ec) co_return;
  }
}

// Until standard input ends or SIGINT/SIGTERM (only the signals when stdin cannot be
// watched, e.g. a regular file or /dev/null).
asio::awaitable<void> serve_until_stopped() {
  const auto ex = co_await asio::this_coro::executor;
  asio::signal_set signals(ex, SIGINT, SIGTERM);
  asio::posix::stream_descriptor in(ex);
  boost::system::error_code ec;
  const int fd = ::dup(STDIN_FILENO);
  in.assign(fd, ec);
  if (ec) {
    if (fd >= 0) ::close(fd);
    co_await signals.async_wait(asio::use_awaitable);
  } else {
    co_await (signals.async_wait(asio::use_awaitable) || read_to_end(in));
  }
}

asio::awaitable<void> run(zkcoord::session& zk, const settings& s) {
  co_await take_locks(zk, s);
  print_summary(s.locks, zk.sent_requests());
  if (!s.serve) co_return;
  std::cout << "serving /metrics until stdin ends or SIGINT/SIGTERM" << std::endl;
  co_await serve_until_stopped();
}

int run_example(const settings& s) {
  examples::zookeeper_endpoint zookeeper;
  metrics_endpoint metrics(s.port);
  std::cout << "metrics: http://127.0.0.1:" << metrics.port() << "/metrics" << std::endl;
  return examples::run_with_session(observed_session(zookeeper.connect_string(), metrics),
                                    [&s](zkcoord::session& zk) -> asio::awaitable<int> {
                                      co_await run(zk, s);
                                      co_return 0;
                                    });
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const examples::command_line args(argc, argv);
    if (args.has("help")) {
      std::cout << usage;
      return 0;
    }
    return run_example(parse(args));
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n" << usage;
    return 1;
  }
}
