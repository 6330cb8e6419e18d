#!/usr/bin/env python3
"""Storage crash durability: objects and their bytes stay consistent across `kill -9`.

Starts Hearth on a temporary data directory and, while a timer sends SIGKILL, uploads objects
(new ones and overwrites, 1 KB to 3 MB), patches their metadata and feeds a resumable upload in
256 KiB chunks. After a restart on the same directory it checks that:

- every acknowledged upload is there with its bytes (an overwrite cut off by the kill leaves the
  old bytes or the new ones, never a mix); an unacknowledged new object is absent or whole;
- every acknowledged metadata patch is there;
- the resumable upload reports at least the bytes acknowledged, resumes from there and ends
  with the right bytes;
- on disk, `storage/blobs/` holds exactly one file per object and `storage/uploads/` one per
  unfinished upload: no half object, nothing orphaned.

Then SIGTERM, which must leave no SQLite `-wal`/`-shm` file. Repeats for several rounds on the
same directory. Prints `N passed, N failed`; exits 1 on any failure.
"""
import argparse
import hashlib
import http.client
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import free_port, wait_for_server  # noqa: E402

BUCKET = "durability"
CHUNK = 256 * 1024


def start(hearth, data_dir, port, storage_port):
    proc = subprocess.Popen([hearth, "start", "--port", str(port), "--storage-port", str(storage_port), "--data-dir", data_dir],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if not wait_for_server(f"http://127.0.0.1:{storage_port}", timeout=30, proc=proc, want_ok=True):
        proc.kill()
        raise RuntimeError("hearth did not start")
    return proc


def request(port, method, path, body=b"", headers=None, timeout=10):
    """(status, headers, body bytes); raises OSError when there is no answer."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    except http.client.HTTPException as err:
        raise OSError(str(err))
    finally:
        conn.close()


def quote(name):
    return urllib.parse.quote(name, safe="")


def content(name, version):
    """The bytes of one version of an object: 1 KB to 3 MB, known from its name and version."""
    rng = random.Random(f"{name}#{version}")
    return rng.randbytes(rng.choice([1024, 70_000, 600_000, 3_000_000]))


def md5(data):
    return hashlib.md5(data).hexdigest()


class Writer:
    """What was sent and what Hearth acknowledged, across rounds."""

    def __init__(self):
        self.acked = {}          # name -> md5 of the acknowledged bytes
        self.pending = {}        # name -> md5 of bytes sent without an answer (the kill came)
        self.versions = {}       # name -> versions sent
        self.patched = {}        # name -> the last acknowledged metadata "seq"
        self.session = None      # (upload path, name, bytes, acknowledged offset)
        self.resumed = []        # (acknowledged, kept) of each resumable upload resumed after a kill

    def upload(self, port, name):
        version = self.versions.get(name, 0) + 1
        self.versions[name] = version
        data = content(name, version)
        self.pending[name] = md5(data)
        status, _, _ = request(port, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name={quote(name)}", data,
                               {"Content-Type": "application/octet-stream"})
        if status != 200:
            raise OSError(f"upload {name}: {status}")
        self.acked[name] = self.pending.pop(name)
        self.patched.pop(name, None)  # a new version has new metadata

    def patch(self, port, name, seq):
        body = json.dumps({"metadata": {"seq": str(seq)}}).encode()
        status, _, _ = request(port, "PATCH", f"/storage/v1/b/{BUCKET}/o/{quote(name)}", body, {"Content-Type": "application/json"})
        if status != 200:
            raise OSError(f"patch {name}: {status}")
        self.patched[name] = seq

    def resumable_step(self, port, round_no):
        if self.session is None:
            name = f"resumable/r{round_no}"
            data = random.Random(name).randbytes(40 * CHUNK + 123)
            status, headers, _ = request(port, "POST", f"/upload/storage/v1/b/{BUCKET}/o?uploadType=resumable&name={quote(name)}",
                                         b"", {"X-Upload-Content-Length": str(len(data))})
            if status != 200:
                raise OSError(f"resumable start: {status}")
            location = urllib.parse.urlsplit(headers["location"])
            self.session = [f"{location.path}?{location.query}", name, data, 0]
            return
        path, name, data, offset = self.session
        end = min(offset + CHUNK, len(data))
        status, _, _ = request(port, "PUT", path, data[offset:end], {"Content-Range": f"bytes {offset}-{end - 1}/{len(data)}"})
        if status == 308:
            self.session[3] = end
        elif status == 200:
            self.acked[name] = md5(data)
            self.session = None
        else:
            raise OSError(f"resumable chunk: {status}")


def write_until_killed(port, writer, round_no, rng):
    i = 0
    while True:
        try:
            roll = rng.random()
            if roll < 0.5 or not writer.acked:
                writer.upload(port, f"r{round_no}/new-{i}")
            elif roll < 0.65:
                writer.upload(port, rng.choice(sorted(writer.acked)))
            elif roll < 0.8:
                writer.patch(port, rng.choice(sorted(writer.acked)), i)
            else:
                writer.resumable_step(port, round_no)
        except OSError:
            return i
        i += 1


def check(port, writer, data_dir):
    """Problems found after a restart (and the resumable upload finished)."""
    problems = []
    landed = set()  # names whose unacknowledged upload turned out committed
    for name, digest in sorted(writer.acked.items()):
        status, _, body = request(port, "GET", f"/storage/v1/b/{BUCKET}/o/{quote(name)}?alt=media", timeout=30)
        if status == 200 and md5(body) == writer.pending.get(name):
            landed.add(name)
        elif status != 200 or md5(body) != digest:
            problems.append(f"{name}: {status}, {len(body)} bytes, not the acknowledged ones")
    for name, digest in sorted(writer.pending.items()):
        if name in writer.acked:
            continue
        status, _, body = request(port, "GET", f"/storage/v1/b/{BUCKET}/o/{quote(name)}?alt=media", timeout=30)
        if status == 200 and md5(body) == digest:
            landed.add(name)
        elif status != 404:
            problems.append(f"{name}: unacknowledged, and visible ({status}) with {len(body)} bytes that are not the ones sent")
    for name, seq in sorted(writer.patched.items()):
        if name in landed:
            continue
        status, _, body = request(port, "GET", f"/storage/v1/b/{BUCKET}/o/{quote(name)}")
        found = json.loads(body).get("metadata", {}).get("seq") if status == 200 else None
        # A patch in flight at the kill may have landed too: its seq is higher.
        if found is None or int(found) < seq:
            problems.append(f"{name}: metadata seq {found}, acknowledged {seq}")
    for name in landed:
        writer.acked[name] = writer.pending[name]
        writer.patched.pop(name, None)
    if writer.session is not None:
        path, name, data, offset = writer.session
        status, headers, _ = request(port, "PUT", path, b"", {"Content-Range": f"bytes */{len(data)}"})
        have = int(headers.get("range", "bytes=0--1").split("-")[-1]) + 1 if status == 308 else -1
        if have < offset:
            problems.append(f"resumable upload: {status}, {have} bytes kept of {offset} acknowledged")
        else:
            status, _, _ = request(port, "PUT", path, data[have:], {"Content-Range": f"bytes {have}-{len(data) - 1}/{len(data)}"}, timeout=60)
            status, _, body = request(port, "GET", f"/storage/v1/b/{BUCKET}/o/{quote(name)}?alt=media", timeout=30)
            if status != 200 or body != data:
                problems.append(f"resumable upload resumed at {have}: {status}, {len(body)} bytes, not the ones sent")
            else:
                writer.acked[name] = md5(data)
                writer.resumed.append((offset, have))
            writer.session = None
    status, _, body = request(port, "GET", f"/storage/v1/b/{BUCKET}/o?maxResults=1000")
    listed = [item["name"] for item in json.loads(body).get("items", [])]
    blobs = os.listdir(os.path.join(data_dir, "storage", "blobs"))
    uploads = os.listdir(os.path.join(data_dir, "storage", "uploads"))
    if len(blobs) != len(listed):
        problems.append(f"{len(blobs)} blob files for {len(listed)} objects")
    if uploads:
        problems.append(f"{len(uploads)} files left in uploads/ with no upload unfinished")
    return problems


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hearth", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    data_dir = tempfile.mkdtemp(prefix="hearth-storage-durability-")
    writer = Writer()
    rng = random.Random(2)
    passed = failed = 0
    try:
        for round_no in range(args.rounds):
            port, storage_port = free_port(), free_port()
            proc = start(args.hearth, data_dir, port, storage_port)
            killer = threading.Timer(0.8 + rng.random() * 1.2, lambda: os.kill(proc.pid, signal.SIGKILL))
            killer.start()
            steps = write_until_killed(storage_port, writer, round_no, rng)
            resumed = len(writer.resumed)
            proc.wait()
            killer.cancel()
            port, storage_port = free_port(), free_port()
            proc = start(args.hearth, data_dir, port, storage_port)
            problems = check(storage_port, writer, data_dir)
            writer.pending.clear()
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=10)
            leftovers = [os.path.join(d, f) for d, _, files in os.walk(data_dir) for f in files if f.endswith(("-wal", "-shm"))]
            if leftovers:
                problems.append(f"SIGTERM left {leftovers}")
            if problems:
                failed += 1
                print(f"round {round_no}: killed after {steps} steps; " + "; ".join(problems[:5]))
            else:
                passed += 1
                print(f"round {round_no}: killed after {steps} steps; all {len(writer.acked)} acknowledged objects whole, "
                      f"{len(writer.patched)} patches kept, blobs and uploads consistent"
                      + (f"; a resumable upload resumed at byte {writer.resumed[-1][1]} ({writer.resumed[-1][0]} acknowledged)"
                         if len(writer.resumed) > resumed else ""))
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
