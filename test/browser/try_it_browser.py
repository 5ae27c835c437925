#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Browser test of `zkcoord try-it` (the "Try it" page served on 127.0.0.1).

Usage:
    try_it_browser.py --zkcoord PATH --out DIR [--only fenced] [--connect HOSTS]

It does what a reader does: starts `zkcoord try-it`, opens the printed URL in
headless Chromium (Debian `chromium` + `chromium-driver`, Selenium 4 from
`python3-selenium`), runs the lesson preset in the three modes and checks the
verdict on the page, the events the server sent and the SQLite file of the
run; then the error paths of the HTTP interface, the saved page, and that the
server leaves no process and no file behind (SIGINT, and SIGKILL mid-run).

It prints one line per check, "ok: ..." or "FAIL: ...", and exits 0 only if
every check passed. It never asserts on durations: every wait is a generous
upper bound after which the check fails with what it saw.

The contract it checks is the try-it spec (command, HTTP endpoints, event
JSON, DOM ids).
"""

import argparse
import http.client
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import traceback
import urllib.parse

try:
    from selenium import webdriver
except ImportError:  # e.g. a pyenv python3 first on PATH: use Debian's package
    for _p in ("/usr/lib/python3/dist-packages",):
        if os.path.isdir(_p) and _p not in sys.path:
            sys.path.append(_p)
    from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

URL_TIMEOUT_S = 90       # local ZooKeeper start + server start
RUN_START_TIMEOUT_S = 60  # click -> run_started
RUN_TIMEOUT_S = 180       # run_started -> finished (a run takes ~5-10 s)
DOM_TIMEOUT_S = 20        # an event arrived -> the page shows it
EXIT_TIMEOUT_S = 30       # SIGINT -> exit; SIGKILL -> children and files gone

LESSON = {"lease_s": 10, "pause_s": 15}


# --------------------------------------------------------------------------
# Reporting

class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, what):
        self.passed += 1
        print("ok: " + what, flush=True)

    def fail(self, what):
        self.failed += 1
        print("FAIL: " + what, flush=True)

    def check(self, cond, what, detail=""):
        if cond:
            self.ok(what)
        else:
            self.fail(what + (" -- " + detail if detail else ""))
        return bool(cond)


C = Checks()


def note(text):
    print("   " + text, flush=True)


def step(name, fn, *args):
    """Runs one independent step; an exception is one FAIL line, not the end."""
    try:
        return fn(*args)
    except Exception as e:  # noqa: BLE001 - report and go on with the next step
        C.fail("%s: %s: %s" % (name, type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""))
        traceback.print_exc(file=sys.stderr)
        return None


def wait_until(pred, timeout_s, interval_s=0.1):
    """Returns pred()'s first truthy value, or None after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            value = pred()
        except WebDriverException:
            value = None
        if value:
            return value
        if time.monotonic() >= deadline:
            return None
        time.sleep(interval_s)


# --------------------------------------------------------------------------
# The server process

class Server:
    TMP_RE = re.compile(r"zkcoord try-it: files in (\S+) \(removed at exit\)")

    def __init__(self, zkcoord, connect, out_dir, tag):
        self.tag = tag
        cmd = [zkcoord, "try-it"]
        if connect:
            cmd += ["--connect", connect]
        self.cmd = cmd
        self.stderr_path = os.path.join(out_dir, "server-%s.stderr.log" % tag)
        self._stderr_file = open(self.stderr_path, "w")
        self.stdout_lines = []
        self.stderr_lines = []
        self.url = None
        self.tmp_dir = None
        self._cv = threading.Condition()
        # Its own process group, so a terminal's ^C goes to us only; we stop it by its pid.
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, start_new_session=True)
        note("started %s (pid %d, stderr in %s)" % (" ".join(cmd), self.proc.pid, self.stderr_path))
        threading.Thread(target=self._read, args=(self.proc.stdout, self.stdout_lines, False),
                         daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, self.stderr_lines, True),
                         daemon=True).start()

    def _read(self, pipe, lines, is_stderr):
        for raw in iter(pipe.readline, b""):
            line = raw.decode("utf-8", "replace").rstrip("\n")
            with self._cv:
                lines.append(line)
                if is_stderr:
                    self._stderr_file.write(line + "\n")
                    self._stderr_file.flush()
                    m = self.TMP_RE.search(line)
                    if m and self.tmp_dir is None:
                        self.tmp_dir = m.group(1)
                elif self.url is None:
                    self.url = line.strip()
                self._cv.notify_all()
        with self._cv:
            self._cv.notify_all()

    def wait_url(self, timeout_s):
        deadline = time.monotonic() + timeout_s
        with self._cv:
            while self.url is None and self.proc.poll() is None:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cv.wait(min(left, 1.0))
            if self.url is not None:
                # The temp dir line may come just after the URL.
                end = time.monotonic() + 10
                while self.tmp_dir is None and self.proc.poll() is None and time.monotonic() < end:
                    self._cv.wait(0.5)
        return self.url

    @property
    def host_port(self):
        u = urllib.parse.urlsplit(self.url)
        return u.hostname, u.port

    def alive(self):
        return self.proc.poll() is None

    def signal(self, sig):
        if self.alive():
            os.kill(self.proc.pid, sig)

    def wait_exit(self, timeout_s):
        try:
            return self.proc.wait(timeout_s)
        except subprocess.TimeoutExpired:
            return None

    def kill(self):
        """finally: SIGKILL it if it still runs, then end what it left behind."""
        if self.alive():
            note("killing try-it server pid %d" % self.proc.pid)
            os.kill(self.proc.pid, signal.SIGKILL)
            self.wait_exit(10)
        # Only processes of its session or whose command line names its own unique temp
        # dir: they were started by the server we started.
        def leftovers():
            found = dict(processes_in_session(self.proc.pid))
            if self.tmp_dir:
                found.update(processes_mentioning(self.tmp_dir))
            return sorted(found.items())
        if wait_until(lambda: not leftovers(), 10) is None:
            for pid, cmdline in leftovers():
                note("killing leftover pid %d: %s" % (pid, cmdline[:200]))
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        self._stderr_file.close()

    def tail_stderr(self, n=15):
        with self._cv:
            return "\n".join(self.stderr_lines[-n:])


def processes_mentioning(text):
    """[(pid, cmdline)] of processes whose command line contains text (not us)."""
    needle = text.encode()
    found = []
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmdline = f.read()
        except OSError:
            continue
        if needle in cmdline:
            found.append((int(name), cmdline.replace(b"\0", b" ").decode("utf-8", "replace").strip()))
    return found


def processes_in_session(sid):
    """[(pid, cmdline)] of processes of session sid (the server was started as its leader)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % name, "rb") as f:
                stat = f.read()
            fields = stat[stat.rindex(b")") + 2:].split()
            if int(fields[3]) != sid:
                continue
            with open("/proc/%s/cmdline" % name, "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except (OSError, ValueError, IndexError):
            continue
        found.append((int(name), cmdline))
    return found


# --------------------------------------------------------------------------
# HTTP

def http_request(server, method, path, body=None, headers=None, timeout_s=30):
    """(status, headers dict lower-case, body bytes)."""
    host, port = server.host_port
    conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
    finally:
        conn.close()


def post_run(server, payload, content_type="application/json"):
    body = payload if isinstance(payload, (bytes, str)) else json.dumps(payload)
    if isinstance(body, str):
        body = body.encode()
    return http_request(server, "POST", "/run", body=body, headers={"Content-Type": content_type})


def json_or_none(data):
    try:
        return json.loads(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None


def read_sse(resp, on_event):
    """Reads `data: <json>` messages from an event-stream response until on_event returns True."""
    data_lines = []
    while True:
        raw = resp.readline()
        if not raw:
            return False
        line = raw.decode("utf-8", "replace").rstrip("\r\n")
        if line == "":
            if data_lines:
                text = "\n".join(data_lines)
                data_lines = []
                try:
                    event = json.loads(text)
                except ValueError:
                    event = {"type": "<unparsable>", "raw": text}
                if on_event(event):
                    return True
            continue
        if line.startswith(":"):
            continue
        if line.startswith("data:"):
            value = line[5:]
            data_lines.append(value[1:] if value.startswith(" ") else value)


class EventStream:
    """One live GET /events connection, kept for the server's lifetime, recording every event."""

    def __init__(self, server):
        self.server = server
        self.events = []
        self.content_type = None
        self.error = None
        self.closed = False
        self._cv = threading.Condition()
        host, port = server.host_port
        self._conn = http.client.HTTPConnection(host, port, timeout=30)
        self._conn.connect()
        self._sock = self._conn.sock  # the connection lets go of it once the response is read
        self._conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
        resp = self._conn.getresponse()
        self.status = resp.status
        self.content_type = resp.getheader("Content-Type", "")
        self._sock.settimeout(None)  # a quiet stream is fine; close() ends it
        self._resp = resp
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        def on_event(event):
            with self._cv:
                self.events.append(event)
                self._cv.notify_all()
            return False
        try:
            read_sse(self._resp, on_event)
        except Exception as e:  # noqa: BLE001 - closed by us or by the server
            self.error = e
        with self._cv:
            self.closed = True
            self._cv.notify_all()

    def wait_for(self, pred, timeout_s):
        """The first recorded event with pred(event), or None after timeout_s."""
        deadline = time.monotonic() + timeout_s
        with self._cv:
            while True:
                for ev in self.events:
                    if pred(ev):
                        return ev
                left = deadline - time.monotonic()
                if left <= 0 or self.closed:
                    return None
                self._cv.wait(min(left, 1.0))

    def max_run(self):
        with self._cv:
            runs = [ev.get("run", 0) for ev in self.events if isinstance(ev.get("run"), int)]
        return max(runs) if runs else 0

    def of_run(self, run):
        with self._cv:
            return [ev for ev in self.events if ev.get("run") == run]

    def close(self):
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._conn.close()


def replay_until_finished(server, run, timeout_s=60):
    """A fresh GET /events: the replay of the last run; returns its events up to `finished` of run."""
    host, port = server.host_port
    conn = http.client.HTTPConnection(host, port, timeout=timeout_s)
    got = []
    conn.connect()
    sock = conn.sock
    try:
        conn.request("GET", "/events", headers={"Accept": "text/event-stream"})
        resp = conn.getresponse()
        if resp.status != 200:
            raise AssertionError("GET /events -> %d" % resp.status)

        def on_event(event):
            got.append(event)
            return event.get("run") == run and event.get("type") in ("finished", "failed")
        read_sse(resp, on_event)
    finally:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        conn.close()
    return got


# --------------------------------------------------------------------------
# SQLite

_schema_printed = False


def read_database(path):
    """{'C14': (holder, fence)}, [(customer, seat)] from the run's SQLite file."""
    global _schema_printed
    try:
        db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(path), uri=True, timeout=10)
        db.execute("SELECT 1 FROM sqlite_master").fetchall()
    except sqlite3.Error:
        db = sqlite3.connect(path, timeout=10)
    try:
        if not _schema_printed:
            _schema_printed = True
            note("schema of %s:" % path)
            for (sql,) in db.execute("SELECT sql FROM sqlite_master WHERE sql IS NOT NULL"):
                for line in sql.splitlines():
                    note("  " + line)
        seats = {row[0]: (row[1], row[2]) for row in
                 db.execute("SELECT seat, holder, fence FROM seats")}
        confirmations = [tuple(row) for row in db.execute("SELECT customer, seat FROM confirmations")]
        return seats, confirmations
    finally:
        db.close()


def as_token(value):
    """A fence/token as a decimal string (SQLite may store it as integer or text)."""
    if value is None:
        return None
    if isinstance(value, (int,)):
        return str(value)
    return str(value).strip()


# --------------------------------------------------------------------------
# Browser

def make_driver():
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                "--window-size=1100,1500", "--no-proxy-server", "--no-first-run",
                "--disable-extensions", "--disable-background-networking"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    driver.set_window_size(1100, 1500)
    driver.set_page_load_timeout(60)
    return driver


def by_id(driver, element_id):
    return driver.find_element(By.ID, element_id)


def text_of(driver, element_id):
    return (by_id(driver, element_id).text or "").strip()


def verdict_kind(driver):
    return by_id(driver, "verdict").get_attribute("data-verdict")


def normalize(text):
    return re.sub(r"\s+", " ", text or "").strip()


def open_page(driver, url):
    driver.get(url)
    button = wait_until(lambda: (lambda b: b if b.is_enabled() else None)(by_id(driver, "run")), 30)
    if not button:
        raise AssertionError("#run is not there or not enabled 30 s after loading %s" % url)


def choose_mode(driver, mode_id):
    labels = driver.find_elements(By.CSS_SELECTOR, "label[for='%s']" % mode_id)
    target = labels[0] if labels else by_id(driver, mode_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", target)
    target.click()
    if not by_id(driver, mode_id).is_selected():  # the label click did not select it
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", by_id(driver, mode_id))
        by_id(driver, mode_id).click()
    return by_id(driver, mode_id).is_selected()


def click(driver, element_id):
    el = by_id(driver, element_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", el)
    el.click()


def set_range_by_keyboard(driver, element_id, wanted, max_presses=200):
    """Focus the range input, HOME, then RIGHT until its value is `wanted`. Returns the value."""
    el = by_id(driver, element_id)
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", el)
    focused = driver.execute_script("return document.activeElement === arguments[0]", el)
    if not focused:
        raise AssertionError("#%s cannot take the keyboard focus" % element_id)
    ActionChains(driver).send_keys(Keys.HOME).perform()
    for _ in range(max_presses):
        value = el.get_property("value")
        if str(value) == str(wanted):
            break
        try:
            if float(value) > float(wanted):
                break
        except (TypeError, ValueError):
            break
        ActionChains(driver).send_keys(Keys.ARROW_RIGHT).perform()
    return str(el.get_property("value"))


def severe_console_entries(driver, phase):
    """SEVERE browser-log entries, minus the browser's own favicon request (not the page's doing)."""
    entries = driver.get_log("browser")
    severe = []
    for e in entries:
        if e.get("level") != "SEVERE":
            continue
        if "favicon.ico" in e.get("message", ""):
            note("ignored (%s): %s" % (phase, e.get("message")))
            continue
        severe.append(e)
    return severe


# --------------------------------------------------------------------------
# The cases through the page

EXPECTED = {
    # mode_id: (mode, verdict kind, text needles, holder of C14, confirmations of C14)
    "oversold": ("mode-lock", "lock", "oversold", ["Two fans paid for one seat"], "fan_a",
                 ["fan_a", "fan_b"], "try-it-oversold.png"),
    "fenced": ("mode-fenced", "fenced", "refused", ["refused"], "fan_b", ["fan_b"],
               "try-it-refused.png"),
    "conditional": ("mode-conditional", "conditional", "one-sale", [], "fan_b", ["fan_b"],
                    "try-it-conditional.png"),
}


def save_events(s, run, label):
    """DIR/run-N-label-events.json: every event of the run, for reading after a failure."""
    with open(os.path.join(s.args.out, "run-%d-%s-events.json" % (run, label)), "w") as f:
        json.dump(s.stream.of_run(run), f, indent=1)


def check_lease_expired(s, run, prefix):
    """The pause (15) outlasts the lease (10): the server expires A's session, which the
    spec reports as lease_expired (in lock modes). Its order relative to B's grant is not
    checked: the two are observed by different sessions."""
    types = [(e.get("type"), e.get("worker")) for e in s.stream.of_run(run)]
    C.check(("lease_expired", "A") in types,
            prefix + "run %d has lease_expired for A (pause 15 outlasts lease 10)" % run,
            "event types: %s" % " ".join("%s%s" % (t, "(" + w + ")" if w else "") for t, w in types))


class Session:
    def __init__(self, args):
        self.args = args
        self.server = None
        self.stream = None
        self.driver = None
        self.last_finished = None  # the finished event of the last run


def run_page_case(s, case):
    mode_id, mode, kind, needles, holder, confirmed, shot = EXPECTED[case]
    d = s.driver
    name = "[%s] " % case
    open_page(d, s.server.url)

    click(d, "preset-lesson")
    lease = str(by_id(d, "lease").get_property("value"))
    pause = str(by_id(d, "pause").get_property("value"))
    C.check(lease == "10" and pause == "15", name + "#preset-lesson sets #lease 10 and #pause 15",
            "got lease %s, pause %s" % (lease, pause))
    C.check(choose_mode(d, mode_id), name + "#%s is selected by clicking its label" % mode_id)

    before = s.stream.max_run()
    click(d, "run")
    started = s.stream.wait_for(lambda e: e.get("type") == "run_started"
                                and isinstance(e.get("run"), int) and e["run"] > before,
                                RUN_START_TIMEOUT_S)
    if not started:
        C.fail(name + "clicking #run starts a run -- no run_started event within %d s; #message: %r"
               % (RUN_START_TIMEOUT_S, text_of(d, "message")))
        return None
    run = started["run"]
    C.check(started.get("mode") == mode and started.get("lease_s") == 10 and started.get("pause_s") == 15,
            name + "run %d started with mode %s, lease 10, pause 15" % (run, mode),
            "run_started: %s" % json.dumps(started))

    # #run is disabled while the run runs (seen at any time before its end), enabled after.
    end_pred = lambda e: e.get("run") == run and e.get("type") in ("finished", "failed")  # noqa: E731
    saw_disabled = False
    deadline = time.monotonic() + RUN_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            if not by_id(d, "run").is_enabled():
                saw_disabled = True
                break
        except WebDriverException:
            pass
        if s.stream.wait_for(end_pred, 0):
            break
        time.sleep(0.05)

    end = s.stream.wait_for(end_pred, max(1, deadline - time.monotonic()))
    if not end:
        C.fail(name + "run %d ends -- no finished/failed event within %d s" % (run, RUN_TIMEOUT_S))
        return None
    if end["type"] == "failed":
        C.fail(name + "run %d finished -- it failed: %s" % (run, end.get("message")))
        return None
    C.check(saw_disabled, name + "#run is disabled while run %d runs" % run,
            "never saw it disabled before the finished event")
    s.last_finished = end
    sse_kind = (end.get("verdict") or {}).get("kind")

    shown = wait_until(lambda: verdict_kind(d) == sse_kind and verdict_kind(d), DOM_TIMEOUT_S)
    if not shown:
        C.fail(name + "#verdict shows the finished verdict %r -- data-verdict is %r, text %r"
               % (sse_kind, verdict_kind(d), text_of(d, "verdict")))
    text = normalize(text_of(d, "verdict"))
    C.check(verdict_kind(d) == kind, name + "#verdict data-verdict is %r" % kind,
            "got %r (text %r)" % (verdict_kind(d), text))
    for needle in needles:
        C.check(needle.lower() in text.lower(), name + "#verdict text contains %r" % needle,
                "text is %r" % text)
    C.check(wait_until(lambda: by_id(d, "run").is_enabled(), DOM_TIMEOUT_S),
            name + "#run is enabled again after the verdict")

    save_events(s, run, case)
    if mode != "conditional":
        check_lease_expired(s, run, name)

    # Tokens of the grants of this run (live stream).
    grants = {e.get("worker"): e.get("token") for e in s.stream.of_run(run) if e.get("type") == "granted"}
    tokens = None
    if mode != "conditional":
        ta, tb = grants.get("A"), grants.get("B")
        good = (isinstance(ta, str) and isinstance(tb, str) and ta.isdigit() and tb.isdigit()
                and int(ta) < int(tb))
        C.check(good, name + "granted events carry decimal tokens, A's < B's",
                "A %r, B %r" % (ta, tb))
        if good:
            tokens = (ta, tb)
    if case == "fenced" and tokens:
        for who, tok in zip("AB", tokens):
            C.check(tok in text, name + "#verdict text names %s's token %s" % (who, tok),
                    "text is %r" % text)

    # The replay of GET /events ends with the same finished event.
    replay = replay_until_finished(s.server, run)
    fin = replay[-1] if replay else {}
    C.check(replay and replay[0].get("type") == "hello" and fin.get("type") == "finished"
            and (fin.get("verdict") or {}).get("kind") == sse_kind,
            name + "a new GET /events starts with hello and replays run %d up to its finished event" % run,
            "got types %s" % [e.get("type") for e in replay][:40])
    if fin.get("type") != "finished":
        fin = end
    database = fin.get("database")
    fin_seats = {x.get("seat"): x for x in fin.get("seats") or []}
    fin_conf = fin.get("confirmations") or []

    # The SQLite file of the run.
    if not (isinstance(database, str) and os.path.isfile(database)):
        C.fail(name + "finished.database names an existing file -- %r" % database)
    else:
        seats, confirmations = read_database(database)
        c14 = seats.get("C14")
        C.check(c14 is not None and c14[0] == holder,
                name + "SQLite: C14's holder is %s" % holder, "seats: %r" % seats)
        got = sorted(c for c, seat in confirmations if seat == "C14")
        C.check(got == sorted(confirmed),
                name + "SQLite: %d confirmation(s) for C14 (%s)" % (len(confirmed), ", ".join(confirmed)),
                "confirmations: %r" % confirmations)
        if case == "fenced":
            C.check(len(confirmations) == 1, name + "SQLite: exactly 1 confirmation in all",
                    "confirmations: %r" % confirmations)
            if tokens:
                C.check(c14 is not None and as_token(c14[1]) == tokens[1],
                        name + "SQLite: C14's fence is B's token %s" % tokens[1],
                        "fence %r" % (c14[1] if c14 else None,))
        fc14 = fin_seats.get("C14") or {}
        C.check(c14 is not None and fc14.get("holder") == c14[0]
                and len(fin_conf) == len(confirmations),
                name + "finished.seats/confirmations agree with the SQLite file",
                "finished C14 %r, %d confirmations; file C14 %r, %d" %
                (fc14, len(fin_conf), c14, len(confirmations)))

    # The page's table and log.
    cells = d.find_elements(By.CSS_SELECTOR, "#seats tr[data-seat='C14'] .holder")
    shown_holder = cells[0].text.strip() if cells else None
    C.check(shown_holder == holder, name + "#seats shows C14's holder %s" % holder,
            "shows %r" % shown_holder)
    items = d.find_elements(By.CSS_SELECTOR, "#log li")
    C.check(len(items) > 0, name + "#log has one item per event (%d items)" % len(items))

    path = os.path.join(s.args.out, shot)
    d.save_screenshot(path)
    note("screenshot: " + path)
    return end


def check_console(s):
    severe = severe_console_entries(s.driver, "live page")
    C.check(not severe, "no SEVERE console entries on the live page",
            "; ".join("%s %s" % (e.get("source"), e.get("message")) for e in severe))


# --------------------------------------------------------------------------
# Bad input, HTTP errors, a second run while one runs

def bad_input(s):
    d = s.driver
    open_page(d, s.server.url)
    labels = d.find_elements(By.CSS_SELECTOR, "label[for='lease']")
    C.check(labels, "#lease has a <label for=lease>")
    try:
        Select(by_id(d, "scale")).select_by_value("200")
    except Exception as e:  # noqa: BLE001
        C.fail("#scale offers 200 -- %s" % e)
    lease = set_range_by_keyboard(d, "lease", 2)
    C.check(lease == "2", "keyboard: HOME then RIGHT puts #lease at 2", "value %s" % lease)
    out = text_of(d, "lease-value")
    C.check("2" in out, "#lease-value follows the keyboard (shows 2)", "shows %r" % out)
    pause = set_range_by_keyboard(d, "pause", 3)
    C.check(pause == "3", "keyboard: HOME then RIGHT puts #pause at 3", "value %s" % pause)
    choose_mode(d, "mode-lock")
    before = s.stream.max_run()
    click(d, "run")
    msg = wait_until(lambda: text_of(d, "message"), DOM_TIMEOUT_S)
    C.check(msg and "lease" in msg.lower(),
            "lease 2 at scale 200: #message explains the lease", "#message is %r" % msg)
    if msg:
        note("#message: %r" % msg)
    role = by_id(d, "message").get_attribute("role")
    C.check(role == "alert", "#message has role=alert", "role %r" % role)
    C.check(s.stream.max_run() == before, "no run started for the bad input")

    status, _, body = post_run(s.server, {"lease_s": 500, "pause_s": 15, "mode": "lock", "scale_ms": 200})
    j = json_or_none(body)
    C.check(status == 400 and isinstance(j, dict) and isinstance(j.get("error"), str) and j["error"],
            "POST /run lease_s 500 -> 400 with a JSON error", "got %d %r" % (status, body[:300]))
    if j:
        note("error: %r" % j.get("error"))
    status, _, body = post_run(s.server, b"{not json")
    j = json_or_none(body)
    C.check(status == 400 and isinstance(j, dict) and j.get("error"),
            "POST /run with bad JSON -> 400 with a JSON error", "got %d %r" % (status, body[:300]))
    status, _, body = post_run(s.server, {"lease_s": 10, "pause_s": 15, "mode": "lock", "scale_ms": 200},
                               content_type="text/plain")
    C.check(status == 415, "POST /run with Content-Type text/plain -> 415",
            "got %d %r" % (status, body[:300]))
    status, _, body = http_request(s.server, "GET", "/nope")
    C.check(status == 404, "GET /nope -> 404", "got %d" % status)
    status, _, body = http_request(s.server, "GET", "/", headers={"Host": "example.com"})
    C.check(status == 403, "GET / with Host: example.com -> 403", "got %d" % status)
    status, _, body = http_request(s.server, "GET", "/run.html", headers={"Host": "example.com"})
    C.check(status == 403, "GET /run.html with Host: example.com -> 403", "got %d" % status)
    C.check(s.stream.max_run() == before, "none of the rejected requests started a run")


def second_run_conflict(s):
    d = s.driver
    payload = {"lease_s": 10, "pause_s": 15, "mode": "fenced", "scale_ms": 200}
    status, _, body = post_run(s.server, payload)
    j = json_or_none(body)
    if not C.check(status == 202 and isinstance(j, dict) and isinstance(j.get("run"), int),
                   "POST /run (valid) -> 202 {\"run\": N}", "got %d %r" % (status, body[:300])):
        return
    run = j["run"]
    status2, _, body2 = post_run(s.server, payload)
    j2 = json_or_none(body2)
    C.check(status2 == 409 and isinstance(j2, dict) and isinstance(j2.get("error"), str) and j2["error"],
            "a second POST /run while run %d runs -> 409 with a JSON error" % run,
            "got %d %r" % (status2, body2[:300]))
    if j2:
        note("error: %r" % j2.get("error"))
    end = s.stream.wait_for(lambda e: e.get("run") == run and e.get("type") in ("finished", "failed"),
                            RUN_TIMEOUT_S)
    if not C.check(end and end["type"] == "finished", "run %d (started by POST) finishes" % run,
                   "got %r" % (end,)):
        return
    s.last_finished = end
    save_events(s, run, "post")
    check_lease_expired(s, run, "")
    kind = (end.get("verdict") or {}).get("kind")
    shown = wait_until(lambda: verdict_kind(d) == kind, DOM_TIMEOUT_S)
    C.check(shown, "the open page shows the verdict %r of the run another client started" % kind,
            "data-verdict %r" % verdict_kind(d))


# --------------------------------------------------------------------------
# The saved page

def saved_page(s):
    d = s.driver
    status, headers, body = http_request(s.server, "GET", "/run.html")
    html = body.decode("utf-8", "replace")
    if not C.check(status == 200 and re.search(r"""id\s*=\s*["']?saved-run\b""", html),
                   "GET /run.html -> 200 with id=\"saved-run\"",
                   "got %d, %d bytes" % (status, len(body))):
        return
    C.check("attachment" in headers.get("content-disposition", ""),
            "GET /run.html is sent as an attachment",
            "Content-Disposition %r" % headers.get("content-disposition"))
    path = os.path.join(s.args.out, "saved-run.html")
    with open(path, "wb") as f:
        f.write(body)
    note("saved page: " + path)
    want = ((s.last_finished or {}).get("verdict") or {}).get("kind")
    m = re.search(r"""<script[^>]*id\s*=\s*["']?saved-run["']?[^>]*>(.*?)</script>""", html, re.S)
    saved = json_or_none(m.group(1).encode()) if m else None
    kinds = [((e.get("verdict") or {}).get("kind")) for e in (saved or {}).get("events", [])
             if e.get("type") == "finished"]
    C.check(kinds == [want], "the saved page embeds the events of the last run (finished %r)" % want,
            "finished kinds in it: %r" % kinds)

    severe_console_entries(d, "before the saved page")  # drops the entries of the live page
    d.get("file://" + os.path.abspath(path))
    shown = wait_until(lambda: verdict_kind(d), DOM_TIMEOUT_S)
    C.check(shown == want, "the saved page opened as file:// shows the verdict %r" % want,
            "data-verdict %r" % shown)
    runs = d.find_elements(By.ID, "run")
    C.check(not runs or not runs[0].is_displayed(), "the saved page hides the controls (#run)")
    d.save_screenshot(os.path.join(s.args.out, "try-it-saved.png"))
    note("screenshot: " + os.path.join(s.args.out, "try-it-saved.png"))
    severe = severe_console_entries(d, "saved page")
    C.check(not severe, "no SEVERE console entries on the saved page",
            "; ".join("%s %s" % (e.get("source"), e.get("message")) for e in severe))


# --------------------------------------------------------------------------
# The page as served

def page_served(s):
    status, headers, body = http_request(s.server, "GET", "/")
    html = body.decode("utf-8", "replace")
    C.check(status == 200 and headers.get("content-type", "").startswith("text/html"),
            "GET / -> 200 text/html", "got %d %r" % (status, headers.get("content-type")))
    external = re.findall(r"""<script[^>]+\bsrc\s*=|<link[^>]+rel\s*=\s*["']?stylesheet|"""
                          r"""\bsrc\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""", html, re.I)
    C.check(not external, "the page loads no external resource (inline CSS/JS only)",
            "found %r" % external[:5])
    C.check(s.stream.status == 200 and s.stream.content_type.startswith("text/event-stream"),
            "GET /events -> 200 text/event-stream",
            "got %d %r" % (s.stream.status, s.stream.content_type))
    hello = s.stream.wait_for(lambda e: True, 15)
    C.check(hello and hello.get("type") == "hello" and isinstance(hello.get("limits"), dict)
            and isinstance(hello.get("defaults"), dict),
            "GET /events starts with hello (limits, defaults)", "first event %r" % (hello,))


# --------------------------------------------------------------------------
# Cleanup

def gone_within(server, timeout_s):
    """(processes naming the tmp dir, processes of its session, tmp dir exists) after waiting
    up to timeout_s for all three to clear."""
    tmp, sid = server.tmp_dir, server.proc.pid
    wait_until(lambda: not processes_mentioning(tmp) and not processes_in_session(sid)
               and not os.path.exists(tmp), timeout_s, 0.25)
    return processes_mentioning(tmp), processes_in_session(sid), os.path.exists(tmp)


def report_leftovers(what, server, procs, session, exists):
    C.check(not procs, "%s: no process mentions %s" % (what, server.tmp_dir),
            "; ".join("pid %d: %s" % (p, c[:160]) for p, c in procs))
    C.check(not session, "%s: no process of its session (sid %d) remains" % (what, server.proc.pid),
            "; ".join("pid %d: %s" % (p, c[:160]) for p, c in session))
    C.check(not exists, "%s: %s is removed" % (what, server.tmp_dir))


def cleanup_sigint(s):
    server = s.server
    s.stream.close()
    server.signal(signal.SIGINT)
    status = server.wait_exit(EXIT_TIMEOUT_S)
    C.check(status is not None, "SIGINT: try-it exits within %d s" % EXIT_TIMEOUT_S)
    if status is not None:
        note("exit status after SIGINT: %d" % status)
    if server.tmp_dir:
        procs, session, exists = gone_within(server, EXIT_TIMEOUT_S)
        report_leftovers("SIGINT", server, procs, session, exists)


def cleanup_sigkill(s):
    server = Server(s.args.zkcoord, s.args.connect, s.args.out, "sigkill")  # OSError: a FAIL line
    s.server2 = server
    if not server.wait_url(URL_TIMEOUT_S):
        C.fail("second start: no URL on stdout within %d s; stderr:\n%s" % (URL_TIMEOUT_S, server.tail_stderr()))
        return
    C.check(server.tmp_dir, "second start: stderr names its files dir", server.tail_stderr())
    if not server.tmp_dir:
        return
    stream = EventStream(server)
    try:
        status, _, body = post_run(server, {"lease_s": 10, "pause_s": 30, "mode": "lock", "scale_ms": 200})
        j = json_or_none(body)
        if not C.check(status == 202 and isinstance(j, dict) and isinstance(j.get("run"), int),
                       "second start: POST /run (lease 10, pause 30) -> 202", "got %d %r" % (status, body[:300])):
            return
        run = j["run"]
        frozen = stream.wait_for(lambda e: e.get("run") == run and e.get("type") in ("frozen", "finished", "failed"),
                                 RUN_TIMEOUT_S)
        C.check(frozen and frozen["type"] == "frozen", "second start: run %d reaches A's freeze" % run,
                "got %r" % (frozen,))
        note("before SIGKILL: %d processes name %s, %d in its session" % (
            len(processes_mentioning(server.tmp_dir)), server.tmp_dir, len(processes_in_session(server.proc.pid))))
    finally:
        stream.close()
    server.signal(signal.SIGKILL)
    server.wait_exit(10)
    procs, session, exists = gone_within(server, EXIT_TIMEOUT_S)
    report_leftovers("SIGKILL mid-run", server, procs, session, exists)


# --------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--zkcoord", required=True, help="path of the zkcoord binary")
    ap.add_argument("--out", required=True, help="directory for screenshots, the saved page and logs")
    ap.add_argument("--only", choices=["fenced", "oversold", "conditional"],
                    help="run only this case (through the page)")
    ap.add_argument("--connect", help="ZooKeeper hosts (default: try-it starts a local one)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    s = Session(args)
    s.server2 = None
    try:
        try:
            s.server = Server(args.zkcoord, args.connect, args.out, "main")
        except OSError as e:
            C.fail("start %s try-it: %s" % (args.zkcoord, e))
            return 1
        if not s.server.wait_url(URL_TIMEOUT_S):
            C.fail("try-it prints its URL as its first stdout line within %d s (exit status %r); stderr:\n%s"
                   % (URL_TIMEOUT_S, s.server.proc.poll(), s.server.tail_stderr()))
            return 1
        url = s.server.url
        C.check(re.match(r"^http://127\.0\.0\.1:\d+/$", url), "first stdout line is the URL: %s" % url)
        C.check(s.server.tmp_dir, "stderr says 'zkcoord try-it: files in DIR (removed at exit)'",
                "stderr:\n" + s.server.tail_stderr())
        s.stream = EventStream(s.server)
        s.driver = make_driver()

        if not args.only:
            step("page", page_served, s)
        cases = [args.only] if args.only else ["oversold", "fenced", "conditional"]
        for case in cases:
            step("case " + case, run_page_case, s, case)
        if not args.only:
            step("console", check_console, s)
            step("bad input", bad_input, s)
            step("second run", second_run_conflict, s)
            step("saved page", saved_page, s)
            step("SIGINT", cleanup_sigint, s)
            step("SIGKILL", cleanup_sigkill, s)
    finally:
        if s.driver:
            try:
                s.driver.quit()
            except Exception:  # noqa: BLE001
                pass
        if s.stream:
            s.stream.close()
        for server in (s.server, s.server2):
            if server:
                server.kill()
    print("%d passed, %d failed" % (C.passed, C.failed), flush=True)
    return 0 if C.failed == 0 and C.passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
