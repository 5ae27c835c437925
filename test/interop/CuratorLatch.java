// SPDX-License-Identifier: Apache-2.0
// An Apache Curator LeaderLatch participant for zkcoord's election interoperability test,
// driven line by line through stdin; everything it prints goes to stdout in one ordered stream.
//   usage: java CuratorLatch CONNECT LATCH_PATH ID
// Prints "ready" once connected and its latch started, then, as they happen:
//   "isLeader czxid=N"   the latch's listener was told it leads (N: its node's czxid, the term)
//   "notLeader"          the listener was told it no longer leads
// Commands (one a line), each answered by one line:
//   "query"  -> "state has=<hasLeadership> leader=<getLeader().getId()> ids=<getParticipants ids,
//               comma-separated, in Curator's order>"
//   "close"  -> "closed"   (LeaderLatch.close(): leave the election; our node is deleted)
//   "start"  -> "started"  (a new LeaderLatch with the same id: rejoin at the tail)
//   "quit"   -> closes everything and exits 0.
// Any exception prints "error <message>" and exits 1.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorLatch {
  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  static LeaderLatch startLatch(CuratorFramework cf, String path, String id) throws Exception {
    LeaderLatch latch = new LeaderLatch(cf, path, id);
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        try {
          long czxid = cf.checkExists().forPath(latch.getOurPath()).getCzxid();
          say("isLeader czxid=" + czxid);
        } catch (Exception e) {
          say("error " + e);
          System.exit(1);
        }
      }
      @Override
      public void notLeader() {
        say("notLeader");
      }
    });
    latch.start();
    return latch;
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], path = a[1], id = a[2];
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    try {
      cf.start();
      cf.blockUntilConnected();
      LeaderLatch latch = startLatch(cf, path, id);
      say("ready");
      BufferedReader in =
          new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
      for (String line; (line = in.readLine()) != null;) {
        switch (line.trim()) {
          case "query": {
            List<String> ids = new ArrayList<>();
            for (Participant p : latch.getParticipants()) ids.add(p.getId());
            say("state has=" + latch.hasLeadership() + " leader=" + latch.getLeader().getId()
                + " ids=" + String.join(",", ids));
            break;
          }
          case "close":
            latch.close();
            say("closed");
            break;
          case "start":
            latch = startLatch(cf, path, id);
            say("started");
            break;
          case "quit":
            if (latch.getState() == LeaderLatch.State.STARTED) latch.close();
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
