// SPDX-License-Identifier: Apache-2.0
// Small helpers shared by the lock benchmarks: latency quantiles and the process's peak RSS.
#pragma once

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace zkcoord::bench {

using steady = std::chrono::steady_clock;

/// The q-quantile (0..1) of `samples` in milliseconds, the way
/// test/bench/peers/CuratorLockBench.java picks it (sorted[n * q]); 0 for no samples.
inline double quantile_ms(std::vector<steady::duration> samples, double q) {
  if (samples.empty()) return 0;
  std::sort(samples.begin(), samples.end());
  const auto i = std::min(samples.size() - 1,
                          static_cast<std::size_t>(static_cast<double>(samples.size()) * q));
  return std::chrono::duration<double, std::milli>(samples[i]).count();
}

/// A numeric field of /proc/self/status, 0 if absent: "Vm...:" ones are in KiB (VmHWM: peak
/// resident set), "Threads" is a count.
inline long proc_status_kib(const std::string& field) {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  return 0;
}

inline double seconds_since(steady::time_point t) {
  return std::chrono::duration<double>(steady::now() - t).count();
}

/// CPU time (user + system) this process has used so far, all its threads, in seconds.
inline double process_cpu_seconds() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) { return t.tv_sec + t.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

}  // namespace zkcoord::bench
