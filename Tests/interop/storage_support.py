"""What the Cloud Storage interop tests share: a Hearth with Storage on its own ports, a freshly
made service account key (never a real one), and small HTTP helpers.

- StorageHearth(binary, tmp): `hearth start --ephemeral` with a free Firestore port and a free
  `--storage-port`, signed URLs trusted for the generated service account; `set_rules(text)`
  loads storage rules through `PUT /internal/setRules`; `put_document()` writes Firestore as admin.
- make_service_account(path): a service account JSON with a new 2048-bit RSA key.
"""
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
from harness import free_port  # noqa: E402,F401  (below the ephemeral range, never handed out twice)
BUCKET = "demo-app.appspot.com"
PROJECT = "demo-app"
SIGNER = "signer@demo-app.iam.gserviceaccount.com"


def make_service_account(path, email=SIGNER):
    """Writes a service account key file with a fresh RSA key (for signing URLs in tests)."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    with open(path, "w") as f:
        json.dump({"type": "service_account", "project_id": PROJECT, "private_key_id": "test-key",
                   "private_key": pem, "client_email": email, "client_id": "1",
                   # Never contacted: the tests sign locally and authenticate as "owner".
                   "token_uri": "http://127.0.0.1:9/token"}, f)
    return path


def request(method, url, body=None, headers=None):
    """(status, headers, body bytes) of a plain HTTP request; never raises on an HTTP status."""
    data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


class StorageHearth:
    def __init__(self, binary, tmp, extra=()):
        self.firestore_port = free_port()
        self.port = free_port()
        self.service_account = make_service_account(os.path.join(tmp, "service-account.json"))
        self.log = open(os.path.join(tmp, "hearth.log"), "w")
        self.proc = subprocess.Popen(
            [binary, "start", "--ephemeral", "--port", str(self.firestore_port), "--storage-port", str(self.port),
             "--storage-service-account", self.service_account, "--hub-port", "0", *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        self.base = f"http://127.0.0.1:{self.port}"
        self.firestore = f"http://127.0.0.1:{self.firestore_port}"
        deadline = time.monotonic() + 20
        while True:
            try:
                urllib.request.urlopen(self.firestore + "/", timeout=1)
                urllib.request.urlopen(self.base + "/", timeout=1)
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    raise RuntimeError("hearth did not start: " + open(self.log.name).read())
                time.sleep(0.05)

    def set_rules(self, text, name="storage.rules"):
        status, _, body = request("PUT", self.base + "/internal/setRules",
                                  {"rules": {"files": [{"name": name, "content": text}]}},
                                  {"Content-Type": "application/json"})
        assert status == 200, body
        return json.loads(body)

    def reset(self):
        status, _, body = request("POST", self.base + "/internal/reset")
        assert status == 200, body

    def put_document(self, path, fields, project=PROJECT):
        """Writes a Firestore document as admin (REST), e.g. put_document("bottles/b1", {...})."""
        def value(v):
            if isinstance(v, bool):
                return {"booleanValue": v}
            if isinstance(v, int):
                return {"integerValue": str(v)}
            if isinstance(v, list):
                return {"arrayValue": {"values": [value(x) for x in v]}}
            return {"stringValue": v}
        status, _, body = request(
            "PATCH", f"{self.firestore}/v1/projects/{project}/databases/(default)/documents/{path}",
            {"fields": {k: value(v) for k, v in fields.items()}},
            {"Content-Type": "application/json", "Authorization": "Bearer owner"})
        assert status == 200, body

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.log.close()


def example_rules(name):
    with open(os.path.join(ROOT, "rules", name)) as f:
        return f.read()
