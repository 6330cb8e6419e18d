#!/usr/bin/env python3
"""Point-read and commit latency and batch-write throughput through the real Python client
(google-cloud-firestore over gRPC), for Hearth and, where gcloud is installed, the official
emulator, in the same run.

Usage: .venv/bin/python scripts/bench_grpc.py --hearth .build-static/release/hearth [--rounds 300] [--batches 30]

Latencies are medians of `rounds` calls after 20 untimed reads; batch-write throughput is over
`batches` batches of 500 new documents after one untimed batch.
"""
import argparse
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_ok(port, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=1)
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing answered on port {port}")


def measure(port, project, rounds, batches):
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
    from google.cloud import firestore
    db = firestore.Client(project=project)
    ref = db.document("bench/doc")
    ref.set({"n": 0})
    for _ in range(20):
        ref.get()
    reads, commits = [], []
    for i in range(rounds):
        t = time.perf_counter()
        ref.get()
        reads.append(time.perf_counter() - t)
        t = time.perf_counter()
        ref.set({"n": i})
        commits.append(time.perf_counter() - t)
    def write_batch(b):
        batch = db.batch()
        for i in range(500):
            batch.set(db.document(f"bulk/d{b}-{i}"), {"i": i, "text": "x" * 100})
        batch.commit()
    write_batch("warm")  # not timed, on both emulators alike
    start = time.perf_counter()
    for b in range(batches):
        write_batch(b)
    throughput = batches * 500 / (time.perf_counter() - start)
    return statistics.median(reads) * 1000, statistics.median(commits) * 1000, throughput


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hearth", required=True)
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--batches", type=int, default=30, help="timed batches of 500 documents (after one untimed)")
    args = ap.parse_args()
    results = {}
    port = free_port()
    proc = subprocess.Popen([args.hearth, "start", "--ephemeral", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_ok(port)
        results["hearth"] = measure(port, "bench-hearth", args.rounds, args.batches)
    finally:
        proc.terminate()
        proc.wait()
    if shutil.which("gcloud"):
        port = free_port()
        proc = subprocess.Popen(["gcloud", "emulators", "firestore", "start", f"--host-port=127.0.0.1:{port}"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            wait_ok(port)
            results["official"] = measure(port, "bench-official", args.rounds, args.batches)
        finally:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait()
    else:
        print("official emulator: skipped (gcloud not found)")
    for name, (read, commit, throughput) in results.items():
        print(f"{name}: point read p50 {read:.2f} ms, commit p50 {commit:.2f} ms, batch write {throughput:.0f} docs/s")
    if "official" in results:
        h, o = results["hearth"], results["official"]
        print(f"speed-up: read {o[0] / h[0]:.1f}x, commit {o[1] / h[1]:.1f}x, batch write {h[2] / o[2]:.1f}x")


if __name__ == "__main__":
    sys.exit(main())
