#!/usr/bin/env python3
"""Browser benchmark of Firestore over WebChannel: Hearth and the official emulator side by side,
through the real Firebase JS SDK (10.12.2) in headless Chromium.

Both emulators are warmed first: Hearth for --browser-warm-seconds (which warms the browser's
own JIT, so that neither emulator pays for it), the official one (only where `gcloud` exists)
for --warm-seconds, since its JIT roughly doubles its speed over the first 30 s of load. Then
--passes interleaved passes (Hearth, official, Hearth, official, ...) each measure:

- write -> callback: a second client in the page writes a document (setDoc, over its Write
  channel) while the first listens; the time from the write's start until the listener's
  callback sees the new value, p50 and p90 over --rounds writes, with 1 target and with 100
  targets (100 distinct queries that all match, on one Listen channel: the time until the last
  of the 100 callbacks);
- 1,000 sequential writes from the browser (each `await setDoc`, acknowledged by the server):
  total time and per write;
- the emulator's own CPU time (from /proc) per write in each part.

The side-by-side lines compare each emulator's best pass.

Hearth alone, after that: memory over --sessions WebChannel sessions opened (handshakes) and
abandoned, then again once Hearth has ended them (about a minute later).

    python3 scripts/bench_webchannel.py --hearth .build-static/release/hearth [--rounds 50]

Needs the SDK, chromium, chromedriver and selenium, as the browser tests do (Tests/interop).
"""
import argparse
import http.client
import json
import os
import statistics
import subprocess
import sys
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "Tests", "interop", "browser"))
sys.path.insert(0, HERE)
import harness  # noqa: E402
import jsharness  # noqa: E402

PROJECT = "wcbench"
DATABASE = f"projects/{PROJECT}/databases/(default)"

# One client listens with `targets` distinct queries on `bench/x`'s collection (all match), the
# other writes; returns each round's time until every listener has seen the round's value.
LATENCY_JS = """
const {targets, rounds, warm} = args;
const fsx = H.fs;
const a = C.a.db, b = C.b.db;
const seen = new Array(targets).fill(-1);
let waiting = null;
const unsubs = [];
for (let i = 0; i < targets; i++) {
  const q = fsx.query(fsx.collection(a, 'bench'), fsx.where('n', '>=', -1 - i));
  unsubs.push(fsx.onSnapshot(q, (snap) => {
    for (const d of snap.docs) if (d.id === 'x') seen[i] = d.get('n');
    if (waiting && seen.every((v) => v >= waiting.value)) { const w = waiting; waiting = null; w.resolve(performance.now()); }
  }));
}
const until = (value) => new Promise((resolve) => {
  waiting = {value, resolve};
  if (seen.every((v) => v >= value)) { waiting = null; resolve(performance.now()); }
});
await fsx.setDoc(fsx.doc(b, 'bench/x'), {n: 0});
await until(0);
const times = [];
for (let r = 1; r <= warm + rounds; r++) {
  const start = performance.now();
  const done = until(r);
  await fsx.setDoc(fsx.doc(b, 'bench/x'), {n: r});
  const end = await done;
  if (r > warm) times.push(end - start);
}
for (const u of unsubs) u();
return times;
"""

WRITES_JS = """
const {count} = args;
const fsx = H.fs;
const start = performance.now();
for (let i = 0; i < count; i++) await fsx.setDoc(fsx.doc(C.a.db, 'w/d' + (i % 10)), {i});
return performance.now() - start;
"""


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def java_pid(port):
    """The JVM of the official emulator listening on `port`."""
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    cmd = fh.read().decode(errors="replace")
            except OSError:
                continue
            if "java" in cmd and "cloud-firestore-emulator" in cmd and str(port) in cmd:
                return int(entry)
    return None


def clear(base):
    status, body = harness.clear_project(base, PROJECT)
    if status != 200:
        raise RuntimeError(f"clearing {PROJECT} on {base}: {status} {body}")


def measure(browser, name, base, pid, rounds):
    host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port
    browser.driver.execute_script("H.target = arguments[0]", {"host": host, "port": port})
    rows = {}
    for targets in (1, 100):
        clear(base)
        browser.run("await H.closeAll(); H.open('a', {project: args.p}); H.open('b', {project: args.p});", p=PROJECT)
        before = cpu_seconds(pid)
        times = browser.run(LATENCY_JS, targets=targets, rounds=rounds, warm=5)
        cpu = (cpu_seconds(pid) - before) / (rounds + 6)
        rows[f"{targets} target(s)"] = (statistics.median(times), sorted(times)[int(len(times) * 0.9)], cpu)
    clear(base)
    browser.run("await H.closeAll(); H.open('a', {project: args.p});", p=PROJECT)
    browser.run(WRITES_JS, count=50)
    before = cpu_seconds(pid)
    total = browser.run(WRITES_JS, count=1000)
    cpu = (cpu_seconds(pid) - before) / 1000
    browser.run("await H.closeAll();")
    print(f"{name}:")
    for label, (p50, p90, cpu_per) in rows.items():
        print(f"  write -> callback, {label}: p50 {p50:.2f} ms, p90 {p90:.2f} ms; emulator CPU {cpu_per * 1000:.2f} ms per write")
    print(f"  1,000 sequential writes from the browser: {total / 1000:.2f} s ({total / 1000:.2f} ms per write); emulator CPU {cpu * 1000:.2f} ms per write")
    return rows, total


def warm(browser, base, seconds):
    """Load for `seconds` (listeners and writes), so that a JIT settles."""
    host, port = urllib.parse.urlsplit(base).hostname, urllib.parse.urlsplit(base).port
    browser.driver.execute_script("H.target = arguments[0]", {"host": host, "port": port})
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        browser.run("await H.closeAll(); H.open('a', {project: args.p}); H.open('b', {project: args.p});", p=PROJECT)
        browser.run(LATENCY_JS, targets=20, rounds=30, warm=0)
        browser.run(WRITES_JS, count=200)
    browser.run("await H.closeAll();")


def abandoned_sessions(base, pid, count, rounds=4):
    """RSS over `rounds` rounds of `count / rounds` handshakes without back channels, each round
    measured once Hearth has ended that round's sessions: flat when nothing is kept."""
    parsed = urllib.parse.urlsplit(base)
    path = ("/google.firestore.v1.Firestore/Listen/channel?VER=8&database=" + urllib.parse.quote(DATABASE, safe="()")
            + "&RID=1&CVER=22&zx=a&t=1")
    body = urllib.parse.urlencode({"count": 1, "ofs": 0, "req0___data__": json.dumps({
        "database": DATABASE, "addTarget": {"documents": {"documents": [DATABASE + "/documents/s/s"]}, "targetId": 2}})})
    figures = [f"{rss_mib(pid):.1f} before"]
    for round in range(rounds):
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=10)
        for _ in range(count // rounds):
            connection.request("POST", path, body=body, headers={"Content-Type": "application/x-www-form-urlencoded"})
            response = connection.getresponse()
            response.read()
            assert response.status == 200, response.status
        connection.close()
        opened = rss_mib(pid)
        time.sleep(70)  # sessions with no back channel end after 60 s of silence (checked every 5 s)
        figures.append(f"{opened:.1f} open / {rss_mib(pid):.1f} ended")
    print(f"  {count} WebChannel sessions opened and abandoned in {rounds} rounds, RSS in MiB: " + "; ".join(figures))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hearth", default=os.path.join(ROOT, ".build-static", "release", "hearth"))
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--warm-seconds", type=float, default=60, help="load on the official emulator before measuring")
    ap.add_argument("--browser-warm-seconds", type=float, default=15, help="load on Hearth first, which warms the browser")
    ap.add_argument("--passes", type=int, default=2, help="interleaved measuring passes over both emulators")
    ap.add_argument("--sessions", type=int, default=10_000, help="abandoned sessions to open (0: skip that part)")
    ap.add_argument("--no-official", action="store_true")
    args = ap.parse_args()
    missing = jsharness.missing_browser_parts(need_sdk=True)
    if missing:
        print("SKIP: the WebChannel benchmark needs " + ", ".join(missing))
        return 0
    server = jsharness.PageServer(jsharness.find_sdk())
    browser = jsharness.Browser(server.base + "/harness/firestore.html")
    port = jsharness.free_port()
    hearth = subprocess.Popen([args.hearth, "start", "--ephemeral", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    official = None
    try:
        base = f"http://127.0.0.1:{port}"
        if not harness.wait_for_server(base, timeout=10, proc=hearth):
            raise SystemExit(f"hearth did not answer on {base}")
        # The browser's own JIT warms too: without this, the first emulator measured pays for it.
        print(f"(warming the browser on Hearth for {args.browser_warm_seconds:.0f} s)")
        warm(browser, base, args.browser_warm_seconds)
        targets = [("Hearth", f"Hearth ({args.hearth})", base, hearth.pid)]
        if not args.no_official and jsharness.gcloud_available():
            official = jsharness.OfficialEmulator()
            official_base = official.start()
            print(f"(warming the official emulator for {args.warm_seconds:.0f} s)")
            warm(browser, official_base, args.warm_seconds)
            targets.append(("official", "official emulator (warm)", official_base, java_pid(official.port)))
        else:
            print("(official emulator skipped: gcloud not found or --no-official)")
        results = {key: [] for key, *_ in targets}
        for number in range(1, args.passes + 1):
            for key, name, target_base, pid in targets:
                results[key].append(measure(browser, f"{name}, pass {number}", target_base, pid, args.rounds))
        if "official" in results:
            # Each emulator's best pass, so that a slow pass of the official one (its JIT or
            # collector at work) does not flatter Hearth.
            print(f"side by side, each emulator's best of {args.passes} interleaved passes:")
            for label in results["Hearth"][0][0]:
                h = min(rows[label][0] for rows, _ in results["Hearth"])
                o = min(rows[label][0] for rows, _ in results["official"])
                print(f"  write -> callback p50, {label}: Hearth {h:.2f} ms, official {o:.2f} ms ({h / o:.2f}x)")
            h = min(total for _, total in results["Hearth"])
            o = min(total for _, total in results["official"])
            print(f"  1,000 browser writes: Hearth {h / 1000:.2f} s, official {o / 1000:.2f} s ({h / o:.2f}x)")
        if args.sessions > 0:
            print("Hearth, abandoned sessions:")
            abandoned_sessions(base, hearth.pid, args.sessions)
    finally:
        browser.quit()
        server.close()
        hearth.terminate()
        hearth.wait(timeout=10)
        if official:
            official.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
