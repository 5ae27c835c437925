// SPDX-License-Identifier: Apache-2.0
// The lock benchmarks' Apache Curator side (InterProcessMutex): the same workloads and output
// lines as zkcoord-lock-bench and zkcoord-lock-handoff-bench, for scripts/bench-compare and
// scripts/bench. Every client or contender has its own CuratorFramework (its own session), with
// zkcoord's defaults (10 s session timeout).
//   java CuratorLockBench CONNECT CLIENTS SECONDS LOCKS
//     throughput: CLIENTS threads loop acquire/release on lock (i % LOCKS) for SECONDS; prints
//     acquisitions/s and the p50/p99 of one acquire+release (ms); with one lock, counts
//     overlapping holders (violations).
//   java CuratorLockBench handoff CONNECT CONTENDERS SECONDS
//     hand-off: CONTENDERS threads take turns on one lock. A holder waits until every other
//     contender is queued behind it (an observer session's listing), then releases; sampled:
//     release() called -> the next holder's acquire() returned. The first second is not
//     sampled (the JVM compiles Curator's hot paths meanwhile).
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;

public final class CuratorLockBench {
  private static final long WARM_UP_NANOS = 1_000_000_000L;

  private static void throughput(String connect, int clients, double seconds, int locks)
      throws Exception {
    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i < clients; i++) sessions.add(BenchStats.newSession(connect));
    // Create the parents once, outside the measurement.
    InterProcessMutex first = new InterProcessMutex(sessions.get(0), "/bench/curator/l0");
    first.acquire();
    first.release();
    AtomicLong total = new AtomicLong();
    AtomicInteger inside = new AtomicInteger();
    AtomicLong violations = new AtomicLong();
    List<Long> cycles = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    long[] deadline = new long[1];
    Thread[] threads = new Thread[clients];
    for (int i = 0; i < clients; i++) {
      final int id = i;
      threads[i] = new Thread(() -> {
        List<Long> mine = new ArrayList<>();
        try {
          InterProcessMutex m = new InterProcessMutex(sessions.get(id), "/bench/curator/l" + (id % locks));
          go.await();
          while (System.nanoTime() - deadline[0] < 0) {
            long t0 = System.nanoTime();
            m.acquire();
            if (locks == 1 && inside.incrementAndGet() != 1) violations.incrementAndGet();
            if (locks == 1) inside.decrementAndGet();
            m.release();
            mine.add(System.nanoTime() - t0);
            total.incrementAndGet();
          }
        } catch (Exception e) {
          e.printStackTrace();
        }
        synchronized (cycles) {
          cycles.addAll(mine);
        }
      });
      threads[i].start();
    }
    long start = System.nanoTime();
    deadline[0] = start + (long) (seconds * 1e9);
    go.countDown();
    for (Thread t : threads) t.join();
    double elapsed = (System.nanoTime() - start) / 1e9;
    Collections.sort(cycles);
    System.out.printf(
        "curator clients=%d locks=%d seconds=%.1f acquisitions=%d rate=%.1f/s p50=%.2fms p99=%.2fms violations=%d%n",
        clients, locks, elapsed, total.get(), total.get() / elapsed, BenchStats.quantileMs(cycles, 0.5),
        BenchStats.quantileMs(cycles, 0.99), violations.get());
  }

  // ---- hand-off ----

  private static final String HANDOFF_PATH = "/bench/curator-handoff/l";
  private static final Object turn = new Object();
  private static long released;       // when the last holder called release(); guarded by turn
  private static int lastHolder = -1;  // guarded by turn
  private static int holding;          // guarded by turn: more than one is a violation
  private static long violations;      // guarded by turn
  private static final List<Long> handoffs = new ArrayList<>();  // guarded by turn

  private static void handoff(String connect, int contenders, double seconds) throws Exception {
    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i < contenders; i++) sessions.add(BenchStats.newSession(connect));
    CuratorFramework observer = BenchStats.newSession(connect);
    InterProcessMutex first = new InterProcessMutex(observer, HANDOFF_PATH);
    first.acquire();
    first.release();
    long start = System.nanoTime();
    long sampledFrom = start + WARM_UP_NANOS;
    long deadline = sampledFrom + (long) (seconds * 1e9);
    Thread[] threads = new Thread[contenders];
    for (int i = 0; i < contenders; i++) {
      final int id = i;
      threads[i] = new Thread(() -> {
        try {
          InterProcessMutex m = new InterProcessMutex(sessions.get(id), HANDOFF_PATH);
          while (System.nanoTime() - deadline < 0) {
            m.acquire();
            long now = System.nanoTime();
            synchronized (turn) {
              if (++holding != 1) violations++;
              if (lastHolder >= 0 && lastHolder != id && released - sampledFrom >= 0)
                handoffs.add(now - released);
              lastHolder = id;
            }
            // Hold until every other contender is queued behind us.
            for (int waited = 0; waited < 1000 && System.nanoTime() - deadline < 0; ++waited) {
              if (observer.getChildren().forPath(HANDOFF_PATH).size() >= contenders) break;
              Thread.sleep(1);
            }
            synchronized (turn) {
              --holding;
              released = System.nanoTime();
            }
            m.release();
          }
        } catch (Exception e) {
          e.printStackTrace();
        }
      });
      threads[i].start();
    }
    for (Thread t : threads) t.join();
    List<Long> sorted;
    synchronized (turn) {
      sorted = new ArrayList<>(handoffs);
    }
    Collections.sort(sorted);
    System.out.printf("curator-handoff contenders=%d samples=%d p50=%.2fms p99=%.2fms violations=%d%n",
        contenders, sorted.size(), BenchStats.quantileMs(sorted, 0.5), BenchStats.quantileMs(sorted, 0.99), violations);
  }

  public static void main(String[] a) throws Exception {
    if (a.length == 4 && a[0].equals("handoff")) {
      handoff(a[1], Integer.parseInt(a[2]), Double.parseDouble(a[3]));
    } else if (a.length == 4) {
      throughput(a[0], Integer.parseInt(a[1]), Double.parseDouble(a[2]), Integer.parseInt(a[3]));
    } else {
      System.err.println("usage: java CuratorLockBench CONNECT CLIENTS SECONDS LOCKS\n"
          + "       java CuratorLockBench handoff CONNECT CONTENDERS SECONDS");
      System.exit(2);
    }
    System.exit(0);
  }
}
