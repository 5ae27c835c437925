// SPDX-License-Identifier: Apache-2.0
// The cache benchmark's Apache Curator side: CuratorCache (Curator 5.4; on ZooKeeper 3.6+ one
// persistent recursive watch on the root), the same modes, trees and lines as
// zkcoord-cache-bench (test/bench/cache_bench.cpp), for scripts/bench-recipes.
//   java CuratorCacheBench clock
//     prints System.nanoTime() (CLOCK_MONOTONIC on Linux; the script checks it against
//     zkcoord-cache-bench clock).
//   java CuratorCacheBench CONNECT load RATE WARMUP SECONDS WRITER
//     one CuratorCache of /bench/cache/load on one CuratorFramework. cache-load line: load_ms,
//     start() -> initialized; rss_kib, the JVM's peak resident set (VmHWM) once initialized;
//     base_kib, its resident set (VmRSS) just before start (connected); growth_kib = rss - base.
//     Then it runs WRITER (the zkcoord-cache-bench binary: "WRITER CONNECT write RATE WARMUP
//     SECONDS", a separate process and session, the same writer as zkcoord's side) and samples
//     every change event whose data starts with "t": event time - the writer's send time.
//   java CuratorCacheBench CONNECT many CACHES
//     CACHES CuratorCaches of /bench/cache/many on ONE CuratorFramework, all started at once.
//     cache-many line: all_ms, first start -> every cache initialized; rss_kib, base_kib,
//     growth_kib as above.
// JVM flags are the defaults (as for the other peers); the heap is sized by the JVM.
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;

public final class CuratorCacheBench {
  private static final String LOAD_ROOT = "/bench/cache/load";
  private static final String MANY_ROOT = "/bench/cache/many";
  private static final int LOAD_PARENTS = 100, MANY_PARENTS = 10, CHILDREN = 100;

  private static boolean await(CountDownLatch latch, String what) throws InterruptedException {
    if (latch.await(300, TimeUnit.SECONDS)) return true;
    System.err.println("timed out waiting for " + what);
    return false;
  }

  private static int load(String connect, int rate, double warmup, double seconds,
      String writer) throws Exception {
    CuratorFramework cf = BenchStats.newSession(connect);
    CountDownLatch initialized = new CountDownLatch(1);
    AtomicLong initializedAt = new AtomicLong();
    List<Long> samples = Collections.synchronizedList(new ArrayList<>());
    CuratorCache cache = CuratorCache.build(cf, LOAD_ROOT);
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forChanges((oldNode, node) -> {
          byte[] data = node.getData();
          if (data == null || data.length == 0 || data[0] != 't') return;
          long now = System.nanoTime();
          String text = new String(data, StandardCharsets.US_ASCII);
          int end = 1;
          while (end < text.length() && Character.isDigit(text.charAt(end))) end++;
          samples.add(now - Long.parseLong(text.substring(1, end)));
        })
        .forInitialized(() -> {
          initializedAt.set(System.nanoTime());
          initialized.countDown();
        })
        .build());
    long base = BenchStats.procStatusKib("VmRSS");
    long start = System.nanoTime();
    cache.start();
    if (!await(initialized, "the cache")) return 1;
    long peak = BenchStats.procStatusKib("VmHWM");
    int nodes = cache.size();
    int want = 1 + LOAD_PARENTS + LOAD_PARENTS * CHILDREN;
    if (nodes != want) {
      System.err.println("load: " + nodes + " nodes cached (want " + want + ")");
      return 1;
    }
    System.out.printf("curator workload=cache-load nodes=%d load_ms=%.1f rss_kib=%d base_kib=%d"
            + " growth_kib=%d%n",
        nodes, (initializedAt.get() - start) / 1e6, peak, base, peak - base);
    System.out.flush();
    Process w = new ProcessBuilder(writer, connect, "write", Integer.toString(rate),
        Double.toString(warmup), Double.toString(seconds)).inheritIO().start();
    if (w.waitFor() != 0) {
      System.err.println("the writer failed");
      return 1;
    }
    Thread.sleep(1000);  // the last events
    List<Long> sorted;
    synchronized (samples) {
      sorted = new ArrayList<>(samples);
    }
    if (sorted.isEmpty()) {
      System.err.println("no sampled event");
      return 1;
    }
    Collections.sort(sorted);
    System.out.printf("curator workload=cache-latency writes=%d samples=%d rate=%.1f/s"
            + " p50=%.3fms p99=%.3fms%n",
        (long) (rate * seconds), sorted.size(), sorted.size() / seconds,
        BenchStats.quantileMs(sorted, 0.50), BenchStats.quantileMs(sorted, 0.99));
    cache.close();
    cf.close();
    return 0;
  }

  private static int many(String connect, int count) throws Exception {
    CuratorFramework cf = BenchStats.newSession(connect);
    CountDownLatch initialized = new CountDownLatch(count);
    AtomicLong last = new AtomicLong();
    List<CuratorCache> caches = new ArrayList<>();
    long base = BenchStats.procStatusKib("VmRSS");
    long start = System.nanoTime();
    for (int i = 0; i < count; i++) {
      CuratorCache cache = CuratorCache.build(cf, MANY_ROOT);
      cache.listenable().addListener(CuratorCacheListener.builder()
          .forInitialized(() -> {
            last.accumulateAndGet(System.nanoTime(), Math::max);
            initialized.countDown();
          })
          .build());
      cache.start();
      caches.add(cache);
    }
    if (!await(initialized, "every cache")) return 1;
    long peak = BenchStats.procStatusKib("VmHWM");
    int want = 1 + MANY_PARENTS + MANY_PARENTS * CHILDREN;
    for (CuratorCache cache : caches) {
      if (cache.size() != want) {
        System.err.println("many: " + cache.size() + " nodes cached (want " + want + ")");
        return 1;
      }
    }
    System.out.printf("curator workload=cache-many caches=%d nodes=%d all_ms=%.1f rss_kib=%d"
            + " base_kib=%d growth_kib=%d%n",
        count, want, (last.get() - start) / 1e6, peak, base, peak - base);
    for (CuratorCache cache : caches) cache.close();
    cf.close();
    return 0;
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 1 && args[0].equals("clock")) {
      System.out.println(System.nanoTime());
      System.exit(0);
    }
    int rc = 2;
    if (args.length == 6 && args[1].equals("load")) {
      rc = load(args[0], Math.max(1, Integer.parseInt(args[2])), Double.parseDouble(args[3]),
          Double.parseDouble(args[4]), args[5]);
    } else if (args.length == 3 && args[1].equals("many")) {
      rc = many(args[0], Math.max(1, Integer.parseInt(args[2])));
    } else {
      System.err.println("usage: java CuratorCacheBench clock\n"
          + "       java CuratorCacheBench CONNECT load RATE WARMUP SECONDS WRITER\n"
          + "       java CuratorCacheBench CONNECT many CACHES");
    }
    System.exit(rc);
  }
}
