// SPDX-License-Identifier: Apache-2.0
#include "cache_regen/orchestrator.hpp"

#include "cache_regen/cache_db.hpp"
#include "common/run_directory.hpp"
#include "common/timeline.hpp"
#include "common/worker_fleet.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <stdexcept>

namespace cache_regen {
namespace {

/// What one mode's run measured.
struct phase_result {
  int served = 0;
  int regenerations = 0;
  long p50_ms = 0;
  long max_ms = 0;
};

std::string process_name(std::size_t index) {
  return "process-" + std::to_string(index + 1);
}

long field(const std::string& line, const std::string& name) {
  const auto at = line.find(" " + name + "=");
  return at == std::string::npos ? -1 : std::stol(line.substr(at + name.size() + 2));
}

class cache_run {
 public:
  cache_run(const run_options& options, std::string connect)
      : options_(options), connect_(std::move(connect)), dir_("zkcoord-cache-regen") {
    dir_.keep();  // until the run ends well: the logs say why it did not
    cache_db(database()).create();
  }

  std::filesystem::path database() const { return dir_.path() / "cache.db"; }
  void discard_unless_kept() {
    if (!options_.keep) dir_.discard();
  }

  phase_result run_phase(bool dedup) {
    const std::string mode = dedup ? "dedup" : "plain";
    const std::string key = "report-" + mode;
    examples::worker_fleet fleet(dir_.path(),
                                 [mode](std::size_t i) { return mode + "-" + process_name(i); });
    worker_options worker{
        .dedup = dedup,
        .db = database().string(),
        .connect = connect_,
        .zk_root = "/zkcoord-examples/cache-regen-" + examples::run_directory::random_name(),
        .key = key,
        .compute = options_.compute};
    for (int i = 0; i < options_.processes; ++i) {
      worker.id = i + 1;
      // The requests are spread as evenly as they go.
      worker.requests = options_.requests / options_.processes +
                        (i < options_.requests % options_.processes ? 1 : 0);
      fleet.spawn(worker_argv(worker));
    }
    fleet.wait_ready(std::chrono::seconds(30));
    timeline_.print("orchestrator", mode + ": " + std::to_string(options_.requests) +
                                        " requests in " + std::to_string(options_.processes) +
                                        " processes miss '" + key + "' at once");
    fleet.send_all("start");
    std::vector<long> latencies;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!fleet.all_exited()) {
      if (std::chrono::steady_clock::now() > deadline) {
        throw std::runtime_error("the run took too long (logs in " + dir_.path().string() + ")");
      }
      for (auto& [index, line] : fleet.poll(std::chrono::milliseconds(20))) {
        timeline_.print(fleet.name(index), line);
        if (line.starts_with("served")) latencies.push_back(field(line, "ms"));
      }
    }
    if (!fleet.failed().empty()) {
      throw std::runtime_error(mode + ": a process failed (logs in " + dir_.path().string() + ")");
    }
    std::sort(latencies.begin(), latencies.end());
    phase_result result{.served = static_cast<int>(latencies.size()),
                        .regenerations = cache_db(database()).regenerations(key)};
    if (!latencies.empty()) {
      result.p50_ms = latencies[latencies.size() / 2];
      result.max_ms = latencies.back();
    }
    std::printf("%s: %d requests served, %d regenerations, latency p50 %ld ms, max %ld ms\n",
                mode.c_str(), result.served, result.regenerations, result.p50_ms, result.max_ms);
    return result;
  }

 private:
  const run_options& options_;
  std::string connect_;
  examples::run_directory dir_;
  examples::timeline timeline_;
};

}  // namespace

int run_orchestrator(const run_options& options, const std::string& connect) {
  std::signal(SIGPIPE, SIG_IGN);
  cache_run run(options, connect);
  phase_result plain;
  phase_result dedup;
  if (options.run_plain) plain = run.run_phase(false);
  if (options.run_dedup) dedup = run.run_phase(true);
  std::printf(
      "requests=%d plain_regenerations=%d plain_p50_ms=%ld plain_max_ms=%ld "
      "dedup_regenerations=%d dedup_p50_ms=%ld dedup_max_ms=%ld\n",
      options.requests, plain.regenerations, plain.p50_ms, plain.max_ms, dedup.regenerations,
      dedup.p50_ms, dedup.max_ms);
  std::fflush(stdout);
  const bool all_served = (!options.run_plain || plain.served == options.requests) &&
                          (!options.run_dedup || dedup.served == options.requests);
  if (all_served) run.discard_unless_kept();
  return all_served ? 0 : 1;
}

}  // namespace cache_regen
