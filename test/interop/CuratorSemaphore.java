// SPDX-License-Identifier: Apache-2.0
// Apache Curator InterProcessSemaphoreV2 contenders for zkcoord's semaphore interoperability
// test: COUNT threads, each on its own CuratorFramework (session), for SECONDS acquire one
// lease of InterProcessSemaphoreV2(PATH, MAX_LEASES), mark entry and exit in the shared
// occupancy store of test/support/lease_occupancy_store.hpp (same format, same file lock),
// hold it a few milliseconds and return it.
//   usage: java CuratorSemaphore CONNECT PATH MAX_LEASES STORE_DIR SECONDS COUNT
// Prints "curator-I leases=L" per contender and exits 0, or exits 1 on any error.
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorSemaphore {
  /** The occupancy store: fields as in lease_occupancy_store.hpp, index by index. */
  static final int LIMIT = 0, ZK_HOLDERS = 1, CURATOR_HOLDERS = 2, MAX_HOLDERS = 3,
      VIOLATIONS = 4, MIXED = 5, ZK_LEASES = 6, CURATOR_LEASES = 7, FIELDS = 8;

  // synchronized: a JVM holds a file's lock once, so its threads exclude each other here.
  static synchronized void occupancy(Path dir, boolean enter, String who) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("state").toFile(), "rw");
         FileChannel ch = f.getChannel();
         FileLock lock = ch.lock()) {
      byte[] buf = new byte[(int) f.length()];
      f.readFully(buf);
      String[] parts = new String(buf, StandardCharsets.US_ASCII).trim().split(" ");
      long[] s = new long[FIELDS];
      for (int i = 0; i < FIELDS; i++) s[i] = Long.parseLong(parts[i]);
      if (enter) {
        if (s[ZK_HOLDERS] + s[CURATOR_HOLDERS] >= s[LIMIT]) s[VIOLATIONS]++;
        if (s[ZK_HOLDERS] > 0) s[MIXED]++;
        s[CURATOR_HOLDERS]++;
        s[CURATOR_LEASES]++;
        s[MAX_HOLDERS] = Math.max(s[MAX_HOLDERS], s[ZK_HOLDERS] + s[CURATOR_HOLDERS]);
      } else {
        s[CURATOR_HOLDERS]--;
      }
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < FIELDS; i++) out.append(i == 0 ? "" : " ").append(s[i]);
      f.setLength(0);
      f.seek(0);
      f.write((out + "\n").getBytes(StandardCharsets.US_ASCII));
      String line = (enter ? "enter " : "exit ") + (s[ZK_HOLDERS] + s[CURATOR_HOLDERS]) + " "
          + who + "\n";
      Files.write(dir.resolve("log"), line.getBytes(StandardCharsets.US_ASCII),
          StandardOpenOption.APPEND);
    }
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], path = a[1];
    int maxLeases = Integer.parseInt(a[2]);
    Path store = Paths.get(a[3]);
    long deadline = System.nanoTime() + (long) (Double.parseDouble(a[4]) * 1e9);
    int count = Integer.parseInt(a[5]);
    long[] leases = new long[count];
    AtomicInteger failures = new AtomicInteger();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      final int id = i;
      final String name = "curator-" + i;
      Thread t = new Thread(() -> {
        // zkcoord's defaults: 10 s session timeout.
        CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
            new ExponentialBackoffRetry(100, 3));
        try {
          cf.start();
          cf.blockUntilConnected();
          InterProcessSemaphoreV2 semaphore = new InterProcessSemaphoreV2(cf, path, maxLeases);
          Random rng = new Random(name.hashCode());
          while (System.nanoTime() - deadline < 0) {
            Lease lease = semaphore.acquire();
            occupancy(store, true, name);
            Thread.sleep(2 + rng.nextInt(12));
            occupancy(store, false, name);
            semaphore.returnLease(lease);
            leases[id]++;
          }
        } catch (Exception e) {
          failures.incrementAndGet();
          e.printStackTrace();
        } finally {
          cf.close();
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    for (int i = 0; i < count; i++) System.out.println("curator-" + i + " leases=" + leases[i]);
    System.exit(failures.get() == 0 ? 0 : 1);
  }
}
