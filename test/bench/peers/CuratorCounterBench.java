// SPDX-License-Identifier: Apache-2.0
// The counter benchmark's Apache Curator side, the same workload and output line as
// zkcoord-counter-bench, for scripts/bench-recipes.
//   usage: java CuratorCounterBench CONNECT CONTENDERS SECONDS optimistic|promoted
// CONTENDERS threads, each its own CuratorFramework (session) and DistributedAtomicLong on one
// path, loop increment().
// optimistic: RetryNTimes(99, 0), i.e. up to 100 compare-and-set attempts (zkcoord max_tries 100).
// promoted:   RetryNTimes(2, 0) (3 attempts), then PromotedToLock on a separate lock path with
//             RetryNTimes(99, 0) and 10 s (zkcoord max_tries 3, lock_max_tries 100).
// Only successful increments are counted (rate, p50/p99 of one successful increment); failed=
// counts those whose attempts ran out. The first second is not sampled (nor is zkcoord's): the
// JVM compiles the hot paths meanwhile. At the end the counter is read: final= must equal every
// success; otherwise a failure line on stderr and exit 1.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public final class CuratorCounterBench {
  private static final long WARM_UP_NANOS = 1_000_000_000L;

  private static DistributedAtomicLong counter(CuratorFramework cf, String path, boolean promoted) {
    if (!promoted) return new DistributedAtomicLong(cf, path, new RetryNTimes(99, 0));
    PromotedToLock lock = PromotedToLock.builder()
                              .lockPath(path + "-lock")
                              .retryPolicy(new RetryNTimes(99, 0))
                              .timeout(10, TimeUnit.SECONDS)
                              .build();
    return new DistributedAtomicLong(cf, path, new RetryNTimes(2, 0), lock);
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4 || !(args[3].equals("optimistic") || args[3].equals("promoted"))) {
      System.err.println(
          "usage: java CuratorCounterBench CONNECT CONTENDERS SECONDS optimistic|promoted");
      System.exit(2);
    }
    String connect = args[0];
    int contenders = Integer.parseInt(args[1]);
    long runNanos = (long) (Double.parseDouble(args[2]) * 1e9);
    String mode = args[3];
    boolean promoted = mode.equals("promoted");
    String path = "/bench/curator-counter/" + ProcessHandle.current().pid() + "/" + mode;

    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      // zkcoord's defaults: 10 s session timeout.
      CuratorFramework cf = CuratorFrameworkFactory.newClient(
          connect, 10000, 5000, new ExponentialBackoffRetry(100, 3));
      cf.start();
      cf.blockUntilConnected();
      sessions.add(cf);
    }
    AtomicLong successes = new AtomicLong(), failed = new AtomicLong();
    // Warm-up: creates the counter and its parents, as zkcoord-counter-bench does.
    if (!counter(sessions.get(0), path, promoted).increment().succeeded()) {
      System.err.println("warm-up increment not written");
      System.exit(1);
    }
    successes.incrementAndGet();

    AtomicInteger failures = new AtomicInteger();
    List<Long> samples = new ArrayList<>();
    CountDownLatch go = new CountDownLatch(1);
    long runStart = System.nanoTime() + WARM_UP_NANOS;
    long deadline = runStart + runNanos;
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < contenders; i++) {
      DistributedAtomicLong value = counter(sessions.get(i), path, promoted);
      Thread t = new Thread(() -> {
        List<Long> mine = new ArrayList<>();
        try {
          go.await();
          while (BenchStats.before(System.nanoTime(), deadline)) {
            long t0 = System.nanoTime();
            AtomicValue<Long> result = value.increment();
            if (!result.succeeded()) {
              if (!BenchStats.before(t0, runStart)) failed.incrementAndGet();
              continue;
            }
            successes.incrementAndGet();
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
    long finalValue =
        new DistributedAtomicLong(sessions.get(0), path, new RetryNTimes(0, 0)).get().postValue();
    List<Long> sorted = new ArrayList<>(samples);
    Collections.sort(sorted);
    System.out.printf("curator workload=counter-%s clients=%d seconds=%.1f ops=%d rate=%.1f/s"
            + " p50=%.2fms p99=%.2fms failed=%d successes=%d final=%d%n",
        mode, contenders, elapsed, sorted.size(), sorted.size() / elapsed, BenchStats.quantileMs(sorted, 0.5),
        BenchStats.quantileMs(sorted, 0.99), failed.get(), successes.get(), finalValue);
    for (CuratorFramework cf : sessions) cf.close();
    boolean mismatch = finalValue != successes.get();
    if (mismatch) {
      System.err.printf("FAILED counter-%s: final value %d != %d successful increments%n", mode,
          finalValue, successes.get());
    }
    System.exit(failures.get() == 0 && !mismatch ? 0 : 1);
  }
}
