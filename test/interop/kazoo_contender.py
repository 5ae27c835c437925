# SPDX-License-Identifier: Apache-2.0
"""A kazoo Lock contender for zkcoord's interoperability test: loops acquire -> critical section
through the shared file fence store -> release for SECONDS. The token is the czxid of its own
lock node (kazoo does not expose one: read its Stat).

usage: kazoo_contender.py STYLE CONNECT LOCK_PATH STORE_DIR SECONDS NAME
  STYLE=kazoo:   kazoo's own "<uuid>__lock__<seq>" nodes; recognises Curator/zkcoord nodes with
                 extra_lock_patterns=["-lock-"]. zkcoord orders both. (Curator cannot: it sorts
                 every child by the text after "lock-", so it must not share a path with these.)
  STYLE=curator: nodes named "<uuid>-lock-<seq>", which Curator, zkcoord and kazoo all order.
Prints "NAME cycles=N" and exits 0; any error raises (exit 1)."""
import fcntl
import logging
import os
import random
import sys
import time

from kazoo.client import KazooClient
from kazoo.recipe.lock import Lock

logging.basicConfig(level=logging.ERROR)


class CuratorStyleLock(Lock):
    """kazoo's Lock with Curator's node name, so that Curator sorts our nodes right."""
    _NODE_NAME = "-lock-"


class FenceStore:
    """The file fence store of test/support/file_fence_store.hpp, same format and lock."""

    def __init__(self, directory):
        self.dir = directory

    def _update(self, change):
        with open(os.path.join(self.dir, "state"), "r+") as f:
            fcntl.lockf(f, fcntl.LOCK_EX)
            s = [int(x) for x in f.read().split()]
            line = change(s)
            f.seek(0)
            f.truncate()
            f.write("%d %d %d %d %d %d\n" % tuple(s))
            f.flush()
            with open(os.path.join(self.dir, "log"), "a") as log:
                log.write(line)
            # closing f releases the lock

    def enter(self, token, who):
        def change(s):
            s[2] += 1
            s[3] = max(s[3], s[2])
            return "enter %d %d %s\n" % (token, s[2], who)
        self._update(change)

    def exit(self, token, who):
        def change(s):
            s[2] -= 1
            return "exit %d %d %s\n" % (token, s[2], who)
        self._update(change)

    def read(self, token, who):
        got = []
        self._update(lambda s: got.append(s[1]) or "read %d %d %s\n" % (token, s[1], who))
        return got[0]

    def write(self, token, value, who):
        ok = []

        def change(s):
            ok.append(token >= s[0])
            if ok[0]:
                s[0], s[1], s[4] = token, value, s[4] + 1
            else:
                s[5] += 1
            return "%s %d %d %s\n" % ("accept" if ok[0] else "reject", token, value, who)
        self._update(change)
        return ok[0]


def main():
    style, connect, path, store_dir, seconds, name = sys.argv[1:7]
    store = FenceStore(store_dir)
    zk = KazooClient(hosts=connect, timeout=10)
    zk.start(timeout=30)
    lock_class = CuratorStyleLock if style == "curator" else Lock
    lock = lock_class(zk, path, name, extra_lock_patterns=["-lock-"])
    rng = random.Random(name)
    deadline = time.monotonic() + float(seconds)
    cycles = 0
    while time.monotonic() < deadline:
        lock.acquire()
        token = zk.exists(path + "/" + lock.node).czxid
        store.enter(token, name)
        value = store.read(token, name)
        time.sleep(rng.randint(0, 10) / 1000.0)
        store.write(token, value + 1, name)
        store.exit(token, name)
        lock.release()
        cycles += 1
    zk.stop()
    print("%s cycles=%d" % (name, cycles), flush=True)


if __name__ == "__main__":
    main()
