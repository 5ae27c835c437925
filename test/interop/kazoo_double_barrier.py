#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# One kazoo DoubleBarrier member for zkcoord's double barrier interoperability test.
#   usage: kazoo_double_barrier.py CONNECT PATH MEMBERS
# Prints "ready" once connected. Each line on stdin is a step: "enter" (enter()), "leave"
# (leave()) or "quit"; after each it prints "entered NAME" / "left NAME" (NAME: kazoo's member
# node name, uuid4().hex). kazoo's enter() and leave() swallow their errors (enter() then sets
# participating to False): that, and any exception, prints "error <message>" and exits 1.
import sys

from kazoo.client import KazooClient


def main():
    connect, path, members = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = KazooClient(hosts=connect, timeout=10.0)
    try:
        client.start(timeout=15)
        print("ready", flush=True)
        barrier = None
        for line in sys.stdin:
            step = line.strip()
            if step == "enter":
                barrier = client.DoubleBarrier(path, members)  # a new member name per round
                barrier.enter()
                if not barrier.participating:
                    raise RuntimeError("enter failed (kazoo swallowed the error)")
                print("entered %s" % barrier.node_name, flush=True)
            elif step == "leave":
                barrier.leave()
                if client.exists(barrier.create_path):
                    raise RuntimeError("our node is still there after leave()")
                print("left %s" % barrier.node_name, flush=True)
            else:
                break
    except Exception as e:  # the test reads the line
        print("error %r" % (e,), flush=True)
        sys.exit(1)
    finally:
        client.stop()
        client.close()


if __name__ == "__main__":
    main()
