// SPDX-License-Identifier: Apache-2.0
// What the Curator peer benchmarks share: the q-quantile picked the way zkcoord's
// test/bench/bench_stats.hpp picks it (sorted[size * q]), System.nanoTime() comparisons that
// survive its wrap-around, a session with zkcoord's defaults and the process's memory figures.
// Compiled with each peer by the bench scripts.
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

final class BenchStats {
  private BenchStats() {}

  /// t is earlier than limit (both System.nanoTime() readings).
  static boolean before(long t, long limit) { return t - limit < 0; }

  /// The q-quantile of `sorted` (nanoseconds, ascending) in milliseconds; 0 when empty.
  static double quantileMs(List<Long> sorted, double q) {
    if (sorted.isEmpty()) return 0;
    int i = Math.min(sorted.size() - 1, (int) (sorted.size() * q));
    return sorted.get(i) / 1e6;
  }

  /// A started, connected client with zkcoord's defaults (10 s session timeout).
  static CuratorFramework newSession(String connect) throws InterruptedException {
    CuratorFramework cf =
        CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 3));
    cf.start();
    cf.blockUntilConnected();
    return cf;
  }

  /// A KiB figure of /proc/self/status ("VmRSS", "VmHWM"); 0 when absent.
  static long procStatusKib(String field) throws Exception {
    for (String line : Files.readAllLines(Paths.get("/proc/self/status")))
      if (line.startsWith(field + ":")) return Long.parseLong(line.replaceAll("[^0-9]", ""));
    return 0;
  }
}
