// SPDX-License-Identifier: Apache-2.0
// The recipe benchmarks' Apache Curator side, the same workloads and output line as
// zkcoord-election-bench and zkcoord-rw-lock-bench, for scripts/bench-recipes.
//   usage: java CuratorRecipeBench CONNECT WORKLOAD CLIENTS SECONDS
// election-failover: CLIENTS LeaderLatch participants, each on its own CuratorFramework
//   (session). The leader waits until every other participant is queued (an observer
//   session's listing), then closes its latch and joins again with a new one. Sampled: close()
//   called -> the next participant's isLeader() (the listener runs on the ZooKeeper event
//   thread, the first moment Curator knows; await() returns after it).
// read-lock: CLIENTS threads, each its own CuratorFramework, loop acquire/release of
//   InterProcessReadWriteLock(path).readLock(); sampled: one acquire+release.
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;

public final class CuratorRecipeBench {
  private final String connect;
  private final int clients;
  // The first second is not sampled (nor is zkcoord's): the JVM compiles the hot paths.
  private static final long WARM_UP_NANOS = 1_000_000_000L;
  private final long runNanos;
  private volatile long runStart;  // the sampled window [runStart, deadline), after the warm-up
  private volatile long deadline;  // set once every session is connected
  private final List<Long> samples = new ArrayList<>();  // nanoseconds, guarded by this
  private final String extraName;
  private final AtomicLong extra = new AtomicLong();

  private CuratorRecipeBench(String connect, int clients, double seconds, String extraName) {
    this.connect = connect;
    this.clients = clients;
    this.extraName = extraName;
    this.runNanos = (long) (seconds * 1e9);
  }

  private CuratorFramework newSession() throws InterruptedException {
    // zkcoord's defaults: 10 s session timeout.
    CuratorFramework cf =
        CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(100, 3));
    cf.start();
    cf.blockUntilConnected();
    return cf;
  }

  private synchronized void sample(long nanos) {
    samples.add(nanos);
  }

  // ---- election-failover ----

  private long released;  // when the last leader called close(); guarded by this
  private int lastLeader = -1;  // guarded by this
  private final AtomicInteger leading = new AtomicInteger();

  private synchronized void elected(int id) {
    long now = System.nanoTime();
    if (leading.incrementAndGet() != 1) extra.incrementAndGet();
    if (lastLeader >= 0 && lastLeader != id && !BenchStats.before(released, runStart)
        && BenchStats.before(released, deadline)) sample(now - released);
    lastLeader = id;
  }

  private synchronized void relinquishing() {
    leading.decrementAndGet();
    released = System.nanoTime();
  }

  private void waitAllQueued(CuratorFramework observer, String path) throws Exception {
    while (BenchStats.before(System.nanoTime(), deadline)) {
      if (observer.getChildren().forPath(path).size() >= clients) return;
      Thread.sleep(1);
    }
  }

  private void participate(CuratorFramework cf, CuratorFramework observer, String path, int id)
      throws Exception {
    while (BenchStats.before(System.nanoTime(), deadline)) {
      LeaderLatch latch = new LeaderLatch(cf, path, "participant-" + id);
      latch.addListener(
          new LeaderLatchListener() {
            @Override
            public void isLeader() {
              elected(id);
            }

            @Override
            public void notLeader() {}
          });
      latch.start();
      latch.await();
      waitAllQueued(observer, path);
      relinquishing();
      latch.close();
    }
  }

  private void electionFailover() throws Exception {
    String path = "/bench/curator-election/" + ProcessHandle.current().pid();
    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i <= clients; i++) sessions.add(newSession());  // participants + observer
    CuratorFramework observer = sessions.get(clients);
    runThreads(id -> participate(sessions.get(id), observer, path, id));
  }

  // ---- read-lock ----

  private final AtomicInteger holders = new AtomicInteger();

  private void readLoop(CuratorFramework cf, String path) throws Exception {
    InterProcessMutex read = new InterProcessReadWriteLock(cf, path).readLock();
    List<Long> mine = new ArrayList<>();
    while (BenchStats.before(System.nanoTime(), deadline)) {
      long t0 = System.nanoTime();
      read.acquire();
      extra.accumulateAndGet(holders.incrementAndGet(), Math::max);
      read.release();
      holders.decrementAndGet();
      if (!BenchStats.before(t0, runStart)) mine.add(System.nanoTime() - t0);
    }
    synchronized (this) {
      samples.addAll(mine);
    }
  }

  private void readLock() throws Exception {
    String path = "/bench/curator-rw/" + ProcessHandle.current().pid();
    List<CuratorFramework> sessions = new ArrayList<>();
    for (int i = 0; i < clients; i++) sessions.add(newSession());
    // Warm-up: creates the lock path's parents, as zkcoord-rw-lock-bench does.
    InterProcessMutex warm = new InterProcessReadWriteLock(sessions.get(0), path).readLock();
    warm.acquire();
    warm.release();
    runThreads(id -> readLoop(sessions.get(id), path));
  }

  // ---- common ----

  private interface Body {
    void run(int id) throws Exception;
  }

  // Runs body(0..clients-1) on one thread each, started together; the window counts from here.
  private void runThreads(Body body) throws Exception {
    CountDownLatch go = new CountDownLatch(1);
    AtomicInteger failures = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < clients; i++) {
      final int id = i;
      Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                  body.run(id);
                } catch (Exception e) {
                  failures.incrementAndGet();
                  e.printStackTrace();
                }
              });
      t.start();
      threads.add(t);
    }
    runStart = System.nanoTime() + WARM_UP_NANOS;
    deadline = runStart + runNanos;
    go.countDown();
    for (Thread t : threads) t.join();
    if (failures.get() != 0) throw new IllegalStateException(failures.get() + " clients failed");
  }

  private void report(String workload) {
    double elapsed = (System.nanoTime() - runStart) / 1e9;
    List<Long> sorted;
    synchronized (this) {
      sorted = new ArrayList<>(samples);
    }
    Collections.sort(sorted);
    System.out.printf(
        "curator workload=%s clients=%d seconds=%.1f ops=%d rate=%.1f/s p50=%.2fms p99=%.2fms"
            + " %s=%d%n",
        workload, clients, elapsed, sorted.size(), sorted.size() / elapsed,
        BenchStats.quantileMs(sorted, 0.5), BenchStats.quantileMs(sorted, 0.99), extraName, extra.get());
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 4) {
      System.err.println("usage: java CuratorRecipeBench CONNECT WORKLOAD CLIENTS SECONDS");
      System.exit(2);
    }
    String workload = args[1];
    int clients = Integer.parseInt(args[2]);
    double seconds = Double.parseDouble(args[3]);
    CuratorRecipeBench b;
    switch (workload) {
      case "election-failover":
        b = new CuratorRecipeBench(args[0], Math.max(2, clients), seconds, "two_leaders");
        b.electionFailover();
        break;
      case "read-lock":
        b = new CuratorRecipeBench(args[0], clients, seconds, "max_holders");
        b.readLock();
        break;
      default:
        System.err.println("unknown workload " + workload);
        System.exit(2);
        return;
    }
    b.report(workload);
    System.exit(b.extraName.equals("two_leaders") && b.extra.get() != 0 ? 1 : 0);
  }
}
