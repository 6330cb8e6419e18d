#!/usr/bin/env python3
"""What a point read costs the server in CPU, on each transport stack it could run on, through
the same client (`doc.get()` of google-cloud-firestore: one BatchGetDocuments call over gRPC).

Servers, each measured alone (warm-up first, then --rounds of --reads reads; utime and stime of
the server's process group from /proc, per read):

- `h2floor frame`: SwiftNIO HTTP/2 with every stream's frames handled on the connection's
  channel, answering each call with one fixed message (Benchmarks/transport-floor);
- `h2floor child`: the same with a child channel per stream (NIOHTTP2's multiplexer, as
  grpc-swift's transport uses it);
- `grpcfloor`: grpc-swift 2 as documented (default configuration), answering with the same
  fixed message, passed through without decoding;
- Hearth (`--hearth`, a real read: request decoded, document read from the store, response
  encoded), and the official emulator when `gcloud` is on PATH (40 s of warm-up for its JIT).

The three floor servers do no Firestore work at all: they show what the transport alone costs
(decision 0012).

    .venv/bin/python scripts/bench_transport_floor.py --hearth .build-static/release/hearth

The floor servers are built first (`swift build -c release --package-path
Benchmarks/transport-floor`, a few minutes the first time).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import OfficialEmulator, free_port, wait_for_server  # noqa: E402
from bench_grpc import group_cpu  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "Benchmarks", "transport-floor")
PROJECT = "floor"
DOCUMENT = "cpu/read"


def fixed_message(path):
    """The BatchGetDocumentsResponse the floor servers send: the document bench_cpu.py reads."""
    from google.cloud.firestore_v1.types import document, firestore
    doc = document.Document(name=f"projects/{PROJECT}/databases/(default)/documents/{DOCUMENT}",
                            fields={"n": document.Value(integer_value=0), "text": document.Value(string_value="x" * 100)})
    doc._pb.create_time.FromSeconds(1_700_000_000)
    doc._pb.update_time.FromSeconds(1_700_000_000)
    response = firestore.BatchGetDocumentsResponse(found=doc)
    response._pb.read_time.FromSeconds(1_700_000_001)
    with open(path, "wb") as f:
        f.write(firestore.BatchGetDocumentsResponse.serialize(response))


def wait_for_port(port, seconds):
    import socket
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return True
        except OSError:
            time.sleep(0.05)
    return False


def measure(port, pgid, reads, rounds, warm_seconds, seed):
    """Per read, in microseconds: (user, system, total, wall), the median round by total."""
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
    from google.cloud import firestore
    db = firestore.Client(project=PROJECT)
    doc = db.document(DOCUMENT)
    if seed:
        doc.set({"n": 0, "text": "x" * 100})
    deadline = time.monotonic() + warm_seconds
    while time.monotonic() < deadline:
        doc.get()
    figures = []
    for _ in range(rounds):
        user0, system0 = group_cpu(pgid, split=True)
        wall0 = time.monotonic()
        for _ in range(reads):
            doc.get()
        wall1 = time.monotonic()
        user1, system1 = group_cpu(pgid, split=True)
        user, system = (user1 - user0) / reads * 1e6, (system1 - system0) / reads * 1e6
        figures.append((user, system, user + system, (wall1 - wall0) / reads * 1e6))
    db.close()
    return sorted(figures, key=lambda f: f[2])[len(figures) // 2]


def run_server(command, port, reads, rounds, warm_seconds, seed=False):
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        if not wait_for_port(port, 60):
            raise SystemExit(f"{command[0]} did not start")
        return measure(port, proc.pid, reads, rounds, warm_seconds, seed)
    finally:
        proc.terminate()
        proc.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hearth", help="a Hearth binary to measure beside the floors")
    ap.add_argument("--reads", type=int, default=4000, help="reads per round")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per server; the median is printed")
    ap.add_argument("--warm-seconds", type=float, default=4, help="warm-up of the Swift servers")
    ap.add_argument("--official-warm-seconds", type=float, default=40, help="warm-up of the official emulator")
    args = ap.parse_args()

    swift = shutil.which("swift")
    if swift is None:
        raise SystemExit("swift not found")
    subprocess.run([swift, "build", "-c", "release", "--package-path", PACKAGE], check=True, stdout=subprocess.DEVNULL)
    products = os.path.join(PACKAGE, ".build", "release")
    rows = []
    with tempfile.TemporaryDirectory() as scratch:
        message = os.path.join(scratch, "message.bin")
        fixed_message(message)
        for label, command in (("SwiftNIO HTTP/2, frames on the connection (fixed answer)", ["h2floor", "frame"]),
                               ("SwiftNIO HTTP/2, a child channel per stream (fixed answer)", ["h2floor", "child"]),
                               ("grpc-swift 2, default configuration (fixed answer)", ["grpcfloor"])):
            port = free_port()
            argv = [os.path.join(products, command[0]), str(port)] + command[1:] + [message]
            rows.append((label, run_server(argv, port, args.reads, args.rounds, args.warm_seconds)))
            print(f"measured: {label}", file=sys.stderr)
    if args.hearth:
        port = free_port()
        argv = [args.hearth, "start", "--ephemeral", "--port", str(port), "--auth-port", "0", "--database-port", "0",
                "--storage-port", "0", "--hub-port", "0"]
        rows.append(("Hearth (a real read)", run_server(argv, port, args.reads, args.rounds, args.warm_seconds, seed=True)))
        print("measured: Hearth", file=sys.stderr)
    official = None
    if shutil.which("gcloud"):
        with OfficialEmulator(free_port()) as emu:
            port = int(emu.host.rsplit(":", 1)[1])
            official = measure(port, emu.proc.pid, args.reads, args.rounds, args.official_warm_seconds, seed=True)
        rows.append(("official emulator (a real read)", official))
    else:
        print("official emulator: skipped (gcloud not found)")
    print(f"server CPU per point read, µs (median of {args.rounds} rounds of {args.reads} reads; "
          "user and system time from /proc):")
    print(f"  {'':62}{'user':>7}{'system':>8}{'total':>8}{'wall':>8}{'÷ official':>12}")
    for label, (user, system, total, wall) in rows:
        ratio = f"{total / official[2]:.2f}x" if official else "-"
        print(f"  {label:62}{user:7.0f}{system:8.0f}{total:8.0f}{wall:8.0f}{ratio:>12}")
    if official:
        print(f"  0.3x of the official emulator's total: {0.3 * official[2]:.0f} µs")


if __name__ == "__main__":
    sys.exit(main())
