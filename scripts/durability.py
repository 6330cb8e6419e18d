#!/usr/bin/env python3
"""Crash durability: every acknowledged write survives `kill -9`, and a SIGTERM shuts down cleanly.

Starts Hearth on a temporary data directory, writes documents in a loop (single writes and
batches of 20) while a timer sends SIGKILL, restarts Hearth on the same directory and checks
that every write Hearth acknowledged is there with its content, then stops it with SIGTERM and
checks that no `-wal` / `-shm` file is left. Repeats for several rounds.
Prints `N passed, N failed`; exits 1 on any lost write.
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import free_port, http, wait_for_server  # noqa: E402


def start(hearth, data_dir, port):
    proc = subprocess.Popen([hearth, "start", "--port", str(port), "--database-port", "0", "--data-dir", data_dir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_for_server(f"http://127.0.0.1:{port}", timeout=30, proc=proc):
        proc.kill()
        raise RuntimeError("hearth did not start")
    return proc


def post(base, path, body):
    """The answer to a POST; raises OSError when there is none or it is not a 200."""
    status, answer = http(base, "POST", path, body=body, timeout=5)
    if status != 200:
        raise OSError(f"POST {path}: {status} {answer}")
    return answer


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hearth", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    data_dir = tempfile.mkdtemp(prefix="hearth-durability-")
    root = "projects/durability/databases/(default)/documents"
    acknowledged = {}
    passed = failed = 0
    rng = random.Random(1)
    try:
        for round_no in range(args.rounds):
            port = free_port()
            proc = start(args.hearth, data_dir, port)
            base = f"http://127.0.0.1:{port}"
            killer = threading.Timer(0.4 + rng.random() * 0.6, lambda: os.kill(proc.pid, signal.SIGKILL))
            killer.start()
            i = 0
            while True:
                batch = 1 if i % 2 == 0 else 20
                writes, names = [], []
                for k in range(batch):
                    name = f"{root}/log/r{round_no}-{i}-{k}"
                    names.append(name)
                    writes.append({"update": {"name": name, "fields": {"round": {"integerValue": str(round_no)},
                                                                       "seq": {"integerValue": str(i)}}}})
                try:
                    post(base, f"/v1/{root}:commit", {"writes": writes})
                except OSError:
                    break
                for name in names:
                    acknowledged[name] = i
                i += 1
            proc.wait()
            killer.cancel()
            # Restart on the same directory and look for every acknowledged write.
            port = free_port()
            proc = start(args.hearth, data_dir, port)
            base = f"http://127.0.0.1:{port}"
            names = list(acknowledged)
            lost = []
            for chunk in range(0, len(names), 200):
                part = names[chunk:chunk + 200]
                results = post(base, f"/v1/{root}:batchGet", {"documents": part})
                for r in results:
                    if "missing" in r:
                        lost.append(r["missing"])
                    elif "found" in r:
                        seq = r["found"]["fields"]["seq"]["integerValue"]
                        if int(seq) != acknowledged[r["found"]["name"]]:
                            lost.append(r["found"]["name"])
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
            # A clean shutdown checkpoints the WAL: no -wal or -shm file is left behind.
            leftovers = [os.path.join(d, f) for d, _, files in os.walk(data_dir)
                         for f in files if f.endswith(("-wal", "-shm"))]
            if leftovers:
                failed += 1
                print(f"round {round_no}: SIGTERM left {leftovers}")
            if lost:
                failed += 1
                print(f"round {round_no}: {len(lost)} of {len(names)} acknowledged writes lost, e.g. {lost[:3]}")
            elif not leftovers:
                passed += 1
                print(f"round {round_no}: killed after {i} commits; all {len(names)} acknowledged documents present")
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
