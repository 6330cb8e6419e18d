#!/usr/bin/env python3
"""Transaction contention through the real Python client: THREADS threads each run INCREMENTS
`@firestore.transactional` increments of one counter. Prints the final count, the errors
(a client gives up after 5 attempts), how many attempts the increments took (1 when nothing
was in the way) and the time taken.

    .venv/bin/python scripts/tx_contention.py 127.0.0.1:8080 [INCREMENTS=10] [THREADS=2]
"""
import os
import sys
import threading
import time


def main():
    os.environ["FIRESTORE_EMULATOR_HOST"] = sys.argv[1]
    increments = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    from google.cloud import firestore
    db = firestore.Client(project=f"contention-{int(time.time() * 1000)}")
    ref = db.document("counters/shared")
    ref.set({"n": 0})
    errors = []
    attempts = []

    def worker():
        client = firestore.Client(project=db.project)
        counter = client.document(ref.path)
        for _ in range(increments):
            tries = [0]

            @firestore.transactional
            def increment(tx):
                tries[0] += 1
                snap = counter.get(transaction=tx)
                tx.update(counter, {"n": snap.get("n") + 1})
            try:
                increment(client.transaction())
            except Exception as e:  # noqa: BLE001
                errors.append(repr(e)[:100])
            attempts.append(tries[0])

    start = time.time()
    pool = [threading.Thread(target=worker) for _ in range(threads)]
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    histogram = {k: attempts.count(k) for k in sorted(set(attempts))}
    print(f"n = {ref.get().get('n')} of {increments * threads}, {len(errors)} errors {errors[:2]}, "
          f"attempts per increment {histogram}, in {time.time() - start:.1f} s")


if __name__ == "__main__":
    main()
