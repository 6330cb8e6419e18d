#!/usr/bin/env python3
"""Differential tests of snapshot listeners (the Listen stream): Hearth vs the official emulator.

Cases live in fixtures/differential/listen/*.json.  Each case seeds documents, attaches
listeners through the real Python client's `on_snapshot`, replays a script of writes and
records, per listener and per step, the snapshots the client delivered.  The expected
sequences are recorded from the official Cloud Firestore emulator.

    python scripts/listen_differential.py record                       # (re)record expectations
    python scripts/listen_differential.py compare --target-port 8080   # compare a server with them
    python scripts/listen_differential.py live --target-port 8080      # compare with a live emulator

Cases run concurrently, in worker processes (--jobs, default 16; each has its own project);
output is in corpus order.  Needs the Python SDK (google-cloud-firestore); run it with the
interpreter that has it.
See docs/listen-differential-testing.md for the case format.
"""

from __future__ import annotations

import base64
import calendar
import datetime as dt
import functools
import logging
import os
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import RECENT_WINDOW, SERVER_TIME, compact, strip_messages  # noqa: E402

CASE_DIR = os.path.join(harness.FIXTURES, "listen")

try:
    from google.api_core import exceptions as gexc
    from google.cloud import firestore
    from google.cloud.firestore_v1 import watch as fs_watch
    from google.cloud.firestore_v1.base_query import And, FieldFilter, Or
except ImportError as exc:  # pragma: no cover
    sys.exit(f"this script needs google-cloud-firestore ({exc}); run it with the .venv that scripts/test makes (.venv/bin/python)")

# Timing.  A step is over for a listener when the listener has seen a consistent snapshot
# (a global NO_CHANGE, i.e. what makes the client push) whose read time is at or after the
# step's commit time, or when it has closed, or after STEP_TIMEOUT.  Then QUIET seconds must
# pass without a new callback.  Writes that do not affect a query therefore cost STEP_TIMEOUT.
INITIAL_TIMEOUT = 10.0
STEP_TIMEOUT = 1.5
QUIET = 0.3
# Cases run in worker processes, each with its own client state (the instrumentation below, the
# _ATTACHING thread-local, FIRESTORE_EMULATOR_HOST).  A case mostly waits for snapshots and
# quiet periods, so many more processes than cores pay off: on 2 cores the corpus takes about
# 54 s with 4, 30 s with 8, 19 s with 16 and 18.5 s with 24 (where it still passes).
JOBS = 16

DENY_ALL = ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
            "    match /{document=**} { allow read, write: if false; }\n  }\n}")
ALLOW_ALL = ("rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
             "    match /{document=**} { allow read, write: if true; }\n  }\n}")
RULE_PRESETS = {"$deny-all": DENY_ALL, "$allow-all": ALLOW_ALL}


# ---------------------------------------------------------------------------
# Cases


def load_cases():
    return harness.load_corpus(CASE_DIR, None, "steps", project_id, required=False)


def project_id(case_id):
    return harness.project_slug("ldiff-", case_id)


class Target:
    """One server: a base URL for the emulator endpoints and host:port for the client."""

    def __init__(self, base):
        self.hostport, self.base = harness.host_and_base(base)

    def client(self, project, uid=None):
        return harness.sdk_client(self.hostport, project, uid)

    def clear(self, project):
        harness.clear_project(self.base, project)

    def put_rules(self, project, content):
        status, body = harness.put_rules(self.base, project, RULE_PRESETS.get(content, content))
        if status != 200:
            raise RuntimeError(f"loading rules failed: {status} {compact(body)}")


# ---------------------------------------------------------------------------
# Values: JSON markers in case files -> SDK values, snapshot values -> normalised JSON


def to_sdk(v, client, reads=None):
    if isinstance(v, list):
        return [to_sdk(x, client, reads) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k == "$serverTimestamp":
                return firestore.SERVER_TIMESTAMP
            if k == "$increment":
                return firestore.Increment(x)
            if k == "$arrayUnion":
                return firestore.ArrayUnion(to_sdk(x, client, reads))
            if k == "$arrayRemove":
                return firestore.ArrayRemove(to_sdk(x, client, reads))
            if k == "$deleteField":
                return firestore.DELETE_FIELD
            if k == "$timestamp":
                return harness.parse_rfc3339(x)
            if k == "$ref":
                return client.document(x)
            if k == "$bytes":
                return base64.b64decode(x)
            if k == "$double":
                return float(x)
            if k == "$read":  # ["path", "field", addend]: a value read earlier in the transaction
                path, field, add = x
                return (reads[path].get(field) if reads[path].exists else 0) + add
        return {k: to_sdk(x, client, reads) for k, x in v.items()}
    return v


def norm_value(v, now):
    if v is None or isinstance(v, (bool, str, int)):
        return v
    if isinstance(v, float):
        if v != v:
            return {"$double": "NaN"}
        if v in (float("inf"), float("-inf")):
            return {"$double": str(v)}
        return {"$double": v} if v.is_integer() else v
    if isinstance(v, dt.datetime):
        if abs(now - v) < RECENT_WINDOW:
            return SERVER_TIME
        nanos = getattr(v, "nanosecond", v.microsecond * 1000)
        return {"$timestamp": v.strftime("%Y-%m-%dT%H:%M:%S") + f".{nanos:09d}Z"}
    if isinstance(v, bytes):
        return {"$bytes": base64.b64encode(v).decode()}
    if isinstance(v, (list, tuple)):
        return [norm_value(x, now) for x in v]
    if isinstance(v, dict):
        return {k: norm_value(v[k], now) for k in sorted(v)}
    if hasattr(v, "latitude") and hasattr(v, "longitude"):
        return {"$geo": [v.latitude, v.longitude]}
    if hasattr(v, "path") and hasattr(v, "_client"):
        return {"$ref": v.path}
    if hasattr(v, "to_map_value"):
        return {"$vector": list(v)}
    return {"$unknown": repr(v)}


def norm_error(e):
    """An exception that ended a listener, as {kind, code, message}; only kind and code compare."""
    cause = e.__cause__ if isinstance(e, RuntimeError) and e.__cause__ is not None else None
    kind = "target-removed" if cause is not None and str(e).startswith("Error ") else "stream-error"
    src = cause if cause is not None else e
    if not isinstance(src, gexc.GoogleAPICallError) and hasattr(src, "code") and callable(getattr(src, "code")):
        src = gexc.from_grpc_error(src)
    code = getattr(src, "grpc_status_code", None)
    code = code.name if code is not None else type(src).__name__
    return {"error": kind, "code": code, "message": str(src)[:300]}


# ---------------------------------------------------------------------------
# Listener instrumentation.  Watch.__init__ runs on the attaching thread and starts the stream;
# the listener being attached is handed to it through _ATTACHING.

_ATTACHING = threading.local()
_orig_init = fs_watch.Watch.__init__
_orig_on_snapshot = fs_watch.Watch.on_snapshot
_orig_close = fs_watch.Watch.close


def _init(self, *a, **kw):
    self._ld = getattr(_ATTACHING, "listener", None)
    _orig_init(self, *a, **kw)


def _on_snapshot(self, proto):
    ld = getattr(self, "_ld", None)
    try:
        return _orig_on_snapshot(self, proto)
    except Exception as e:
        if ld is not None:
            ld.error(e)
        raise
    finally:
        if ld is not None and proto is not None:
            ld.wire(proto)


def _close(self, reason=None):
    ld = getattr(self, "_ld", None)
    if ld is not None and reason is not None and not self._closed:
        ld.error(reason)
    try:
        return _orig_close(self, reason)
    except Exception:
        if ld is None:
            raise


fs_watch.Watch.__init__ = _init
fs_watch.Watch.on_snapshot = _on_snapshot
fs_watch.Watch.close = _close

# A listener ended by the server is recorded as an error event; the SDK's own reports of it (a
# logged traceback on the consumer thread, an exception raised on its shutdown thread) are noise.
logging.getLogger("google.api_core.bidi").setLevel(logging.CRITICAL)
logging.getLogger("google.cloud.firestore_v1.watch").setLevel(logging.CRITICAL)
_orig_excepthook = threading.excepthook


def _excepthook(hook_args):
    if hook_args.thread is not None and hook_args.thread.name == getattr(fs_watch, "_RPC_ERROR_THREAD_NAME", None):
        return
    _orig_excepthook(hook_args)


threading.excepthook = _excepthook


def ts_nanos(t):
    if t is None:
        return None
    if hasattr(t, "seconds") and hasattr(t, "nanos"):
        return t.seconds * 10**9 + t.nanos
    return calendar.timegm(t.utctimetuple()) * 10**9 + getattr(t, "nanosecond", t.microsecond * 1000)


class Listener:
    def __init__(self, name, spec):
        self.name = name
        self.spec = spec
        self.events = []
        self.trace = []
        self.lock = threading.Condition()
        self.max_rt = 0  # read time of the last consistent snapshot seen on the wire (ns)
        self.closed = False
        self.watch = None
        self.prev_order = []
        self.t0 = time.time()

    # called on the client's consumer thread
    def callback(self, docs, changes, read_time):
        now = dt.datetime.now(dt.timezone.utc)
        order = [d.reference.path for d in docs]
        event = {
            "docs": [[d.reference.path, norm_value(d.to_dict(), now)] for d in docs],
            "changes": [[c.type.name, c.document.reference.path, c.old_index, c.new_index,
                         self.prev_order.index(c.document.reference.path)
                         if c.document.reference.path in self.prev_order else -1,
                         order.index(c.document.reference.path) if c.document.reference.path in order else -1]
                        for c in changes],
        }
        self.prev_order = order
        with self.lock:
            self.events.append(event)
            self.lock.notify_all()

    def error(self, e):
        ev = norm_error(e)
        with self.lock:
            if not (self.events and self.events[-1] == ev):
                self.events.append(ev)
            self.closed = True
            self.lock.notify_all()

    def wire(self, proto):
        pb = proto._pb
        which = pb.WhichOneof("response_type")
        t = f"{time.time() - self.t0:7.3f}"
        if which == "target_change":
            tc = pb.target_change
            rt = tc.read_time.seconds * 10**9 + tc.read_time.nanos
            names = {0: "NO_CHANGE", 1: "ADD", 2: "REMOVE", 3: "CURRENT", 4: "RESET"}
            line = f"{t} TargetChange {names.get(tc.target_change_type, tc.target_change_type)} ids={list(tc.target_ids)} read_time={rt}"
            if tc.cause.code:
                line += f" cause={tc.cause.code}:{tc.cause.message!r}"
            with self.lock:
                if tc.target_change_type == 0 and not tc.target_ids and rt:
                    self.max_rt = max(self.max_rt, rt)
                self.trace.append(line)
                self.lock.notify_all()
        else:
            body = getattr(pb, which)
            name = getattr(body, "document", None)
            name = name.name if hasattr(name, "name") else name
            extra = ""
            if which == "document_change":
                extra = f" target_ids={list(body.target_ids)} removed={list(body.removed_target_ids)}"
                extra += f" update_time={body.document.update_time.seconds}.{body.document.update_time.nanos:09d}"
            elif which == "filter":
                extra = f" count={body.count}"
            with self.lock:
                self.trace.append(f"{t} {which} {str(name).split('/documents/')[-1]}{extra}")

    def is_active(self):
        return self.watch is not None and not self.closed and self.watch.is_active


def build_query(client, spec):
    if "doc" in spec:
        return client.document(spec["doc"])
    if "collection_group" in spec:
        q = client.collection_group(spec["collection_group"])
    else:
        q = client.collection(spec["collection"])

    def filt(f):
        if isinstance(f, dict) and "or" in f:
            return Or([filt(x) for x in f["or"]])
        if isinstance(f, dict) and "and" in f:
            return And([filt(x) for x in f["and"]])
        field, op, value = f
        return FieldFilter(field, op, to_sdk(value, client))

    for f in spec.get("where", []):
        q = q.where(filter=filt(f))
    for o in spec.get("order_by", []):
        field, direction = (o, "asc") if isinstance(o, str) else o
        q = q.order_by(field, direction=firestore.Query.DESCENDING if direction == "desc" else firestore.Query.ASCENDING)
    for key in ("start_at", "start_after", "end_at", "end_before"):
        if key in spec:
            q = getattr(q, key)(to_sdk(spec[key], client))
    if "limit" in spec:
        q = q.limit(spec["limit"])
    if "limit_to_last" in spec:
        q = q.limit_to_last(spec["limit_to_last"])
    return q


# ---------------------------------------------------------------------------
# Running a case


def describe(step):
    kind = next((k for k in ("set", "create", "update", "delete", "batch", "transaction", "rules",
                             "unsubscribe", "listen", "quiesce", "clear") if k in step), "?")
    if kind in ("set", "create", "update", "delete", "unsubscribe", "listen"):
        return f"{kind} {step[kind]}"
    if kind in ("batch", "transaction"):
        ops = step[kind] if isinstance(step[kind], list) else step[kind].get("writes", [])
        return f"{kind}[" + ", ".join(describe(o) for o in ops) + "]"
    return kind


def apply_op(batch, client, op, reads=None):
    if "set" in op:
        kw = {}
        if "merge" in op:
            kw["merge"] = op["merge"]
        batch.set(client.document(op["set"]), to_sdk(op["data"], client, reads), **kw)
    elif "create" in op:
        batch.create(client.document(op["create"]), to_sdk(op["data"], client, reads))
    elif "update" in op:
        batch.update(client.document(op["update"]), to_sdk(op["data"], client, reads))
    elif "delete" in op:
        batch.delete(client.document(op["delete"]))
    else:
        raise SystemExit(f"unknown write {op}")


class CaseRun:
    def __init__(self, target, case, timeout, quiet):
        self.target = target
        self.case = case
        self.timeout = timeout
        self.quiet = quiet
        self.project = project_id(case["id"])
        self.clients = {}
        self.listeners = {}
        self.unsubscribed = {}  # listener name -> step that unsubscribed it

    def client(self, uid=None):
        if uid not in self.clients:
            self.clients[uid] = self.target.client(self.project, uid)
        return self.clients[uid]

    def attach(self, name):
        spec = self.case["listeners"][name]
        ld = Listener(name, spec)
        ref = build_query(self.client(spec.get("as")), spec)
        _ATTACHING.listener = ld
        try:
            ld.watch = ref.on_snapshot(ld.callback)
        finally:
            _ATTACHING.listener = None
        self.listeners[name] = ld
        deadline = time.time() + INITIAL_TIMEOUT
        with ld.lock:
            while not ld.events and not ld.closed and time.time() < deadline:
                ld.lock.wait(0.05)

    def write(self, step):
        """Runs a write step; returns (commit time in ns or None, error or None)."""
        uid = step.get("as")
        client = self.client(uid)
        try:
            if "transaction" in step:
                spec = step["transaction"]
                ops = spec if isinstance(spec, list) else spec.get("writes", [])
                read_paths = [] if isinstance(spec, list) else spec.get("read", [])
                tx = client.transaction()

                @firestore.transactional
                def body(transaction):
                    reads = {p: client.document(p).get(transaction=transaction) for p in read_paths}
                    for op in ops:
                        apply_op(transaction, client, op, reads)

                body(tx)
                return ts_nanos(tx.commit_time), None
            batch = client.batch()
            for op in step["batch"] if "batch" in step else [step]:
                apply_op(batch, client, op)
            batch.commit()
            return ts_nanos(batch.commit_time), None
        except Exception as e:  # a rejected write is part of the result
            err = norm_error(e)
            return None, {"error": "write-failed", "code": err["code"], "message": err["message"]}

    def settle(self, active, commit_ns, timeout):
        """Waits until every active listener is done with the step, then for a quiet period."""
        deadline = time.time() + timeout
        for ld in active:
            with ld.lock:
                while time.time() < deadline and not ld.closed:
                    if commit_ns is not None and ld.max_rt >= commit_ns:
                        break
                    ld.lock.wait(0.02)
        counts = [len(ld.events) for ld in active]
        quiet_until = time.time() + self.quiet
        while time.time() < quiet_until:
            time.sleep(0.02)
            now_counts = [len(ld.events) for ld in active]
            if now_counts != counts:
                counts = now_counts
                quiet_until = time.time() + self.quiet

    def run(self):
        case = self.case
        steps = case.get("steps", [])
        listeners = case.get("listeners", {})
        deferred = {s["listen"] for s in steps if "listen" in s}
        result = {"listeners": {n: [None] * (len(steps) + 1) for n in listeners}, "writes": [None] * (len(steps) + 1)}
        self.target.clear(self.project)
        if case.get("rules"):
            self.target.put_rules(self.project, case["rules"])
        try:
            admin = self.client()
            for path, data in case.get("seed", []):
                admin.document(path).set(to_sdk(data, admin))
            # phase 0: attach the listeners that are not attached by a step, one at a time
            for name in listeners:
                if name not in deferred:
                    self.attach(name)
            self.settle(list(self.listeners.values()), None, 0)
            self._collect(result, 0, {n: 0 for n in self.listeners})
            for i, step in enumerate(steps, start=1):
                marks = {n: len(ld.events) for n, ld in self.listeners.items()}
                commit_ns, timeout = None, self.timeout
                if "listen" in step:
                    self.attach(step["listen"])
                    marks[step["listen"]] = 0
                    timeout = 0
                elif "unsubscribe" in step:
                    ld = self.listeners[step["unsubscribe"]]
                    ld.watch.unsubscribe()
                    self.unsubscribed[step["unsubscribe"]] = i
                    timeout = 0
                elif "rules" in step:
                    self.target.put_rules(self.project, step["rules"])
                elif "clear" in step:
                    self.target.clear(self.project)
                elif "quiesce" in step:
                    timeout = float(step["quiesce"]) if not isinstance(step["quiesce"], bool) else self.timeout
                else:
                    commit_ns, err = self.write(step)
                    result["writes"][i] = err
                active = [ld for n, ld in self.listeners.items() if n not in self.unsubscribed]
                self.settle(active, commit_ns, timeout)
                self._collect(result, i, marks)
        finally:
            for ld in self.listeners.values():
                try:
                    ld.watch.unsubscribe()
                except Exception:
                    pass
            for c in self.clients.values():
                try:
                    c.close()
                except Exception:
                    pass
        return result

    def _collect(self, result, i, marks):
        for n, ld in self.listeners.items():
            if self.unsubscribed.get(n, i) < i:
                continue  # null after the step that unsubscribed it
            with ld.lock:
                result["listeners"][n][i] = ld.events[marks.get(n, 0):]

    def traces(self):
        return {n: list(ld.trace) for n, ld in self.listeners.items()}


def run_case(target, case, args):
    run = CaseRun(target, case, args.timeout, args.quiet)
    try:
        res = run.run()
    except Exception as e:  # the harness must go on with the other cases
        res = {"harness_error": f"{type(e).__name__}: {e}"}
    return res, run.traces()


# ---------------------------------------------------------------------------
# Comparison


def compare_case(case, expect, got):
    """Returns a list of difference lines (empty when the case agrees)."""
    if expect is None:
        return ["no recorded expectation (run record first)"]
    if "harness_error" in got or "harness_error" in expect:
        if strip_messages(expect) == strip_messages(got):
            return []
        return [f"harness error: expected {compact(expect.get('harness_error'), 900)} got {compact(got.get('harness_error'), 900)}"]
    out = []
    steps = case.get("steps", [])
    labels = ["attach"] + [f"step {i} {describe(s)}" for i, s in enumerate(steps, start=1)]
    for name in case.get("listeners", {}):
        exp_l = expect["listeners"].get(name, [])
        got_l = got["listeners"].get(name, [])
        for i, label in enumerate(labels):
            e = exp_l[i] if i < len(exp_l) else None
            g = got_l[i] if i < len(got_l) else None
            if strip_messages(e) != strip_messages(g):
                out.append(f"listener {name} {label} | expected {compact(e if e else 'no snapshot', 900)} | got {compact(g if g else 'no snapshot', 900)}")
    for i, label in enumerate(labels):
        e, g = expect["writes"][i], got["writes"][i]
        if strip_messages(e) != strip_messages(g):
            out.append(f"write {label} | expected {compact(e, 900)} | got {compact(g, 900)}")
    return out


def print_traces(traces, label=""):
    for name, lines in (traces or {}).items():
        print(f"  trace {label}{name}:")
        for line in lines:
            print(f"    {line}")


def cost(case):
    """A rough guess of a case's time, so that the slow cases start first: steps (a write that
    causes no snapshot waits --timeout), listeners (attached one after the other), quiesce steps."""
    steps = case.get("steps", [])
    quiet = sum(STEP_TIMEOUT if s["quiesce"] is True else float(s["quiesce"]) for s in steps if "quiesce" in s)
    return len(steps) + 0.5 * len(case.get("listeners", {})) + quiet


# Workers: module-level functions, so that the process pool can send them to its workers.


def _compare_job(target, args, case):
    return run_case(target, case, args), (case.get("expect"), None)


def _live_job(target, args, official, case):
    got = run_case(target, case, args)
    return got, run_case(official, case, args)


def compare_all(target, args, job):
    """job(case) -> ((result, traces), (expected result, its traces)), in a worker process."""
    cases = [c for _, c in harness.select_cases(load_cases(), args)]

    def report(case, outcome, prefix):
        (got, traces), (expect, exp_traces) = outcome
        diffs = compare_case(case, expect, got)
        if not diffs:
            if args.verbose and prefix != "KNOWN":
                print(f"ok   {case['id']}")
            return True
        for d in diffs:
            print(f"{prefix} {case['id']} {d}")
        if args.trace:
            print_traces(exp_traces, "expected ")
            print_traces(traces, "got ")
        return False

    return harness.compare_corpus(cases, args, target.base, job, report, processes=True, cost=cost)


def target_from(args):
    return Target(harness.target_of(args)[1])


def cmd_compare(args):
    target = target_from(args)
    return compare_all(target, args, functools.partial(_compare_job, target, args))


def cmd_live(args):
    with harness.OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0
        target = target_from(args)
        return compare_all(target, args, functools.partial(_live_job, target, args, Target(emu.base)))


def cmd_record(args):
    with harness.OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0
        changed = 0

        def store(case, outcome):
            nonlocal changed
            got, traces = outcome
            if "harness_error" in got:
                print(f"ERROR {case['id']}: {got['harness_error']}")
            if case.get("expect") is not None and strip_messages(case["expect"]) != strip_messages(got):
                changed += 1
                for d in compare_case(case, case["expect"], got):
                    print(f"CHANGED {case['id']} {d}")
                if args.trace:
                    print_traces(traces)
            case["expect"] = got
            return True

        n, _ = harness.record_corpus(load_cases(), args, functools.partial(run_case, Target(emu.base), args=args),
                                     store, processes=True, cost=cost)
        print(f"recorded {n} cases from the official emulator ({changed} differ from the previous recording)")
        return 0


def main(argv=None):
    ap, parsers = harness.corpus_parsers(__doc__, port_target=True, jobs=JOBS, jobs_why=", in worker processes")
    for p in parsers.values():
        p.add_argument("--timeout", type=float, default=STEP_TIMEOUT,
                       help=f"seconds to wait for a snapshot a step may not cause (default {STEP_TIMEOUT})")
        p.add_argument("--quiet", type=float, default=QUIET,
                       help=f"seconds without a callback that end a step (default {QUIET})")
        p.add_argument("--trace", action="store_true", help="print the Listen responses of failing cases")
        p.add_argument("-v", "--verbose", action="store_true", help="print a line for passing cases too")
    args = ap.parse_args(argv)
    return {"record": cmd_record, "compare": cmd_compare, "live": cmd_live}[args.cmd](args)


if __name__ == "__main__":
    harness.run_main(main)
