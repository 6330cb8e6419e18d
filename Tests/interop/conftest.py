"""Starts one Hearth (in memory, free port) for the interop tests and points the SDKs at it."""
import os
import socket
import subprocess
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hearth_binary():
    """The hearth binary under test ($HEARTH_BINARY, or the debug build), as an absolute path."""
    return os.path.abspath(os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth")))


class HearthProcess:
    """A Hearth started for tests (in memory, on a free port), with extra arguments."""

    def __init__(self, *args, cwd=None):
        binary = hearth_binary()
        self.port = _free_port()
        self.proc = subprocess.Popen([binary, "start", "--ephemeral", "--port", str(self.port), *args], cwd=cwd,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.base = f"http://127.0.0.1:{self.port}"
        self.host = f"127.0.0.1:{self.port}"
        for _ in range(400):
            try:
                urllib.request.urlopen(self.base + "/", timeout=1)
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise RuntimeError("hearth exited: " + self.proc.stdout.read())
                time.sleep(0.05)
        self.proc.kill()
        raise RuntimeError("hearth did not start")

    def stop(self):
        self.proc.terminate()
        try:
            return self.proc.communicate(timeout=10)[0]
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.communicate()[0]


@pytest.fixture(scope="session")
def hearth():
    process = HearthProcess()
    os.environ["FIRESTORE_EMULATOR_HOST"] = process.host
    yield process.base
    process.stop()


@pytest.fixture
def db(hearth, request):
    from google.cloud import firestore
    project = "interop-" + request.node.name.replace("_", "-").lower()[:40]
    urllib.request.urlopen(urllib.request.Request(
        f"{hearth}/emulator/v1/projects/{project}/databases/(default)/documents", method="DELETE"))
    return firestore.Client(project=project)
