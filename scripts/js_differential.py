#!/usr/bin/env python3
"""Differential tests through the real Firebase JS SDK (10.12.2, WebChannel, headless Chromium):
Hearth vs the official emulator.

The corpus lives in fixtures/differential/js/*.json.  Each file is a JSON list of cases; each
case is a list of ops (setDoc, updateDoc, getDocs of a query, runTransaction, onSnapshot, ...)
run by a small interpreter inside the page of Tests/interop/browser (firestore.html, whose
helpers `H` it uses).  What each op returns, or the error code the SDK reports, is normalised
into JSON and compared with what the official emulator gave.

    python3 scripts/js_differential.py record [--emulator-port 8112]      # (re)record expectations
    python3 scripts/js_differential.py compare --target-port 8080         # compare with recordings
    python3 scripts/js_differential.py live --target-port 8080            # compare with a live emulator

One headless Chromium runs every case, one after the other (each case its own project and its
own SDK clients, terminated at the end of the case).  Needs the SDK ($FIREBASE_JS_SDK or
../shared/clients/firebase-js-10.12.2), chromium, chromedriver and selenium; prints `SKIP: ...`
and exits 0 without them.  See docs/js-differential-testing.md for the case format.
"""

from __future__ import annotations

import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "interop", "browser"))

import harness  # noqa: E402
from harness import SERVER_TIME, compact  # noqa: E402

CORPUS_DIR = os.path.join(harness.FIXTURES, "js")
CASE_TIMEOUT = 30  # seconds for one JS segment of a case (a normal one takes well under 2 s)
AWAIT_TIMEOUT_MS = 8000  # waiting for a listener's snapshots
OPEN_RULES = "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n    match /{document=**} {\n      allow read, write: if true;\n    }\n  }\n}\n"

# The interpreter, installed once into the page as window.JD.  run(ops, project, target) runs a
# segment of a case's ops (no `rules` op among them) and gives one result per op:
# {ok: value} or {error: {code, name, message}}.  Clients and listeners live in JD.state
# until reset().
INTERPRETER = r"""
const fs = H.fs;
const JD = {
  state: {project: null, clients: {}, listeners: {}},

  async reset() {
    for (const l of Object.values(JD.state.listeners)) { try { l.unsubscribe(); } catch (e) { /* gone */ } }
    JD.state.listeners = {};
    await H.closeAll();
    JD.state.clients = {};
  },

  client(op) {
    let key = op.as !== undefined && op.as !== null ? 'user:' + op.as + (op.client ? ':' + op.client : '') : (op.client || 'a');
    if (op.longPolling) key += ':long-polling';
    if (!JD.state.clients[key]) {
      const opts = {project: JD.state.project, longPolling: !!op.longPolling};
      if (op.as !== undefined && op.as !== null) opts.user = {sub: op.as, user_id: op.as};
      H.open(key, opts);
      JD.state.clients[key] = H.clients[key].db;
    }
    return JD.state.clients[key];
  },

  // H.dec's tags, plus {"$repeat": [string, n]} for a long string
  val(v, db) { return H.dec(JD.expand(v), db); },

  expand(v) {
    if (Array.isArray(v)) return v.map(JD.expand);
    if (v && typeof v === 'object') {
      const keys = Object.keys(v);
      if (keys.length === 1 && keys[0] === '$repeat') return v.$repeat[0].repeat(v.$repeat[1]);
      const out = {};
      for (const k of keys) out[k] = JD.expand(v[k]);
      return out;
    }
    return v;
  },

  filter(spec, db) {
    if (Array.isArray(spec)) {
      const field = (spec[0] && typeof spec[0] === 'object' && spec[0].$documentId) ? fs.documentId() : spec[0];
      // for documentId() a string is a document id (collection) or path (collection group), as the SDK takes it
      return fs.where(field, spec[1], JD.val(spec[2], db));
    }
    if (spec.or) return fs.or(...spec.or.map((s) => JD.filter(s, db)));
    if (spec.and) return fs.and(...spec.and.map((s) => JD.filter(s, db)));
    throw new Error('bad filter ' + JSON.stringify(spec));
  },

  async query(q, db) {
    const base = q.group ? fs.collectionGroup(db, q.group) : fs.collection(db, q.from);
    const parts = [];
    const wh = q.where || [];
    if (wh.length === 1 && !Array.isArray(wh[0])) parts.push(JD.filter(wh[0], db));
    else for (const w of wh) parts.push(JD.filter(w, db));
    for (const o of (q.orderBy || [])) {
      const [f, dir] = Array.isArray(o) ? o : [o, 'asc'];
      parts.push(fs.orderBy(f && f.$documentId ? fs.documentId() : f, dir));
    }
    for (const name of ['startAt', 'startAfter', 'endAt', 'endBefore']) {
      const c = q[name];
      if (!c) continue;
      if (c.doc) parts.push(fs[name](await fs.getDoc(fs.doc(db, c.doc))));
      else parts.push(fs[name](...JD.val(c.values, db)));
    }
    if (q.limit !== undefined) parts.push(fs.limit(q.limit));
    if (q.limitToLast !== undefined) parts.push(fs.limitToLast(q.limitToLast));
    return parts.length ? fs.query(base, ...parts) : base;
  },

  snapDocs(s) {
    return {docs: s.docs.map((d) => [d.id, H.enc(d.data())]), meta: H.enc(s.metadata && {hasPendingWrites: s.metadata.hasPendingWrites, fromCache: s.metadata.fromCache})};
  },

  // A write in a batch or transaction (target) or directly (target null).
  async write(target, w, db, reads) {
    const ref = fs.doc(db, w.path);
    let data = w.data;
    if (data && reads) data = JD.fromReads(data, reads);
    const v = data === undefined ? undefined : JD.val(data, db);
    const opts = w.merge ? {merge: true} : (w.mergeFields ? {mergeFields: w.mergeFields} : undefined);
    switch (w.op) {
      case 'set': case 'setDoc':
        if (target) return opts ? target.set(ref, v, opts) : target.set(ref, v);
        return opts ? fs.setDoc(ref, v, opts) : fs.setDoc(ref, v);
      case 'update': case 'updateDoc':
        return target ? target.update(ref, v) : fs.updateDoc(ref, v);
      case 'delete': case 'deleteDoc':
        return target ? target.delete(ref) : fs.deleteDoc(ref);
      default: throw new Error('bad write op ' + w.op);
    }
  },

  // {"$read": [i, "field", delta]}: the value of `field` in the transaction's i-th read, plus delta.
  fromReads(v, reads) {
    if (Array.isArray(v)) return v.map((x) => JD.fromReads(x, reads));
    if (v && typeof v === 'object') {
      if (v.$read) {
        const [i, f, delta] = v.$read;
        const s = reads[i];
        const cur = s && s.exists() ? s.get(f) : undefined;
        return (cur === undefined ? 0 : cur) + (delta || 0);
      }
      const out = {};
      for (const k of Object.keys(v)) out[k] = JD.fromReads(v[k], reads);
      return out;
    }
    return v;
  },

  docSnap(s) {
    return {exists: s.exists(), data: s.exists() ? H.enc(s.data()) : null,
            meta: {hasPendingWrites: s.metadata.hasPendingWrites, fromCache: s.metadata.fromCache}};
  },

  event(snap) {
    if (snap instanceof fs.DocumentSnapshot) return Object.assign({id: snap.id}, JD.docSnap(snap));
    return {
      docs: snap.docs.map((d) => [d.id, H.enc(d.data())]),
      changes: snap.docChanges({includeMetadataChanges: !!snap.__meta}).map((c) => (
        {type: c.type, id: c.doc.id, oldIndex: c.oldIndex, newIndex: c.newIndex})),
      meta: {hasPendingWrites: snap.metadata.hasPendingWrites, fromCache: snap.metadata.fromCache},
    };
  },

  async one(op) {
    const db = JD.client(op);
    switch (op.op) {
      case 'setDoc': case 'updateDoc': case 'deleteDoc':
        await JD.write(null, op, db, null);
        return {done: true};
      case 'addDoc': {
        const ref = await fs.addDoc(fs.collection(db, op.from), JD.val(op.data, db));
        return {idLength: ref.id.length};
      }
      case 'getDoc': {
        const ref = fs.doc(db, op.path);
        const s = op.source === 'cache' ? await fs.getDocFromCache(ref)
          : op.source === 'server' ? await fs.getDocFromServer(ref) : await fs.getDoc(ref);
        return JD.docSnap(s);
      }
      case 'getDocs': {
        const q = await JD.query(op.query, db);
        const s = op.source === 'server' ? await fs.getDocsFromServer(q)
          : op.source === 'cache' ? await fs.getDocsFromCache(q) : await fs.getDocs(q);
        const out = JD.snapDocs(s);
        if (op.paths) out.paths = s.docs.map((d) => d.ref.path);
        if (op.sizeOnly) return {size: s.size, paths: s.docs.map((d) => d.ref.path)};
        if (op.sort) out.docs.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0));
        return out;
      }
      case 'count': {
        const s = await fs.getCountFromServer(await JD.query(op.query, db));
        return H.enc(s.data());
      }
      case 'aggregate': {
        const spec = {};
        for (const [alias, a] of Object.entries(op.aggs)) {
          spec[alias] = a[0] === 'count' ? fs.count() : a[0] === 'sum' ? fs.sum(a[1]) : fs.average(a[1]);
        }
        const s = await fs.getAggregateFromServer(await JD.query(op.query, db), spec);
        return H.enc(s.data());
      }
      case 'batch': {
        const b = fs.writeBatch(db);
        for (const w of op.writes) await JD.write(b, w, db, null);
        await b.commit();
        return {done: true};
      }
      case 'transaction': {
        let attempts = 0;
        const result = await fs.runTransaction(db, async (tx) => {
          attempts += 1;
          const reads = [];
          for (const p of (op.reads || [])) reads.push(await tx.get(fs.doc(db, p)));
          if (op.fail) throw Object.assign(new Error('user code failed'), {code: 'user-abort'});
          // interfere: an op run (through its own client) between the reads and the writes of the
          // first attempt, e.g. another client changing a document the transaction read
          if (op.interfere && attempts === 1) await JD.one(op.interfere);
          for (const w of (op.writes || [])) await JD.write(tx, w, db, reads);
          return reads.map((s) => JD.docSnap(s));
        }, op.maxAttempts ? {maxAttempts: op.maxAttempts} : undefined);
        const out = {reads: result.map((r) => ({exists: r.exists, data: r.data}))};
        if (op.interfere || attempts > 1) out.attempts = attempts;
        return out;
      }
      case 'listen': {
        const target = op.path ? fs.doc(db, op.path) : await JD.query(op.query, db);
        const entry = {events: [], seen: 0};
        const meta = !!op.includeMetadataChanges;
        entry.unsubscribe = fs.onSnapshot(target, {includeMetadataChanges: meta}, (snap) => {
          try { snap.__meta = meta; entry.events.push(JD.event(snap)); }
          catch (e) { entry.events.push({error: {code: 'harness', message: String(e)}}); }
        }, (e) => entry.events.push({error: {code: e.code || null, message: e.message}}));
        JD.state.listeners[op.name] = entry;
        return {listening: true};
      }
      case 'await': {
        if (op.untilCurrent) {
          // waits until the latest snapshot is from the server (fromCache false) or an error; gives
          // only that one, without its changes (how many snapshots led there depends on timing)
          const l = JD.state.listeners[op.name];
          const done = () => l.events.length && (l.events[l.events.length - 1].error || !l.events[l.events.length - 1].meta.fromCache);
          const deadline = performance.now() + (op.timeoutMs || AWAIT_TIMEOUT_MS);
          while (!done() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
          l.seen = l.events.length;
          const last = l.events[l.events.length - 1] || null;
          const out = {current: last && (last.error ? last : {docs: last.docs, meta: last.meta})};
          if (!done()) out.timedOut = true;
          return out;
        }
        // waits until the listener has `count` more snapshots than were taken before; gives them
        const l = JD.state.listeners[op.name];
        const want = l.seen + op.count;
        const deadline = performance.now() + (op.timeoutMs || AWAIT_TIMEOUT_MS);
        while (l.events.length < want && performance.now() < deadline) await new Promise((r) => setTimeout(r, 5));
        const got = l.events.slice(l.seen, want);
        l.seen += got.length;
        // summary: only the size, the number of changes and the metadata of each snapshot
        const out = {snapshots: op.summary ? got.map((e) => e.error ? e
          : {size: (e.docs || []).length, changes: (e.changes || []).length, meta: e.meta}) : got};
        if (got.length < op.count) out.timedOut = true;
        return out;
      }
      case 'unlisten': {
        // stops the listener; settleMs (default 0) first lets extra snapshots arrive, which are counted
        const l = JD.state.listeners[op.name];
        if (op.settleMs) await new Promise((r) => setTimeout(r, op.settleMs));
        l.unsubscribe();
        delete JD.state.listeners[op.name];
        return {extra: l.events.length - l.seen};
      }
      case 'sleep':
        await new Promise((r) => setTimeout(r, op.ms));
        return null;
      default:
        throw new Error('unknown op ' + op.op);
    }
  },

  async run(ops, project) {
    JD.state.project = project;
    const out = [];
    for (const op of ops) {
      try {
        out.push({ok: await JD.one(op)});
      } catch (e) {
        out.push({error: {code: (e && e.code) || null, name: (e && e.name) || null, message: String((e && e.message) || e)}});
      }
    }
    return out;
  },
};
window.JD = JD;
""".replace("AWAIT_TIMEOUT_MS", str(AWAIT_TIMEOUT_MS))


# ---------------------------------------------------------------------------
# Corpus


def project_id(case_id: str) -> str:
    return harness.project_slug("js-", case_id)[:60].rstrip("-")


def load_corpus(only_files=None):
    return harness.load_corpus(CORPUS_DIR, only_files, "ops", project_id)


# ---------------------------------------------------------------------------
# Normalisation


def norm(v):
    """H.enc output -> recording JSON: recent timestamps become <server-time>, maps sorted."""
    if isinstance(v, list):
        return [norm(x) for x in v]
    if isinstance(v, dict):
        if set(v) == {"$ts"} and isinstance(v["$ts"], list):
            s, ns = v["$ts"]
            import datetime as dt
            t = dt.datetime.fromtimestamp(s, dt.timezone.utc)
            if harness.is_recent(t):
                return {"$ts": SERVER_TIME}
            return {"$ts": [s, ns]}
        return {k: norm(v[k]) for k in sorted(v)}
    return v


def norm_result(r):
    if "error" in r:
        e = r["error"]
        return {"error": {"code": e.get("code"), "message": harness.scrub_versions(str(e.get("message", ""))[:600])}}
    return norm(r["ok"])


# ---------------------------------------------------------------------------
# Running a case


class Runner:
    """One browser (and page server) for a whole run."""

    def __init__(self):
        import jsharness
        self.jsharness = jsharness
        self.server = jsharness.PageServer(jsharness.find_sdk())
        self.browser = jsharness.Browser(self.server.base + "/harness/firestore.html")
        self.browser.driver.set_script_timeout(CASE_TIMEOUT + 10)
        self.install()

    def install(self):
        self.browser.driver.execute_script(INTERPRETER)

    def close(self):
        self.browser.quit()
        self.server.close()

    def run_case(self, base, case):
        """Runs a case against the server at base; returns one normalised result per op.  A case
        in which a segment hung (the page did not answer within CASE_TIMEOUT) is run once more in
        a reloaded page, with a note on stderr."""
        results = self._run_case(base, case)
        if any(isinstance(r, dict) and "harnessError" in r for r in results):
            print(f"RETRY {case['id']}: a segment hung ({compact(results, 200)}); running it again in a new page",
                  file=sys.stderr)
            results = self._run_case(base, case)
        return results

    def _run_case(self, base, case):
        project = project_id(case["id"])
        host, port = base.rsplit("://", 1)[1].rsplit(":", 1)
        harness.clear_project(base, project)
        if any(op.get("op") == "rules" for op in case["ops"]):
            harness.put_rules(base, project, OPEN_RULES)
        set_target = "H.target = {host: arguments[0], port: arguments[1]};"
        self.browser.driver.execute_script(set_target, host, int(port))
        results = []
        hung = False
        segment = []

        def flush():
            nonlocal hung
            if not segment:
                return
            if hung:  # the rest of a case whose segment hung is not run
                results.extend({"harnessError": "skipped"} for _ in segment)
            else:
                try:
                    raw = self.browser.run("return await JD.run(args.ops, args.project);", ops=segment, project=project)
                    results.extend(norm_result(r) for r in raw)
                except Exception as e:  # a segment that hung: a new page
                    results.extend({"harnessError": type(e).__name__} for _ in segment)
                    hung = True
                    self.reload()
            segment.clear()

        for op in case["ops"]:
            if op.get("op") == "rules":
                flush()
                status, _ = harness.put_rules(base, project, op["content"])
                results.append({"status": status})
            else:
                segment.append({k: v for k, v in op.items() if k != "expect"})
        flush()
        if not hung:
            try:
                self.browser.run("await JD.reset();")
            except Exception:
                self.reload()
        return results

    def reload(self):
        self.browser.load()
        self.install()


def op_summary(op):
    return compact({k: v for k, v in op.items() if k != "expect"}, 200)


def report_case(case, results, prefix, all_messages=False):
    ok = True
    strip = (lambda v: v) if all_messages else harness.strip_messages
    for i, (op, got) in enumerate(zip(case["ops"], results), 1):
        if "expect" not in op:
            print(f"{prefix} {case['id']} op {i} {op.get('op')}: no recorded expectation (run `record`)")
            ok = False
            continue
        exp = op["expect"]
        d = harness.diff(strip(exp), strip(got), exact=True)
        if d:
            ok = False
            print(f"{prefix} {case['id']} op {i} {op.get('op')} | diff: {'; '.join(d)} | {op_summary(op)}"
                  f" | expected {compact(exp, 400)} | got {compact(got, 400)}")
    return ok


# ---------------------------------------------------------------------------
# Commands


def missing():
    import jsharness
    return jsharness.missing_browser_parts(need_sdk=True)


def cmd_compare(args, live_base=None):
    host, base = harness.target_of(args)
    cases = [c for _, c in harness.select_cases(load_corpus(args.file), args)]
    known = harness.load_known(args.known)
    if not harness.target_reachable(base):
        print(f"0 passed, {len(cases)} failed")
        return 1
    runner = Runner()
    tally = harness.Tally(known)
    times = []
    try:
        for case in cases:
            if args.verbose:
                print(f"RUN {case['id']}", file=sys.stderr)
            t0 = time.perf_counter()
            got = runner.run_case(base, case)
            times.append((time.perf_counter() - t0, case["id"]))
            if live_base is not None:
                exp = runner.run_case(live_base, case)
                case = dict(case, ops=[dict(op, expect=e) for op, e in zip(case["ops"], exp)])
            tally.record(case, report_case(case, got, tally.prefix(case), args.all_messages))
            sys.stdout.flush()
    finally:
        runner.close()
    print_durations(args, times)
    return tally.finish()


def print_durations(args, times):
    if args.durations:
        print(f"slowest {min(args.durations, len(times))} cases:", file=sys.stderr)
        for secs, cid in sorted(times, reverse=True)[:args.durations]:
            print(f"  {secs:7.2f} s  {cid}", file=sys.stderr)


def cmd_live(args):
    with harness.OfficialEmulator(args.emulator_port, args.emulator_url) as emu:
        if emu.base is None:
            return 0
        return cmd_compare(args, live_base=emu.base)


def cmd_record(args):
    with harness.OfficialEmulator(args.emulator_port, args.emulator_url) as emu:
        if emu.base is None:
            return 0
        corpus = load_corpus(args.file)
        runner = Runner()
        n = 0
        try:
            for path, cases in corpus:
                touched = False
                for case in cases:
                    if not harness.selected(case, args):
                        continue
                    if args.verbose:
                        print(f"RUN {case['id']}", file=sys.stderr)
                    results = runner.run_case(emu.base, case)
                    for i, (op, res) in enumerate(zip(case["ops"], results), 1):
                        op["expect"] = res
                        if isinstance(res, dict) and ("harnessError" in res or res.get("timedOut")):
                            print(f"WARN {case['id']} op {i} {op.get('op')}: {compact(res, 200)}", file=sys.stderr)
                    n += 1
                    touched = True
                if touched:
                    harness.write_cases(path, cases)
        finally:
            runner.close()
        print(f"recorded {n} cases from the official emulator")
        return 0


def main(argv=None):
    ap, parsers = harness.corpus_parsers(__doc__, file_example="basics", port_target=True, jobs=1,
                                         jobs_why=" (cases run one after the other in one browser)")
    for name in ("record", "live"):
        parsers[name].add_argument("--emulator-url", help="use an official emulator that is already running")
    for name in ("compare", "live"):
        parsers[name].add_argument("--all-messages", action="store_true",
                                   help="compare error messages too (by default only error codes)")
    for p in parsers.values():
        p.add_argument("-v", "--verbose", action="store_true", help="print each case id to stderr as it runs")
    args = ap.parse_args(argv)
    gaps = missing()
    if gaps:
        print("SKIP: needs " + ", ".join(gaps))
        return 0
    return {"record": cmd_record, "compare": cmd_compare, "live": cmd_live}[args.cmd](args)


if __name__ == "__main__":
    harness.run_main(main)
