#!/usr/bin/env python3
"""Differential tests of Firestore security rules: Hearth vs the official emulator.

The corpus lives in fixtures/differential/rules/*.json.  Each file is a JSON list of
cases.  A case loads a ruleset into its own project, seeds data with admin
credentials, then runs REST steps as different users; the answers expected of each
step were recorded from the official Cloud Firestore emulator.

    python3 scripts/rules_differential.py record                 # (re)record expectations
    python3 scripts/rules_differential.py compare --target URL   # compare URL with recordings
    python3 scripts/rules_differential.py live --target URL      # compare URL with a live emulator

Cases run concurrently (--jobs, default 8; each has its own project); output is in corpus
order.  See docs/rules-differential-testing.md for the case format.  Standard library only; the
HTTP, normalisation, comparison and emulator helpers are in scripts/harness.py.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402
from harness import compact, http, substitute  # noqa: E402

CORPUS_DIR = os.path.join(harness.FIXTURES, "rules")
JOBS = 8  # HTTP round trips, as in differential.py

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


def auth_headers(who, project):
    """Authorization header for a step's `as`."""
    if who == "admin":
        return dict(ADMIN_HEADERS)
    if who == "anon":
        return {}
    if isinstance(who, str) and who in USERS:
        return {"Authorization": "Bearer " + harness.unsigned_jwt(substitute(USERS[who], project, {}))}
    if isinstance(who, dict) and "claims" in who:
        return {"Authorization": "Bearer " + harness.unsigned_jwt(substitute(who["claims"], project, {}))}
    raise SystemExit(f"unknown principal in `as`: {who!r}")


def who_label(who):
    if isinstance(who, str):
        return who
    claims = who.get("claims", {})
    return "claims(sub=%s)" % claims.get("sub", "-")


# ---------------------------------------------------------------------------
# Corpus


def project_id(case_id: str) -> str:
    return harness.project_slug("rules-", case_id)


def check_steps(path, case):
    for i, step in enumerate(case["steps"]):
        if "as" not in step or "method" not in step or "path" not in step:
            raise SystemExit(f"{path}: case {case['id']} step {i + 1} needs `as`, `method` and `path`")


def load_corpus(only_files=None):
    return harness.load_corpus(CORPUS_DIR, only_files, "steps", project_id, check_steps)


# ---------------------------------------------------------------------------
# Running a case


class SetupError(Exception):
    pass


def prepare(base, case, project):
    """Clears the project's database, loads the case's rules and runs its admin setup."""
    harness.clear_project(base, project)
    if "rules" in case:
        status, body = harness.put_rules(base, project, case["rules"])
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

    def headers_for(step, captures):
        headers = auth_headers(step["as"], project)
        headers.update(substitute(step.get("headers") or {}, project, captures))
        return headers

    return harness.run_steps(base, project, case["steps"], headers_for,
                             lambda step: f"{step['method']} {step['path']} as {who_label(step['as'])}")


def try_case(base, case, where=""):
    """run_case, with a SetupError as its message (so that workers hand it back)."""
    try:
        return run_case(base, case), None
    except SetupError as err:
        return None, f"{where}{err}"


# ---------------------------------------------------------------------------
# Comparison


def error_status(body):
    """(code, status) of a google.rpc.Status error body, also the first element of a streamed answer."""
    if isinstance(body, list) and body and isinstance(body[0], dict):
        body = body[0]
    if isinstance(body, dict) and isinstance(body.get("error"), dict):
        return body["error"].get("code"), body["error"].get("status")
    return None


def compare(case):
    """The HTTP status and the error's code and status are always compared; the rest of the normalised
    body unless the step sets compareBody false; messages only with compareMessage."""

    def one(step, expect, got_status, got_body):
        cm = step.get("compareMessage", case.get("compareMessage", False))
        cb = step.get("compareBody", True)
        diffs = harness.compare_step(expect, got_status, got_body, cm, cb)
        if not cb and error_status(expect.get("body")) != error_status(got_body):
            diffs.append(f"error {error_status(got_body)} != expected {error_status(expect.get('body'))}")
        return diffs

    return one


def report(case, outcome, prefix):
    """outcome: ((results, setup error), (expectations of each step, setup error))."""
    (results, err), (expected, exp_err) = outcome
    err = err or exp_err
    if err:
        print(f"{prefix} {case['id']} setup: {err}")
        return False
    pairs = [(st, su, exp, s, b) for (st, su, s, b), exp in zip(results, expected)]
    return harness.report_steps(case, pairs, prefix, compare(case))


# ---------------------------------------------------------------------------
# Commands


def cmd_compare(args):
    base = args.target.rstrip("/")
    cases = [c for _, c in harness.select_cases(load_corpus(args.file), args)]

    def run(case):
        return try_case(base, case), ([st.get("expect") for st in case["steps"]], None)

    return harness.compare_corpus(cases, args, base, run, report)


def cmd_live(args):
    with harness.OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0
        base = args.target.rstrip("/")
        cases = [c for _, c in harness.select_cases(load_corpus(args.file), args)]

        def run(case):
            got = try_case(base, case)
            if got[1]:
                return got, (None, None)
            results, err = try_case(emu.base, case, "on the official emulator: ")
            return got, ([{"status": s, "body": b} for (_, _, s, b) in results or []], err)

        return harness.compare_corpus(cases, args, base, run, report)


def cmd_record(args):
    with harness.OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0

        def store(case, outcome):
            results, err = outcome
            if err:
                print(f"ERROR {case['id']}: {err}")
                return False
            for step, _, status, body in results:
                step["expect"] = {"status": status, "body": body}
            return True

        n, errors = harness.record_corpus(load_corpus(args.file), args, lambda case: try_case(emu.base, case), store)
        print(f"recorded {n} cases from the official emulator" + (f", {errors} could not be set up" if errors else ""))
        return 1 if errors else 0


def main(argv=None):
    ap, _ = harness.corpus_parsers(__doc__, file_example="queries or queries.json", jobs=JOBS)
    args = ap.parse_args(argv)
    return {"record": cmd_record, "compare": cmd_compare, "live": cmd_live}[args.cmd](args)


if __name__ == "__main__":
    harness.run_main(main)
