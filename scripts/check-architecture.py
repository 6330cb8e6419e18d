#!/usr/bin/env python3
"""Checks docs/ARCHITECTURE.md against Package.swift and the imports in Sources/.

- every target of Package.swift (but test targets) has a row in one of the document's module
  tables, and every row names a target;
- a module imports only modules in a row above its own (the tables are in layer order), or
  third-party modules;
- no transport imports another transport, and no service slice imports another slice.

Exit status 1 with one line per problem.  Usage: scripts/check-architecture.py
"""
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Transports of a slice: none may import another.
TRANSPORTS = {"FirestoreREST", "FirestoreGRPC", "FirestoreWebSocket", "FirestoreWebChannel", "DatabaseREST", "DatabaseWebSocket"}
# The slices' module name prefixes: a module of one may not import a module of another.
SLICES = ("Firestore", "Auth", "Database", "Storage")


def package_targets():
    text = open(os.path.join(ROOT, "Package.swift")).read()
    return re.findall(r'\.(?:target|executableTarget)\(\s*name:\s*"([^"]+)"', text)


def documented_modules():
    """Module names in the order of the document's table rows."""
    rows = []
    for line in open(os.path.join(ROOT, "docs", "ARCHITECTURE.md")):
        m = re.match(r"\|\s*`([A-Za-z-]+)`\s*\|", line)
        if m:
            rows.append(m.group(1))
    return rows


def imports(module):
    found = set()
    directory = os.path.join(ROOT, "Sources", module)
    if module == "hearth-bench":
        directory = os.path.join(ROOT, "Benchmarks", "hearth-bench")
    for dirpath, _, files in os.walk(directory):
        for f in files:
            if f.endswith(".swift"):
                for line in open(os.path.join(dirpath, f)):
                    m = re.match(r"^\s*(?:@\S+\s+)*(?:package |public |internal |private |fileprivate )?import\s+(?:struct |class |enum |protocol |func )?([A-Za-z_][A-Za-z0-9_]*)", line)
                    if m:
                        found.add(m.group(1))
    return found


def slice_of(module):
    return next((s for s in SLICES if module.startswith(s)), None)


def main():
    problems = []
    targets = [t for t in package_targets() if t != "HearthTestSupport"]
    rows = documented_modules()
    for t in targets:
        if t not in rows:
            problems.append(f"Package.swift target {t} has no row in docs/ARCHITECTURE.md")
    for r in rows:
        if r not in targets:
            problems.append(f"docs/ARCHITECTURE.md lists {r}, which Package.swift does not have")
    order = {m: i for i, m in enumerate(rows)}
    for module in targets:
        if module not in order:
            continue  # reported above
        for imported in sorted(imports(module)):
            if imported not in order:
                continue  # a third-party or system module
            if order[imported] >= order[module]:
                problems.append(f"{module} imports {imported}, which is not above it in docs/ARCHITECTURE.md")
            if module in TRANSPORTS and imported in TRANSPORTS:
                problems.append(f"transport {module} imports transport {imported}")
            a, b = slice_of(module), slice_of(imported)
            if a and b and a != b:
                problems.append(f"{module} ({a} slice) imports {imported} ({b} slice)")
    for p in problems:
        print(p)
    if not problems:
        print(f"architecture: {len(targets)} modules, imports point down")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
