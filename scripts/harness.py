#!/usr/bin/env python3
"""What the differential harnesses and the other test scripts in scripts/ share.

- the corpus: files, loading, selection (--file, --case), project slugs, writing recordings;
- known-difference lists and the tally that prints `N passed, N failed`;
- the command line (record / compare / live, --known, --jobs, ...) and running cases
  concurrently with results in corpus order (`run_cases`);
- HTTP (`http`), the emulator endpoints (clearing a project, loading rules), waiting for a
  server, free ports, and the official emulator's lifecycle (`OfficialEmulator`);
- normalisation pieces (recent times and versions, message stripping), structural diffs and
  compact JSON for failure lines;
- REST steps (differential.py, rules_differential.py): `{project}`/`$capture` substitution,
  captures, the normalisation of answers, sending a case's steps, comparing and reporting them;
- unsigned ID tokens, and (imported lazily, so that the REST harnesses need only the standard
  library) Python-client helpers: clients that send an end user's token.

Run as a script it helps shell scripts:

    python3 scripts/harness.py free-port          # prints a free TCP port on 127.0.0.1
    python3 scripts/harness.py wait URL [SECONDS] # waits until URL answers (exit 1 if it never does)
"""

from __future__ import annotations

import argparse
import base64
import concurrent.futures
import datetime as dt
import glob
import json
import multiprocessing
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.join(ROOT, "fixtures", "differential")
EMULATOR_PORTS = (8086, 8087, 8088, 8089)

# Placeholders written into recordings in place of unstable values.
SERVER_TIME = "<server-time>"
# A timestamp this close to the wall clock is taken to be server generated (REQUEST_TIME
# transforms, write and read times, times quoted in error messages).  Cases must not write user
# timestamps near "now".
RECENT_WINDOW = dt.timedelta(days=3)
RFC3339_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)")
# The official emulator quotes versions (microseconds since the epoch) in some messages.
VERSION_RE = re.compile(r"(?<!\d)\d{16}(?!\d)")


# ---------------------------------------------------------------------------
# Ports and servers


_handed_out = set()


def _ephemeral_range():
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(part) for part in f.read().split())
            return low, high
    except (OSError, ValueError):
        return 32768, 60999


def free_port():
    """A TCP port on 127.0.0.1 that nothing listens on now, never the same one twice in a process.

    It is taken below the kernel's ephemeral range: a port from `bind(0)` lies inside it, where
    every outgoing connection (a test polling the server it just started, say) also takes its
    local port, so between picking it and the server binding it a client could hold it and the
    server would fail with "Address already in use"."""
    low, high = _ephemeral_range()
    candidates = (10000, low - 1) if low > 11000 else (high + 1, 65535)
    for _ in range(1000):
        port = random.randint(*candidates)
        if port in _handed_out:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _handed_out.add(port)
        return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_server(base, timeout=30, proc=None, want_ok=False):
    """Waits until `GET base/` answers (200, or with want_ok a body starting `Ok`); True if it did.
    Stops early, False, when `proc` (a Popen) exits."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc is not None and proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(base.rstrip("/") + "/", timeout=2) as r:
                if not want_ok or r.read().decode(errors="replace").strip().startswith("Ok"):
                    return True
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.05)
    return False


def host_and_base(url=None, port=None):
    """(host:port for FIRESTORE_EMULATOR_HOST, base URL) of a server given by URL or port."""
    if port:
        return f"127.0.0.1:{port}", f"http://127.0.0.1:{port}"
    url = url.rstrip("/")
    if "://" not in url:
        url = "http://" + url
    return urllib.parse.urlparse(url).netloc, url


def target_of(args):
    """host_and_base of a subcommand's --target / --target-port."""
    return host_and_base(getattr(args, "target", None), getattr(args, "target_port", None))


class OfficialEmulator:
    """The official emulator (`gcloud emulators firestore start`) in its own process group,
    stopped with the whole group at the end; or, with `url`, one that is already running.
    `base` is None (after printing `SKIP: gcloud not found`) when gcloud is absent; `host` is
    what FIRESTORE_EMULATOR_HOST needs."""

    def __init__(self, port=None, url=None):
        self.port, self.url = port, url
        self.proc = self.base = self.host = self.log = None

    def __enter__(self):
        if self.url:
            self.host, self.base = host_and_base(self.url)
            return self
        if shutil.which("gcloud") is None:
            print("SKIP: gcloud not found")
            return self
        port = self.port or self._free_emulator_port()
        if port is None:
            raise SystemExit("no free port among %s for the official emulator" % (EMULATOR_PORTS,))
        self.log = tempfile.NamedTemporaryFile(prefix="firestore-emulator-", suffix=".log", delete=False)
        self.proc = subprocess.Popen(
            ["gcloud", "emulators", "firestore", "start", f"--host-port=127.0.0.1:{port}"],
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        base = f"http://127.0.0.1:{port}"
        if not wait_for_server(base, timeout=120, proc=self.proc, want_ok=True):
            exited = self.proc.poll() is not None
            self._stop()
            self._dump_log()
            raise SystemExit("official emulator exited during start-up" if exited
                             else "official emulator did not answer within 120 s")
        self.host, self.base = host_and_base(base)
        print(f"official emulator on {base}", file=sys.stderr)
        return self

    def __exit__(self, *exc):
        self._stop()
        if self.log is not None:
            self.log.close()
            try:
                os.unlink(self.log.name)
            except OSError:
                pass
        return False

    def _stop(self):
        if self.proc is None or self.proc.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=wait)
                # the java child may outlive the gcloud wrapper; the group kill covers it
                try:
                    os.killpg(self.proc.pid, 0)
                except ProcessLookupError:
                    return
            except subprocess.TimeoutExpired:
                pass

    def _dump_log(self):
        if self.log is not None:
            self.log.flush()
            with open(self.log.name, encoding="utf-8", errors="replace") as fh:
                sys.stderr.write(fh.read()[-4000:])

    @staticmethod
    def _free_emulator_port():
        for port in EMULATOR_PORTS:
            with socket.socket() as s:
                # SO_REUSEADDR: connections of a previous run in TIME_WAIT must not block the port
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                try:
                    s.bind(("127.0.0.1", port))
                    return port
                except OSError:
                    continue
        return None


# ---------------------------------------------------------------------------
# HTTP and the emulator endpoints


def encode_path(path: str) -> str:
    """Percent-encodes what urllib refuses (non-ASCII, spaces, controls); keeps the rest verbatim."""
    out = []
    for ch in path:
        if ord(ch) > 126 or ord(ch) <= 32:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return "".join(out)


def http(base, method, path, body=None, raw=None, headers=None, timeout=30):
    """One request; returns (status, parsed JSON or text).  Status 0 means no answer."""
    data = None
    hdrs = {}
    if raw is not None:
        data = raw
        hdrs["Content-Type"] = "application/json"
    elif body is not None:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        hdrs["Content-Type"] = "application/json"
    if headers:
        hdrs.update(headers)
    req = urllib.request.Request(base + encode_path(path), data=data, method=method, headers=hdrs)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, text = resp.status, resp.read()
    except urllib.error.HTTPError as err:
        status, text = err.code, err.read()
    except (urllib.error.URLError, OSError) as err:
        return 0, f"<connection error: {err}>"
    text = text.decode("utf-8", errors="replace")
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def clear_project(base, project):
    """Deletes every document of the project's (default) database (the emulator endpoint)."""
    return http(base, "DELETE", f"/emulator/v1/projects/{project}/databases/(default)/documents")


def rules_body(source):
    return {"rules": {"files": [{"name": "firestore.rules", "content": source}]}}


def put_rules(base, project, source):
    """Loads a ruleset for one project (the emulator endpoint); returns (status, body)."""
    return http(base, "PUT", f"/emulator/v1/projects/{project}:securityRules", body=rules_body(source))


def target_reachable(base):
    """True if the server answers; otherwise prints the ERROR line."""
    status, body = http(base, "GET", "/", timeout=10)
    if status == 0:
        print(f"ERROR: target {base} is not reachable: {body}")
        return False
    return True


# ---------------------------------------------------------------------------
# Corpus


def corpus_files(corpus_dir, only_files=None):
    files = sorted(glob.glob(os.path.join(corpus_dir, "*.json")))
    if only_files:
        wanted = {f if f.endswith(".json") else f + ".json" for f in only_files}
        files = [f for f in files if os.path.basename(f) in wanted]
    return files


def load_corpus(corpus_dir, only_files=None, list_key="steps", project=None, check_case=None, required=True):
    """Returns [(path, cases)]: every case has an id and a list under `list_key` (which may be
    absent unless `required`), ids are unique and, with `project(case_id)`, map to distinct
    projects; `check_case(path, case)` may reject a case further."""
    out, seen, projects = [], {}, {}
    for path in corpus_files(corpus_dir, only_files):
        with open(path, encoding="utf-8") as fh:
            cases = json.load(fh)
        if not isinstance(cases, list):
            raise SystemExit(f"{path}: top level must be a list of cases")
        for case in cases:
            cid = case.get("id")
            steps = case.get(list_key) if required else case.get(list_key, [])
            if not cid or not isinstance(steps, list):
                raise SystemExit(f"{path}: every case needs an id and a list of {list_key}")
            if cid in seen:
                raise SystemExit(f"duplicate case id {cid!r} in {path} and {seen[cid]}")
            seen[cid] = path
            if project is not None:
                proj = project(cid)
                if projects.setdefault(proj, cid) != cid:
                    raise SystemExit(f"case ids {cid!r} and {projects[proj]!r} map to the same project {proj}")
            if check_case:
                check_case(path, case)
        out.append((path, cases))
    return out


def selected(case, args):
    """Whether --case (repeatable: id contains the text) keeps the case."""
    return not args.case or any(c in case["id"] for c in args.case)


def select_cases(corpus, args):
    for path, cases in corpus:
        for case in cases:
            if selected(case, args):
                yield path, case


def project_slug(prefix: str, case_id: str) -> str:
    """A project ID for a case: its id lower-cased with runs of other characters as one '-'."""
    p = re.sub(r"[^a-z0-9-]+", "-", case_id.lower()).strip("-")
    return prefix + re.sub(r"-{2,}", "-", p)


def write_cases(path, cases):
    text = json.dumps(cases, indent=2, ensure_ascii=False) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# Known differences and the tally


def load_known(path):
    """Known differences: one case id per line, optionally followed by a reason; # starts a comment."""
    known = {}
    if not path:
        return known
    if not os.path.exists(path):
        print(f"note: known-differences file {path} does not exist; treating it as empty", file=sys.stderr)
        return known
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.split("#", 1)[0].strip()
            if line:
                cid, _, reason = line.partition(" ")
                known[cid] = reason.strip()
    return known


class Tally:
    """Counts a corpus run: passed, failed and known (listed) differences. A listed case that
    agrees now counts as failed, to keep the list honest: it must leave the list."""

    def __init__(self, known):
        self.known = known
        self.passed = self.failed = self.known_failed = 0

    def prefix(self, case):
        return "KNOWN" if case["id"] in self.known else "FAIL"

    def record(self, case, ok):
        is_known = case["id"] in self.known
        if ok and is_known:
            print(f"FIXED {case['id']}: listed as a known difference but agrees now; remove it from the list")
            self.failed += 1
        elif ok:
            self.passed += 1
        elif is_known:
            self.known_failed += 1
        else:
            self.failed += 1

    def finish(self):
        """Prints the summary line; returns the exit code."""
        if self.known_failed:
            print(f"{self.known_failed} known differences not counted")
        print(f"{self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


# ---------------------------------------------------------------------------
# Running cases concurrently


def _ignore_sigint():
    # Ctrl-C reaches the whole process group: the parent stops the pool, workers must not print
    # their own tracebacks.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _process_initializer(initializer, initargs):
    _ignore_sigint()
    if initializer is not None:
        initializer(*initargs)


def _timed_call(fn, item):
    t0 = time.perf_counter()
    result = fn(item)
    return time.perf_counter() - t0, result


def run_cases(fn, items, jobs=1, processes=False, initializer=None, initargs=(), durations=0, cost=None):
    """Yields (item, fn(item)) for every item, in the order of `items`, running up to `jobs`
    calls at once on threads, or with `processes` in as many worker processes (spawned, so each
    has its own interpreter, SDK state and environment; fn, items and results must pickle).
    `initializer(*initargs)` runs first in each worker process, or once here.  With jobs 1
    everything runs here, one item after the other.  With jobs > 1 and `cost(item)` (a guess of
    its time), the costliest items start first, so that a long one does not end the run alone;
    the order of the results stays that of `items`.  An exception from fn propagates.  With
    `durations` N, the N slowest items and their times are printed to stderr at the end."""
    items = list(items)
    times = []
    if jobs <= 1 or len(items) <= 1:
        if initializer is not None:
            initializer(*initargs)
        for item in items:
            secs, result = _timed_call(fn, item)
            times.append((secs, item))
            yield item, result
    else:
        jobs = min(jobs, len(items))
        if processes:
            pool = concurrent.futures.ProcessPoolExecutor(
                jobs, mp_context=multiprocessing.get_context("spawn"),
                initializer=_process_initializer, initargs=(initializer, initargs))
        else:
            if initializer is not None:
                initializer(*initargs)
            pool = concurrent.futures.ThreadPoolExecutor(jobs)
        futures = []
        try:
            order = range(len(items))
            if cost is not None:
                order = sorted(order, key=lambda i: -cost(items[i]))  # stable: ties in corpus order
            futures = [None] * len(items)
            for i in order:
                futures[i] = pool.submit(_timed_call, fn, items[i])
            for item, fut in zip(items, futures):
                secs, result = fut.result()
                times.append((secs, item))
                yield item, result
        finally:
            for fut in futures:
                if fut is not None:
                    fut.cancel()
            if processes:
                # do not wait for cases still running (an interrupt, an error): end the workers
                for proc in list((getattr(pool, "_processes", None) or {}).values()):
                    if proc.is_alive():
                        proc.terminate()
            pool.shutdown(wait=True, cancel_futures=True)
    if durations:
        print(f"slowest {min(durations, len(times))} cases:", file=sys.stderr)
        for secs, item in sorted(times, key=lambda t: -t[0])[:durations]:
            label = item["id"] if isinstance(item, dict) and "id" in item else repr(item)[:100]
            print(f"  {secs:7.2f} s  {label}", file=sys.stderr)


def compare_corpus(cases, args, base, run, report, processes=False, initializer=None, initargs=(), cost=None):
    """The compare and live commands: run(case) gives a case's outcome (on up to args.jobs
    threads, or worker processes), report(case, outcome, prefix) prints its differences and
    says whether it agrees, in corpus order; then the summary line.  Returns the exit code."""
    known = load_known(getattr(args, "known", None))
    if not target_reachable(base):
        print(f"0 passed, {len(cases)} failed")
        return 1
    tally = Tally(known)
    for case, outcome in run_cases(run, cases, args.jobs, processes, initializer, initargs, args.durations, cost):
        tally.record(case, report(case, outcome, tally.prefix(case)))
        sys.stdout.flush()
    return tally.finish()


def record_corpus(corpus, args, run, store, processes=False, initializer=None, initargs=(), cost=None):
    """The record command: runs the selected cases as compare_corpus does; store(case, outcome)
    writes an outcome into its case and says whether it did.  Each corpus file is rewritten once
    its cases are done, if one of them was stored.  Returns (stored, not stored)."""
    path_of = {}
    chosen = []
    for path, case in select_cases(corpus, args):
        path_of[case["id"]] = path
        chosen.append(case)
    files = dict(corpus)
    stored = failed = 0
    touched = set()

    def flush(done_path=None):
        for path in list(touched):
            if path != done_path:
                write_cases(path, files[path])
                touched.discard(path)

    for case, outcome in run_cases(run, chosen, args.jobs, processes, initializer, initargs, args.durations, cost):
        path = path_of[case["id"]]
        flush(path)  # results come in corpus order: earlier files are complete
        if store(case, outcome):
            stored += 1
            touched.add(path)
        else:
            failed += 1
        sys.stdout.flush()
    flush()
    return stored, failed


# ---------------------------------------------------------------------------
# Command line


def corpus_parsers(doc, file_example=None, port_target=False, jobs=8, jobs_why=""):
    """The record, compare and live subcommands every differential harness has, with their
    shared options; returns the parser and the subcommand parsers (for a harness's own options).
    `jobs` is the default of --jobs for compare and live; record runs one case at a time unless
    told otherwise, as the recordings are the specification."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    parsers = {}
    for name in ("record", "compare", "live"):
        p = sub.add_parser(name)
        if name != "record":
            if port_target:
                g = p.add_mutually_exclusive_group(required=True)
                g.add_argument("--target", help="base URL of the server under test (gRPC on the same port)")
                g.add_argument("--target-port", type=int, help="port of the server under test on 127.0.0.1")
            else:
                p.add_argument("--target", required=True, help="base URL of the server under test")
            p.add_argument(
                "--known",
                help="file of case ids (one per line, optional reason after a space, # comments) whose "
                "differences are reported as KNOWN and not counted as failures",
            )
        if name != "compare":
            p.add_argument("--emulator-port", type=int, help="port for the official emulator (default: first free of 8086-8089)")
        if file_example:
            p.add_argument("--file", action="append", help=f"only this corpus file (e.g. {file_example}); repeatable")
        p.add_argument("--case", action="append", help="only cases whose id contains this text; repeatable")
        default = 1 if name == "record" else jobs
        p.add_argument("-j", "--jobs", type=int, default=default,
                       help=f"cases run at once (default {default}{jobs_why if name != 'record' else ''}); "
                       "1 runs them one after the other; output is in corpus order either way")
        p.add_argument("--durations", type=int, default=0, metavar="N",
                       help="print the N slowest cases and their times to stderr at the end")
        parsers[name] = p
    return ap, parsers


def run_main(main):
    """Runs a harness's main() as a script: SIGTERM exits (cleanly stopping an official emulator
    the harness started), the exit code is main's."""

    def _term(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _term)
    sys.exit(main())


# ---------------------------------------------------------------------------
# Normalisation and comparison


def parse_rfc3339(s):
    """An RFC 3339 time as an aware UTC datetime (fraction cut to microseconds), or None."""
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)", s)
    if not m:
        return None
    try:
        y, mo, d, h, mi, se = (int(g) for g in m.groups()[:6])
        t = dt.datetime(y, mo, d, h, mi, se, int((m.group(7) or "").ljust(6, "0")[:6]), tzinfo=dt.timezone.utc)
    except ValueError:
        return None
    off = m.group(8)
    if off != "Z":
        sign = 1 if off[0] == "+" else -1
        try:
            t -= sign * dt.timedelta(hours=int(off[1:3]), minutes=int(off[4:6]))
        except OverflowError:  # before year 1 or after 9999 in UTC: not a time of this run
            return None
    return t


def is_recent(t):
    """Whether a datetime (naive means UTC) or RFC 3339 string is within RECENT_WINDOW of now."""
    if isinstance(t, str):
        t = parse_rfc3339(t)
        if t is None:
            return False
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.timezone.utc)
    return abs(t - dt.datetime.now(dt.timezone.utc)) < RECENT_WINDOW


def is_recent_micros(n):
    """Whether n microseconds since the epoch is within RECENT_WINDOW of now."""
    return abs(n - time.time() * 1e6) < RECENT_WINDOW.total_seconds() * 1e6


def scrub_versions(text):
    """Recent versions (16-digit microseconds since the epoch) in a message become `<version>`."""
    if not VERSION_RE.search(text):
        return text
    return VERSION_RE.sub(lambda m: "<version>" if is_recent_micros(int(m.group(0))) else m.group(0), text)


def strip_status_messages(v):
    """Drops `message` from google.rpc.Status-like objects (error bodies, batchWrite statuses)."""
    if isinstance(v, dict):
        is_status = "message" in v and ("code" in v or "status" in v)
        return {k: strip_status_messages(x) for k, x in v.items() if not (is_status and k == "message")}
    if isinstance(v, list):
        return [strip_status_messages(x) for x in v]
    return v


def strip_messages(v):
    """Drops every `message` key, at any depth."""
    if isinstance(v, dict):
        return {k: strip_messages(x) for k, x in v.items() if k != "message"}
    if isinstance(v, list):
        return [strip_messages(x) for x in v]
    return v


def canon(v):
    """v as canonical JSON text (keys sorted, no spaces)."""
    return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def compact(v, limit=300):
    """v as compact JSON (strings as they are), cut to limit characters."""
    s = v if isinstance(v, str) else canon(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def diff(exp, got, path="$", out=None, limit=6, width=80, exact=False):
    """Structural differences: object key order ignored, list order significant, numbers compared
    by value (1 == 1.0; with exact, by JSON text, so 1 != 1.0), bool never equal to a number.
    Values in messages are cut to width characters."""
    if out is None:
        out = []
    if len(out) >= limit:
        return out
    if isinstance(exp, dict) and isinstance(got, dict):
        for k in sorted(set(exp) | set(got)):
            if k not in got:
                out.append(f"{path}.{k}: missing (expected {compact(exp[k], width)})")
            elif k not in exp:
                out.append(f"{path}.{k}: unexpected {compact(got[k], width)}")
            else:
                diff(exp[k], got[k], f"{path}.{k}", out, limit, width, exact)
            if len(out) >= limit:
                break
    elif isinstance(exp, list) and isinstance(got, list):
        for i in range(min(len(exp), len(got))):
            diff(exp[i], got[i], f"{path}[{i}]", out, limit, width, exact)
            if len(out) >= limit:
                break
        if len(exp) != len(got) and len(out) < limit:
            out.append(f"{path}: length {len(got)}, expected {len(exp)}")
    else:
        num = (int, float)
        if exact:
            same = canon(exp) == canon(got)
        else:
            same = (
                isinstance(exp, num)
                and isinstance(got, num)
                and not isinstance(exp, bool)
                and not isinstance(got, bool)
                and exp == got
            ) or (type(exp) is type(got) and exp == got)
        if not same:
            out.append(f"{path}: {compact(got, width)} != expected {compact(exp, width)}")
    return out


# ---------------------------------------------------------------------------
# REST steps (differential.py and rules_differential.py): substitution, captures, normalisation


TRANSACTION = "<transaction>"
PAGE_TOKEN = "<page-token>"
SERVER_TIME_KEYS = ("updateTime", "createTime", "commitTime", "readTime")


def substitute(value, project, captures):
    """{project} becomes the project id; `$name` a captured value (a whole-string reference keeps
    the captured type); {"$repeat": "x", "times": N} a long string."""
    if isinstance(value, str):
        if value.startswith("$") and value[1:] in captures:
            return captures[value[1:]]
        value = value.replace("{project}", project)
        # longest names first so $tx2 is not read as $tx followed by "2"
        for name in sorted(captures, key=len, reverse=True):
            token = "$" + name
            if token in value:
                cap = captures[name]
                value = value.replace(token, cap if isinstance(cap, str) else json.dumps(cap))
        return value
    if isinstance(value, list):
        return [substitute(v, project, captures) for v in value]
    if isinstance(value, dict):
        if set(value) == {"$repeat", "times"}:
            # {"$repeat": "x", "times": 1000000} stands for a long string, keeping fixtures small
            return substitute(value["$repeat"], project, captures) * int(value["times"])
        return {substitute(k, project, captures): substitute(v, project, captures) for k, v in value.items()}
    return value


def extract(obj, dotted: str):
    """Follows a dotted path ("0.transaction", "writeResults.0.updateTime")."""
    cur = obj
    for part in dotted.split("."):
        if isinstance(cur, list):
            try:
                cur = cur[int(part)]
            except (ValueError, IndexError):
                return None
        elif isinstance(cur, dict):
            if part not in cur:
                return None
            cur = cur[part]
        else:
            return None
    return cur


def _scrub_string(s, project, backrefs):
    for name, val in backrefs:
        s = s.replace(val, "$" + name)
    if project:
        s = s.replace(project, "{project}")
    if RFC3339_RE.search(s):
        s = RFC3339_RE.sub(lambda m: SERVER_TIME if is_recent(m.group(0)) else m.group(0), s)
    return scrub_versions(s)


def normalise(obj, project, captures):
    """Replaces server-generated, opaque and project-specific values of a REST answer by
    placeholders (docs/differential-testing.md, Normalisation)."""
    backrefs = sorted(
        ((n, v) for n, v in captures.items() if isinstance(v, str) and len(v) >= 8),
        key=lambda nv: len(nv[1]),
        reverse=True,
    )

    def walk(v, key=None):
        if isinstance(v, dict):
            return {k: walk(x, k) for k, x in v.items()}
        if isinstance(v, list):
            return [walk(x) for x in v]
        if isinstance(v, str):
            if key in SERVER_TIME_KEYS and parse_rfc3339(v) is not None:
                return SERVER_TIME
            if key == "transaction" and v:
                return TRANSACTION
            if key == "nextPageToken" and v:
                return PAGE_TOKEN
            if key == "timestampValue" and is_recent(v):
                return SERVER_TIME
            return _scrub_string(v, project, backrefs)
        return v

    return walk(obj)


def run_steps(base, project, steps, headers_for, describe):
    """Sends a case's REST steps in order; returns [(step, summary, status, normalised body)].
    headers_for(step, captures) gives a step's request headers, describe(step) its summary."""
    captures = {}
    results = []
    for step in steps:
        method = step.get("method", "GET")
        path = substitute(step["path"], project, captures)
        body = substitute(step["body"], project, captures) if "body" in step else None
        raw = None
        if "rawBody" in step:
            raw = substitute(step["rawBody"], project, captures).encode("utf-8")
        elif "rawBodyBase64" in step:
            raw = base64.b64decode(step["rawBodyBase64"])
        status, resp = http(base, method, path, body=body, raw=raw, headers=headers_for(step, captures))
        for name, dotted in (step.get("capture") or {}).items():
            val = extract(resp, dotted)
            if val is not None:
                captures[name] = val
        results.append((step, describe(step), status, normalise(resp, project, captures)))
    return results


def compare_step(expect, got_status, got_body, compare_message, compare_body=True):
    """Differences of one REST answer: the status always, the body unless compare_body is
    false, google.rpc.Status messages only with compare_message."""
    diffs = []
    if expect.get("status") != got_status:
        diffs.append(f"status {got_status} != expected {expect.get('status')}")
    if compare_body:
        eb, gb = expect.get("body"), got_body
        if not compare_message:
            eb, gb = strip_status_messages(eb), strip_status_messages(gb)
        diffs.extend(diff(eb, gb))
    return diffs


def report_steps(case, pairs, prefix, compare):
    """pairs: [(step, summary, expect, got_status, got_body)]; prints a line per differing step
    (compare(step, expect, status, body) gives the differences); returns whether all agree."""
    ok = True
    for idx, (step, summary, expect, got_status, got_body) in enumerate(pairs):
        if expect is None:
            print(f"{prefix} {case['id']} step {idx + 1} {summary}: no recorded expectation (run `record`)")
            ok = False
            continue
        diffs = compare(step, expect, got_status, got_body)
        if diffs:
            ok = False
            req = ""
            if "body" in step:
                req = " " + compact(step["body"], 200)
            elif "rawBody" in step:
                req = " raw:" + compact(step["rawBody"], 200)
            print(
                f"{prefix} {case['id']} step {idx + 1} {summary} | diff: {'; '.join(diffs)} |{req or ' (no body)'}"
                f" | expected {expect.get('status')} {compact(expect.get('body'))} | got {got_status} {compact(got_body)}"
            )
    return ok


# ---------------------------------------------------------------------------
# ID tokens and Python-client helpers (the SDK is imported only when these are called)


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unsigned_jwt(claims) -> str:
    """`base64url(header).base64url(payload).` with alg none and an empty signature: the
    emulators read the claims without checking a signature."""
    enc = lambda obj: _b64url(json.dumps(obj, separators=(",", ":"), sort_keys=True).encode("utf-8"))  # noqa: E731
    return f"{enc({'alg': 'none', 'typ': 'JWT'})}.{enc(claims)}."


def id_token(uid):
    """An end user's minimal ID token: `sub` and `user_id` are the uid."""
    return unsigned_jwt({"sub": uid, "user_id": uid})


_CLIENT_LOCK = threading.Lock()
_SHARED_APIS = {}  # (host, channel token) -> the GAPIC client (and its gRPC channel) of this process


def _share_channel(client, host):
    """Gives `client` the process's gRPC channel to `host` (made by the first client for it).
    A channel holds nothing of one client: the project, database and Authorization go in each
    call's metadata, and the Python client builds every emulator channel with the same options,
    so grpc's subchannel pool already puts a process's live channels to one server on one
    connection.  Sharing one saves a new connection (some 20-30 ms) per case."""
    key = (host, getattr(client._credentials, "id_token", None))
    with _CLIENT_LOCK:
        api = _SHARED_APIS.get(key)
        if api is None:
            _SHARED_APIS[key] = client._firestore_api
        else:
            client._firestore_api_internal = api
    return client


def sdk_client(host, project, uid=None):
    """A google-cloud-firestore Client for `project` on the emulator at host:port.  uid None is
    the admin (`Bearer owner`); a uid sends that user's unsigned ID token instead; "" sends no
    Authorization header at all.  FIRESTORE_EMULATOR_HOST is read when a client is made, so it is
    set under a lock: clients for different servers can be made on several threads at once.
    The client uses the process's channel to host (do not close it)."""
    from google.cloud import firestore

    with _CLIENT_LOCK:
        os.environ["FIRESTORE_EMULATOR_HOST"] = host
        if uid is None:
            client = firestore.Client(project=project)
        else:
            client = firestore.Client(project=project, credentials=token_credentials(id_token(uid)))
    if uid is not None:
        metadata = [(k, v) for k, v in client._rpc_metadata if k != "authorization"]
        if uid:
            metadata.append(("authorization", "Bearer " + id_token(uid)))
        client._rpc_metadata_internal = metadata
    return _share_channel(client, host)


def firebase_admin_client(host, project):
    """(app, client): firebase-admin's Firestore client for `project` on the emulator at host,
    in an app of its own (delete it with firebase_admin.delete_app), on the process's channel."""
    import firebase_admin
    from firebase_admin import credentials as fa_credentials
    from firebase_admin import firestore as fa_firestore
    from google.auth.credentials import AnonymousCredentials

    class Anonymous(fa_credentials.Base):
        def get_credential(self):
            return AnonymousCredentials()

    name = f"harness-{project}-{time.time_ns()}-{threading.get_ident()}"
    app = firebase_admin.initialize_app(Anonymous(), {"projectId": project}, name=name)
    with _CLIENT_LOCK:
        os.environ["FIRESTORE_EMULATOR_HOST"] = host
        client = fa_firestore.client(app)
    return app, _share_channel(client, host)


_TOKEN_CREDENTIALS = None


def token_credentials(token):
    """google-auth credentials that always hold `token` and never refresh."""
    global _TOKEN_CREDENTIALS
    if _TOKEN_CREDENTIALS is None:
        from google.auth.credentials import Credentials

        class TokenCredentials(Credentials):
            def __init__(self, token):
                super().__init__()
                self.token = token

            def refresh(self, request):
                pass

            @property
            def expired(self):
                return False

            @property
            def valid(self):
                return True

        _TOKEN_CREDENTIALS = TokenCredentials
    return _TOKEN_CREDENTIALS(token)


def _cli(argv):
    ap = argparse.ArgumentParser(description="helpers for shell scripts")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("free-port", help="print a free TCP port on 127.0.0.1")
    w = sub.add_parser("wait", help="wait until URL answers GET /")
    w.add_argument("url")
    w.add_argument("seconds", nargs="?", type=float, default=15)
    args = ap.parse_args(argv)
    if args.cmd == "free-port":
        print(free_port())
        return 0
    if wait_for_server(args.url, args.seconds):
        return 0
    print(f"{args.url} did not answer within {args.seconds:g} s", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(_cli(sys.argv[1:]))
