// SPDX-License-Identifier: Apache-2.0
// Apache Curator DistributedDoubleBarrier members for zkcoord's double barrier interoperability
// test: COUNT members, each on its own CuratorFramework (session), of DistributedDoubleBarrier
// (PATH, MEMBERS). Each line on stdin is a step for all of them: "enter" (enter()), "leave"
// (leave()) or "quit". The untimed calls are used: Curator's timed ones have the bugs zkcoord
// avoids (GH-1290, CURATOR-536).
//   usage: java CuratorDoubleBarrier CONNECT PATH MEMBERS COUNT
// Prints "ready" once connected, then "entered I" / "left I" per member and step, or
// "error I MESSAGE"; exits 0 after "quit", 1 on any error.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorDoubleBarrier {
  static synchronized void say(String line) {
    System.out.println(line);
    System.out.flush();
  }

  public static void main(String[] a) throws Exception {
    String connect = a[0], path = a[1];
    int members = Integer.parseInt(a[2]);
    int count = Integer.parseInt(a[3]);
    AtomicInteger failures = new AtomicInteger();
    List<BlockingQueue<String>> queues = new ArrayList<>();
    List<CuratorFramework> clients = new ArrayList<>();
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
          new ExponentialBackoffRetry(100, 3));
      cf.start();
      if (!cf.blockUntilConnected(30, TimeUnit.SECONDS)) throw new Exception("not connected");
      clients.add(cf);
      BlockingQueue<String> q = new LinkedBlockingQueue<>();
      queues.add(q);
      final int id = i;
      final DistributedDoubleBarrier barrier = new DistributedDoubleBarrier(cf, path, members);
      Thread t = new Thread(() -> {
        try {
          for (;;) {
            String step = q.take();
            if (step.equals("enter")) {
              barrier.enter();
              say("entered " + id);
            } else if (step.equals("leave")) {
              barrier.leave();
              say("left " + id);
            } else {
              return;
            }
          }
        } catch (Exception e) {
          failures.incrementAndGet();
          say("error " + id + " " + e);
        }
      });
      t.start();
      threads.add(t);
    }
    say("ready");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.US_ASCII));
    for (String line; (line = in.readLine()) != null;) {
      line = line.trim();
      for (BlockingQueue<String> q : queues) q.put(line);
      if (line.equals("quit")) break;
    }
    for (BlockingQueue<String> q : queues) q.put("quit");
    for (Thread t : threads) t.join();
    for (CuratorFramework cf : clients) cf.close();
    System.exit(failures.get() == 0 ? 0 : 1);
  }
}
