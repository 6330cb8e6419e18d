"""Starts one Hearth (in memory, free ports for Firestore and Auth) for the interop tests and points
the SDKs at it (FIRESTORE_EMULATOR_HOST, FIREBASE_AUTH_EMULATOR_HOST)."""
import os
import socket
import subprocess
import time
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The project Hearth is started for: the Auth emulator's client calls (API key only) act on it.
AUTH_PROJECT = "demo-hearth"


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def hearth_binary():
    """The hearth binary under test ($HEARTH_BINARY, or the debug build), as an absolute path."""
    return os.path.abspath(os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth")))


class HearthProcess:
    """A Hearth started for tests (in memory unless `ephemeral` is False, on a free port), with extra
    arguments; `binary` replaces the one under test, `prefix` goes before it (e.g. to run it as
    another user)."""

    def __init__(self, *args, cwd=None, ephemeral=True, binary=None, prefix=()):
        binary = binary or hearth_binary()
        self.port = _free_port()
        memory = ["--ephemeral"] if ephemeral else []
        self.proc = subprocess.Popen([*prefix, binary, "start", *memory, "--port", str(self.port), *args], cwd=cwd,
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
    auth_port = _free_port()
    process = HearthProcess("--auth-port", str(auth_port), "--project", AUTH_PROJECT)
    for _ in range(400):  # the Auth port is bound beside Firestore's, maybe a moment later
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{auth_port}/", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    else:
        process.stop()
        raise RuntimeError("hearth's Auth emulator did not start")
    os.environ["FIRESTORE_EMULATOR_HOST"] = process.host
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{auth_port}"
    yield process.base
    process.stop()


@pytest.fixture(scope="session")
def auth_emulator(hearth):
    """The Auth emulator's base URL (`http://127.0.0.1:PORT`), serving project AUTH_PROJECT."""
    return "http://" + os.environ["FIREBASE_AUTH_EMULATOR_HOST"]


@pytest.fixture
def db(hearth, request):
    from google.cloud import firestore
    project = "interop-" + request.node.name.replace("_", "-").lower()[:40]
    urllib.request.urlopen(urllib.request.Request(
        f"{hearth}/emulator/v1/projects/{project}/databases/(default)/documents", method="DELETE"))
    return firestore.Client(project=project)
