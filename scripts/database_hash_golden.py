#!/usr/bin/env python3
"""Regenerates fixtures/database/hash-golden.jsonl: the Firebase JS SDK's own node hash
(DataSnapshot._node.hash(), computed by the SDK 10.12.2 in headless Chromium, offline) for a
list of values, including the numbers where the SDK's doubleToIEEE754String departs from the
bit pattern (near powers of two). Hearth's DatabaseModel tests compare with this file.

Usage: .venv/bin/python scripts/database_hash_golden.py   (needs chromium, chromedriver, selenium)
"""
import json
import math
import os
import random
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "interop", "browser"))
import jsharness  # noqa: E402


def values():
    out = [True, False, "", "a", "hello world", "é😀\u2028", 0, 1, -1, 0.5, -0.5, 1.5, 3.14159, 1e21, 1e-7, 123456789,
           2 ** 31 - 1, -(2 ** 31), 2 ** 53 - 1, 2 ** 53, 9007199254740993, 5e-324, 2.2250738585072014e-308,
           1.7976931348623157e308, -1.7976931348623157e308, 0.1, 0.2, 0.30000000000000004]
    # Powers of two and their neighbours, where floor(log(v)/LN2) may land one off.
    for k in range(-1074, 1024, 1):
        v = math.ldexp(1.0, k)
        out.append(v)
        out.append(math.nextafter(v, math.inf))
        out.append(math.nextafter(v, 0.0))
    rng = random.Random(23)
    for _ in range(400):
        bits = rng.getrandbits(64)
        v = struct.unpack(">d", struct.pack(">Q", bits))[0]
        if math.isfinite(v):
            out.append(v)
    for _ in range(200):
        out.append(rng.uniform(-1e6, 1e6))
        out.append(rng.randint(-10 ** 12, 10 ** 12))
    out += [
        {"a": 1}, {"a": 1, "b": {"c": True, "d": "x"}}, {"b": 2, "a": 1},
        {".value": 5, ".priority": 1}, {".value": "s", ".priority": "p"}, {".value": True, ".priority": 0.5},
        {"x": {".value": 1, ".priority": 2}, "y": {".value": 2, ".priority": 1}, "z": 3},
        {"a": {".priority": "b", "k": 1}, "b": {".priority": 1, "k": 2}, "c": {"k": 3}},
        {".priority": 10, "k": "v"}, [1, 2, 3], {"1": "a", "2": "b", "10": "c", "x": "d"},
        {"-1": 1, "0": 2, "01": 3, "a": 4}, {"nested": {"deep": {"deeper": {"deepest": [True, None, 1]}}}},
    ]
    return out


def main():
    if jsharness.missing_browser_parts(need_sdk=True):
        sys.exit("needs " + ", ".join(jsharness.missing_browser_parts(need_sdk=True)))
    server = jsharness.PageServer(jsharness.find_sdk())
    driver = jsharness.open_chromium()
    driver.set_script_timeout(60)
    try:
        driver.get(server.base + "/harness/database-hash.html")
        for _ in range(200):
            if driver.execute_script("return !!window.ready"):
                break
            import time
            time.sleep(0.05)
        items = values()
        # Numbers cross as JSON text so the exact double reaches the page.
        texts = [json.dumps(v) for v in items]
        hashes = driver.execute_async_script(
            "const done = arguments[1];"
            "Promise.all(arguments[0].map(t => window.sdkHash(JSON.parse(t)))).then(done, e => done('ERR ' + e));",
            texts)
        if isinstance(hashes, str):
            sys.exit(hashes)
        path = os.path.join(ROOT, "fixtures", "database", "hash-golden.jsonl")
        with open(path, "w") as fh:
            fh.write("# value (JSON) -> the JS SDK 10.12.2's node hash, from scripts/database_hash_golden.py\n")
            for text, h in zip(texts, hashes):
                fh.write(json.dumps({"value": json.loads(text), "hash": h}, ensure_ascii=False) + "\n")
        print(f"wrote {len(texts)} hashes to {path}")
    finally:
        driver.quit()
        server.close()


if __name__ == "__main__":
    main()
