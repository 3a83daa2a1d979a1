#!/usr/bin/env python3
"""The soak (issue #20): a real livechatd under mixed load and injected faults.

Run through scripts/soak.sh; docs/testing.md describes it and docs/operations.md
records the figures of the 30-minute run. Python 3 standard library only, so
it runs wherever the suite runs.

Environment: LIVECHATD (the binary), SOAK_SECONDS (default 1800),
SOAK_KILL_EVERY (seconds between SIGKILLs, default max(40, SOAK_SECONDS / 10)),
SOAK_FS_MB (size of the database filesystem, default 1024), SOAK_KEEP=1 keeps
the work directory.
"""

import collections
import errno
import http.client
import http.server
import json
import os
import random
import re
import signal
import socket
import sqlite3
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import urllib.parse

SOAK_SECONDS = int(os.environ.get("SOAK_SECONDS", "1800"))
KILL_EVERY = int(os.environ.get("SOAK_KILL_EVERY", str(max(40, SOAK_SECONDS // 10))))
FS_MB = int(os.environ.get("SOAK_FS_MB", "1024"))
LIVECHATD = os.environ.get("LIVECHATD", "")
KEEP = os.environ.get("SOAK_KEEP") == "1"

# Bounds. Each is what the check asserts, stated in the summary.
WEBHOOK_TIMEOUT_S = 1.0
RETRY_DELAYS = "1s,2s,5s,10s,20s,40s"   # the whole ladder fits in a soak
UNAVAILABLE_MESSAGE = "the service's storage is full or unreachable right now; try again later"
FULL_ERROR_BOUND_S = 5.0     # a write while the disk is full is answered within this
RECOVERY_BOUND_S = 10.0      # writes succeed again within this of space returning
REQUEST_TIMEOUT_S = 30.0     # an unanswered request past this is a hang
RSS_GROWTH_BOUND_KB = 16 * 1024  # per life, from warm-up to its last sample
WARMUP_S = min(60, KILL_EVERY // 4)
# The load's pace: about 11 webhook events a second, which one subscription's
# single delivery in flight keeps up with against this receiver (a timeout
# holds it 1 s), so the end shows the ladder, not a backlog of the load's making.
WRITE_PAUSE_S = 0.25
WIDGET_PAUSE_S = 1.0
READ_PAUSE_S = 0.05
FULL_ONSET_S = 40   # the first refusal after the fill, at the latest
FULL_SECONDS = 60 if SOAK_SECONDS >= 600 else 10
HANG_SECONDS = 30 if SOAK_SECONDS >= 600 else 8
CRASH_PATTERNS = re.compile(
    r"AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|ThreadSanitizer|runtime error:|"
    r"terminate called|Segmentation fault|Assertion .* failed|stack smashing|double free|"
    r"malloc\(\)|free\(\): invalid")

failures = []
failures_lock = threading.Lock()


def fail(msg):
    with failures_lock:
        failures.append(msg)
    print(f"soak: FAIL: {msg}", flush=True)


def log(msg):
    print(f"soak: [{time.monotonic() - T0:7.1f}s] {msg}", flush=True)


T0 = time.monotonic()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# --------------------------------------------------------------------------
# Phases: the clients classify every answer by what the orchestrator is doing
# to the server at that moment.

class Phase:
    def __init__(self):
        self.lock = threading.Lock()
        self.down = False        # killed, not yet listening again
        self.full = False        # ballast in place
        self.full_started = 0.0
        self.generation = 0      # bumped at each kill: an answer lost to it is expected

    def snapshot(self):
        with self.lock:
            return self.down, self.full, self.generation


PHASE = Phase()


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = collections.Counter()
        self.errors = collections.Counter()
        self.lost_to_kill = collections.Counter()
        self.full_errors = collections.Counter()
        self.full_ok = collections.Counter()

    def add(self, counter, kind, n=1):
        with self.lock:
            getattr(self, counter)[kind] += n


STATS = Stats()


class Lost(Exception):
    """The request got no answer because the server was killed meanwhile."""


class Client:
    def __init__(self, port):
        self.port = port

    def request(self, kind, method, path, body=None, headers=None, timeout=REQUEST_TIMEOUT_S,
                expect=(200, 201)):
        """Returns (status, parsed JSON or None, headers). Raises Lost when a kill
        explains the missing answer; any other missing answer, a 5xx outside a
        full disk, or an unexpected status is a failure."""
        _, full_before, gen = PHASE.snapshot()
        hdrs = dict(headers or {})
        data = None
        if body is not None:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            hdrs.setdefault("Content-Type", "application/json")
        started = time.monotonic()
        STATS.add("requests", kind)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request(method, path, body=data, headers=hdrs)
            resp = conn.getresponse()
            raw = resp.read()
            status = resp.status
            rh = {k.lower(): v for k, v in resp.getheaders()}
        except (OSError, http.client.HTTPException) as e:
            down, _, gen_after = PHASE.snapshot()
            if down or gen_after != gen:
                STATS.add("lost_to_kill", kind)
                raise Lost() from e
            elapsed = time.monotonic() - started
            STATS.add("errors", kind)
            fail(f"{kind}: {method} {path}: no answer after {elapsed:.1f}s with the server up: {e!r}")
            raise Lost() from e
        finally:
            conn.close()
        elapsed = time.monotonic() - started
        parsed = None
        if raw:
            try:
                parsed = json.loads(raw)
            except ValueError:
                parsed = None
        _, full_after, _ = PHASE.snapshot()
        during_full = full_before or full_after
        if status in expect:
            if during_full:
                STATS.add("full_ok", kind)
            return status, parsed, rh
        if status >= 500 and during_full:
            STATS.add("full_errors", kind)
            # A full disk is the client's "retry later", never a 500.
            err = parsed.get("error") if isinstance(parsed, dict) else None
            if (status != 503 or not isinstance(err, dict) or err.get("code") != "UNAVAILABLE"
                    or err.get("message") != UNAVAILABLE_MESSAGE or rh.get("retry-after") != "5"):
                fail(f"{kind}: {status} while the disk was full, not 503 UNAVAILABLE with Retry-After 5: "
                     f"{raw[:200]!r} retry-after={rh.get('retry-after')!r}")
            if elapsed > FULL_ERROR_BOUND_S:
                fail(f"{kind}: the full-disk error took {elapsed:.1f}s (bound {FULL_ERROR_BOUND_S}s)")
            return status, parsed, rh
        STATS.add("errors", kind)
        fail(f"{kind}: {method} {path}: HTTP {status}: {raw[:300]!r}")
        return status, parsed, rh


# --------------------------------------------------------------------------
# The webhook receiver: HTTPS (livechatd delivers over TLS only) with a CA made
# for the run. Mostly 2xx; sometimes 500, slow, or past the timeout; during the
# hang episode it answers nothing.

class Receiver:
    def __init__(self, workdir):
        self.received = set()
        self.lock = threading.Lock()
        self.outcomes = collections.Counter()
        self.mode = "flaky"     # flaky | hang | healthy
        self.hang_release = threading.Event()
        self.ca = os.path.join(workdir, "ca.pem")
        self._make_certs(workdir)
        recv = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = self.rfile.read(length)
                event_id = self.headers.get("X-Webhook-Event-Id", "")
                if len(body) < length:
                    # The sender closed mid-body: its deadline (--webhook-timeout,
                    # from connect) passed while this receiver, on a busy machine,
                    # was still reading. The delivery is retried.
                    recv.count("cut by the sender's timeout")
                    self.close_connection = True
                    return
                try:
                    envelope = json.loads(body)
                except ValueError:
                    envelope = {}
                mode = recv.mode
                if mode == "hang":
                    recv.count("hang")
                    recv.hang_release.wait()
                    self.close_connection = True
                    return
                roll = random.random() if mode == "flaky" else 1.0
                if roll < 0.06:
                    recv.count("500")
                    self.answer(500)
                    return
                if roll < 0.07:
                    recv.count("timeout")
                    time.sleep(WEBHOOK_TIMEOUT_S + 0.5)
                    self.close_connection = True
                    return
                if roll < 0.09:
                    recv.count("slow")
                    time.sleep(WEBHOOK_TIMEOUT_S * 0.5)
                if envelope.get("eventId") != event_id:
                    fail(f"webhook: X-Webhook-Event-Id {event_id} is not the body's {envelope.get('eventId')}")
                with recv.lock:
                    recv.received.add(event_id)
                recv.count("2xx")
                self.answer(200)

            def answer(self, status):
                try:
                    self.send_response(status)
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                except OSError:
                    # The sender gave up first (its deadline): it retries.
                    recv.count("answer after the sender's timeout")
                    self.close_connection = True

        class Server(http.server.ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                # A TLS or socket error of one exchange (the sender's deadline
                # cut it): counted, and the delivery is retried.
                recv.count("connection error")

        self.httpd = Server(("127.0.0.1", 0), Handler)
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(os.path.join(workdir, "recv.pem"), os.path.join(workdir, "recv.key"))
        self.httpd.socket = ctx.wrap_socket(self.httpd.socket, server_side=True)
        self.port = self.httpd.server_address[1]
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def count(self, what):
        with self.lock:
            self.outcomes[what] += 1

    @staticmethod
    def _make_certs(d):
        def run(*args):
            subprocess.run(["openssl", *args], check=True, capture_output=True)
        run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=soak CA",
            "-keyout", f"{d}/ca.key", "-out", f"{d}/ca.pem",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign")
        run("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
            "-keyout", f"{d}/recv.key", "-out", f"{d}/recv.csr")
        with open(f"{d}/ext.cnf", "w") as f:
            f.write("subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")
        run("x509", "-req", "-in", f"{d}/recv.csr", "-CA", f"{d}/ca.pem", "-CAkey", f"{d}/ca.key",
            "-CAcreateserial", "-days", "2", "-extfile", f"{d}/ext.cnf", "-out", f"{d}/recv.pem")

    def received_ids(self):
        with self.lock:
            return set(self.received)


# --------------------------------------------------------------------------
# livechatd itself: started, SIGKILLed and restarted on the same database.

class Daemon:
    def __init__(self, workdir, dbdir, receiver):
        self.workdir = workdir
        self.db = os.path.join(dbdir, "livechat.db")
        self.port = free_port()
        self.admin_port = free_port()
        self.receiver = receiver
        self.proc = None
        self.lives = []          # (pid, started_monotonic, stderr path)
        self.exits = []          # (pid, returncode, injected)
        self.rss = []            # (life index, age seconds, VmRSS kB)
        self.key = None
        self.app_id = None
        self.lock = threading.Lock()

    def start(self):
        life = len(self.lives)
        err_path = os.path.join(self.workdir, f"livechatd.{life}.stderr")
        out_path = os.path.join(self.workdir, f"livechatd.{life}.stdout")
        args = [LIVECHATD, "--demo", "--db", self.db,
                "--listen", f"127.0.0.1:{self.port}", "--admin-listen", f"127.0.0.1:{self.admin_port}",
                "--rate-limit-key", "1000000000", "--rate-limit-ip", "1000000000",
                "--max-connections-per-address", "0", "--storefront-sessions-per-ip", "1000000",
                "--graphql-bucket", "1000000", "--graphql-refill", "1000000",
                "--webhook-timeout", f"{int(WEBHOOK_TIMEOUT_S * 1000)}ms",
                "--webhook-retry-delays", RETRY_DELAYS,
                "--webhook-allow-private-targets", "--webhook-ca-file", self.receiver.ca,
                "--access-log", "off"]
        out = open(out_path, "w")
        err = open(err_path, "w")
        proc = subprocess.Popen(args, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        started = time.monotonic()
        deadline = started + 30
        while time.monotonic() < deadline:
            with open(out_path) as f:
                text = f.read()
            if "listening on" in text:
                break
            if proc.poll() is not None:
                raise RuntimeError(f"livechatd exited {proc.returncode} at start: "
                                   f"{open(err_path).read()[-2000:]}")
            time.sleep(0.05)
        else:
            proc.kill()
            raise RuntimeError("livechatd did not print 'listening on' within 30 s")
        key = re.search(r"demo API key: (sk_[0-9a-f]+)", text)
        app = re.search(r"demo App ID: (app_[0-9a-f]+)", text)
        if not key or not app:
            raise RuntimeError(f"no demo key/App ID in livechatd's output: {text}")
        if self.key is not None and (key.group(1) != self.key or app.group(1) != self.app_id):
            fail("the demo key or App ID changed across a restart")
        self.key, self.app_id = key.group(1), app.group(1)
        with self.lock:
            self.proc = proc
            self.lives.append((proc.pid, started, err_path))
        return time.monotonic() - started

    def check_alive(self):
        """An exit nobody injected is a crash: recorded, and the server restarted."""
        with self.lock:
            proc = self.proc
        if proc is not None and proc.poll() is not None:
            self.exits.append((proc.pid, proc.returncode, False))
            fail(f"livechatd (pid {proc.pid}) exited by itself with status {proc.returncode}")
            with PHASE.lock:
                PHASE.down = True
                PHASE.generation += 1
            self.start()
            with PHASE.lock:
                PHASE.down = False

    def kill9(self):
        with self.lock:
            proc = self.proc
        with PHASE.lock:
            PHASE.down = True
            PHASE.generation += 1
        proc.send_signal(signal.SIGKILL)
        rc = proc.wait()
        self.exits.append((proc.pid, rc, True))
        if rc != -signal.SIGKILL:
            fail(f"livechatd (pid {proc.pid}) ended with {rc} instead of by the injected SIGKILL")

    def stop(self):
        with self.lock:
            proc = self.proc
        proc.send_signal(signal.SIGTERM)
        try:
            rc = proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            fail("livechatd did not stop within 30 s of SIGTERM")
            proc.kill()
            rc = proc.wait()
        self.exits.append((proc.pid, rc, True))
        if rc != 0:
            fail(f"livechatd exited {rc} on SIGTERM (expected 0)")

    def sample_rss(self):
        with self.lock:
            proc = self.proc
            life = len(self.lives) - 1
            started = self.lives[-1][1] if self.lives else 0
        if proc is None or proc.poll() is not None:
            return
        try:
            with open(f"/proc/{proc.pid}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        self.rss.append((life, time.monotonic() - started, int(line.split()[1])))
        except OSError:
            pass


# --------------------------------------------------------------------------
# What the server acknowledged, checked at the end with exact values.

class Ledger:
    def __init__(self):
        self.lock = threading.Lock()
        self.messages = []       # (kind, conversationId, messageId, text, senderType)
        self.notes = []          # (conversationId, noteId, text)
        self.tags = []           # (conversationId, tag)
        # conversationId -> (last acknowledged status, statuses sent later without an answer)
        self.states = {}

    def add(self, field, item):
        with self.lock:
            getattr(self, field).append(item)


LEDGER = Ledger()


class Load:
    def __init__(self, daemon, stop):
        self.d = daemon
        self.stop = stop
        self.c = Client(daemon.port)
        self.members = []
        self.widget_polls_answered = 0
        self.widget_replies_seen = 0
        self.lock = threading.Lock()

    def api(self):
        return {"X-Api-Key": self.d.key}

    def storefront(self, token=None):
        h = {"X-App-Id": self.d.app_id}
        if token:
            h["X-Session-Token"] = token
        return h

    def new_conversation(self, kind):
        """A widget session whose first message makes a conversation; returns
        (token, conversationId) once acknowledged."""
        _, body, _ = self.c.request(kind, "POST", "/storefront/sessions", b"", self.storefront(),
                                    expect=(201,))
        if not body or "data" not in body:
            return None, None
        token = body["data"]["token"]
        text = f"hello from {kind} {random.getrandbits(48):x}"
        st, body, _ = self.c.request(kind, "POST", "/storefront/commands",
                                     {"command": "message:send", "args": [text]},
                                     self.storefront(token), expect=(200,))
        if st != 200:
            return None, None
        mid = body["data"]["message"]["id"]
        _, sess, _ = self.c.request(kind, "GET", "/storefront/session", None, self.storefront(token),
                                    expect=(200,))
        conv = sess["data"]["conversationId"]
        LEDGER.add("messages", ("storefront", conv, mid, text, "customer"))
        return token, conv

    def run_guarded(self, name, fn):
        while not self.stop.is_set():
            try:
                fn()
            except Lost:
                time.sleep(0.2)
            except Exception:
                fail(f"{name}: {traceback.format_exc()}")
                time.sleep(1)

    # REST writes on conversations this thread owns, so the last acknowledged
    # state is well defined.
    def rest_writer(self, name):
        conv = None
        writes = 0
        tag_n = 0
        while not self.stop.is_set():
            try:
                if conv is None or writes >= 60:
                    _, conv = self.new_conversation("rest_write")
                    writes = 0
                    if conv is None:
                        time.sleep(0.2)
                        continue
                writes += 1
                op = random.random()
                base = f"/chat/conversations/{conv}"
                if op < 0.45:
                    text = f"{name} reply {random.getrandbits(64):x} " + "é" * random.randint(0, 300)
                    member = random.choice(self.members)
                    st, body, _ = self.c.request("rest_write", "POST", base + "/messages",
                                                 {"text": text, "memberId": member}, self.api(),
                                                 expect=(201,))
                    if st == 201:
                        LEDGER.add("messages", ("rest", conv, body["data"]["id"], text, "agent"))
                elif op < 0.65:
                    tag_n += 1
                    tag = f"{name}-t{tag_n}"
                    st, body, _ = self.c.request("rest_write", "POST", base + "/tags",
                                                 {"tags": [tag]}, self.api(), expect=(200,))
                    if st == 200:
                        LEDGER.add("tags", (conv, tag))
                elif op < 0.85:
                    text = f"note {random.getrandbits(40):x}"
                    st, body, _ = self.c.request("rest_write", "POST", base + "/notes",
                                                 {"text": text}, self.api(), expect=(201,))
                    if st == 201:
                        LEDGER.add("notes", (conv, body["data"]["id"], text))
                else:
                    status = random.choice(["open", "resolved"])
                    try:
                        st, _, _ = self.c.request("rest_write", "POST", base + "/state",
                                                  {"status": status}, self.api(), expect=(200,))
                    except Lost:
                        # Unanswered: it may have committed, so either state may be the last.
                        with LEDGER.lock:
                            last, unsure = LEDGER.states.get(conv, ("open", set()))
                            LEDGER.states[conv] = (last, unsure | {status})
                        raise
                    if st == 200:
                        with LEDGER.lock:
                            LEDGER.states[conv] = (status, set())
            except Lost:
                time.sleep(0.2)
            except Exception:
                fail(f"{name}: {traceback.format_exc()}")
                time.sleep(1)
            time.sleep(WRITE_PAUSE_S)

    def rest_reader(self):
        # A list walked with its cursors, one conversation, its messages, the change feed.
        path = "/chat/conversations?limit=20"
        for _ in range(3):
            _, body, _ = self.c.request("rest_read", "GET", path, None, self.api(), expect=(200,))
            if not body:
                return
            rows = body["data"]
            if rows:
                cid = random.choice(rows)["id"]
                self.c.request("rest_read", "GET", f"/chat/conversations/{cid}", None, self.api(),
                               expect=(200,))
                self.c.request("rest_read", "GET", f"/chat/conversations/{cid}/messages?limit=50",
                               None, self.api(), expect=(200,))
            cursor = body["paging"].get("nextCursor")
            if not cursor:
                break
            path = "/chat/conversations?limit=20&cursor=" + urllib.parse.quote(cursor)
        self.c.request("rest_read", "GET", "/chat/events?limit=100", None, self.api(), expect=(200,))
        time.sleep(READ_PAUSE_S)

    def widget(self):
        token, conv = self.new_conversation("widget")
        if token is None:
            time.sleep(WIDGET_PAUSE_S)
            return
        after = 0
        for i in range(8):   # under the 15 sends a minute of one session
            if self.stop.is_set():
                return
            time.sleep(WIDGET_PAUSE_S)
            text = f"widget {i} {random.getrandbits(48):x}"
            st, body, _ = self.c.request("widget", "POST", "/storefront/commands",
                                         {"command": "message:send", "args": [text]},
                                         self.storefront(token), expect=(200,))
            if st != 200:
                continue
            msg = body["data"]["message"]
            LEDGER.add("messages", ("storefront", conv, msg["id"], text, "customer"))
            after = body["data"].get("seq", after)
            # An agent answers while the widget's long-poll waits; the poll
            # must wake and bring the reply.
            reply = f"agent answer {random.getrandbits(48):x}"
            answered = []

            def agent():
                time.sleep(0.3)
                try:
                    st, body, _ = self.c.request("widget", "POST", f"/chat/conversations/{conv}/messages",
                                                 {"text": reply, "memberId": random.choice(self.members)},
                                                 self.api(), expect=(201,))
                except Lost:
                    return
                if st == 201:
                    LEDGER.add("messages", ("rest", conv, body["data"]["id"], reply, "agent"))
                    answered.append(time.monotonic())

            replier = threading.Thread(target=agent, daemon=True)
            replier.start()
            seen = False
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and not seen:
                st, body, _ = self.c.request("widget_poll", "GET",
                                             f"/storefront/updates?after={after}&wait=5",
                                             None, self.storefront(token), expect=(200,))
                if st != 200:
                    break
                data = body["data"]
                with self.lock:
                    self.widget_polls_answered += 1
                for m in data["messages"]:
                    if m["message"]["text"] == reply:
                        seen = True
                after = data["cursor"]
                if data.get("retryAfterMs"):
                    time.sleep(data["retryAfterMs"] / 1000)
                if not seen and not replier.is_alive() and not answered:
                    break   # the reply was refused or lost to a kill: nothing to wait for
            replier.join()
            if not answered:
                continue
            if seen:
                with self.lock:
                    self.widget_replies_seen += 1
            else:
                _, full, _ = PHASE.snapshot()
                if not full:
                    fail(f"widget: the agent reply {reply!r} never reached the long-poll of {conv}")

    def graphql(self):
        q = ("query($after: String) { customers(first: 10, after: $after) { totalCount "
             "edges { cursor node { id fullName email } } pageInfo { hasNextPage endCursor } } }")
        after = None
        for _ in range(3):
            _, body, _ = self.c.request("graphql", "POST", "/graphql",
                                        {"query": q, "variables": {"after": after}},
                                        {"x-api-id": self.d.app_id, "x-api-secret": self.d.key},
                                        expect=(200,))
            if not body:
                return
            if body.get("errors"):
                fail(f"graphql: errors {body['errors']}")
                return
            conn = body["data"]["customers"]
            if conn["edges"]:
                cid = conn["edges"][0]["node"]["id"]
                _, one, _ = self.c.request("graphql", "POST", "/graphql",
                                           {"query": "query($id: ID!) { customer(id: $id) { id email } }",
                                            "variables": {"id": cid}},
                                           {"x-api-id": self.d.app_id, "x-api-secret": self.d.key},
                                           expect=(200,))
                if one and (one.get("errors") or (one["data"]["customer"] or {}).get("id") != cid):
                    fail(f"graphql: customer({cid}) answered {one}")
            if not conn["pageInfo"]["hasNextPage"]:
                break
            after = conn["pageInfo"]["endCursor"]
        time.sleep(READ_PAUSE_S * 2)

    def mcp(self):
        h = {"X-App-Id": self.d.app_id, "Authorization": f"Bearer {self.d.key}",
             "Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"}
        calls = [("faq_retrieval", {"query": "shipping time"}),
                 ("product_lookup", {"query": "shirt"}),
                 ("list_members", {}),
                 ("get_setup_status", {}),
                 ("size_guide_lookup", {})]
        name, args = random.choice(calls)
        rid = random.getrandbits(31)
        st, body, _ = self.c.request("mcp", "POST", "/mcp",
                                     {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                      "params": {"name": name, "arguments": args}}, h, expect=(200,))
        if st == 200 and (not body or body.get("id") != rid or "result" not in body
                          or body["result"].get("isError")):
            fail(f"mcp: {name} answered {str(body)[:300]}")
        # A write through the tool server too, recorded like the others.
        if random.random() < 0.3:
            with LEDGER.lock:
                convs = [m[1] for m in LEDGER.messages[-50:]]
            if convs:
                conv = random.choice(convs)
                text = f"mcp {random.getrandbits(48):x}"
                rid += 1
                st, body, _ = self.c.request("mcp", "POST", "/mcp",
                                             {"jsonrpc": "2.0", "id": rid, "method": "tools/call",
                                              "params": {"name": "send_message",
                                                         "arguments": {"conversationId": conv, "text": text}}},
                                             h, expect=(200,))
                if st == 200 and body and "result" in body:
                    res = body["result"]
                    if res.get("isError"):
                        # A storage failure is a tool error here, not an HTTP 5xx.
                        _, full, _ = PHASE.snapshot()
                        text = " ".join(c.get("text", "") for c in res.get("content") or [])
                        if not full:
                            fail(f"mcp: send_message answered {str(res)[:300]}")
                        elif "UNAVAILABLE: " + UNAVAILABLE_MESSAGE not in text:
                            fail(f"mcp: send_message on a full disk answered {text[:300]}")
                        else:
                            STATS.add("full_errors", "mcp")
                    else:
                        m = res["structuredContent"]["message"]
                        LEDGER.add("messages", ("mcp", conv, m["id"], text, "bot"))
        time.sleep(READ_PAUSE_S * 4)


# --------------------------------------------------------------------------
# The disk: a tmpfs of its own, filled to the last byte by a ballast file.

def store_write_counts(admin_port):
    """livechat_store_writes_total (counted when a write is submitted) and
    livechat_store_writes_unavailable_total (when one is refused for storage)."""
    conn = http.client.HTTPConnection("127.0.0.1", admin_port, timeout=10)
    conn.request("GET", "/metrics")
    text = conn.getresponse().read().decode()
    conn.close()
    counts = []
    for name in ("livechat_store_writes_total", "livechat_store_writes_unavailable_total"):
        m = re.search(rf"^{name} (\S+)$", text, re.M)
        counts.append(float(m.group(1)) if m else 0.0)
    return counts[0], counts[1]


def fill(path):
    chunk = b"\0" * (1 << 20)
    with open(path, "wb", buffering=0) as f:
        for size in (1 << 20, 1 << 12, 1):
            piece = chunk[:size]
            while True:
                try:
                    f.write(piece)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break


def main():
    if os.geteuid() != 0:
        print("soak: must run as root: it mounts a size-limited tmpfs for the database "
              "to fill the disk (ENOSPC)", file=sys.stderr)
        return 77
    if not LIVECHATD or not os.access(LIVECHATD, os.X_OK):
        print(f"soak: LIVECHATD={LIVECHATD!r} is not an executable livechatd", file=sys.stderr)
        return 2
    workdir = tempfile.mkdtemp(prefix="livechat-soak-")
    dbdir = os.path.join(workdir, "db")
    os.mkdir(dbdir)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={FS_MB}m", "tmpfs", dbdir], check=True)
    daemon = None
    try:
        receiver = Receiver(workdir)
        daemon = Daemon(workdir, dbdir, receiver)
        return soak(workdir, dbdir, receiver, daemon)
    finally:
        if daemon and daemon.proc and daemon.proc.poll() is None:
            daemon.proc.kill()
            daemon.proc.wait()
        subprocess.run(["umount", dbdir], check=False)
        if KEEP:
            print(f"soak: work directory kept: {workdir}")
        else:
            subprocess.run(["rm", "-rf", workdir], check=False)


def soak(workdir, dbdir, receiver, daemon):
    log(f"livechatd {LIVECHATD}; {SOAK_SECONDS}s, SIGKILL every ~{KILL_EVERY}s, "
        f"database on a {FS_MB} MiB tmpfs at {dbdir}")
    first_start = daemon.start()
    admin = Client(daemon.admin_port)
    c = Client(daemon.port)
    api = {"X-Api-Key": daemon.key}
    _, members, _ = c.request("setup", "GET", "/chat/members", None, api, expect=(200,))
    _, feed0, _ = c.request("setup", "GET", "/chat/events?after=now", None, api, expect=(200,))
    feed_start = feed0["paging"]["nextCursor"]
    events = ["message.created", "conversation.created", "conversation.state_changed",
              "conversation.assigned", "conversation.tags_updated", "customer.created"]
    _, sub, _ = c.request("setup", "POST", "/chat/webhooks",
                          {"url": f"https://127.0.0.1:{receiver.port}/hook", "events": events},
                          api, expect=(201,))
    sub_id = sub["data"]["id"]

    stop = threading.Event()
    load = Load(daemon, stop)
    load.members = [m["id"] for m in members["data"] if m.get("active")]
    threads = [threading.Thread(target=load.rest_writer, args=(f"w{i}",), daemon=True) for i in range(2)]
    for name, fn in (("rest_reader", load.rest_reader), ("widget", load.widget),
                     ("widget", load.widget), ("graphql", load.graphql), ("mcp", load.mcp)):
        threads.append(threading.Thread(target=load.run_guarded, args=(name, fn), daemon=True))
    for t in threads:
        t.start()

    # The schedule: a kill every KILL_EVERY (jittered by 10%); the full disk and
    # the hanging receiver each inside one interval between kills, so each is
    # observed on its own.
    end = T0 + SOAK_SECONDS
    n = int((SOAK_SECONDS - KILL_EVERY / 2) // KILL_EVERY)
    kills = [T0 + KILL_EVERY * (i + 1) + KILL_EVERY * random.uniform(-0.1, 0.1) for i in range(n)]
    full_at = T0 + KILL_EVERY * (int(n * 0.55) + 0.25)
    hang_at = T0 + KILL_EVERY * (int(n * 0.3) + 0.5 if n >= 4 else n + 0.5)
    restart_times = []
    last_kill = T0
    full_report = {}
    hang_done = False
    full_done = False
    last_sample = 0.0
    while time.monotonic() < end:
        now = time.monotonic()
        daemon.check_alive()
        if now - last_sample >= 2:
            daemon.sample_rss()
            last_sample = now
        if kills and now >= kills[0]:
            kills.pop(0)
            last_kill = now
            daemon.kill9()
            log(f"SIGKILL (life {len(daemon.lives) - 1}); restarting")
            restart_times.append(daemon.start())
            with PHASE.lock:
                PHASE.down = False
        elif not hang_done and now >= hang_at:
            hang_done = True
            log(f"webhook receiver hangs for {HANG_SECONDS}s")
            receiver.hang_release.clear()
            receiver.mode = "hang"
            time.sleep(HANG_SECONDS)
            receiver.mode = "flaky"
            receiver.hang_release.set()
            log("webhook receiver answers again")
        elif not full_done and now >= full_at:
            full_done = True
            full_report = disk_full(daemon, c, api, dbdir)
        time.sleep(0.2)

    log("load stopping")
    stop.set()
    for t in threads:
        t.join(timeout=REQUEST_TIMEOUT_S + 15)
        if t.is_alive():
            fail(f"a load thread did not stop: {t.name}")
    daemon.check_alive()
    daemon.sample_rss()

    # Acknowledged writes, exact values, through the REST API.
    checked = verify_ledger(c, api)
    # Every committed event, from the change feed.
    feed = []
    cursor = feed_start
    while True:
        _, page, _ = c.request("verify", "GET",
                               "/chat/events?limit=500&after=" + urllib.parse.quote(cursor),
                               None, api, expect=(200,))
        feed += [e for e in page["data"] if e["type"] in events]
        cursor = page["paging"]["nextCursor"]
        if not page["paging"]["hasMore"]:
            break
    feed_ids = {e["id"] for e in feed}
    receiver.mode = "healthy"
    # A delivery in flight at a SIGKILL stays leased for 60 s (max(60 s, 3 x
    # the timeout)), and its subscription delivers nothing else meanwhile: the
    # drain outlasts the last lease.
    drain_deadline = max(time.monotonic() + 20, last_kill + 70)
    while time.monotonic() < drain_deadline and feed_ids - receiver.received_ids():
        time.sleep(0.5)
    _, metrics_text, _ = None, None, None
    conn = http.client.HTTPConnection("127.0.0.1", daemon.admin_port, timeout=10)
    conn.request("GET", "/metrics")
    metrics_text = conn.getresponse().read().decode()
    conn.close()
    queue_depth = re.search(r"^livechat_webhook_queue_depth (\S+)$", metrics_text, re.M)
    daemon.stop()
    for _, _, err_path in daemon.lives:
        with open(err_path, errors="replace") as f:
            for line in f:
                if CRASH_PATTERNS.search(line):
                    fail(f"{os.path.basename(err_path)}: {line.strip()[:300]}")

    # The outbox after a clean stop: each event's delivery row (the API lists
    # only the newest 50 deliveries, so the file is read directly, read-only).
    db = sqlite3.connect(f"file:{daemon.db}?mode=ro", uri=True)
    rows = db.execute("SELECT event_id, state, attempts FROM webhook_deliveries WHERE subscription_id = ?",
                      (sub_id,)).fetchall()
    db.close()
    by_event = collections.defaultdict(list)
    for event_id, state, attempts in rows:
        by_event[event_id].append((state, attempts))
    received = receiver.received_ids()
    delivered = 0
    pending = collections.Counter()
    for e in feed:
        states = [s for s, _ in by_event.get(e["id"], [])]
        if e["id"] in received:
            delivered += 1
        elif "pending" in states:
            tried = max(a for s, a in by_event[e["id"]] if s == "pending")
            pending["retrying" if tried else "queued"] += 1
        else:
            fail(f"event {e['id']} ({e['type']}) neither delivered nor pending: deliveries {by_event.get(e['id'])}")
        if not states:
            fail(f"event {e['id']} ({e['type']}) has no delivery row (outbox)")
    phantom = received - feed_ids
    if phantom:
        fail(f"{len(phantom)} delivered events are not in the change feed, e.g. {sorted(phantom)[:3]}")
    bad_states = collections.Counter(r[1] for r in rows if r[1] not in ("succeeded", "pending"))
    if bad_states:
        fail(f"deliveries ended {dict(bad_states)} (the receiver never answers 3xx/4xx)")

    rss_report = check_rss(daemon)
    summary(daemon, load, receiver, checked, len(feed), delivered, pending, queue_depth,
            full_report, rss_report, restart_times, first_start)
    if failures:
        print(f"soak: FAILED: {len(failures)} check(s) failed; first: {failures[0][:500]}")
        return 1
    print("soak: PASSED")
    return 0


def disk_full(daemon, c, api, dbdir):
    """Fill the database's filesystem under load; writes must be refused with
    the error body, quickly; reads go on; writes work again once space returns,
    with no restart."""
    report = {}
    pid = daemon.proc.pid
    with LEDGER.lock:
        convs = [m[1] for m in LEDGER.messages if m[0] == "storefront"][-20:]
    conv = convs[-1]
    ballast = os.path.join(dbdir, "ballast")
    log("filling the database filesystem")
    fill(ballast)
    with PHASE.lock:
        PHASE.full = True
    filled = time.monotonic()
    first_error = None
    worst = 0.0
    refused = accepted = reads = 0
    member = c.request("full", "GET", "/chat/members", None, api, expect=(200,))[1]["data"][0]["id"]

    def probe():
        """A 4 KB agent reply, counted accepted (and kept in the ledger) or
        refused; (status, body), or None when it got no answer."""
        nonlocal accepted, refused
        text = "x" * 4000 + f" {random.getrandbits(48):x}"
        try:
            st, body, _ = c.request("full_probe", "POST", f"/chat/conversations/{conv}/messages",
                                    {"text": text, "memberId": member}, api, expect=(201,))
        except Lost:
            fail("full_probe: a write got no answer while the disk was full")
            return None
        if st == 201:
            accepted += 1
            LEDGER.add("messages", ("rest", conv, body["data"]["id"], text, "agent"))
        else:
            refused += 1
        return st, body

    # SQLite writes into space its files already hold (a WAL reset by a
    # checkpoint is rewritten from its start), so a full filesystem refuses
    # the first write only once that space is used up: seconds after the
    # fill, or longer when the WAL had grown large. The FULL_SECONDS window
    # starts at the first refusal, which must come within FULL_ONSET_S.
    refusing = False
    while not refusing and time.monotonic() - filled < FULL_ONSET_S:
        answer = probe()
        if answer is None:
            continue
        st, body = answer
        if st == 201:
            time.sleep(0.05)
        else:
            refusing = True
            first_error = (time.monotonic() - filled, st, body["error"]["code"], body["error"]["message"])
    window = time.monotonic()
    while refusing and time.monotonic() - window < FULL_SECONDS:
        t = time.monotonic()
        if probe() is None:
            continue
        worst = max(worst, time.monotonic() - t)
        rst, _, _ = c.request("full_probe", "GET", f"/chat/conversations/{conv}/messages?limit=5",
                              None, api, expect=(200,))
        reads += rst == 200
        time.sleep(0.2)
    if refused == 0:
        fail("no write was refused while the disk was full: the episode proved nothing")
    admin = Client(daemon.admin_port)
    # Liveness stays up (a restart frees no space); readiness names the cause.
    health = admin.request("full", "GET", "/healthz", None, None, expect=(200,))[0]
    # Readiness reports the last store write's outcome (refused until one
    # commits), and on a full disk a small write of the load can still fit
    # where a large one does not. So it is checked right after a refused
    # probe, in a window the store's counters show no other write entered:
    # then nothing can have committed after the refusal.
    rst, checked = None, False
    for _ in range(20):
        w0, u0 = store_write_counts(daemon.admin_port)
        answer = probe()
        if answer is None or answer[0] == 201:
            continue
        rst, ready, _ = admin.request("full", "GET", "/readyz", None, None, expect=(503, 200))
        w1, u1 = store_write_counts(daemon.admin_port)
        if w1 - w0 == 1 and u1 - u0 == 1:
            checked = True
            if (ready or {}).get("checks", {}).get("writes") != "refused":
                fail(f"/readyz right after a refused write, no other write since: {ready}")
            break
        time.sleep(0.05)
    if not checked:
        fail("/readyz: no refused write without another write beside it in 20 tries")
    os.unlink(ballast)
    freed = time.monotonic()
    with PHASE.lock:
        PHASE.full = False
    log("space returned")
    recovered = None
    while time.monotonic() - freed < RECOVERY_BOUND_S + 5:
        text = f"after the full disk {random.getrandbits(48):x}"
        st, body, _ = c.request("full_probe", "POST", f"/chat/conversations/{conv}/messages",
                                {"text": text, "memberId": member}, api, expect=(201,))
        if st == 201:
            LEDGER.add("messages", ("rest", conv, body["data"]["id"], text, "agent"))
            recovered = time.monotonic() - freed
            break
        time.sleep(0.1)
    if recovered is None or recovered > RECOVERY_BOUND_S:
        fail(f"writes did not succeed within {RECOVERY_BOUND_S}s of space returning ({recovered})")
    _, ready, _ = admin.request("full", "GET", "/readyz", None, None, expect=(200,))
    if (ready or {}).get("checks", {}).get("writes") != "ok":
        fail(f"/readyz after space returned: {ready}")
    if daemon.proc.pid != pid or daemon.proc.poll() is not None:
        fail("livechatd was restarted or died during the full disk")
    report.update(first_error=first_error, worst=worst, refused=refused, accepted=accepted,
                  reads=reads, recovered=recovered, healthz=health, readyz=rst)
    log(f"full disk: {report}")
    return report


def verify_ledger(c, api):
    with LEDGER.lock:
        messages = list(LEDGER.messages)
        notes = list(LEDGER.notes)
        tags = list(LEDGER.tags)
        states = dict(LEDGER.states)
    checked = collections.Counter()
    for kind, conv, mid, text, sender in messages:
        _, body, _ = c.request("verify", "GET", f"/chat/conversations/{conv}/messages/{mid}", None, api,
                               expect=(200,))
        got = (body or {}).get("data") or {}
        if got.get("text") != text or got.get("senderType") != sender:
            fail(f"acknowledged {kind} message {mid} reads back as "
                 f"{got.get('senderType')!r} {str(got.get('text'))[:80]!r}")
        checked[f"messages ({kind})"] += 1
    notes_by_conv = collections.defaultdict(dict)
    for conv in {n[0] for n in notes}:
        _, body, _ = c.request("verify", "GET", f"/chat/conversations/{conv}/notes", None, api, expect=(200,))
        notes_by_conv[conv] = {n["id"]: n["text"] for n in body["data"]}
    for conv, nid, text in notes:
        if notes_by_conv[conv].get(nid) != text:
            fail(f"acknowledged note {nid} of {conv} reads back as {notes_by_conv[conv].get(nid)!r}")
        checked["notes"] += 1
    convs = {t[0] for t in tags} | set(states)
    conv_rows = {}
    for conv in convs:
        _, body, _ = c.request("verify", "GET", f"/chat/conversations/{conv}", None, api, expect=(200,))
        conv_rows[conv] = body["data"]
    for conv, tag in tags:
        if tag not in conv_rows[conv]["tags"]:
            fail(f"acknowledged tag {tag} missing from {conv} ({conv_rows[conv]['tags']})")
        checked["tags"] += 1
    for conv, (last, unsure) in states.items():
        if conv_rows[conv]["status"] not in {last} | unsure:
            fail(f"{conv} is {conv_rows[conv]['status']}; the last acknowledged state was {last}"
                 f" (unanswered since: {sorted(unsure)})")
        checked["states"] += 1
    return checked


def check_rss(daemon):
    """Per life: VmRSS after warm-up against its last sample. A leak grows
    with requests; each life serves thousands."""
    lives = collections.defaultdict(list)
    for life, age, kb in daemon.rss:
        lives[life].append((age, kb))
    report = []
    for life, samples in sorted(lives.items()):
        warm = [kb for age, kb in samples if age >= WARMUP_S]
        if len(warm) < 2 or samples[-1][0] < 2 * WARMUP_S:
            continue
        growth = warm[-1] - warm[0]
        report.append((life, warm[0], warm[-1], samples[-1][0]))
        if growth > RSS_GROWTH_BOUND_KB:
            fail(f"life {life}: VmRSS grew {growth} kB after warm-up ({warm[0]} -> {warm[-1]} kB)")
    if not report:
        fail("no life lasted long enough to check resident memory")
    return report


def summary(daemon, load, receiver, checked, n_feed, delivered, pending, queue_depth, full, rss,
            restart_times, first_start):
    print("\n==== soak summary ====")
    print(f"duration {SOAK_SECONDS}s; lives {len(daemon.lives)}; injected SIGKILLs "
          f"{sum(1 for _, rc, inj in daemon.exits if inj and rc == -signal.SIGKILL)}; "
          f"uninjected exits {sum(1 for *_, inj in daemon.exits if not inj)}")
    print(f"start {first_start:.2f}s; restarts to 'listening on': "
          f"max {max(restart_times, default=0):.2f}s, mean "
          f"{(sum(restart_times) / len(restart_times)) if restart_times else 0:.2f}s")
    print("requests per kind (errors, lost to a kill, refused while full, accepted while full):")
    for kind in sorted(STATS.requests):
        print(f"  {kind:12} {STATS.requests[kind]:8} ({STATS.errors[kind]}, {STATS.lost_to_kill[kind]}, "
              f"{STATS.full_errors[kind]}, {STATS.full_ok[kind]})")
    print(f"widget long-polls answered {load.widget_polls_answered}; agent replies seen by the poll "
          f"{load.widget_replies_seen}")
    print(f"acknowledged writes checked: {dict(checked)} (total {sum(checked.values())})")
    print(f"webhook events committed {n_feed}: delivered {delivered}, pending {dict(pending)} "
          f"(retrying: failed attempts so far; queued: none yet); "
          f"queue depth at the end {queue_depth.group(1) if queue_depth else '?'}; receiver answers "
          f"{dict(receiver.outcomes)}")
    if full:
        fe = full.get("first_error")
        print(f"disk full {FULL_SECONDS}s: first refusal after "
              f"{fe[0]:.2f}s: HTTP {fe[1]} {fe[2]} {fe[3]!r}" if fe else "disk full: no refusal")
        print(f"  probe writes refused {full['refused']}, accepted {full['accepted']}, slowest answer "
              f"{full['worst'] * 1000:.0f} ms (bound {FULL_ERROR_BOUND_S:.0f} s); reads ok {full['reads']}; "
              f"/healthz {full['healthz']}; writes back {full['recovered']:.2f}s after space returned "
              f"(bound {RECOVERY_BOUND_S:.0f} s), no restart" if full.get("recovered") is not None
              else "  writes did not come back")
    print(f"VmRSS per life after {WARMUP_S}s warm-up -> last sample (bound +{RSS_GROWTH_BOUND_KB // 1024} MiB):")
    for life, a, b, age in rss:
        print(f"  life {life}: {a / 1024:.1f} -> {b / 1024:.1f} MiB at {age:.0f}s ({(b - a) / 1024:+.1f} MiB)")
    print(f"checks failed: {len(failures)}")


if __name__ == "__main__":
    sys.exit(main())
