#!/usr/bin/env python3
"""Differential tests of the Firestore v1 REST API: Hearth vs the official emulator.

The corpus lives in fixtures/differential/rest/*.json.  Each file is a JSON list
of cases; each case is a list of HTTP steps whose expected (normalised)
responses were recorded from the official Cloud Firestore emulator.

    python3 scripts/differential.py record                 # (re)record expectations
    python3 scripts/differential.py compare --target URL   # compare URL with recordings
    python3 scripts/differential.py live --target URL      # compare URL with a live emulator

Cases run concurrently (--jobs, default 8; each has its own project); output is in corpus
order.  See docs/differential-testing.md for the case format.  Standard library only; what the
harnesses share is in scripts/harness.py.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import harness  # noqa: E402

CORPUS_DIR = os.path.join(harness.FIXTURES, "rest")
JOBS = 8  # HTTP round trips: threads overlap them (and Hearth's work) well


def project_id(case_id: str) -> str:
    return harness.project_slug("diff-", case_id)


def load_corpus(only_files=None):
    return harness.load_corpus(CORPUS_DIR, only_files, "steps", project_id)


def run_case(base, case):
    """Runs all steps of a case; returns [(step, request summary, status, normalised body)]."""
    project = project_id(case["id"])
    harness.clear_project(base, project)
    return harness.run_steps(base, project, case["steps"], lambda step, captures: step.get("headers"),
                             lambda step: f"{step.get('method', 'GET')} {step['path']}")


def compare(case):
    def one(step, expect, status, body):
        cm = step.get("compareMessage", case.get("compareMessage", False))
        return harness.compare_step(expect, status, body, cm, step.get("compareBody", True))

    return one


def report(case, outcome, prefix):
    """outcome: (results, expectations of each step)."""
    results, expected = outcome
    pairs = [(st, su, exp, s, b) for (st, su, s, b), exp in zip(results, expected)]
    return harness.report_steps(case, pairs, prefix, compare(case))


def cmd_compare(args):
    base = args.target.rstrip("/")
    cases = [c for _, c in harness.select_cases(load_corpus(args.file), args)]

    def run(case):
        return run_case(base, case), [st.get("expect") for st in case["steps"]]

    return harness.compare_corpus(cases, args, base, run, report)


def cmd_live(args):
    with harness.OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0
        base = args.target.rstrip("/")
        cases = [c for _, c in harness.select_cases(load_corpus(args.file), args)]

        def run(case):
            official = [{"status": s, "body": b} for (_, _, s, b) in run_case(emu.base, case)]
            return run_case(base, case), official

        return harness.compare_corpus(cases, args, base, run, report)


def cmd_record(args):
    with harness.OfficialEmulator(args.emulator_port) as emu:
        if emu.base is None:
            return 0

        def store(case, results):
            for step, _, status, body in results:
                step["expect"] = {"status": status, "body": body}
            return True

        n, _ = harness.record_corpus(load_corpus(args.file), args, lambda case: run_case(emu.base, case), store)
        print(f"recorded {n} cases from the official emulator")
        return 0


def main(argv=None):
    ap, _ = harness.corpus_parsers(__doc__, file_example="values or values.json", jobs=JOBS)
    args = ap.parse_args(argv)
    return {"record": cmd_record, "compare": cmd_compare, "live": cmd_live}[args.cmd](args)


if __name__ == "__main__":
    harness.run_main(main)
