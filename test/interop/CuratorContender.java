// SPDX-License-Identifier: Apache-2.0
// An Apache Curator InterProcessMutex contender for zkcoord's interoperability test: loops
// acquire -> critical section through the shared file fence store -> release for SECONDS.
// The token is the czxid of its own lock node (Curator does not expose one: read its Stat).
//   usage: java CuratorContender CONNECT LOCK_PATH STORE_DIR SECONDS NAME
// Prints "NAME cycles=N" and exits 0, or exits 1 on any error.
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
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorContender {
  /** Exposes the path of the node this thread holds. */
  static class Mutex extends InterProcessMutex {
    Mutex(CuratorFramework cf, String path) { super(cf, path); }
    String ownNode() { return getLockPath(); }
  }

  /** The file fence store of test/support/file_fence_store.hpp, same format and lock. */
  static class FenceStore {
    final Path dir;
    FenceStore(String dir) { this.dir = Paths.get(dir); }

    interface Change { String apply(long[] s); }

    synchronized void update(Change change) throws IOException {
      try (RandomAccessFile f = new RandomAccessFile(dir.resolve("state").toFile(), "rw");
           FileChannel ch = f.getChannel();
           FileLock lock = ch.lock()) {
        byte[] buf = new byte[(int) f.length()];
        f.readFully(buf);
        String[] parts = new String(buf, StandardCharsets.US_ASCII).trim().split(" ");
        long[] s = new long[6];
        for (int i = 0; i < 6; i++) s[i] = Long.parseLong(parts[i]);
        String line = change.apply(s);
        f.setLength(0);
        f.seek(0);
        f.write(String.format("%d %d %d %d %d %d\n", s[0], s[1], s[2], s[3], s[4], s[5])
            .getBytes(StandardCharsets.US_ASCII));
        Files.write(dir.resolve("log"), line.getBytes(StandardCharsets.US_ASCII),
            StandardOpenOption.APPEND);
      }
    }
    void enter(long token, String who) throws IOException {
      update(s -> { s[2]++; s[3] = Math.max(s[3], s[2]); return "enter " + token + " " + s[2] + " " + who + "\n"; });
    }
    void exit(long token, String who) throws IOException {
      update(s -> { s[2]--; return "exit " + token + " " + s[2] + " " + who + "\n"; });
    }
    long read(long token, String who) throws IOException {
      long[] v = new long[1];
      update(s -> { v[0] = s[1]; return "read " + token + " " + s[1] + " " + who + "\n"; });
      return v[0];
    }
    boolean write(long token, long value, String who) throws IOException {
      boolean[] ok = new boolean[1];
      update(s -> {
        ok[0] = token >= s[0];
        if (ok[0]) { s[0] = token; s[1] = value; s[4]++; } else { s[5]++; }
        return (ok[0] ? "accept " : "reject ") + token + " " + value + " " + who + "\n";
      });
      return ok[0];
    }
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], lockPath = a[1], name = a[4];
    FenceStore store = new FenceStore(a[2]);
    long deadline = System.nanoTime() + (long) (Double.parseDouble(a[3]) * 1e9);
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    cf.start();
    cf.blockUntilConnected();
    Mutex m = new Mutex(cf, lockPath);
    Random rng = new Random(name.hashCode());
    long cycles = 0;
    while (System.nanoTime() < deadline) {
      m.acquire();
      long token = cf.checkExists().forPath(m.ownNode()).getCzxid();
      store.enter(token, name);
      long v = store.read(token, name);
      Thread.sleep(rng.nextInt(11));
      store.write(token, v + 1, name);
      store.exit(token, name);
      m.release();
      cycles++;
    }
    cf.close();
    System.out.println(name + " cycles=" + cycles);
    System.exit(0);
  }
}
