#!/usr/bin/env python3
"""Differential tests of the Firestore v1 REST API: Hearth vs the official emulator.

The corpus lives in fixtures/differential/rest/*.json.  Each file is a JSON list
of cases; each case is a list of HTTP steps whose expected (normalised)
responses were recorded from the official Cloud Firestore emulator.

    python3 scripts/differential.py record                 # (re)record expectations
    python3 scripts/differential.py compare --target URL   # compare URL with recordings
    python3 scripts/differential.py live --target URL      # compare URL with a live emulator

See docs/differential-testing.md for the case format.  Standard library only.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS_DIR = os.path.join(ROOT, "fixtures", "differential", "rest")
EMULATOR_PORTS = (8086, 8087, 8088, 8089)

# Placeholders written into recordings in place of unstable values.
SERVER_TIME = "<server-time>"
TRANSACTION = "<transaction>"
PAGE_TOKEN = "<page-token>"

SERVER_TIME_KEYS = ("updateTime", "createTime", "commitTime", "readTime")
RFC3339_RE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?(?:Z|[+-]\d\d:\d\d)")
# A timestamp this close to the wall clock is taken to be server generated
# (REQUEST_TIME transform results, times quoted in error messages).  Cases
# must not write user timestamps near "now".
RECENT_WINDOW = dt.timedelta(days=3)
# The official emulator quotes versions (microseconds since the epoch) in some
# precondition messages; recent ones are replaced like timestamps.
VERSION_RE = re.compile(r"(?<!\d)\d{16}(?!\d)")


# ---------------------------------------------------------------------------
# Corpus loading


def corpus_files(only_files=None, corpus_dir=CORPUS_DIR):
    files = sorted(glob.glob(os.path.join(corpus_dir, "*.json")))
    if only_files:
        wanted = {f if f.endswith(".json") else f + ".json" for f in only_files}
        files = [f for f in files if os.path.basename(f) in wanted]
    return files


def load_corpus(only_files=None, corpus_dir=CORPUS_DIR, list_key="steps", project=None, check_case=None):
    """Returns [(path, cases)]: every case has an id and a list under `list_key`, ids are unique
    and map to distinct projects; `check_case(path, case)` may reject a case further."""
    project = project or project_id
    out, seen, projects = [], {}, {}
    for path in corpus_files(only_files, corpus_dir):
        with open(path, encoding="utf-8") as fh:
            cases = json.load(fh)
        if not isinstance(cases, list):
            raise SystemExit(f"{path}: top level must be a list of cases")
        for case in cases:
            cid = case.get("id")
            if not cid or not isinstance(case.get(list_key), list):
                raise SystemExit(f"{path}: every case needs an id and a list of {list_key}")
            if cid in seen:
                raise SystemExit(f"duplicate case id {cid!r} in {path} and {seen[cid]}")
            seen[cid] = path
            proj = project(cid)
            if projects.setdefault(proj, cid) != cid:
                raise SystemExit(f"case ids {cid!r} and {projects[proj]!r} map to the same project {proj}")
            if check_case:
                check_case(path, case)
        out.append((path, cases))
    return out


def project_slug(prefix: str, case_id: str) -> str:
    """A project ID for a case: its id lower-cased with runs of other characters as one '-'."""
    p = re.sub(r"[^a-z0-9-]+", "-", case_id.lower()).strip("-")
    return prefix + re.sub(r"-{2,}", "-", p)


def project_id(case_id: str) -> str:
    return project_slug("diff-", case_id)


# ---------------------------------------------------------------------------
# Substitution of {project} and captured $names


def substitute(value, project, captures):
    if isinstance(value, str):
        if value.startswith("$") and value[1:] in captures:
            return captures[value[1:]]  # whole-string reference keeps the captured type
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


def encode_path(path: str) -> str:
    """Percent-encodes what urllib refuses (non-ASCII, spaces, controls); keeps the rest verbatim."""
    out = []
    for ch in path:
        if ord(ch) > 126 or ord(ch) <= 32:
            out.append("".join(f"%{b:02X}" for b in ch.encode("utf-8")))
        else:
            out.append(ch)
    return "".join(out)


# ---------------------------------------------------------------------------
# HTTP


def http(base, method, path, body=None, raw=None, headers=None, timeout=30):
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


# ---------------------------------------------------------------------------
# Normalisation


def _parse_rfc3339(s):
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.\d+)?(Z|[+-]\d\d:\d\d)", s)
    if not m:
        return None
    try:
        y, mo, d, h, mi, se = (int(g) for g in m.groups()[:6])
        t = dt.datetime(y, mo, d, h, mi, se, tzinfo=dt.timezone.utc)
    except ValueError:
        return None
    off = m.group(7)
    if off != "Z":
        sign = 1 if off[0] == "+" else -1
        t -= sign * dt.timedelta(hours=int(off[1:3]), minutes=int(off[4:6]))
    return t


def _is_recent(s):
    t = _parse_rfc3339(s)
    return t is not None and abs(t - dt.datetime.now(dt.timezone.utc)) < RECENT_WINDOW


def _scrub_string(s, project, backrefs):
    for name, val in backrefs:
        s = s.replace(val, "$" + name)
    if project:
        s = s.replace(project, "{project}")
    if RFC3339_RE.search(s):
        s = RFC3339_RE.sub(lambda m: SERVER_TIME if _is_recent(m.group(0)) else m.group(0), s)
    if VERSION_RE.search(s):
        s = VERSION_RE.sub(lambda m: "<version>" if _is_recent_micros(int(m.group(0))) else m.group(0), s)
    return s


def _is_recent_micros(n):
    now = time.time() * 1e6
    return abs(n - now) < RECENT_WINDOW.total_seconds() * 1e6


def normalise(obj, project, captures):
    """Replaces server-generated, opaque and project-specific values by placeholders."""
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
            if key in SERVER_TIME_KEYS and _parse_rfc3339(v) is not None:
                return SERVER_TIME
            if key == "transaction" and v:
                return TRANSACTION
            if key == "nextPageToken" and v:
                return PAGE_TOKEN
            if key == "timestampValue" and _is_recent(v):
                return SERVER_TIME
            return _scrub_string(v, project, backrefs)
        return v

    return walk(obj)


# ---------------------------------------------------------------------------
# Comparison


def _strip_messages(v):
    """Drops `message` from google.rpc.Status-like objects (error bodies, batchWrite statuses)."""
    if isinstance(v, dict):
        is_status = "message" in v and ("code" in v or "status" in v)
        return {k: _strip_messages(x) for k, x in v.items() if not (is_status and k == "message")}
    if isinstance(v, list):
        return [_strip_messages(x) for x in v]
    return v


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


def canon(v):
    """v as canonical JSON text (keys sorted, no spaces)."""
    return json.dumps(v, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def compact(v, limit=300):
    """v as compact JSON (strings as they are), cut to limit characters."""
    s = v if isinstance(v, str) else canon(v)
    return s if len(s) <= limit else s[: limit - 3] + "..."


def compare_step(expect, got_status, got_body, compare_message, compare_body=True):
    diffs = []
    if expect.get("status") != got_status:
        diffs.append(f"status {got_status} != expected {expect.get('status')}")
    if compare_body:
        eb, gb = expect.get("body"), got_body
        if not compare_message:
            eb, gb = _strip_messages(eb), _strip_messages(gb)
        diffs.extend(diff(eb, gb))
    return diffs


# ---------------------------------------------------------------------------
# Running cases


def clear_project(base, project):
    http(base, "DELETE", f"/emulator/v1/projects/{project}/databases/(default)/documents")


def run_case(base, case):
    """Runs all steps of a case; returns [(step, request summary, status, normalised body)]."""
    project = project_id(case["id"])
    clear_project(base, project)
    captures = {}
    results = []
    for step in case["steps"]:
        method = step.get("method", "GET")
        path = substitute(step["path"], project, captures)
        body = substitute(step["body"], project, captures) if "body" in step else None
        raw = None
        if "rawBody" in step:
            raw = substitute(step["rawBody"], project, captures).encode("utf-8")
        elif "rawBodyBase64" in step:
            raw = base64.b64decode(step["rawBodyBase64"])
        headers = step.get("headers")
        status, resp = http(base, method, path, body=body, raw=raw, headers=headers)
        for name, dotted in (step.get("capture") or {}).items():
            val = extract(resp, dotted)
            if val is not None:
                captures[name] = val
        summary = f"{method} {step['path']}"
        results.append((step, summary, status, normalise(resp, project, captures)))
    return results


def report_case(case, pairs, prefix="FAIL"):
    """pairs: [(step, summary, expect, got_status, got_body)]; prints mismatches, returns ok."""
    ok = True
    for idx, (step, summary, expect, got_status, got_body) in enumerate(pairs):
        cm = step.get("compareMessage", case.get("compareMessage", False))
        cb = step.get("compareBody", True)
        if expect is None:
            print(f"{prefix} {case['id']} step {idx + 1} {summary}: no recorded expectation (run `record`)")
            ok = False
            continue
        diffs = compare_step(expect, got_status, got_body, cm, cb)
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


def select_cases(corpus, args):
    for path, cases in corpus:
        for case in cases:
            if args.case and not any(c in case["id"] for c in args.case):
                continue
            yield path, case


def target_reachable(base):
    status, body = http(base, "GET", "/", timeout=10)
    if status == 0:
        print(f"ERROR: target {base} is not reachable: {body}")
        return False
    return True


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


def compare_all(base, args, expected_for):
    """Runs the selected cases against base; expected_for(case, results) yields the expectation of
    each step.  Prints mismatches and the summary line; returns the exit code."""
    cases = list(select_cases(load_corpus(args.file), args))
    known = load_known(getattr(args, "known", None))
    if not target_reachable(base):
        print(f"0 passed, {len(cases)} failed")
        return 1
    tally = Tally(known)
    for _, case in cases:
        results = run_case(base, case)
        pairs = [(st, su, exp, s, b) for (st, su, s, b), exp in zip(results, expected_for(case, results))]
        tally.record(case, report_case(case, pairs, prefix=tally.prefix(case)))
    return tally.finish()


def cmd_compare(args):
    def recorded(case, results):
        return [st.get("expect") for st in case["steps"]]

    return compare_all(args.target.rstrip("/"), args, recorded)


def cmd_live(args):
    with OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0

        def official(case, results):
            return [{"status": s, "body": b} for (_, _, s, b) in run_case(emu.base, case)]

        return compare_all(args.target.rstrip("/"), args, official)


def cmd_record(args):
    with OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0
        corpus = load_corpus(args.file)
        n = 0
        for path, cases in corpus:
            touched = False
            for case in cases:
                if args.case and not any(c in case["id"] for c in args.case):
                    continue
                for step, _, status, body in run_case(emu.base, case):
                    step["expect"] = {"status": status, "body": body}
                touched = True
                n += 1
            if touched:
                write_cases(path, cases)
        print(f"recorded {n} cases from the official emulator")
        return 0


def write_cases(path, cases):
    text = json.dumps(cases, indent=2, ensure_ascii=False) + "\n"
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------------------
# Official emulator lifecycle


class OfficialEmulator:
    def __init__(self, port=None):
        self.port = port
        self.proc = None
        self.base = None
        self.log = None

    def __enter__(self):
        if shutil.which("gcloud") is None:
            print("SKIP: gcloud not found")
            return self
        port = self.port or self._free_port()
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
        deadline = time.time() + 120
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self._dump_log()
                raise SystemExit("official emulator exited during start-up")
            try:
                with urllib.request.urlopen(base + "/", timeout=2) as r:
                    if r.read().decode().strip().startswith("Ok"):
                        self.base = base
                        break
            except (urllib.error.URLError, OSError):
                pass
            time.sleep(0.5)
        if self.base is None:
            self._stop()
            self._dump_log()
            raise SystemExit("official emulator did not answer within 120 s")
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
    def _free_port():
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


def corpus_parsers(doc, file_example=None, port_target=False):
    """The record, compare and live subcommands every differential harness has, with their
    shared options; returns the parser and the subcommand parsers (for a harness's own options)."""
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
        parsers[name] = p
    return ap, parsers


def main(argv=None):
    ap, _ = corpus_parsers(__doc__, file_example="values or values.json")
    args = ap.parse_args(argv)
    return {"record": cmd_record, "compare": cmd_compare, "live": cmd_live}[args.cmd](args)


if __name__ == "__main__":
    def _term(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _term)
    sys.exit(main())
