#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the metrics_server example for N acquisitions, scrapes its /metrics and checks them.

  check_metrics_server.py EXAMPLE_BINARY N

The example finds ZooKeeper in $ZKCOORD_CONNECT. The text is parsed by the Prometheus
project's own parser (prometheus_client.parser.text_string_to_metric_families), and must say:
every metric of docs/metrics.md under its name and type; N grants of the lock and N
observations in zkcoord_acquire_seconds; nothing waiting, lost or expired; and requests by
kind equal to the session's sent_requests() that the example printed. Prints the problems (exit
1) or a key=value summary line (exit 0).
"""
import subprocess
import sys
import urllib.request

from prometheus_client.parser import text_string_to_metric_families

EXPECTED_TYPES = {
    "zkcoord_acquire_seconds": "histogram",
    "zkcoord_grants": "counter",
    "zkcoord_acquire_failures": "counter",
    "zkcoord_losses": "counter",
    "zkcoord_waiting": "gauge",
    "zkcoord_session_state_changes": "counter",
    "zkcoord_reconnects": "counter",
    "zkcoord_expiries": "counter",
    "zkcoord_lease_margin_seconds": "gauge",
    "zkcoord_requests": "counter",
}
REQUEST_KINDS = ["create", "remove", "set", "get", "exists", "children", "multi", "sync",
                 "lease_renewal"]
RECIPES = ["lock", "read_lock", "write_lock", "semaphore", "election", "membership"]


def read_until(process, prefix):
    """The first line of the example's output that starts with `prefix` (echoing all)."""
    for line in process.stdout:
        print(line, end="", flush=True)
        if line.startswith(prefix):
            return line.strip()
    raise RuntimeError(f"the example ended before printing '{prefix}...'")


def samples_of(text):
    """{(sample name, frozenset of labels): value} and {family name: type}."""
    samples, types = {}, {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for s in family.samples:
            samples[(s.name, frozenset(s.labels.items()))] = s.value
    return samples, types


def check(text, summary, locks):
    samples, types = samples_of(text)
    problems = []

    def value(name, **labels):
        key = (name, frozenset(labels.items()))
        if key not in samples:
            problems.append(f"no sample {name}{labels}")
            return None
        return samples[key]

    def expect(name, wanted, **labels):
        got = value(name, **labels)
        if got is not None and got != wanted:
            problems.append(f"{name}{labels} = {got}, expected {wanted}")

    for name, kind in EXPECTED_TYPES.items():
        if types.get(name) != kind:
            problems.append(f"{name}: type {types.get(name)}, expected {kind}")
    for recipe in RECIPES:
        expect("zkcoord_grants_total", locks if recipe == "lock" else 0, recipe=recipe)
        expect("zkcoord_acquire_seconds_count", locks if recipe == "lock" else 0, recipe=recipe)
        expect("zkcoord_acquire_seconds_bucket", locks if recipe == "lock" else 0, recipe=recipe,
               le="+Inf")
        expect("zkcoord_acquire_failures_total", 0, recipe=recipe)
        expect("zkcoord_losses_total", 0, recipe=recipe)
        expect("zkcoord_waiting", 0, recipe=recipe)
    total = value("zkcoord_acquire_seconds_sum", recipe="lock")
    if total is not None and not total > 0:
        problems.append(f"zkcoord_acquire_seconds_sum{{recipe=lock}} = {total}, expected > 0")
    for kind in REQUEST_KINDS:
        expect("zkcoord_requests_total", int(summary[kind]), kind=kind)
    for kind in ["create", "remove"]:
        if int(summary[kind]) < locks:
            problems.append(f"sent_requests: {summary[kind]} {kind}s for {locks} locks")
    expect("zkcoord_session_state_changes_total", 1, state="connected")
    expect("zkcoord_session_state_changes_total", 0, state="expired")
    expect("zkcoord_reconnects_total", 0)
    expect("zkcoord_expiries_total", 0)
    margin = value("zkcoord_lease_margin_seconds")
    if margin is not None and not 0 < margin < 60:
        problems.append(f"zkcoord_lease_margin_seconds = {margin}, expected within (0, 60)")
    return problems, samples


def main():
    binary, locks = sys.argv[1], int(sys.argv[2])
    process = subprocess.Popen([binary, "--locks", str(locks)], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = read_until(process, "metrics: ").split(" ", 1)[1]
        summary_line = read_until(process, "locks=")
        summary = dict(word.split("=", 1) for word in summary_line.split())
        read_until(process, "serving ")
        with urllib.request.urlopen(url, timeout=30) as response:
            text = response.read().decode()
        problems, samples = check(text, summary, locks)
    finally:
        process.stdin.close()  # the example stops serving and exits
        for line in process.stdout:
            print(line, end="")
        status = process.wait(timeout=60)
    if status != 0:
        problems.append(f"the example exited with status {status}")
    if problems:
        print("\n".join(["metrics problems:"] + problems))
        print(text)
        return 1
    grants = samples[("zkcoord_grants_total", frozenset({("recipe", "lock")}))]
    count = samples[("zkcoord_acquire_seconds_count", frozenset({("recipe", "lock")}))]
    creates = samples[("zkcoord_requests_total", frozenset({("kind", "create")}))]
    print(f"checked=1 grants={int(grants)} acquire_count={int(count)} "
          f"requests_create={int(creates)} series={len(samples)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
