#!/usr/bin/env python3
"""Writes the two files that place the code `hearth` runs at start-up side by side in the lean
binary: Sources/hearth/startup-order.txt (function names, for lld's --symbol-ordering-file) and
Sources/hearth/startup-sections.ld (a linker-script fragment naming the input sections that
have no symbol to name them by).

Why: the kernel maps a program's code 64 KB at a time around each page it faults in. Start-up
runs about 1.6 MB of functions spread over a 38 MB text segment, so scattered that its faults
mapped 16 MB (docs/decisions/0010-startup-order.md). Placed together, they map about what they
are. The compiler gives some functions no symbol at all (LLVM's private functions: the
sections `.text..L__unnamed_N`, `.text..Lobjectdestroy.N`), and the C++ runtime's static
constructors sit in `.text.startup` sections; the ordering file cannot name those, so the
fragment names them, by object file and section name, as the first contents of `.text` (the
linker adds every other `.text` section after them, the ordered functions first). They stay
inside `.text`, where valgrind looks for a binary's code.

How: the lean binary (scripts/lean, which also writes its link map) runs under valgrind's
callgrind as README's `hearth start` runs it, every service on, answers one request on each
port, a Firestore write and read, and stops. Every instruction address callgrind saw run in the
binary is looked up in the link map to find its input section: a section named after a symbol
gives that symbol to the ordering file (with every function callgrind named), any other
function-sized section goes to the fragment. Both are written sorted, so that their diffs show
what start-up gained or lost. Run it again when start-up changes much: stale names and sections
are skipped by the linker, and a stale file only costs memory, never correctness.

    scripts/lean && python3 scripts/startup_order.py && scripts/lean
Needs valgrind (apt-get install valgrind).
"""
import argparse
import bisect
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
SECTIONS = os.path.join(ROOT, "Sources", "hearth", "startup-sections.ld")
# One input section of lld's map: address, size, the object (or `archive(member)`), the section.
MAP_LINE = re.compile(r"^\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+\s{9}(\S.*):\((\.text[^)]*)\)$")
ADMIN = {"Authorization": "Bearer owner"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=os.path.join(ROOT, ".build-static", "release", "hearth"))
    ap.add_argument("--map", default=os.path.join(ROOT, ".build-static", "hearth.map"),
                    help="lld's link map of that binary (scripts/lean writes it)")
    args = ap.parse_args()
    if not map_describes(args.map, args.binary):
        raise SystemExit(f"{args.map} is missing or is not the link map of {args.binary}: build with scripts/lean first")
    if not shutil.which("valgrind"):
        raise SystemExit("valgrind is needed: apt-get install valgrind")
    work = tempfile.mkdtemp(prefix="hearth-order-")
    # Valgrind cannot read the DWARF the Swift toolchain writes; the symbol table is enough.
    binary = os.path.join(work, "hearth")
    shutil.copy(args.binary, binary)
    subprocess.run(["strip", "--strip-debug", binary], check=True)
    out = os.path.join(work, "callgrind.out")
    ports = {name: free_port() for name in ("firestore", "auth", "database", "storage", "hub")}
    proc = subprocess.Popen(["valgrind", "--tool=callgrind", "--demangle=no", "--compress-strings=no", "--compress-pos=no", "--dump-instr=yes",
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
    addresses = set()
    current = None
    with open(out, errors="replace") as fh:
        for line in fh:
            if line.startswith("ob="):
                current = line[3:].strip()
            elif current != binary:
                continue
            elif line.startswith("fn="):
                names.add(re.sub(r"'\d+$", "", line[3:].strip()))
            elif line.startswith("0x"):
                addresses.add(int(line.split(None, 1)[0], 16))
    shutil.rmtree(work, ignore_errors=True)
    # Only names the binary defines as functions (callgrind also names addresses it has no symbol for).
    table = subprocess.run(["nm", "--defined-only", args.binary], capture_output=True, text=True, check=True).stdout
    defined = {p[2] for p in (l.split(" ", 2) for l in table.splitlines()) if len(p) == 3 and p[1] in "tTwW"}
    symbols, fragment, whole = sections_run(args.map, addresses, defined)
    kept = sorted((names | symbols) & defined)
    with open(OUTPUT, "w") as fh:
        fh.write("\n".join(kept) + "\n")
    with open(SECTIONS, "w") as fh:
        fh.write("/* Written by scripts/startup_order.py: input sections start-up runs that no symbol names. */\n")
        fh.write("SECTIONS {\n  .text : {\n")
        fh.write("".join(f"    {line}\n" for line in sorted(fragment)))
        fh.write("  }\n} INSERT BEFORE .init;\n")
    print(f"{OUTPUT}: {len(kept)} functions")
    print(f"{SECTIONS}: {len(fragment)} sections without a symbol")
    print(f"code run from objects compiled without function sections, which no file can order: {whole / 1e6:.1f} MB")


def map_describes(map_path, binary):
    """Whether the link map places `_start` where the binary has it (the same link)."""
    if not os.path.exists(map_path):
        return False
    table = subprocess.run(["nm", binary], capture_output=True, text=True, check=True).stdout
    start = next((int(l.split()[0], 16) for l in table.splitlines() if l.endswith(" T _start")), None)
    with open(map_path, errors="replace") as fh:
        for line in fh:
            if line.rstrip().endswith(" _start") and line.split()[-1] == "_start":
                return int(line.split()[0], 16) == start
    return False


def sections_run(map_path, addresses, defined):
    """The functions whose sections hold `addresses`, the linker-script lines for the sections no
    function names, and the size of the whole-object `.text` sections among them."""
    sections = []
    with open(map_path, errors="replace") as fh:
        for line in fh:
            m = MAP_LINE.match(line)
            if m:
                sections.append((int(m.group(1), 16), int(m.group(2), 16), m.group(3), m.group(4)))
    sections.sort()
    starts = [s[0] for s in sections]
    symbols, fragment, whole, seen = set(), set(), 0, set()
    for address in addresses:
        i = bisect.bisect_right(starts, address) - 1
        if i < 0 or i in seen or not sections[i][0] <= address < sections[i][0] + sections[i][1]:
            continue
        seen.add(i)
        _, size, obj, name = sections[i]
        if name == ".text":
            whole += size
        elif name[len(".text."):] in defined:
            symbols.add(name[len(".text."):])
        else:
            fragment.add(script_pattern(obj, name))
    return symbols, fragment, whole


def script_pattern(obj, section):
    """`*/Module.build/File.swift.o(section)` for an object SwiftPM built, `*libX.a:member.o(section)`
    for an archive's member: the same wherever the checkout and the toolchain are."""
    m = re.match(r"^(.*)\((.*)\)$", obj)
    if m:
        return f"*{os.path.basename(m.group(1))}:{m.group(2)}({section})"
    return f"*/{'/'.join(obj.split('/')[-2:])}({section})"


if __name__ == "__main__":
    sys.exit(main())
