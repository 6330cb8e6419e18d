#!/usr/bin/env python3
"""Differential tests of Firestore security rules: Hearth vs the official emulator.

The corpus lives in fixtures/differential/rules/*.json.  Each file is a JSON list of
cases.  A case loads a ruleset into its own project, seeds data with admin
credentials, then runs REST steps as different users; the answers expected of each
step were recorded from the official Cloud Firestore emulator.

    python3 scripts/rules_differential.py record                 # (re)record expectations
    python3 scripts/rules_differential.py compare --target URL   # compare URL with recordings
    python3 scripts/rules_differential.py live --target URL      # compare URL with a live emulator

See docs/rules-differential-testing.md for the case format.  Standard library only.
The HTTP, normalisation, comparison and emulator helpers are shared with
scripts/differential.py (the data-plane harness).
"""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import differential  # noqa: E402
from differential import (  # noqa: E402  (shared helpers of the REST harness)
    OfficialEmulator,
    compact,
    compare_step,
    extract,
    http,
    load_known,
    normalise,
    project_slug,
    select_cases,
    substitute,
    target_reachable,
    write_cases,
)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS_DIR = os.path.join(ROOT, "fixtures", "differential", "rules")

ADMIN_HEADERS = {"Authorization": "Bearer owner"}

# The named principals a step can act as.  Their tokens look like Firebase Auth ID
# tokens (all fixed values, so recordings are stable); "{project}" is replaced by the
# case's project id.  `anon` sends no Authorization header at all; `admin` sends the
# emulator's owner credential, which bypasses rules.
def _user(uid, email, verified, provider="password"):
    return {
        "iss": "https://securetoken.google.com/{project}",
        "aud": "{project}",
        "auth_time": 1600000000,
        "user_id": uid,
        "sub": uid,
        "iat": 1600000000,
        "exp": 4100000000,
        "email": email,
        "email_verified": verified,
        "firebase": {"identities": {"email": [email]}, "sign_in_provider": provider},
    }


USERS = {
    "alice": _user("alice", "alice@example.com", True),
    "bob": _user("bob", "bob@example.com", True),
    "carol": _user("carol", "carol@example.com", False),
}


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unsigned_jwt(claims) -> str:
    """`base64url(header).base64url(payload).` with alg none and an empty signature."""
    header = {"alg": "none", "typ": "JWT"}
    enc = lambda obj: _b64url(json.dumps(obj, separators=(",", ":"), sort_keys=True).encode("utf-8"))
    return f"{enc(header)}.{enc(claims)}."


def auth_headers(who, project):
    """Authorization header for a step's `as`."""
    if who == "admin":
        return dict(ADMIN_HEADERS)
    if who == "anon":
        return {}
    if isinstance(who, str) and who in USERS:
        return {"Authorization": "Bearer " + unsigned_jwt(substitute(USERS[who], project, {}))}
    if isinstance(who, dict) and "claims" in who:
        return {"Authorization": "Bearer " + unsigned_jwt(substitute(who["claims"], project, {}))}
    raise SystemExit(f"unknown principal in `as`: {who!r}")


def who_label(who):
    if isinstance(who, str):
        return who
    claims = who.get("claims", {})
    return "claims(sub=%s)" % claims.get("sub", "-")


# ---------------------------------------------------------------------------
# Corpus


def project_id(case_id: str) -> str:
    return project_slug("rules-", case_id)


def check_steps(path, case):
    for i, step in enumerate(case["steps"]):
        if "as" not in step or "method" not in step or "path" not in step:
            raise SystemExit(f"{path}: case {case['id']} step {i + 1} needs `as`, `method` and `path`")


def load_corpus(only_files=None):
    return differential.load_corpus(only_files, CORPUS_DIR, "steps", project_id, check_steps)


# ---------------------------------------------------------------------------
# Running a case


class SetupError(Exception):
    pass


def rules_body(source):
    return {"rules": {"files": [{"name": "firestore.rules", "content": source}]}}


def prepare(base, case, project):
    """Clears the project's database, loads the case's rules and runs its admin setup."""
    http(base, "DELETE", f"/emulator/v1/projects/{project}/databases/(default)/documents")
    if "rules" in case:
        status, body = http(base, "PUT", f"/emulator/v1/projects/{project}:securityRules", body=rules_body(case["rules"]))
        if status != 200:
            raise SetupError(f"rules not accepted: {status} {compact(body)}")
    for i, st in enumerate(case.get("setup") or []):
        path = substitute(st["path"], project, {})
        body = substitute(st["body"], project, {}) if "body" in st else None
        status, resp = http(base, st.get("method", "POST"), path, body=body, headers=dict(ADMIN_HEADERS))
        if status != 200:
            raise SetupError(f"setup {i + 1} {st.get('method', 'POST')} {st['path']}: {status} {compact(resp)}")


def run_case(base, case):
    """Returns [(step, summary, status, normalised body)]; raises SetupError."""
    project = project_id(case["id"])
    prepare(base, case, project)
    captures = {}
    results = []
    for step in case["steps"]:
        method = step["method"]
        path = substitute(step["path"], project, captures)
        body = substitute(step["body"], project, captures) if "body" in step else None
        raw = substitute(step["rawBody"], project, captures).encode("utf-8") if "rawBody" in step else None
        headers = auth_headers(step["as"], project)
        headers.update(substitute(step.get("headers") or {}, project, captures))
        status, resp = http(base, method, path, body=body, raw=raw, headers=headers)
        for name, dotted in (step.get("capture") or {}).items():
            val = extract(resp, dotted)
            if val is not None:
                captures[name] = val
        summary = f"{method} {step['path']} as {who_label(step['as'])}"
        results.append((step, summary, status, normalise(resp, project, captures)))
    return results


# ---------------------------------------------------------------------------
# Comparison


def error_status(body):
    """(code, status) of a google.rpc.Status error body, also the first element of a streamed answer."""
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("code"), body["error"].get("status")
    return None


def compare_rules_step(step, case, expect, got_status, got_body):
    """The HTTP status and the error's code and status are always compared; the rest of the normalised
    body unless the step sets compareBody false; messages only with compareMessage."""
    cm = step.get("compareMessage", case.get("compareMessage", False))
    cb = step.get("compareBody", True)
    diffs = compare_step(expect, got_status, got_body, cm, cb)
    if not cb and error_status(expect.get("body")) != error_status(got_body):
        diffs.append(f"error {error_status(got_body)} != expected {error_status(expect.get('body'))}")
    return diffs


def report_case(case, pairs, prefix="FAIL"):
    """pairs: [(step, summary, expect, got_status, got_body)]; prints mismatches, returns ok."""
    ok = True
    for idx, (step, summary, expect, got_status, got_body) in enumerate(pairs):
        if expect is None:
            print(f"{prefix} {case['id']} step {idx + 1} {summary}: no recorded expectation (run `record`)")
            ok = False
            continue
        diffs = compare_rules_step(step, case, expect, got_status, got_body)
        if diffs:
            ok = False
            req = " " + compact(step["body"], 200) if "body" in step else " (no body)"
            print(
                f"{prefix} {case['id']} step {idx + 1} {summary} | diff: {'; '.join(diffs)} |{req}"
                f" | expected {expect.get('status')} {compact(expect.get('body'))} | got {got_status} {compact(got_body)}"
            )
    return ok


# ---------------------------------------------------------------------------
# Commands


def compare_all(base, args, expected_for):
    cases = list(select_cases(load_corpus(args.file), args))
    known = load_known(getattr(args, "known", None))
    if not target_reachable(base):
        print(f"0 passed, {len(cases)} failed")
        return 1
    tally = differential.Tally(known)
    for _, case in cases:
        prefix = tally.prefix(case)
        try:
            results = run_case(base, case)
            expected = expected_for(case)
            pairs = [(st, su, exp, s, b) for (st, su, s, b), exp in zip(results, expected)]
            ok = report_case(case, pairs, prefix=prefix)
        except SetupError as err:
            print(f"{prefix} {case['id']} setup: {err}")
            ok = False
        tally.record(case, ok)
    return tally.finish()


def cmd_compare(args):
    return compare_all(args.target.rstrip("/"), args, lambda case: [st.get("expect") for st in case["steps"]])


def cmd_live(args):
    with OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0

        def official(case):
            try:
                return [{"status": s, "body": b} for (_, _, s, b) in run_case(emu.base, case)]
            except SetupError as err:
                raise SetupError(f"on the official emulator: {err}")

        return compare_all(args.target.rstrip("/"), args, official)


def cmd_record(args):
    with OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0
        n = errors = 0
        for path, cases in load_corpus(args.file):
            touched = False
            for case in cases:
                if args.case and not any(c in case["id"] for c in args.case):
                    continue
                try:
                    results = run_case(emu.base, case)
                except SetupError as err:
                    print(f"ERROR {case['id']}: {err}")
                    errors += 1
                    continue
                for step, _, status, body in results:
                    step["expect"] = {"status": status, "body": body}
                touched = True
                n += 1
            if touched:
                write_cases(path, cases)
        print(f"recorded {n} cases from the official emulator" + (f", {errors} could not be set up" if errors else ""))
        return 1 if errors else 0


def main(argv=None):
    ap, _ = differential.corpus_parsers(__doc__, file_example="queries or queries.json")
    args = ap.parse_args(argv)
    return {"record": cmd_record, "compare": cmd_compare, "live": cmd_live}[args.cmd](args)


if __name__ == "__main__":
    def _term(signum, frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _term)
    sys.exit(main())
