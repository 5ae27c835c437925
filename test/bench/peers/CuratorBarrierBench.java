// SPDX-License-Identifier: Apache-2.0
// The double barrier benchmark's Apache Curator side, the same workload and lines as
// zkcoord-barrier-bench, for scripts/bench-recipes.
//   usage: java CuratorBarrierBench CONNECT MEMBERS SECONDS
// MEMBERS threads, each its own CuratorFramework (session), run rounds on one path: every member
// makes a new DistributedDoubleBarrier(path, MEMBERS) and calls enter() at once; once all have
// entered, every member calls leave() at once; once all have left, the next round. The untimed
// calls are used (Curator's timed ones have the bugs zkcoord avoids: GH-1290, CURATOR-536).
// Sampled per round (rounds starting in the first second are not: the JVM compiles meanwhile):
//   barrier-enter: the last member's enter() called -> the last member's enter() returned;
//   barrier-leave: the last member's leave() called -> the last member's leave() returned.
// rate= is rounds per second (both lines).
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorBarrierBench {
  private static final long WARM_UP_NANOS = 1_000_000_000L;

  private static long max(long[] times) {
    long m = times[0];
    for (long t : times)
      if (BenchStats.before(m, t)) m = t;
    return m;
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: java CuratorBarrierBench CONNECT MEMBERS SECONDS");
      System.exit(2);
    }
    String connect = args[0];
    int members = Integer.parseInt(args[1]);
    long runNanos = (long) (Double.parseDouble(args[2]) * 1e9);
    String path = "/bench/curator-barrier/" + ProcessHandle.current().pid();

    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      // zkcoord's defaults: 10 s session timeout.
      CuratorFramework cf = CuratorFrameworkFactory.newClient(
          connect, 10000, 5000, new ExponentialBackoffRetry(100, 3));
      cf.start();
      cf.blockUntilConnected();
      sessions.add(cf);
    }
    long runStart = System.nanoTime() + WARM_UP_NANOS;
    long deadline = runStart + runNanos;
    long[] starts = new long[members], ends = new long[members];
    List<Long> enters = new ArrayList<>(), leaves = new ArrayList<>();
    AtomicInteger failures = new AtomicInteger();
    // The state below is touched only by the CyclicBarrier's action (run by the last thread to
    // arrive, before any is let through) and read by the members after it.
    boolean[] stop = {false};
    boolean[] sampled = {false};
    int[] phase = {0}; // 0: before a round's enter; 1: after its enter; 2: after its leave
    long[] lastEnter = {0};
    CyclicBarrier sync = new CyclicBarrier(members, () -> {
      long now = System.nanoTime();
      if (phase[0] == 1) {
        lastEnter[0] = max(ends) - max(starts);
      } else if (phase[0] == 2 && sampled[0]) {
        enters.add(lastEnter[0]);
        leaves.add(max(ends) - max(starts));
      }
      if (phase[0] != 1) { // a new round, or the end
        stop[0] = failures.get() > 0 || !BenchStats.before(now, deadline);
        sampled[0] = !BenchStats.before(now, runStart);
        phase[0] = 1;
      } else {
        phase[0] = 2;
      }
    });
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < members; i++) {
      final int id = i;
      CuratorFramework cf = sessions.get(i);
      Thread t = new Thread(() -> {
        try {
          for (;;) {
            sync.await();
            if (stop[0]) return;
            DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(cf, path, members);
            starts[id] = System.nanoTime();
            barrier.enter();
            ends[id] = System.nanoTime();
            sync.await();
            starts[id] = System.nanoTime();
            barrier.leave();
            ends[id] = System.nanoTime();
          }
        } catch (Exception e) {
          failures.incrementAndGet();
          e.printStackTrace();
          sync.reset(); // the others' await() throws: no one waits forever
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    double elapsed = (System.nanoTime() - runStart) / 1e9;
    for (String which : new String[] {"enter", "leave"}) {
      List<Long> sorted = new ArrayList<>(which.equals("enter") ? enters : leaves);
      Collections.sort(sorted);
      System.out.printf("curator workload=barrier-%s members=%d seconds=%.1f ops=%d rate=%.1f/s"
              + " p50=%.2fms p99=%.2fms%n",
          which, members, elapsed, sorted.size(), sorted.size() / elapsed, BenchStats.quantileMs(sorted, 0.5),
          BenchStats.quantileMs(sorted, 0.99));
    }
    for (CuratorFramework cf : sessions) cf.close();
    System.exit(failures.get() == 0 ? 0 : 1);
  }
}
