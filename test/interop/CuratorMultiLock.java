// SPDX-License-Identifier: Apache-2.0
// Apache Curator's InterProcessMultiLock for zkcoord's multi-lock interoperability test.
//   usage: java CuratorMultiLock CONNECT HOLDER_PATH ROUNDS LOCK_PATH...
// Each round: acquire every lock (in the order given), create HOLDER_PATH as an ephemeral node
// (it exists only while someone holds all the locks: NodeExists means two holders at once),
// hold it briefly, delete it, release. Prints "rounds N" and exits 0; an overlap or any
// exception prints "error <message>" and exits 1.
import java.util.Arrays;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMultiLock;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

public class CuratorMultiLock {
  public static void main(String[] a) throws Exception {
    String connect = a[0], holder = a[1];
    int rounds = Integer.parseInt(a[2]);
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    try {
      cf.start();
      cf.blockUntilConnected();
      InterProcessMultiLock lock =
          new InterProcessMultiLock(cf, Arrays.asList(a).subList(3, a.length));
      for (int i = 0; i < rounds; ++i) {
        lock.acquire();
        try {
          cf.create().withMode(CreateMode.EPHEMERAL).forPath(holder, "curator".getBytes());
          Thread.sleep(20);
          cf.delete().forPath(holder);
        } finally {
          lock.release();
        }
      }
      System.out.println("rounds " + rounds);
    } catch (Exception e) {
      System.out.println("error " + e);
      System.exit(1);
    } finally {
      cf.close();
    }
  }
}
