"""Starts one Hearth (in memory, free ports for Firestore and Auth) for the interop tests and points
the SDKs at it (FIRESTORE_EMULATOR_HOST, FIREBASE_AUTH_EMULATOR_HOST)."""
import os
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# The project Hearth is started for: the Auth emulator's client calls (API key only) act on it.
AUTH_PROJECT = "demo-hearth"

sys.path.insert(0, os.path.join(ROOT, "scripts"))
import harness  # noqa: E402  (its free_port: below the ephemeral range, never handed out twice)


def _free_port():
    return harness.free_port()


def hearth_binary():
    """The hearth binary under test ($HEARTH_BINARY, or the debug build), as an absolute path."""
    return os.path.abspath(os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth")))


def wait_until_answering(url, proc, output, attempts=400):
    """Waits until `url` answers (any HTTP status); raises with the process's output if it exits
    first, or kills it if it never answers."""
    for _ in range(attempts):
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError("hearth exited: " + output())
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"hearth did not answer on {url}: " + output())


class HearthProcess:
    """A Hearth started for tests (in memory unless `ephemeral` is False, on a free port), with extra
    arguments; with database=True its Realtime Database on another free port (else none, so that
    tests never take the default port 9000; Storage likewise stays off unless the arguments name
    its port, and the hub too); `binary` replaces the one under test, `prefix` goes before it (e.g. to run it as
    another user)."""

    def __init__(self, *args, cwd=None, database=False, ephemeral=True, binary=None, prefix=()):
        binary = binary or hearth_binary()
        self.port = _free_port()
        self.database_port = _free_port() if database else 0
        memory = ["--ephemeral"] if ephemeral else []
        storage = [] if "--storage-port" in args else ["--storage-port", "0"]
        # The hub stays off unless asked for, so that tests never take the default port 4400.
        storage += [] if "--hub-port" in args else ["--hub-port", "0"]
        # The log goes to a file, not a pipe: a long session's warnings must never fill a pipe
        # nobody reads and block the server.
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([*prefix, binary, "start", *memory, "--port", str(self.port),
                                      "--database-port", str(self.database_port), *storage, *args], cwd=cwd,
                                     stdout=self.log, stderr=subprocess.STDOUT, text=True)
        self.base = f"http://127.0.0.1:{self.port}"
        self.host = f"127.0.0.1:{self.port}"
        self.database_host = f"127.0.0.1:{self.database_port}"
        urls = [self.base + "/"] + ([f"http://{self.database_host}/"] if database else [])
        for url in urls:
            wait_until_answering(url, self.proc, self.output)

    def output(self):
        """Everything the process has printed so far."""
        self.log.seek(0)
        return self.log.read()

    def stop(self):
        """Ends the process and returns what it printed."""
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        output = self.output()
        self.log.close()
        return output


@pytest.fixture(scope="session")
def hearth():
    auth_port = _free_port()
    process = HearthProcess("--auth-port", str(auth_port), "--project", AUTH_PROJECT, database=True)
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
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = process.database_host
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
