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


@pytest.fixture(scope="session")
def hearth():
    binary = os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth"))
    port = _free_port()
    database_port = _free_port()
    proc = subprocess.Popen([binary, "start", "--ephemeral", "--port", str(port), "--database-port", str(database_port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(400):
        try:
            urllib.request.urlopen(base + "/", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    else:
        proc.kill()
        raise RuntimeError("hearth did not start")
    os.environ["FIRESTORE_EMULATOR_HOST"] = f"127.0.0.1:{port}"
    os.environ["FIREBASE_DATABASE_EMULATOR_HOST"] = f"127.0.0.1:{database_port}"
    for _ in range(400):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{database_port}/", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    yield base
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture
def db(hearth, request):
    from google.cloud import firestore
    project = "interop-" + request.node.name.replace("_", "-").lower()[:40]
    urllib.request.urlopen(urllib.request.Request(
        f"{hearth}/emulator/v1/projects/{project}/databases/(default)/documents", method="DELETE"))
    return firestore.Client(project=project)
