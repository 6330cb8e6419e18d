"""A disk that fails Hearth: full, or not writable. Each is a temporary failure (UNAVAILABLE, HTTP 503,
with what to do), nothing acknowledged is lost, and requests succeed again by themselves once the
cause is gone. Also: Hearth serves when run as an unprivileged user.

These need root (to mount a small tmpfs and to run Hearth as `nobody` with setpriv); elsewhere they
are skipped. Hearth runs with its data on disk here (--data-dir), not in memory.
"""
import json
import os
import shutil
import subprocess
import tempfile
import urllib.error
import urllib.request

import pytest

from conftest import HearthProcess, hearth_binary

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv") or not shutil.which("mount"),
                               reason="needs root, setpriv and mount")


def _request(base, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(base + path, data=data, method=method, headers={"Authorization": "Bearer owner"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def _write(base, project, doc, size=10):
    return _request(base, "PATCH", f"/v1/projects/{project}/databases/(default)/documents/c/{doc}",
                    {"fields": {"v": {"stringValue": "x" * size}}})


def _names(base, project):
    status, body = _request(base, "GET", f"/v1/projects/{project}/databases/(default)/documents/c?pageSize=1000")
    assert status == 200, body
    return {d["name"].rsplit("/", 1)[1] for d in body.get("documents", [])}


def _hearth(binary, data_dir, user=None):
    prefix = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups"] if user is not None else []
    return HearthProcess("--auth-port", "0", "--data-dir", data_dir, cwd=os.path.dirname(data_dir), ephemeral=False,
                         binary=binary, prefix=prefix)


@pytest.fixture
def workdir():
    path = tempfile.mkdtemp(prefix="hearth-disk-")
    os.chmod(path, 0o755)
    yield path
    subprocess.run(["umount", "-l", os.path.join(path, "mnt")], capture_output=True)
    shutil.rmtree(path, ignore_errors=True)


@ROOT_ONLY
def test_unprivileged_user_and_unwritable_directory(workdir):
    # A copy of the binary that `nobody` can run, and a data directory it owns.
    binary = os.path.join(workdir, "hearth")
    shutil.copy(hearth_binary(), binary)
    os.chmod(binary, 0o755)
    data = os.path.join(workdir, "data")
    os.mkdir(data)
    os.chown(data, 65534, 65534)
    hearth = _hearth(binary, data, user=65534)
    try:
        # Serving at all as an unprivileged user (a socket option only root may set once
        # stopped the listener at the first connection).
        assert _write(hearth.base, "p", "a")[0] == 200
        assert _write(hearth.base, "p", "b")[0] == 200

        subprocess.run(["chmod", "-R", "a-w", data], check=True)
        # A database not yet opened cannot be created.
        status, body = _write(hearth.base, "q", "a")
        assert status == 503, body
        assert body["error"]["status"] == "UNAVAILABLE"
        assert "cannot be written" in body["error"]["message"] and data in body["error"]["message"]

        subprocess.run(["chmod", "-R", "u+w", data], check=True)
        assert _write(hearth.base, "q", "a")[0] == 200
        assert _write(hearth.base, "p", "c")[0] == 200
        assert _names(hearth.base, "p") == {"a", "b", "c"}
        assert _names(hearth.base, "q") == {"a"}
        assert hearth.proc.poll() is None
    finally:
        hearth.stop()


@ROOT_ONLY
def test_full_disk(workdir):
    mnt = os.path.join(workdir, "mnt")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", mnt], capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here")
    data = os.path.join(mnt, "data")
    hearth = _hearth(hearth_binary(), data)
    try:
        assert _write(hearth.base, "p", "before")[0] == 200
        filler = os.path.join(mnt, "filler")
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k", "count=200"], capture_output=True)
        failures = []
        acknowledged = {"before"}
        for i in range(5):
            status, body = _write(hearth.base, "p", f"big{i}", size=200_000)
            if status == 200:
                acknowledged.add(f"big{i}")
            else:
                failures.append((status, body))
        assert failures, "the disk never filled"
        status, body = failures[0]
        assert status == 503, body
        assert body["error"]["status"] == "UNAVAILABLE"
        assert "is full. Free some space and retry" in body["error"]["message"]

        os.remove(filler)
        assert _write(hearth.base, "p", "after", size=200_000)[0] == 200
        acknowledged.add("after")
        assert _names(hearth.base, "p") == acknowledged
        assert hearth.proc.poll() is None
    finally:
        hearth.stop()
    # And after a restart on the same directory.
    again = _hearth(hearth_binary(), data)
    try:
        assert _names(again.base, "p") == acknowledged
    finally:
        again.stop()
