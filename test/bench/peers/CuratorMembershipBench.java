// SPDX-License-Identifier: Apache-2.0
// The membership benchmark's Apache Curator side, the same workload and output line as
// zkcoord-membership-bench, for scripts/bench-recipes.
//   usage: java CuratorMembershipBench CONNECT [MEMBERS [VIEWERS]]   (default 1000 and 10)
// MEMBERS members on ONE CuratorFramework (one session): each a PersistentNode(EPHEMERAL, not
// protected) at <group>/<id>, which is GroupMember's node (GroupMember is that PersistentNode
// plus a CuratorCache of the whole group per member; 1000 GroupMembers would be 1000 caches on
// one session, so the members here are the node alone, as zkcoord's are). Every start() is
// issued at once (they create in the background), then waitForInitialCreate on each.
// VIEWERS viewers, each its own CuratorFramework with a CuratorCache on the group path,
// initialized (the missing group read) before the first join; a viewer counts the children of
// the group its cache holds (creates minus deletes).
// all_joined_ms: first start() -> every node created; all_seen_ms: first start() -> every
// viewer's cache holds all MEMBERS; rss_kib: the JVM's peak resident set (VmHWM). Then every
// member closes (deletes its node; close() blocks, so 32 threads close them) and the run
// checks every viewer sees the group empty and it holds no child (left_ms: first close ->
// every viewer saw it empty).
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

public final class CuratorMembershipBench {
  private static boolean await(CountDownLatch latch, String what) throws InterruptedException {
    if (latch.await(120, TimeUnit.SECONDS)) return true;
    System.err.println("timed out waiting for " + what);
    return false;
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 1 || args.length > 3) {
      System.err.println("usage: java CuratorMembershipBench CONNECT [MEMBERS [VIEWERS]]");
      System.exit(2);
    }
    String connect = args[0];
    int members = Math.max(1, args.length > 1 ? Integer.parseInt(args[1]) : 1000);
    int viewers = Math.max(1, args.length > 2 ? Integer.parseInt(args[2]) : 10);
    String path = "/bench/curator-membership/" + ProcessHandle.current().pid();

    CuratorFramework memberSession = BenchStats.newSession(connect);
    List<CuratorFramework> viewerSessions = new ArrayList<>();
    for (int i = 0; i < viewers; i++) viewerSessions.add(BenchStats.newSession(connect));

    CountDownLatch initialized = new CountDownLatch(viewers);
    CountDownLatch allSeen = new CountDownLatch(viewers);
    CountDownLatch allEmpty = new CountDownLatch(viewers);
    AtomicLong lastSeen = new AtomicLong(), lastEmpty = new AtomicLong();
    List<CuratorCache> caches = new ArrayList<>();
    String prefix = path + "/";
    for (CuratorFramework cf : viewerSessions) {
      AtomicInteger count = new AtomicInteger();
      boolean[] full = {false};  // touched by the cache's one event thread only
      CuratorCache cache = CuratorCache.build(cf, path);
      Runnable check = () -> {
        int n = count.get();
        if (!full[0] && n == members) {
          full[0] = true;
          lastSeen.accumulateAndGet(System.nanoTime(), Math::max);
          allSeen.countDown();
        } else if (full[0] && n == 0) {
          full[0] = false;
          lastEmpty.accumulateAndGet(System.nanoTime(), Math::max);
          allEmpty.countDown();
        }
      };
      cache.listenable().addListener(CuratorCacheListener.builder()
          .forCreates(node -> {
            if (node.getPath().startsWith(prefix)) {
              count.incrementAndGet();
              check.run();
            }
          })
          .forDeletes(node -> {
            if (node.getPath().startsWith(prefix)) {
              count.decrementAndGet();
              check.run();
            }
          })
          .forInitialized(initialized::countDown)
          .build());
      cache.start();
      caches.add(cache);
    }
    if (!await(initialized, "the viewers' caches")) System.exit(1);

    List<PersistentNode> nodes = new ArrayList<>();
    long start = System.nanoTime();
    for (int i = 0; i < members; i++) {
      PersistentNode node = new PersistentNode(memberSession, CreateMode.EPHEMERAL, false,
          prefix + String.format("m%05d", i), ("member-" + i).getBytes(StandardCharsets.UTF_8));
      node.start();
      nodes.add(node);
    }
    for (PersistentNode node : nodes) {
      if (!node.waitForInitialCreate(120, TimeUnit.SECONDS)) {
        System.err.println("not created: " + node.getActualPath());
        System.exit(1);
      }
    }
    long allJoined = System.nanoTime();
    if (!await(allSeen, "every viewer to see all members")) System.exit(1);
    long rssKib = BenchStats.procStatusKib("VmHWM");

    long leaveStart = System.nanoTime();
    ExecutorService closers = Executors.newFixedThreadPool(32);
    for (PersistentNode node : nodes) closers.submit(() -> { node.close(); return null; });
    closers.shutdown();
    closers.awaitTermination(120, TimeUnit.SECONDS);
    if (!await(allEmpty, "every viewer to see the group empty")) System.exit(1);
    int left;
    try {
      left = memberSession.getChildren().forPath(path).size();
    } catch (KeeperException.NoNodeException e) {
      left = 0;  // the group's parents are CONTAINERs: the server may have removed it
    }
    if (left != 0) {
      System.err.println(left + " children left under " + path);
      System.exit(1);
    }
    System.out.printf(
        "curator workload=membership members=%d viewers=%d all_joined_ms=%.1f all_seen_ms=%.1f"
            + " rss_kib=%d left_ms=%.1f%n",
        members, viewers, (allJoined - start) / 1e6, (lastSeen.get() - start) / 1e6, rssKib,
        (lastEmpty.get() - leaveStart) / 1e6);
    for (CuratorCache cache : caches) cache.close();
    for (CuratorFramework cf : viewerSessions) cf.close();
    memberSession.close();
    System.exit(0);
  }
}
