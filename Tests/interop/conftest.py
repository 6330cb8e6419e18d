"""Starts one Hearth (in memory, free port) for the interop tests and points the SDKs at it."""
import os
import socket
import subprocess
import tempfile
import time
import urllib.error
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
    """A Hearth started for tests (in memory, on a free port), with extra arguments; with
    database=True its Realtime Database on another free port (else none, so that tests never
    take the default port 9000)."""

    def __init__(self, *args, cwd=None, database=False):
        binary = hearth_binary()
        self.port = _free_port()
        self.database_port = _free_port() if database else 0
        # The log goes to a file, not a pipe: a long session's warnings must never fill a pipe
        # nobody reads and block the server.
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen([binary, "start", "--ephemeral", "--port", str(self.port),
                                      "--database-port", str(self.database_port), *args], cwd=cwd,
                                     stdout=self.log, stderr=subprocess.STDOUT, text=True)
        self.base = f"http://127.0.0.1:{self.port}"
        self.host = f"127.0.0.1:{self.port}"
        self.database_host = f"127.0.0.1:{self.database_port}"
        urls = [self.base + "/"] + ([f"http://{self.database_host}/"] if database else [])
        for url in urls:
            for _ in range(400):
                try:
                    urllib.request.urlopen(url, timeout=1)
                    break
                except urllib.error.HTTPError:
                    break
                except OSError:
                    if self.proc.poll() is not None:
                        raise RuntimeError("hearth exited: " + self.output())
                    time.sleep(0.05)
            else:
                self.proc.kill()
                raise RuntimeError("hearth did not start")

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
    process = HearthProcess(database=True)
    os.environ["FIRESTORE_EMULATOR_HOST"] = process.host
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = process.database_host
    yield process.base
    process.stop()


@pytest.fixture
def db(hearth, request):
    from google.cloud import firestore
    project = "interop-" + request.node.name.replace("_", "-").lower()[:40]
    urllib.request.urlopen(urllib.request.Request(
        f"{hearth}/emulator/v1/projects/{project}/databases/(default)/documents", method="DELETE"))
    return firestore.Client(project=project)
