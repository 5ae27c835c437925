// SPDX-License-Identifier: Apache-2.0
// Apache Curator's CuratorCache for zkcoord's tree cache interoperability test.
//   usage: java CuratorCacheWatch CONNECT PATH
// Prints one line per event, flushed, as the listener sees it:
//   added PATH CZXID MZXID | updated PATH CZXID MZXID | removed PATH CZXID MZXID | initialized
// (removed names the Stat of the node that went away). Then reads commands from stdin:
//   dump   prints "node PATH CZXID MZXID HEX" for every cached node in path order, then "end"
// EOF on stdin closes the cache and exits 0; an exception prints "error <message>", exits 1.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.Comparator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorCacheWatch {
  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static String describe(ChildData d) {
    return d.getPath() + " " + d.getStat().getCzxid() + " " + d.getStat().getMzxid();
  }

  static String hex(byte[] data) {
    if (data == null || data.length == 0) return "-";
    StringBuilder s = new StringBuilder();
    for (byte b : data) s.append(String.format("%02x", b));
    return s.toString();
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], path = a[1];
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    try {
      cf.start();
      cf.blockUntilConnected();
      CuratorCache cache = CuratorCache.build(cf, path);
      cache.listenable().addListener(new CuratorCacheListener() {
        @Override
        public void event(Type type, ChildData oldData, ChildData data) {
          switch (type) {
            case NODE_CREATED: say("added " + describe(data)); break;
            case NODE_CHANGED: say("updated " + describe(data)); break;
            case NODE_DELETED: say("removed " + describe(oldData)); break;
          }
        }

        @Override
        public void initialized() {
          say("initialized");
        }
      });
      cache.start();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
      for (String line; (line = in.readLine()) != null;) {
        if (!line.trim().equals("dump")) continue;
        StringBuilder out = new StringBuilder();
        cache.stream().sorted(Comparator.comparing(ChildData::getPath)).forEach(d ->
            out.append("node ").append(describe(d)).append(' ').append(hex(d.getData()))
                .append('\n'));
        say(out + "end");
      }
      cache.close();
    } catch (Exception e) {
      say("error " + e);
      System.exit(1);
    } finally {
      cf.close();
    }
  }
}
