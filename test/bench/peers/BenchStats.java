// SPDX-License-Identifier: Apache-2.0
// What the Curator peer benchmarks share: the q-quantile picked the way zkcoord's
// test/bench/bench_stats.hpp picks it (sorted[size * q]), and System.nanoTime() comparisons
// that survive its wrap-around. Compiled with each peer by the bench scripts.
import java.util.List;

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
}
