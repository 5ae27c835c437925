// SPDX-License-Identifier: Apache-2.0
// Apache Curator's counters for zkcoord's counter interoperability test.
//   usage: java CuratorCounter CONNECT MODE PATH N [LOCK_PATH]
// MODE:
//   long-add    N increments with DistributedAtomicLong (promoted to a lock on LOCK_PATH if
//               given); each must succeed
//   int-add     the same with DistributedAtomicInteger
//   shared-add  N increments with SharedCount: getVersionedValue, then trySetCount, again while
//               it fails (the seed is 0)
//   long-get, int-get, shared-get   read the value (N is ignored)
// Prints "value V" (the value read, or after the last increment the value this client wrote)
// and exits 0; any exception or failed increment prints "error <message>" and exits 1.
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicInteger;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public class CuratorCounter {
  public static void main(String[] a) throws Exception {
    String connect = a[0], mode = a[1], path = a[2];
    int n = Integer.parseInt(a[3]);
    String lockPath = a.length > 4 ? a[4] : null;
    CuratorFramework cf = CuratorFrameworkFactory.newClient(connect, 10000, 5000,
        new ExponentialBackoffRetry(100, 3));
    try {
      cf.start();
      cf.blockUntilConnected();
      // Promoted: one optimistic try, then the lock (where zkcoord's promoted writers queue too).
      RetryNTimes retry = lockPath == null ? new RetryNTimes(1000, 1) : new RetryNTimes(1, 1);
      PromotedToLock promoted = lockPath == null ? null
          : PromotedToLock.builder().lockPath(lockPath).retryPolicy(new RetryNTimes(1000, 1))
                .build();
      if (mode.startsWith("long")) {
        DistributedAtomicLong counter = promoted == null
            ? new DistributedAtomicLong(cf, path, retry)
            : new DistributedAtomicLong(cf, path, retry, promoted);
        long last = 0;
        if (mode.equals("long-get")) {
          last = counter.get().postValue();
        } else {
          for (int i = 0; i < n; ++i) {
            AtomicValue<Long> v = counter.increment();
            if (!v.succeeded()) throw new IllegalStateException("increment " + i + " failed");
            last = v.postValue();
          }
        }
        System.out.println("value " + last);
      } else if (mode.startsWith("int")) {
        DistributedAtomicInteger counter = promoted == null
            ? new DistributedAtomicInteger(cf, path, retry)
            : new DistributedAtomicInteger(cf, path, retry, promoted);
        int last = 0;
        if (mode.equals("int-get")) {
          last = counter.get().postValue();
        } else {
          for (int i = 0; i < n; ++i) {
            AtomicValue<Integer> v = counter.increment();
            if (!v.succeeded()) throw new IllegalStateException("increment " + i + " failed");
            last = v.postValue();
          }
        }
        System.out.println("value " + last);
      } else if (mode.startsWith("shared")) {
        SharedCount count = new SharedCount(cf, path, 0);
        count.start();
        try {
          int last = count.getCount();
          if (mode.equals("shared-add")) {
            for (int i = 0; i < n; ++i) {
              while (true) {
                VersionedValue<Integer> v = count.getVersionedValue();
                if (count.trySetCount(v, v.getValue() + 1)) {
                  last = v.getValue() + 1;
                  break;
                }
              }
            }
          }
          System.out.println("value " + last);
        } finally {
          count.close();
        }
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
