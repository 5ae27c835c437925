// SPDX-License-Identifier: Apache-2.0
// The semaphore benchmark's Apache Curator side, the same workload and output line as
// zkcoord-semaphore-bench, for scripts/bench-recipes.
//   usage: java CuratorSemaphoreBench CONNECT CONTENDERS LEASES SECONDS
// CONTENDERS threads, each its own CuratorFramework (session), loop acquire/returnLease of one
// lease of InterProcessSemaphoreV2(path, LEASES); sampled: one acquire+release. The first
// second is not sampled (nor is zkcoord's): the JVM compiles the hot paths meanwhile.
// max_holders is the most leases acquired and not yet returned at once (more than LEASES
// exits 1).
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorSemaphoreBench {
  private static final long WARM_UP_NANOS = 1_000_000_000L;

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: java CuratorSemaphoreBench CONNECT CONTENDERS LEASES SECONDS");
      System.exit(2);
    }
    String connect = args[0];
    int contenders = Integer.parseInt(args[1]);
    int leases = Integer.parseInt(args[2]);
    long runNanos = (long) (Double.parseDouble(args[3]) * 1e9);
    String path = "/bench/curator-semaphore/" + ProcessHandle.current().pid();

    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      // zkcoord's defaults: 10 s session timeout.
      CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
          new ExponentialBackoffRetry(100, 3));
      cf.start();
      cf.blockUntilConnected();
      sessions.add(cf);
    }
    // Warm-up: creates the semaphore's parents, as zkcoord-semaphore-bench does.
    InterProcessSemaphoreV2 warm = new InterProcessSemaphoreV2(sessions.get(0), path, leases);
    warm.returnLease(warm.acquire());

    AtomicInteger holders = new AtomicInteger(), maxHolders = new AtomicInteger();
    AtomicInteger failures = new AtomicInteger();
    List<Long> samples = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    long runStart = System.nanoTime() + WARM_UP_NANOS;
    long deadline = runStart + runNanos;
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(sessions.get(i), path, leases);
      Thread t = new Thread(() -> {
        List<Long> mine = new ArrayList<>();
        try {
          go.await();
          while (BenchStats.before(System.nanoTime(), deadline)) {
            long t0 = System.nanoTime();
            Lease lease = semaphore.acquire();
            maxHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
            holders.decrementAndGet();
            semaphore.returnLease(lease);
            if (!BenchStats.before(t0, runStart)) mine.add(System.nanoTime() - t0);
          }
        } catch (Exception e) {
          failures.incrementAndGet();
          e.printStackTrace();
        }
        synchronized (samples) {
          samples.addAll(mine);
        }
      });
      t.start();
      threads.add(t);
    }
    go.countDown();
    for (Thread t : threads) t.join();
    double elapsed = (System.nanoTime() - runStart) / 1e9;
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    System.out.printf(
        "curator workload=semaphore clients=%d leases=%d seconds=%.1f ops=%d rate=%.1f/s"
            + " p50=%.2fms p99=%.2fms max_holders=%d%n",
        contenders, leases, elapsed, sorted.size(), sorted.size() / elapsed,
        BenchStats.quantileMs(sorted, 0.5), BenchStats.quantileMs(sorted, 0.99), maxHolders.get());
    for (CuratorFramework cf : sessions) cf.close();
    System.exit(failures.get() == 0 && maxHolders.get() <= leases ? 0 : 1);
  }
}
