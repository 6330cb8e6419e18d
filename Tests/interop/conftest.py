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


@pytest.fixture(scope="session")
def hearth():
    binary = os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth"))
    port, auth_port = _free_port(), _free_port()
    proc = subprocess.Popen([binary, "start", "--ephemeral", "--port", str(port), "--auth-port", str(auth_port),
                             "--project", AUTH_PROJECT],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for url in (base + "/", f"http://127.0.0.1:{auth_port}/"):
        for _ in range(400):
            try:
                urllib.request.urlopen(url, timeout=1)
                break
            except OSError:
                time.sleep(0.05)
        else:
            proc.kill()
            raise RuntimeError("hearth did not start")
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
    os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{auth_port}"
    yield base
    proc.terminate()
    proc.wait(timeout=10)


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
