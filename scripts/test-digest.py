#!/usr/bin/env python3
"""Prints what explains a failed `swift test` run, from its saved output.

Usage: scripts/test-digest.py LOG

swift-testing runs tests in parallel, so a runtime trap (a failed precondition, an index out of
range) takes the whole process down in the middle of hundreds of lines of output, and a CI log
cut to its tail keeps only the other threads' backtraces. This prints, last: the runtime's
message, the crashed thread's frames, the tests that failed, and the tests that started and
never finished (one of which was running the code that trapped).
"""
import re
import sys


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()

    test_line = re.compile(r'^\S+ (Test|Suite) (".*?"|\S+)( with \d+ test cases?)? (started|passed|failed|skipped|recorded an issue)')
    started: list[str] = []
    finished: set[str] = set()
    failed: list[str] = []
    messages: list[str] = []
    crashed: list[str] = []
    in_crash = False
    for line in lines:
        m = test_line.match(line)
        if m and not line.lstrip("◇✔✘ ").startswith("Test case"):
            kind, name, _, verb = m.groups()
            key = f"{kind} {name}"
            if verb == "started":
                started.append(key)
            else:
                finished.add(key)
            if verb in ("failed", "recorded an issue"):
                failed.append(line)
            continue
        if re.search(r"Fatal error|fatal error|Program crashed|Simultaneous accesses|Assertion failed|Precondition failed", line):
            messages.append(line)
        if re.match(r"^Thread \d+ crashed", line):
            in_crash = True
        if in_crash:
            crashed.append(line)
            # The crashed thread's block ends at the first blank line after its frames.
            if not line.strip() and len(crashed) > 2:
                in_crash = False

    print()
    print("== swift test failed; what explains it (from the output above)")
    if messages:
        print("-- the runtime said:")
        for line in messages[:20]:
            print("   " + line)
    if crashed:
        print("-- the crashed thread:")
        for line in crashed[:60]:
            print("   " + line)
    if failed:
        print(f"-- {len(failed)} failed:")
        for line in failed[:40]:
            print("   " + line)
    unfinished = [k for k in dict.fromkeys(started) if k not in finished and k.startswith("Test \"")]
    if unfinished:
        print(f"-- {len(unfinished)} started and never finished (one of them was running when the process stopped, if it crashed):")
        for key in unfinished[:60]:
            print("   " + key)
    if not (messages or crashed or failed or unfinished):
        print("-- nothing recognised; see the full output above")
    return 0


if __name__ == "__main__":
    sys.exit(main())
