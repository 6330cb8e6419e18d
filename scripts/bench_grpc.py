#!/usr/bin/env python3
"""Point-read and commit latency and batch-write throughput through the real Python client
(google-cloud-firestore over gRPC), for Hearth and, where gcloud is installed, the official
emulator, in the same run.

Usage: .venv/bin/python scripts/bench_grpc.py --hearth .build-static/release/hearth [--rounds 300] [--batches 30]

Latencies are medians of `rounds` calls after 20 untimed reads. Batch-write throughput is over
`batches` batches of 500 new documents after `warm-batches` untimed ones: first the emulator's own rate,
with batches the client built beforehand committed one at a time (the headline figure: building a
batch is the client's work, the same for both emulators, and at about 27 ms per batch it would
otherwise dominate both), then with the client building each batch inside the timed loop, from
one client committing one batch at a time and from one client keeping up to 4 commits in flight
while it builds the next, and then with `writers` client processes committing `writer-batches`
batches each at the same time. Each emulator's line is followed
by where a batch's time goes (the client's share, measured in this process) and, on Linux, the
emulator's CPU time (its process group, from /proc) per read+commit round and per batch.
"""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import OfficialEmulator, free_port, wait_for_server  # noqa: E402


def wait_ok(port, timeout=120):
    if not wait_for_server(f"http://127.0.0.1:{port}", timeout):
        raise RuntimeError(f"nothing answered on port {port}")


def group_cpu(pgid, split=False):
    """CPU seconds used so far by the processes of a process group (Linux /proc), or None; with
    `split`, a pair (user, system)."""
    if pgid is None or not os.path.isdir("/proc"):
        return None
    user = system = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:  # pgrp
            user += int(fields[11])  # utime
            system += int(fields[12])  # stime
    tick = os.sysconf("SC_CLK_TCK")
    return (user / tick, system / tick) if split else (user + system) / tick


def prepare_batches(db, batches, collection):
    """`batches` write batches of 500 new documents of `collection`, built and not committed."""
    prepared = []
    for b in range(batches):
        batch = db.batch()
        for i in range(500):
            batch.set(db.document(f"{collection}/d{b}-{i}"), {"i": i, "text": "x" * 100})
        prepared.append(batch)
    return prepared


def measure(port, project, rounds, batches, warm_batches, pgid=None):
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
    from google.cloud import firestore
    db = firestore.Client(project=project)
    ref = db.document("bench/doc")
    ref.set({"n": 0})
    for _ in range(20):
        ref.get()
    reads, commits = [], []
    cpu0 = group_cpu(pgid)
    for i in range(rounds):
        t = time.perf_counter()
        ref.get()
        reads.append(time.perf_counter() - t)
        t = time.perf_counter()
        ref.set({"n": i})
        commits.append(time.perf_counter() - t)
    cpu1 = group_cpu(pgid)
    builds, calls, call_cpu = [], [], []
    def write_batch(b):
        t0, c0 = time.perf_counter(), time.process_time()
        batch = db.batch()
        for i in range(500):
            batch.set(db.document(f"bulk/d{b}-{i}"), {"i": i, "text": "x" * 100})
        t1, c1 = time.perf_counter(), time.process_time()
        batch.commit()
        builds.append(t1 - t0)
        calls.append(time.perf_counter() - t1)
        call_cpu.append(time.process_time() - c1)
    for w in range(warm_batches):  # not timed, on both emulators alike (the JVM's JIT needs a few)
        write_batch(f"warm{w}")
    builds.clear(), calls.clear(), call_cpu.clear()
    # The emulator's throughput: batches built beforehand (the client turns each set() into
    # protobuf at once, untimed), then committed one after another.
    prepared = prepare_batches(db, batches, "bulk-ready")
    cpu2 = group_cpu(pgid)
    start = time.perf_counter()
    for batch in prepared:
        batch.commit()
    throughput = batches * 500 / (time.perf_counter() - start)
    cpu3 = group_cpu(pgid)
    # The same with the client building each batch in the loop (its building time counts).
    start = time.perf_counter()
    for b in range(batches):
        write_batch(b)
    built_in_loop = batches * 500 / (time.perf_counter() - start)
    pipelined = pipelined_throughput(db, batches)
    ms = lambda xs: statistics.median(xs) * 1000
    detail = (f"batch of 500: client builds it in {ms(builds):.1f} ms, commit call {ms(calls):.1f} ms "
              f"(client CPU in it {ms(call_cpu):.1f} ms)")
    if cpu0 is not None:
        detail += (f"; server CPU per read+commit round {(cpu1 - cpu0) / rounds * 1000:.2f} ms, "
                   f"per batch {(cpu3 - cpu2) / batches * 1000:.1f} ms")
    return (statistics.median(reads) * 1000, statistics.median(commits) * 1000, throughput, built_in_loop,
            pipelined, detail)


def pipelined_throughput(db, batches, in_flight=4):
    """Batch-write throughput from one client that keeps up to `in_flight` commits running on
    worker threads while its main thread builds the next batch (the client releases the GIL while
    it waits on a call), so the client's building time overlaps the server's work."""
    from concurrent.futures import ThreadPoolExecutor
    import threading
    slots = threading.Semaphore(in_flight)
    def commit(batch):
        try:
            batch.commit()
        finally:
            slots.release()
    with ThreadPoolExecutor(max_workers=in_flight) as pool:
        start = time.perf_counter()
        futures = []
        for b in range(batches):
            batch = db.batch()
            for i in range(500):
                batch.set(db.document(f"bulk-p/d{b}-{i}"), {"i": i, "text": "x" * 100})
            slots.acquire()
            futures.append(pool.submit(commit, batch))
        for f in futures:
            f.result()
        return batches * 500 / (time.perf_counter() - start)


def _writer(port, project, worker, batches, barrier, results):
    """One client process of the concurrent run: waits for the others, then commits its batches."""
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
    from google.cloud import firestore
    db = firestore.Client(project=project)
    def write_batch(tag):
        batch = db.batch()
        for i in range(500):
            batch.set(db.document(f"bulk-{worker}/d{tag}-{i}"), {"i": i, "text": "x" * 100})
        batch.commit()
    write_batch("warm")
    barrier.wait()
    start = time.time()
    for b in range(batches):
        write_batch(b)
    results.put((start, time.time()))


def concurrent_throughput(port, project, writers, batches):
    """Batch-write throughput with `writers` client processes committing at once: total documents
    over the time from the first start to the last finish. Each process builds its own batches,
    so the client's own cost (the larger part of a batch's time in one process) is spread over
    processes and the server's capacity shows."""
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(writers), ctx.Queue()
    procs = [ctx.Process(target=_writer, args=(port, project, w, batches, barrier, results)) for w in range(writers)]
    for p in procs:
        p.start()
    spans = [results.get(timeout=600) for _ in procs]
    for p in procs:
        p.join()
    elapsed = max(end for _, end in spans) - min(start for start, _ in spans)
    return writers * batches * 500 / elapsed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hearth", required=True)
    ap.add_argument("--rounds", type=int, default=300)
    ap.add_argument("--batches", type=int, default=30, help="timed batches of 500 documents (after one untimed)")
    ap.add_argument("--warm-batches", type=int, default=5, help="untimed batches before the timed ones")
    ap.add_argument("--writers", type=int, default=4, help="client processes in the concurrent batch-write run (0: skip it)")
    ap.add_argument("--writer-batches", type=int, default=10, help="timed batches per client process in the concurrent run")
    args = ap.parse_args()
    results, concurrent = {}, {}
    port = free_port()
    proc = subprocess.Popen([args.hearth, "start", "--ephemeral", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_ok(port)
        results["hearth"] = measure(port, "bench-hearth", args.rounds, args.batches, args.warm_batches, pgid=proc.pid)
        if args.writers:
            concurrent["hearth"] = concurrent_throughput(port, "bench-hearth-c", args.writers, args.writer_batches)
    finally:
        proc.terminate()
        proc.wait()
    if shutil.which("gcloud"):
        with OfficialEmulator(free_port()) as emu:  # its own process group, stopped at the end
            port = int(emu.host.rsplit(":", 1)[1])
            results["official"] = measure(port, "bench-official", args.rounds, args.batches, args.warm_batches, pgid=emu.proc.pid)
            if args.writers:
                concurrent["official"] = concurrent_throughput(port, "bench-official-c", args.writers, args.writer_batches)
    else:
        print("official emulator: skipped (gcloud not found)")
    for name, (read, commit, throughput, built_in_loop, pipelined, detail) in results.items():
        print(f"{name}: point read p50 {read:.2f} ms, commit p50 {commit:.2f} ms, batch write {throughput:.0f} docs/s "
              f"(prepared batches, one commit at a time); with the client building each batch: {built_in_loop:.0f} docs/s "
              f"one at a time, {pipelined:.0f} docs/s with up to 4 commits in flight")
        print(f"  {detail}")
    for name, throughput in concurrent.items():
        print(f"{name}: batch write with {args.writers} client processes at once {throughput:.0f} docs/s")
    if "official" in results:
        h, o = results["hearth"], results["official"]
        print(f"speed-up: read {o[0] / h[0]:.1f}x, commit {o[1] / h[1]:.1f}x, batch write {h[2] / o[2]:.1f}x (prepared batches); "
              f"with the client building each batch {h[3] / o[3]:.1f}x (one at a time), {h[4] / o[4]:.1f}x (4 in flight)"
              + (f", {concurrent['hearth'] / concurrent['official']:.1f}x ({args.writers} clients)" if "official" in concurrent else ""))


if __name__ == "__main__":
    sys.exit(main())
