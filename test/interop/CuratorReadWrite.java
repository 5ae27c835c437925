// SPDX-License-Identifier: Apache-2.0
// An Apache Curator InterProcessReadWriteLock contender for zkcoord's rw interoperability
// test: for SECONDS, takes the read lock (two cycles in three) or the write lock, marks entry
// and exit in the shared occupancy store of test/support/rw_occupancy_store.hpp (same format,
// same file lock), holds it a few milliseconds and releases.
//   usage: java CuratorReadWrite CONNECT LOCK_PATH STORE_DIR SECONDS NAME
// Prints "NAME reads=R writes=W" and exits 0, or exits 1 on any error.
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorReadWrite {
  /** The occupancy store: fields as in rw_occupancy_store.hpp, index by index. */
  static final int ZK_READERS = 0, CURATOR_READERS = 1, WRITERS = 2, MAX_READERS = 3,
      VIOLATIONS = 4, MIXED = 5, READS = 6, WRITES = 7, FIELDS = 8;

  static void occupancy(Path dir, boolean enter, boolean write, String who) throws IOException {
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("state").toFile(), "rw");
         FileChannel ch = f.getChannel();
         FileLock lock = ch.lock()) {
      byte[] buf = new byte[(int) f.length()];
      f.readFully(buf);
      String[] parts = new String(buf, StandardCharsets.US_ASCII).trim().split(" ");
      long[] s = new long[FIELDS];
      for (int i = 0; i < FIELDS; i++) s[i] = Long.parseLong(parts[i]);
      long readers = s[ZK_READERS] + s[CURATOR_READERS];
      if (!enter) {
        s[write ? WRITERS : CURATOR_READERS]--;
      } else if (write) {
        if (readers + s[WRITERS] > 0) s[VIOLATIONS]++;
        s[WRITERS]++;
        s[WRITES]++;
      } else {
        if (s[WRITERS] > 0) s[VIOLATIONS]++;
        if (s[ZK_READERS] > 0) s[MIXED]++;
        s[CURATOR_READERS]++;
        s[READS]++;
        s[MAX_READERS] = Math.max(s[MAX_READERS], readers + 1);
      }
      StringBuilder out = new StringBuilder();
      for (int i = 0; i < FIELDS; i++) out.append(i == 0 ? "" : " ").append(s[i]);
      f.setLength(0);
      f.seek(0);
      f.write((out + "\n").getBytes(StandardCharsets.US_ASCII));
      String line = (enter ? "enter " : "exit ") + (write ? "write " : "read ")
          + (s[ZK_READERS] + s[CURATOR_READERS]) + " " + s[WRITERS] + " " + who + "\n";
      Files.write(dir.resolve("log"), line.getBytes(StandardCharsets.US_ASCII),
          StandardOpenOption.APPEND);
    }
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], lockPath = a[1], name = a[4];
    Path store = Paths.get(a[2]);
    long deadline = System.nanoTime() + (long) (Double.parseDouble(a[3]) * 1e9);
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    cf.start();
    cf.blockUntilConnected();
    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(cf, lockPath);
    Random rng = new Random(name.hashCode());
    long reads = 0, writes = 0;
    while (System.nanoTime() < deadline) {
      boolean write = rng.nextInt(3) == 0;
      InterProcessMutex m = write ? rw.writeLock() : rw.readLock();
      m.acquire();
      occupancy(store, true, write, name);
      Thread.sleep(2 + rng.nextInt(12));
      occupancy(store, false, write, name);
      m.release();
      if (write) writes++; else reads++;
    }
    cf.close();
    System.out.println(name + " reads=" + reads + " writes=" + writes);
    System.exit(0);
  }
}
