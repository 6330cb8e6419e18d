#!/usr/bin/env python3
"""Differential tests through the real Python client: Hearth vs the official emulator.

The corpus lives in fixtures/differential/sdk/*.json.  Each file is a JSON list of
cases; each case is a list of SDK operations (set, update, query, transaction, ...)
run by a small interpreter through `google-cloud-firestore` (and, for a few cases,
`firebase-admin`).  What each operation returns, or the exception it raises, is
normalised into JSON and compared with what the official emulator gave.

    python3 scripts/sdk_differential.py record                       # (re)record expectations
    python3 scripts/sdk_differential.py compare --target-port 8080   # compare with recordings
    python3 scripts/sdk_differential.py live --target-port 8080      # compare with a live emulator

Cases run concurrently, in worker processes (--jobs, default 16; each has its own project);
output is in corpus order.  Run it with a Python that has google-cloud-firestore (and
firebase-admin) installed.
See docs/sdk-differential-testing.md for the case format and the normalisation.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import math
import os
import re
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import SERVER_TIME, compact  # noqa: E402

CORPUS_DIR = os.path.join(harness.FIXTURES, "sdk")
CASE_TIMEOUT = 90  # seconds for a whole case
CALL_TIMEOUT = 30  # seconds for one RPC
# Cases run in worker processes (the client's Python work holds the GIL; each process also has
# its own FIRESTORE_EMULATOR_HOST and firebase-admin apps).  Much of a case's time is waiting
# (lock timeouts, background ops settling, listeners), so more processes than cores pay off: on
# 2 cores the whole corpus takes about 195 s with 4, 135 s with 8, 110 s with 16 and no less
# with 24 (where it still passes), so 16 leaves a margin for timing-sensitive cases.
JOBS = 16

# Imported lazily so that `--help` works without the SDK.
firestore = None
exceptions = None


def _import_sdk():
    global firestore, exceptions
    if firestore is None:
        from google.api_core import exceptions as exc  # noqa: WPS433
        from google.cloud import firestore as fs  # noqa: WPS433

        firestore, exceptions = fs, exc


# ---------------------------------------------------------------------------
# Corpus


def load_corpus(only_files=None):
    return harness.load_corpus(CORPUS_DIR, only_files, "ops", project_id)


def project_id(case_id: str) -> str:
    return harness.project_slug("sdk-", case_id)[:60].rstrip("-")


# ---------------------------------------------------------------------------
# Clients


class Clients:
    """The clients of one case on one target: the admin client, end users, firebase-admin."""

    def __init__(self, host, project):
        self.host, self.project = host, project
        self._users = {}
        self._admin_app = None
        self._admin_client = None
        self.owner = harness.sdk_client(host, project)

    def get(self, op):
        if op.get("client") == "firebase-admin":
            return self.firebase_admin()
        uid = op.get("as")
        if uid is None:
            return self.owner
        if uid not in self._users:  # "as": "" means no Authorization header at all
            self._users[uid] = harness.sdk_client(self.host, self.project, uid)
        return self._users[uid]

    def firebase_admin(self):
        if self._admin_client is None:
            self._admin_app, self._admin_client = harness.firebase_admin_client(self.host, self.project)
        return self._admin_client

    def close(self):
        # the gRPC channel is the process's (harness.sdk_client), kept for the next case
        if self._admin_app is not None:
            import firebase_admin

            firebase_admin.delete_app(self._admin_app)


# ---------------------------------------------------------------------------
# Values: case JSON -> Python SDK values


def decode_value(v, client):
    """Turns the case notation into SDK values.  Tagged objects have exactly one key starting with $."""
    from google.api_core.datetime_helpers import DatetimeWithNanoseconds
    from google.cloud.firestore_v1 import _helpers as h
    from google.cloud.firestore_v1.vector import Vector

    if isinstance(v, list):
        return [decode_value(x, client) for x in v]
    if isinstance(v, dict):
        if len(v) == 1:
            (tag, arg), = v.items()
            if tag == "$double":
                return float(arg)  # "NaN", "Infinity", "-Infinity", "-0.0" or a number
            if tag == "$ts":
                return DatetimeWithNanoseconds.from_rfc3339(arg)
            if tag == "$bytes":
                return base64.b64decode(arg)
            if tag == "$ref":
                return client.document(arg)
            if tag == "$geo":
                return h.GeoPoint(float(arg[0]), float(arg[1]))
            if tag == "$vector":
                return Vector([float(x) for x in arg])
            if tag == "$serverTimestamp":
                return firestore.SERVER_TIMESTAMP
            if tag == "$deleteField":
                return firestore.DELETE_FIELD
            if tag == "$increment":
                return firestore.Increment(decode_value(arg, client))
            if tag == "$maximum":
                return firestore.Maximum(decode_value(arg, client))
            if tag == "$minimum":
                return firestore.Minimum(decode_value(arg, client))
            if tag == "$arrayUnion":
                return firestore.ArrayUnion(decode_value(arg, client))
            if tag == "$arrayRemove":
                return firestore.ArrayRemove(decode_value(arg, client))
            if tag == "$fieldPath":
                from google.cloud.firestore_v1.field_path import FieldPath

                return FieldPath(*arg)
            if tag == "$documentId":
                from google.cloud.firestore_v1.field_path import FieldPath

                return FieldPath.document_id()
            if tag == "$string":
                return "".join(arg) if isinstance(arg, list) else arg
            if tag == "$repeat":
                return arg[0] * int(arg[1])
        return {k: decode_value(x, client) for k, x in v.items()}
    return v


# ---------------------------------------------------------------------------
# Normalisation: Python SDK results -> JSON


def norm_time(t):
    """Server times (write results, snapshot times, REQUEST_TIME values) become a marker."""
    if t is None:
        return None
    if hasattr(t, "ToDatetime"):  # protobuf Timestamp
        t = t.ToDatetime(tzinfo=dt.timezone.utc)
    if harness.is_recent(t):
        return SERVER_TIME
    if hasattr(t, "rfc3339"):
        return t.rfc3339()
    return t.astimezone(dt.timezone.utc).isoformat()


def norm_value(v):
    from google.cloud.firestore_v1 import _helpers as h
    from google.cloud.firestore_v1.base_document import BaseDocumentReference
    from google.cloud.firestore_v1.vector import Vector

    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if math.isnan(v):
            return {"$double": "NaN"}
        if math.isinf(v):
            return {"$double": "Infinity" if v > 0 else "-Infinity"}
        return {"$double": repr(v)}
    if isinstance(v, dt.datetime):
        return {"$ts": norm_time(v)}
    if isinstance(v, bytes):
        return {"$bytes": base64.b64encode(v).decode()}
    if isinstance(v, BaseDocumentReference):
        return {"$ref": v.path}
    if isinstance(v, h.GeoPoint):
        return {"$geo": [norm_value(v.latitude), norm_value(v.longitude)]}
    if isinstance(v, Vector):
        return {"$vector": [norm_value(x) for x in v]}
    if isinstance(v, dict):  # sorted, so recordings do not depend on map iteration order
        return {k: norm_value(v[k]) for k in sorted(v)}
    if isinstance(v, (list, tuple)):
        return [norm_value(x) for x in v]
    return {"$python": f"{type(v).__name__}: {v!r}"}


def norm_snapshot(s, with_path=False):
    out = {"id": s.id, "exists": s.exists}
    if with_path:
        out["path"] = s.reference.path
    if s.exists:
        out["data"] = norm_value(s.to_dict())
        out["createTime"] = norm_time(s.create_time)
        out["updateTime"] = norm_time(s.update_time)
        out["createdAtUpdate"] = s.create_time == s.update_time
    out["readTime"] = "present" if s.read_time is not None else None
    return out


def norm_write_result(r):
    if r is None:
        return None
    if isinstance(r, dt.datetime) or hasattr(r, "ToDatetime"):
        return {"time": norm_time(r)}
    if hasattr(r, "update_time"):
        return {"updateTime": norm_time(r.update_time) if r.update_time else None}
    return {"$python": repr(r)}


def norm_error(e):
    out = {"class": type(e).__name__, "module": type(e).__module__.split(".")[0]}
    code = getattr(e, "grpc_status_code", None)
    if code is not None:
        out["grpc"] = code.name
    if isinstance(e, exceptions.RetryError) and e.cause is not None:
        out["cause"] = norm_error(e.cause)
    out["message"] = scrub_message(str(getattr(e, "message", None) or e)[:2000])
    return out


def scrub_message(text):
    """Messages are recorded for the reader, not compared; unstable bits are still replaced so
    that re-recording leaves the files unchanged: object addresses and recent versions
    (microseconds since the epoch) that the official emulator quotes."""
    return harness.scrub_versions(re.sub(r" at 0x[0-9a-f]+>", " at 0x...>", text))


# ---------------------------------------------------------------------------
# The interpreter


KW = {"retry": None, "timeout": CALL_TIMEOUT}


def precondition(client, pre):
    if pre is None:
        return None
    if "exists" in pre:
        return client.write_option(exists=pre["exists"])
    return client.write_option(last_update_time=pre["lastUpdateTime"])


def build_filter(spec, client):
    from google.cloud.firestore_v1.base_query import And, FieldFilter, Or

    if isinstance(spec, dict):
        if "or" in spec:
            return Or([build_filter(s, client) for s in spec["or"]])
        if "and" in spec:
            return And([build_filter(s, client) for s in spec["and"]])
        raise ValueError(f"bad filter {spec!r}")
    field, opr, value = spec
    field = decode_value(field, client) if isinstance(field, dict) else field
    return FieldFilter(field, opr, decode_value(value, client))


def cursor_arg(spec, client):
    if "doc" in spec:
        return client.document(spec["doc"]).get(**KW)
    if "snapshotOf" in spec:  # a snapshot of a document that is not in the results
        return client.document(spec["snapshotOf"]).get(**KW)
    values = decode_value(spec["values"], client)
    if "fields" in spec:
        return dict(zip(spec["fields"], values))
    return values


def build_query(op, client):
    if "group" in op:
        q = client.collection_group(op["group"])
    else:
        q = client.collection(*op["from"].split("/"))
    if op.get("recursive"):
        q = q.recursive()
    for w in op.get("where", []):
        q = q.where(filter=build_filter(w, client))
    for ob in op.get("orderBy", []):
        field, direction = (ob, "asc") if isinstance(ob, str) else ob
        field = decode_value(field, client) if isinstance(field, dict) else field
        q = q.order_by(field, direction=firestore.Query.DESCENDING if direction == "desc" else firestore.Query.ASCENDING)
    if "select" in op:
        q = q.select(op["select"])
    for name, meth in (("startAt", "start_at"), ("startAfter", "start_after"), ("endAt", "end_at"), ("endBefore", "end_before")):
        if name in op:
            q = getattr(q, meth)(cursor_arg(op[name], client))
    if "offset" in op:
        q = q.offset(op["offset"])
    if "limit" in op:
        q = q.limit(op["limit"])
    if "limitToLast" in op:
        q = q.limit_to_last(op["limitToLast"])
    if "nearest" in op:
        from google.cloud.firestore_v1.base_vector_query import DistanceMeasure
        from google.cloud.firestore_v1.vector import Vector

        n = op["nearest"]
        q = q.find_nearest(n["field"], Vector(n["vector"]), limit=n["limit"], distance_measure=DistanceMeasure[n["measure"]],
                           distance_result_field=n.get("resultField"), distance_threshold=n.get("threshold"))
    return q


def run_query(op, client, transaction=None, ctx=None):
    q = build_query(op, client)
    kw = dict(KW)
    if transaction is not None:
        kw = {"transaction": transaction}
    if "readTime" in op:
        kw["read_time"] = ctx.captures[op["readTime"][1:]]
    if op.get("explain"):
        from google.cloud.firestore_v1.query_profile import ExplainOptions

        kw["explain_options"] = ExplainOptions(analyze=op["explain"] == "analyze")
    if op.get("mode") == "stream":
        snaps = list(q.stream(**kw))
    else:
        snaps = q.get(**kw)
    full = op.get("paths", "group" in op)
    if op.get("idsOnly", False):
        return {"ids": [s.reference.path if full else s.id for s in snaps]}
    return {"docs": [_doc_row(s, full) for s in snaps]}


def _doc_row(s, full):
    row = {"id": s.reference.path if full else s.id}
    row["data"] = norm_value(s.to_dict())
    return row


def run_aggregate(op, client, ctx=None, transaction=None):
    q = build_query(op, client)
    agg = None
    for i, a in enumerate(op["aggs"]):
        kind = a[0]
        alias = a[2] if len(a) > 2 else (a[1] if kind == "count" and len(a) > 1 else f"a{i}")
        target = agg if agg is not None else q
        if kind == "count":
            agg = target.count(alias=alias)
        else:
            agg = getattr(target, kind)(a[1], alias=alias)
    kw = dict(KW)
    if transaction is not None:
        kw["transaction"] = transaction
    if "readTime" in op:
        kw["read_time"] = ctx.captures[op["readTime"][1:]]
    results = agg.get(**kw)
    out = []
    for row in results:
        row = sorted(row, key=lambda r: r.alias)
        out.append({r.alias: {"value": norm_value(r.value), "type": type(r.value).__name__} for r in row})
    return {"aggregations": out}


def write_into(target, op, client):
    """Applies a write op to a WriteBatch, a Transaction or (target None) directly."""
    kind = op["op"]
    ref = client.document(op["path"])
    data = decode_value(op.get("data"), client)
    pre = precondition(client, op.get("precondition"))
    if target is None:
        if kind == "set":
            return ref.set(data, merge=op.get("merge", False), **KW)
        if kind == "create":
            return ref.create(data, **KW)
        if kind == "update":
            return ref.update(data, option=pre, **KW)
        if kind == "delete":
            return ref.delete(option=pre, **KW)
    else:
        if kind == "set":
            return target.set(ref, data, merge=op.get("merge", False))
        if kind == "create":
            return target.create(ref, data)
        if kind == "update":
            return target.update(ref, data, option=pre)
        if kind == "delete":
            return target.delete(ref, option=pre)
    raise ValueError(f"unknown write op {kind}")


WRITE_OPS = ("set", "create", "update", "delete")


class CaseContext:
    def __init__(self, base, clients, project):
        self.base, self.clients, self.project = base, clients, project
        self.captures = {}
        self.txs = {}  # name -> Transaction begun by a txBegin op
        self.background = {}  # name -> (thread, holder) started by a background op


def resolve_captures(op, ctx):
    """{"lastUpdateTime": "$t1"} -> the captured timestamp."""
    pre = op.get("precondition")
    if pre and isinstance(pre.get("lastUpdateTime"), str) and pre["lastUpdateTime"].startswith("$"):
        op = dict(op)
        op["precondition"] = {"lastUpdateTime": ctx.captures[pre["lastUpdateTime"][1:]]}
    elif pre and isinstance(pre.get("lastUpdateTime"), dict):
        from google.api_core.datetime_helpers import DatetimeWithNanoseconds

        op = dict(op)
        op["precondition"] = {"lastUpdateTime": DatetimeWithNanoseconds.from_rfc3339(pre["lastUpdateTime"]["$ts"])}
    return op


def run_op(op, ctx):
    kind = op["op"]
    if kind == "rules":
        status, _ = harness.put_rules(ctx.base, ctx.project, op["content"])
        return {"rulesLoaded": status == 200}
    client = ctx.clients.get(op)
    op = resolve_captures(op, ctx)
    if "tx" in op or kind in TX_OPS:
        return run_tx_op(op, client, ctx)
    if kind in WRITE_OPS:
        res = write_into(None, op, client)
        if "capture" in op:
            ctx.captures[op["capture"]] = res if kind == "delete" else res.update_time
        return {"writeResult": norm_write_result(res)}
    if kind == "add":
        t, ref = client.collection(*op["from"].split("/")).add(decode_value(op["data"], client), **KW)
        return {"writeResult": norm_write_result(t), "idLength": len(ref.id), "parent": ref.parent.id}
    if kind == "get":
        ref = client.document(op["path"])
        kw = dict(KW)
        if "readTime" in op:
            kw["read_time"] = ctx.captures[op["readTime"][1:]]
        snap = ref.get(field_paths=op.get("fields"), **kw)
        return {"snapshot": norm_snapshot(snap)}
    if kind == "getAll":
        refs = [client.document(p) for p in op["paths"]]
        snaps = list(client.get_all(refs, field_paths=op.get("fields"), **KW))
        rows = [norm_snapshot(s, with_path=True) for s in snaps]
        if op.get("sorted", True):
            # the Python SDK yields in server order, which Firestore does not promise
            order = {p: i for i, p in enumerate(op["paths"])}
            rows.sort(key=lambda r: order.get(r["path"], 1 << 30))
        return {"snapshots": rows}
    if kind == "query":
        return run_query(op, client, ctx=ctx)
    if kind == "aggregate":
        return run_aggregate(op, client, ctx)
    if kind == "batch":
        batch = client.batch()
        for w in op["writes"]:
            write_into(batch, resolve_captures(w, ctx), client)
        return {"writeResults": [norm_write_result(r) for r in batch.commit(**KW)]}
    if kind == "transaction":
        return run_transaction(op, client, ctx)
    if kind == "collections":
        parent = client.document(op["path"]) if op.get("path") else client
        kw = dict(KW)
        if op.get("pageSize"):
            kw["page_size"] = op["pageSize"]
        return {"collections": [c.id for c in parent.collections(**kw)]}
    if kind == "sameTime":  # are two captured write times equal?
        return {"same": ctx.captures[op["a"]] == ctx.captures[op["b"]]}
    if kind == "bulkWriter":
        return run_bulk_writer(op, client, ctx)
    if kind == "listDocuments":
        col = client.collection(*op["from"].split("/"))
        if op.get("showMissing", True):
            # the SDK always asks for show_missing=True
            refs = col.list_documents(page_size=op.get("pageSize"), **KW)
            return {"documents": [r.id for r in refs]}
        parent, _ = col._parent_info()
        request = {"parent": parent, "collection_id": col.id, "show_missing": False, "mask": {"field_paths": []}}
        if op.get("pageSize"):
            request["page_size"] = op["pageSize"]
        pager = client._firestore_api.list_documents(request=request, metadata=client._rpc_metadata, **KW)
        return {"documents": [d.name.rsplit("/", 1)[1] for d in pager]}
    if kind == "recursiveDelete":
        p = op["path"]
        ref = client.document(p) if p.count("/") % 2 == 1 else client.collection(*p.split("/"))
        return {"deleted": client.recursive_delete(ref)}
    if kind == "listen":
        return run_listen(op, client, ctx)
    if kind == "background":
        return run_background(op, ctx)
    if kind == "await":
        return run_await(op, ctx)
    raise ValueError(f"unknown op {kind}")


# Explicit transactions: txBegin names a transaction, reads and writes with "tx" use it, txCommit
# and txRollback end it.  Together with background/await they interleave several transactions
# and plain writes in a controlled order (the official emulator locks what a transaction reads).
TX_OPS = ("txBegin", "txCommit", "txRollback")


def run_tx_op(op, client, ctx):
    kind = op["op"]
    name = op["tx"]
    if kind == "txBegin":
        tx = client.transaction(read_only=op.get("readOnly", False))
        resp = client._firestore_api.begin_transaction(
            request={"database": client._database_string, "options": tx._options_protobuf(None)},
            metadata=client._rpc_metadata,
            **KW,
        )
        tx._id = resp.transaction
        ctx.txs[name] = tx
        return {"began": True}
    tx = ctx.txs[name]
    api, database, metadata = tx._client._firestore_api, tx._client._database_string, tx._client._rpc_metadata
    if kind == "txCommit":  # sends the queued writes; the id is kept, so a second commit reuses it
        resp = api.commit(request={"database": database, "writes": tx._write_pbs, "transaction": tx._id}, metadata=metadata, **KW)
        return {"writeResults": [norm_write_result(r) for r in resp.write_results]}
    if kind == "txRollback":
        api.rollback(request={"database": database, "transaction": tx._id}, metadata=metadata, **KW)
        return {"rolledBack": True}
    if kind in WRITE_OPS:
        write_into(tx, op, client)
        return {"queued": kind}
    if kind == "get":
        return {"snapshot": norm_snapshot(client.document(op["path"]).get(field_paths=op.get("fields"), transaction=tx, **KW))}
    if kind == "getAll":
        snaps = list(client.get_all([client.document(p) for p in op["paths"]], transaction=tx, **KW))
        rows = sorted((norm_snapshot(s, with_path=True) for s in snaps), key=lambda r: r["path"])
        return {"snapshots": rows}
    if kind == "query":
        return run_query(op, client, transaction=tx, ctx=ctx)
    if kind == "aggregate":
        return run_aggregate(op, client, ctx, transaction=tx)
    raise ValueError(f"op {kind} does not take a transaction")


def run_background(op, ctx):
    """Starts op["do"] on a thread, waits settleMs (default 500) so that its RPC reaches the
    server, and goes on; `await` with the same name gives its result."""
    holder = {}

    def work():
        try:
            holder["result"] = run_op(op["do"], ctx)
        except Exception as e:  # noqa: BLE001
            holder["result"] = {"error": norm_error(e)}

    th = threading.Thread(target=work, daemon=True)
    th.start()
    ctx.background[op["name"]] = (th, holder)
    time.sleep(op.get("settleMs", 500) / 1000)
    return {"started": True}


def run_await(op, ctx):
    th, holder = ctx.background.pop(op["name"])
    th.join(CALL_TIMEOUT + 5)
    if th.is_alive():
        return {"error": {"class": "Timeout", "message": f"background op {op['name']} did not finish"}}
    return holder["result"]


def run_transaction(op, client, ctx):
    steps_out = []

    @firestore.transactional
    def body(transaction):
        steps_out.clear()
        for st in op["steps"]:
            kind = st["op"]
            if kind in WRITE_OPS:
                write_into(transaction, resolve_captures(st, ctx), client)
                steps_out.append({"queued": kind})
            elif kind == "get":
                snap = next(iter(transaction.get(client.document(st["path"]))))
                steps_out.append({"snapshot": norm_snapshot(snap)})
            elif kind == "getAll":
                snaps = list(transaction.get_all([client.document(p) for p in st["paths"]]))
                rows = sorted((norm_snapshot(s, with_path=True) for s in snaps), key=lambda r: r["path"])
                steps_out.append({"snapshots": rows})
            elif kind == "query":
                steps_out.append(run_query(st, client, transaction=transaction, ctx=ctx))
            elif kind == "fail":  # the transaction function raises; the SDK rolls back
                raise RuntimeError("user code failed")
            elif kind == "outside":  # a write by another client in the middle of the transaction
                steps_out.append(run_op(st["do"], ctx))
            elif kind == "background":  # an op started on a thread; a later top-level await joins it
                steps_out.append(run_op(st, ctx))
            else:
                raise ValueError(f"unknown transaction step {kind}")

    tx = client.transaction(max_attempts=op.get("maxAttempts", 1), read_only=op.get("readOnly", False))
    try:
        body(tx)
    except Exception as e:  # noqa: BLE001
        return {"steps": list(steps_out), "error": norm_error(e)}
    return {"steps": list(steps_out), "committed": True}


def run_bulk_writer(op, client, ctx):
    """BulkWriter (BatchWrite RPC, not atomic).  Failed writes are not retried."""
    outcomes = {}
    bw = client.bulk_writer()

    def on_error(failure, _writer):
        outcomes[failure.operation.reference.path] = {"code": failure.code, "message": scrub_message(failure.message)}
        return False  # no retry

    def on_result(ref, result, _writer):
        outcomes[ref.path] = {"ok": norm_write_result(result)}

    bw.on_write_error(on_error)
    bw.on_write_result(on_result)
    for w in op["writes"]:
        write_into(bw, resolve_captures(w, ctx), client)
    bw.close()
    return {"outcomes": dict(sorted(outcomes.items()))}


def run_listen(op, client, ctx):
    """Listens to a query; waits for the first snapshot, then runs `then` ops one by one, waiting
    for one more snapshot after each."""
    events = []
    cond = threading.Condition()

    def on_snapshot(snaps, changes, read_time):
        with cond:
            events.append(
                {
                    "ids": sorted(s.id for s in snaps),
                    "changes": sorted(f"{c.type.name}:{c.document.id}" for c in changes),
                }
            )
            cond.notify_all()

    if "path" in op:
        watch = client.document(op["path"]).on_snapshot(
            lambda snaps, changes, t: on_snapshot([s for s in snaps if s.exists], changes, t)
        )
    else:
        watch = build_query(op, client).on_snapshot(on_snapshot)
    threads = set()  # every consumer thread seen: the only threads that call back
    try:
        want = 1
        for step in [None] + op.get("then", []):
            if step is not None:
                run_op(step, ctx)
            deadline = time.monotonic() + 10
            with cond:
                while len(events) < want and time.monotonic() < deadline and not listener_ended(watch, threads):
                    cond.wait(min(0.05, max(0.0, deadline - time.monotonic())))
            if len(events) < want:
                return {"events": events, "error": {"class": "Timeout", "message": "no snapshot within 10 s"}}
            want += 1
    finally:
        watch.unsubscribe()
    return {"events": events}


def listener_ended(watch, threads):
    """True once the Python client's Watch can never call back again, so that waiting the rest of
    the 10 s for a snapshot cannot change the outcome: no consumer thread (the only threads that
    call back; `threads` collects those seen) is alive, and the watch is closed (which drops the
    callback for good) or its consumer thread has ended (the server ended the target: the client
    raises on the consumer thread, which exits, and nothing restarts it)."""
    consumer = watch._consumer
    current = getattr(consumer, "_thread", None) if consumer is not None else None
    if current is not None:
        threads.add(current)
    if any(t.is_alive() for t in threads):
        return False
    return watch._closed or current is not None


def run_case(host, base, case):
    """Runs a case on one target; returns the list of normalised op results."""
    _import_sdk()
    project = project_id(case["id"])
    status, text = harness.clear_project(base, project)
    if status == 0:
        raise ConnectionError(text)
    results = []
    clients = Clients(host, project)
    ctx = CaseContext(base, clients, project)

    def work():
        for op in case["ops"]:
            try:
                results.append(run_op(op, ctx))
            except Exception as e:  # noqa: BLE001
                results.append({"error": norm_error(e)})

    th = threading.Thread(target=work, daemon=True)
    th.start()
    th.join(CASE_TIMEOUT)
    if th.is_alive():
        results.append({"error": {"class": "Timeout", "message": f"case did not finish in {CASE_TIMEOUT} s"}})
    else:
        clients.close()
    while len(results) < len(case["ops"]):
        results.append({"error": {"class": "NotRun", "message": "an earlier op hung"}})
    return results[: len(case["ops"])]


# ---------------------------------------------------------------------------
# Comparison


def diff(exp, got):
    """Structural differences; key order ignored, list order significant, types strict."""
    return harness.diff(exp, got, width=100, exact=True)


def op_summary(op):
    o = {k: v for k, v in op.items() if k != "expect"}
    return compact(o, 300)


def report_case(case, results, expected, prefix, all_messages=False):
    ok = True
    for i, (op, got, exp) in enumerate(zip(case["ops"], results, expected)):
        if exp is None:
            print(f"{prefix} {case['id']} op {i + 1} {op['op']}: no recorded expectation (run `record`)")
            ok = False
            continue
        cm = all_messages or op.get("compareMessage", case.get("compareMessage", False))
        e, g = (exp, got) if cm else (harness.strip_messages(exp), harness.strip_messages(got))
        d = diff(e, g)
        if d:
            ok = False
            print(
                f"{prefix} {case['id']} op {i + 1} {op['op']} | diff: {'; '.join(d)} | {op_summary(op)}"
                f" | expected {compact(exp, 400)} | got {compact(got, 400)}"
            )
    return ok


def cost(case):
    """A rough guess of a case's time in seconds, so that the slow cases start first: waits the
    recording shows (a listener's 10 s without a snapshot, a 2 s lock timeout), background ops'
    settleMs, and long arrays (a million elements take the client and the server many seconds)."""
    total = 0.02

    def walk(v):
        nonlocal total
        if isinstance(v, dict):
            rep = v.get("$repeat")
            if len(v) == 1 and isinstance(rep, list) and len(rep) == 2 and isinstance(rep[0], list):
                total += int(rep[1]) * len(rep[0]) / 40000
            if v.get("op") == "background":
                total += v.get("settleMs", 500) / 1000
            for k, x in v.items():
                if k == "expect":
                    text = str(x)
                    total += 10 * text.count("no snapshot within 10 s") + 2 * text.count("lock timeout")
                else:
                    walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(case["ops"])
    return total


# Workers: module-level functions, so that the process pool can send them to its workers.


def _compare_job(host, base, case):
    return run_case(host, base, case), [op.get("expect") for op in case["ops"]]


def _live_job(host, base, case, emu_host, emu_base):
    got = run_case(host, base, case)
    return got, run_case(emu_host, emu_base, case)


def compare_all(args, run):
    """run(case) -> (results, expectations), in a worker process."""
    host, base = harness.target_of(args)
    cases = [c for _, c in harness.select_cases(load_corpus(args.file), args)]
    all_messages = getattr(args, "all_messages", False)

    def report(case, outcome, prefix):
        results, expected = outcome
        if args.verbose:
            print(f"RUN {case['id']}", file=sys.stderr)
        return report_case(case, results, expected, prefix, all_messages)

    return harness.compare_corpus(cases, args, base, functools.partial(run, host, base), report,
                                  processes=True, initializer=_import_sdk, cost=cost)


def cmd_compare(args):
    return compare_all(args, _compare_job)


def cmd_live(args):
    with harness.OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0
        return compare_all(args, functools.partial(_live_job, emu_host=emu.host, emu_base=emu.base))


def cmd_record(args):
    with harness.OfficialEmulator(args.emulator_port, args.emulator_url) as emu:
        if emu.base is None:
            return 0

        def store(case, results):
            if args.verbose:
                print(f"RUN {case['id']}", file=sys.stderr)
            for op, res in zip(case["ops"], results):
                op["expect"] = res
            return True

        n, _ = harness.record_corpus(load_corpus(args.file), args, functools.partial(run_case, emu.host, emu.base),
                                     store, processes=True, initializer=_import_sdk, cost=cost)
        print(f"recorded {n} cases from the official emulator")
        return 0


def main(argv=None):
    ap, parsers = harness.corpus_parsers(__doc__, file_example="queries", port_target=True, jobs=JOBS,
                                         jobs_why=", in worker processes")
    parsers["record"].add_argument("--emulator-url", help="record from an official emulator that is already running")
    for p in parsers.values():
        p.add_argument("-v", "--verbose", action="store_true", help="print each case id to stderr as it is reported")
    for name in ("compare", "live"):
        parsers[name].add_argument("--all-messages", action="store_true",
                                   help="compare every error message (by default only cases marked compareMessage)")
    args = ap.parse_args(argv)
    _import_sdk()
    return {"record": cmd_record, "compare": cmd_compare, "live": cmd_live}[args.cmd](args)


if __name__ == "__main__":
    harness.run_main(main)
