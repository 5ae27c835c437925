#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# kazoo's Counter(support_curator=True) for zkcoord's counter interoperability test.
#   usage: kazoo_counter.py CONNECT PATH N
# Adds 1 N times (kazoo retries each on a version conflict), then prints "value V", the value
# it reads last; N = 0 only reads. Any exception prints "error <message>" and exits 1.
import sys

from kazoo.client import KazooClient


def main():
    connect, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    client = KazooClient(hosts=connect, timeout=10.0,
                         command_retry={"max_tries": -1, "delay": 0.005, "max_delay": 0.05})
    try:
        client.start(timeout=15)
        counter = client.Counter(path, support_curator=True)
        for _ in range(n):
            counter += 1
        print("value %d" % counter.value, flush=True)
    except Exception as e:  # the test reads the line
        print("error %r" % (e,), flush=True)
        sys.exit(1)
    finally:
        client.stop()
        client.close()


if __name__ == "__main__":
    main()
