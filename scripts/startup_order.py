#!/usr/bin/env python3
"""Writes Sources/hearth/startup-order.txt: the functions of `hearth` that start-up runs, for the
linker to place side by side (--symbol-ordering-file, in Package.swift's release link).

Why: the kernel maps a program's code 64 KB at a time around each page it faults in. Start-up
runs about 1.6 MB of functions spread over a 38 MB text segment, so scattered that its faults
mapped 16 MB (docs/decisions/0010-startup-order.md). Placed together, they map about what they
are.

How: the lean binary (scripts/lean) runs under valgrind's callgrind as README's `hearth start`
runs it, every service on, answers one request on each port, a Firestore write and read, and
stops; every function callgrind saw run in the binary is written, one mangled name per line,
in name order (a stable file whose diffs show what start-up gained or lost). Run it again when
start-up changes much; stale names are skipped by the linker, and a stale file only costs
memory, never correctness.

    python3 scripts/startup_order.py [--binary .build-static/release/hearth]
Needs valgrind (apt-get install valgrind).
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import free_port, http, wait_for_server  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUTPUT = os.path.join(ROOT, "Sources", "hearth", "startup-order.txt")
ADMIN = {"Authorization": "Bearer owner"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build-static", "release", "hearth"))
    args = ap.parse_args()
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is needed: apt-get install valgrind")
    work = tempfile.mkdtemp(prefix="hearth-order-")
    # Valgrind cannot read the DWARF the Swift toolchain writes; the symbol table is enough.
    binary = os.path.join(work, "hearth")
    shutil.copy(args.binary, binary)
    subprocess.run(["strip", "--strip-debug", binary], check=True)
    out = os.path.join(work, "callgrind.out")
    ports = {name: free_port() for name in ("firestore", "auth", "database", "storage", "hub")}
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no", "--compress-pos=no",
                             f"--callgrind-out-file={out}", binary, "start", "--ephemeral", "--project", "order",
                             "--port", str(ports["firestore"]), "--auth-port", str(ports["auth"]),
                             "--database-port", str(ports["database"]), "--storage-port", str(ports["storage"]),
                             "--hub-port", str(ports["hub"])],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=work)
    try:
        for port in ports.values():
            if not wait_for_server(f"http://127.0.0.1:{port}", timeout=120, proc=proc):
                raise SystemExit(f"hearth under valgrind did not answer on {port}")
        base = f"http://127.0.0.1:{ports['firestore']}"
        docs = "/v1/projects/order/databases/(default)/documents"
        http(base, "PATCH", f"{docs}/c/d", {"fields": {"n": {"integerValue": "1"}}}, headers=ADMIN)
        http(base, "GET", f"{docs}/c/d", headers=ADMIN)
        time.sleep(1)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=120)
    names = set()
    current = None
    with open(out, errors="replace") as fh:
        for line in fh:
            if line.startswith("ob="):
                current = line[3:].strip()
            elif line.startswith("fn=") and current == binary:
                names.add(re.sub(r"'\d+$", "", line[3:].strip()))
    # Only names the binary defines as functions (callgrind also names addresses it has no symbol for).
    table = subprocess.run(["nm", "--defined-only", binary], capture_output=True, text=True, check=True).stdout
    defined = {p[2] for p in (l.split(" ", 2) for l in table.splitlines()) if len(p) == 3 and p[1] in "tTwW"}
    kept = sorted(names & defined)
    with open(OUTPUT, "w") as fh:
        fh.write("\n".join(kept) + "\n")
    shutil.rmtree(work, ignore_errors=True)
    print(f"{OUTPUT}: {len(kept)} functions ({len(names) - len(kept)} addresses without a symbol left out)")


if __name__ == "__main__":
    sys.exit(main())
