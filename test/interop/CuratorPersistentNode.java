// SPDX-License-Identifier: Apache-2.0
// Apache Curator's PersistentNode and PersistentTtlNode for zkcoord's persistent node
// interoperability test.
//   usage: java CuratorPersistentNode CONNECT MODE PATH [ARGS]
// MODE:
//   node PATH DATA SECONDS       keep an EPHEMERAL PersistentNode at PATH with DATA for SECONDS,
//                                then close it (deletes it)
//   ttl PATH DATA TTL_MS SECONDS keep a PersistentTtlNode at PATH for SECONDS, then close it
//                                (deletes nothing: the server reaps the nodes after the ttl)
//   read PATH                    print the node's data
//   alive PATH SECONDS           check every 100 ms for SECONDS that PATH exists
// Prints "created" once a node is made, "data D" for read, "alive" when done, and exits 0;
// any exception or failed check prints "error <message>" and exits 1.
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.recipes.nodes.PersistentTtlNode;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

public class CuratorPersistentNode {
  public static void main(String[] a) throws Exception {
    String connect = a[0], mode = a[1], path = a[2];
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    try {
      cf.start();
      cf.blockUntilConnected();
      if (mode.equals("node")) {
        byte[] data = a[3].getBytes(StandardCharsets.UTF_8);
        try (PersistentNode node = new PersistentNode(cf, CreateMode.EPHEMERAL, false, path, data)) {
          node.start();
          if (!node.waitForInitialCreate(15, TimeUnit.SECONDS))
            throw new IllegalStateException("not created");
          System.out.println("created");
          System.out.flush();
          Thread.sleep(Long.parseLong(a[4]) * 1000);
        }
      } else if (mode.equals("ttl")) {
        byte[] data = a[3].getBytes(StandardCharsets.UTF_8);
        try (PersistentTtlNode node = new PersistentTtlNode(cf, path, Long.parseLong(a[4]), data)) {
          node.start();
          if (!node.waitForInitialCreate(15, TimeUnit.SECONDS))
            throw new IllegalStateException("not created");
          System.out.println("created");
          System.out.flush();
          Thread.sleep(Long.parseLong(a[5]) * 1000);
        }
      } else if (mode.equals("read")) {
        System.out.println("data " + new String(cf.getData().forPath(path), StandardCharsets.UTF_8));
      } else if (mode.equals("alive")) {
        long end = System.currentTimeMillis() + Long.parseLong(a[3]) * 1000;
        while (System.currentTimeMillis() < end) {
          if (cf.checkExists().forPath(path) == null)
            throw new IllegalStateException(path + " is gone");
          Thread.sleep(100);
        }
        System.out.println("alive");
      } else {
        throw new IllegalArgumentException("unknown mode " + mode);
      }
      System.out.flush();
    } catch (Exception e) {
      System.out.println("error " + e);
      System.out.flush();
      System.exit(1);
    } finally {
      cf.close();
    }
  }
}
