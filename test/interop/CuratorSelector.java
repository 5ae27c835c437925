// SPDX-License-Identifier: Apache-2.0
// An Apache Curator LeaderSelector (autoRequeue) for zkcoord's leader_selector interoperability
// test, driven line by line through stdin; everything it prints goes to stdout in one stream.
//   usage: java CuratorSelector CONNECT PATH ID HOLDER
// Prints "ready" once connected and its selector started. Each time takeLeadership runs it
// creates HOLDER as an EPHEMERAL node (the overlap detector: it exists only while some leader
// holds it) and prints
//   "lead holder=<czxid of HOLDER> leader=<getLeader().getId()>"
// or "overlap" if HOLDER already existed (another leader still held it), then waits for the
// "release" command, deletes HOLDER and returns (autoRequeue: the selector queues again).
// Commands (one a line):
//   "query"   -> "state has=<hasLeadership> leader=<getLeader().getId()> ids=<participant ids>"
//   "release" -> "released" once HOLDER is deleted and takeLeadership is about to return
//   "quit"    -> closes everything and exits 0.
// Any exception prints "error <message>" and exits 1.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Semaphore;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

public class CuratorSelector {
  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], path = a[1], id = a[2], holder = a[3];
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    Semaphore release = new Semaphore(0);
    try {
      cf.start();
      cf.blockUntilConnected();
      final LeaderSelector[] selector = new LeaderSelector[1];
      selector[0] = new LeaderSelector(cf, path, new LeaderSelectorListenerAdapter() {
        @Override
        public void takeLeadership(CuratorFramework client) throws Exception {
          try {
            client.create().withMode(CreateMode.EPHEMERAL).forPath(holder);
          } catch (KeeperException.NodeExistsException e) {
            say("overlap");
            return;
          }
          long czxid = client.checkExists().forPath(holder).getCzxid();
          say("lead holder=" + czxid + " leader=" + selector[0].getLeader().getId());
          release.acquire();
          client.delete().forPath(holder);
          say("released");
        }
      });
      selector[0].setId(id);
      selector[0].autoRequeue();
      selector[0].start();
      say("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null;) {
        switch (line.trim()) {
          case "query": {
            List<String> ids = new ArrayList<>();
            for (Participant p : selector[0].getParticipants()) ids.add(p.getId());
            say("state has=" + selector[0].hasLeadership() + " leader="
                + selector[0].getLeader().getId() + " ids=" + String.join(",", ids));
            break;
          }
          case "release":
            release.release();
            break;
          case "quit":
            selector[0].close();
            cf.close();
            System.exit(0);
            break;
          default:
            say("error unknown command " + line);
            System.exit(1);
        }
      }
    } catch (Exception e) {
      say("error " + e);
      System.exit(1);
    }
  }
}
