// SPDX-License-Identifier: Apache-2.0
// tree_cache against Curator's CuratorCache (peers/CuratorCacheBench.java: the same modes,
// arguments and lines), for scripts/bench-recipes.
//   zkcoord-cache-bench clock
//     prints CLOCK_MONOTONIC in ns (the script checks that Java's System.nanoTime() reads the
//     same clock, since the writer's timestamps are compared across processes).
//   zkcoord-cache-bench CONNECT setup
//     makes the trees once (pipelined creates, not timed; existing nodes are kept):
//     /bench/cache/load, 100 parents x 100 children, and /bench/cache/many, 10 x 100; every
//     node (root and parents too) holds 100 bytes.
//   zkcoord-cache-bench CONNECT write RATE WARMUP SECONDS
//     the writer, its own session: sets the data of random children of /bench/cache/load (a
//     fixed seed: the same sequence every run) at RATE per second, scheduled at fixed instants,
//     for WARMUP s then SECONDS s. Each value is "w" (warm-up) or "t" (sampled), the
//     CLOCK_MONOTONIC ns taken just before the set is sent, padded to 100 bytes. Prints nothing;
//     exits 1 if any set failed.
//   zkcoord-cache-bench CONNECT load RATE WARMUP SECONDS
//     one tree_cache of /bench/cache/load on one session. cache-load line: load_ms, start() ->
//     initialized; rss_kib, the peak resident set (VmHWM) once initialized; base_kib, the
//     resident set (VmRSS) just before start (session connected); growth_kib = rss - base.
//     Then it runs the writer above (this binary, a separate process and session) and samples
//     every `updated` event whose data starts with "t": event time - the writer's send time.
//     cache-latency line: p50/p99 of those, samples (one per write unless two writes to one
//     node were seen as one update), rate = samples / SECONDS.
//   zkcoord-cache-bench CONNECT many CACHES
//     CACHES tree_caches of /bench/cache/many on ONE session, all started at once. cache-many
//     line: all_ms, first start -> every cache initialized; rss_kib, base_kib, growth_kib as
//     above.
#include <zkcoord/cache.hpp>
#include <zkcoord/session.hpp>

#include "bench_connect.hpp"
#include "bench_stats.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

extern char** environ;

namespace asio = boost::asio;
using zkcoord::bench::steady;
constexpr auto tuple = asio::as_tuple(asio::use_awaitable);

namespace {

constexpr const char* load_root = "/bench/cache/load";
constexpr const char* many_root = "/bench/cache/many";
constexpr int load_parents = 100, many_parents = 10, children = 100;
constexpr std::size_t value_size = 100;

long long mono_ns() {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000000000LL + t.tv_nsec;
}

double ms(steady::duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

std::string value(std::string head) {
  head.resize(value_size, '.');
  return head;
}

std::string child_path(const std::string& root, int parent, int child) {
  char name[32];
  std::snprintf(name, sizeof name, "/p%03d/c%03d", parent, child);
  return root + name;
}

std::string parent_path(const std::string& root, int parent) {
  char name[16];
  std::snprintf(name, sizeof name, "/p%03d", parent);
  return root + name;
}

/// Connects one session on `io`; false (said on stderr) if it could not.
bool connect(asio::io_context& io, std::vector<std::unique_ptr<zkcoord::session>>& sessions,
             const char* where, int count) {
  for (int i = 0; i < count; ++i)
    sessions.push_back(std::make_unique<zkcoord::session>(
        io.get_executor(), zkcoord::session_options{.connect = where}));
  int result = -1;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        result = co_await zkcoord::bench::connect_all(sessions) ? 1 : 0;
      },
      asio::detached);
  while (result < 0) io.run_one();
  return result == 1;
}

int setup(const char* where) {
  asio::io_context io;
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  if (!connect(io, sessions, where, 1)) return 1;
  auto& s = *sessions[0];
  long pending = 0, created = 0, errors = 0;
  auto create = [&](std::string path) {
    ++pending;
    s.async_create(path, value("v"), {}, [&, path](zkcoord::error_code ec, zkcoord::created_node) {
      --pending;
      if (!ec) {
        ++created;
      } else if (ec != zkcoord::zk_errc::node_exists) {
        std::fprintf(stderr, "create %s: %s\n", path.c_str(), ec.message().c_str());
        ++errors;
      }
    });
  };
  // In order on one session: a parent's create is applied before its children's.
  create("/bench");
  create("/bench/cache");
  for (auto [root, parents] : {std::pair{load_root, load_parents}, {many_root, many_parents}}) {
    create(root);
    for (int p = 0; p < parents; ++p) {
      create(parent_path(root, p));
      for (int c = 0; c < children; ++c) create(child_path(root, p, c));
    }
  }
  while (pending) io.run_one();
  std::printf("setup created=%ld errors=%ld\n", created, errors);
  s.close();
  return errors ? 1 : 0;
}

int writer(const char* where, int rate, double warmup, double seconds) {
  asio::io_context io;
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  if (!connect(io, sessions, where, 1)) return 1;
  auto& s = *sessions[0];
  const long warm = static_cast<long>(rate * warmup),
             total = warm + static_cast<long>(rate * seconds);
  long pending = 0, errors = 0;
  bool done = false;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        std::mt19937 random(20261206);
        std::uniform_int_distribution<int> parent(0, load_parents - 1), child(0, children - 1);
        asio::steady_timer timer(co_await asio::this_coro::executor);
        const auto period = std::chrono::nanoseconds(1000000000LL / rate);
        const auto start = steady::now();
        for (long i = 0; i < total; ++i) {
          timer.expires_at(start + i * period);
          co_await timer.async_wait(tuple);
          const int p = parent(random), c = child(random);
          ++pending;
          // The timestamp is taken just before the set is handed to the session.
          s.async_set(child_path(load_root, p, c),
                      value((i < warm ? "w" : "t") + std::to_string(mono_ns())), -1,
                      [&](zkcoord::error_code ec, zkcoord::node_stat) {
                        --pending;
                        if (ec) {
                          std::fprintf(stderr, "set: %s\n", ec.message().c_str());
                          ++errors;
                        }
                      });
        }
        done = true;
      },
      asio::detached);
  while (!done || pending) io.run_one();
  s.close();
  return errors ? 1 : 0;
}

/// Ends the process without stopping its caches: the session's close drops every watch on
/// the server at once, while stopping the caches one by one removes each watch with a scan of
/// all the session's watches (lib/session/watch.cpp, session_impl::disarm), minutes for the
/// 202,200 watches of `many`. The teardown is not what is measured.
[[noreturn]] void end_now(zkcoord::session& s) {
  std::fflush(stdout);
  s.close();
  std::_Exit(0);
}

/// Runs `argv` (this binary as the writer) while `io` keeps serving the caches; its exit code.
int run_writer(asio::io_context& io, std::vector<std::string> args) {
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (int e = ::posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, argv.data(), environ)) {
    std::fprintf(stderr, "spawn the writer: %s\n", std::strerror(e));
    return 1;
  }
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) io.run_for(std::chrono::milliseconds(5));
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

int load(const char* where, int rate, double warmup, double seconds) {
  asio::io_context io;
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  if (!connect(io, sessions, where, 1)) return 1;
  zkcoord::tree_cache cache(*sessions[0], load_root);
  std::vector<steady::duration> samples;
  cache.set_listener([&](const zkcoord::cache_event& e) {
    if (e.type != zkcoord::cache_event_type::updated || e.data.empty() || e.data[0] != 't') return;
    const long long now = mono_ns();
    samples.push_back(std::chrono::nanoseconds(now - std::atoll(e.data.c_str() + 1)));
  });
  const long base = zkcoord::bench::proc_status_kib("VmRSS");
  const auto start = steady::now();
  steady::time_point initialized{};
  zkcoord::error_code result = zkcoord::errc::not_connected;
  cache.async_start([&](zkcoord::error_code ec) {
    initialized = steady::now();
    result = ec;
  });
  while (initialized == steady::time_point{}) io.run_one();
  const long peak = zkcoord::bench::proc_status_kib("VmHWM");
  const std::size_t nodes = cache.size();
  const std::size_t want = 1 + load_parents + load_parents * children;
  if (result || nodes != want) {
    std::fprintf(stderr, "load: %s, %zu nodes cached (want %zu)\n", result.message().c_str(), nodes,
                 want);
    return 1;
  }
  std::printf(
      "zkcoord workload=cache-load nodes=%zu load_ms=%.1f rss_kib=%ld base_kib=%ld "
      "growth_kib=%ld\n",
      nodes, ms(initialized - start), peak, base, peak - base);
  std::fflush(stdout);
  char r[16], w[32], sec[32];
  std::snprintf(r, sizeof r, "%d", rate);
  std::snprintf(w, sizeof w, "%g", warmup);
  std::snprintf(sec, sizeof sec, "%g", seconds);
  if (run_writer(io, {"zkcoord-cache-bench", where, "write", r, w, sec}) != 0) {
    std::fprintf(stderr, "the writer failed\n");
    return 1;
  }
  // The last events: every set has completed, their notifications may still be on their way.
  io.run_for(std::chrono::seconds(1));
  const long writes = static_cast<long>(rate * seconds);
  if (samples.empty()) {
    std::fprintf(stderr, "no sampled event\n");
    return 1;
  }
  std::printf(
      "zkcoord workload=cache-latency writes=%ld samples=%zu rate=%.1f/s p50=%.3fms "
      "p99=%.3fms\n",
      writes, samples.size(), static_cast<double>(samples.size()) / seconds,
      zkcoord::bench::quantile_ms(samples, 0.50), zkcoord::bench::quantile_ms(samples, 0.99));
  end_now(*sessions[0]);
}

int many(const char* where, int count) {
  asio::io_context io;
  std::vector<std::unique_ptr<zkcoord::session>> sessions;
  if (!connect(io, sessions, where, 1)) return 1;
  std::vector<std::unique_ptr<zkcoord::tree_cache>> caches;
  const long base = zkcoord::bench::proc_status_kib("VmRSS");
  int done = 0, errors = 0;
  steady::time_point last{};
  const auto start = steady::now();
  for (int i = 0; i < count; ++i) {
    caches.push_back(std::make_unique<zkcoord::tree_cache>(*sessions[0], many_root));
    caches.back()->async_start([&](zkcoord::error_code ec) {
      if (ec) {
        std::fprintf(stderr, "start: %s\n", ec.message().c_str());
        ++errors;
      }
      if (++done == count) last = steady::now();
    });
  }
  while (done < count) io.run_one();
  const long peak = zkcoord::bench::proc_status_kib("VmHWM");
  const std::size_t want = 1 + many_parents + many_parents * children;
  for (auto& c : caches)
    if (c->size() != want) {
      std::fprintf(stderr, "many: %zu nodes cached (want %zu)\n", c->size(), want);
      ++errors;
      break;
    }
  if (errors) return 1;
  std::printf(
      "zkcoord workload=cache-many caches=%d nodes=%zu all_ms=%.1f rss_kib=%ld "
      "base_kib=%ld growth_kib=%ld\n",
      count, want, ms(last - start), peak, base, peak - base);
  end_now(*sessions[0]);
}

int usage(const char* self) {
  std::fprintf(stderr,
               "usage: %s clock\n"
               "       %s CONNECT setup\n"
               "       %s CONNECT write|load RATE WARMUP SECONDS\n"
               "       %s CONNECT many CACHES\n",
               self, self, self, self);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::string(argv[1]) == "clock") {
    std::printf("%lld\n", mono_ns());
    return 0;
  }
  if (argc < 3) return usage(argv[0]);
  const std::string mode = argv[2];
  if (mode == "setup" && argc == 3) return setup(argv[1]);
  if ((mode == "write" || mode == "load") && argc == 6) {
    const int rate = std::max(1, std::atoi(argv[3]));
    const double warmup = std::atof(argv[4]), seconds = std::atof(argv[5]);
    if (seconds <= 0) return usage(argv[0]);
    return mode == "write" ? writer(argv[1], rate, warmup, seconds)
                           : load(argv[1], rate, warmup, seconds);
  }
  if (mode == "many" && argc == 4) return many(argv[1], std::max(1, std::atoi(argv[3])));
  return usage(argv[0]);
}
