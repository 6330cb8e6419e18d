"""The HTTP calls @firebase/rules-unit-testing (firebase-js-sdk packages/rules-unit-testing) makes,
replayed against Hearth: hub discovery (`discoverEmulators`: GET /emulators on FIREBASE_EMULATOR_HUB),
loading rules (`loadFirestoreRules`, `loadDatabaseRules`, `loadStorageRules` in impl/rules.ts, bodies
as sent there: Firestore's file has no name), contexts with mock user tokens (`createMockUserToken` in
@firebase/util: alg "none", an empty signature, iat 0 so the token "expired" in 1970) and the owner
token of `withSecurityRulesDisabled`, and the clear calls (`clearFirestore`, `clearDatabase` as owner
`set(null)` at the root, `clearStorage` as owner listing the root and deleting each item).

The tokens travel as the SDKs carry them: Firestore's as `Authorization: Bearer`, Storage's as
`Authorization: Firebase`, the Realtime Database's in the WebSocket `auth` request (and, for REST
callers, `?auth=`). Node is not used: the calls are made with urllib and websocket-client."""
import base64
import json
import os
import signal
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest

from conftest import _free_port as free_port, hearth_binary

PROJECT = "demo-rules-unit"

FIRESTORE_RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /users/{userId} {
      allow read, write: if request.auth != null && request.auth.uid == userId;
    }
  }
}
"""
DATABASE_RULES = json.dumps({"rules": {"profiles": {"$uid": {".read": "auth != null", ".write": "auth != null && auth.uid === $uid"}}}})
STORAGE_RULES = """rules_version = '2';
service firebase.storage {
  match /b/{bucket}/o {
    match /{uid}/{file} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
    match /{file} {
      allow read, write: if request.auth != null;
    }
  }
}
"""


def call(method, url, body=None, headers=None):
    data = body if isinstance(body, (bytes, type(None))) else (body.encode() if isinstance(body, str) else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


def b64(value):
    return base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()


def mock_user_token(uid, project=PROJECT, **claims):
    """@firebase/util's createMockUserToken, field for field."""
    payload = {"iss": f"https://securetoken.google.com/{project}", "aud": project, "iat": 0, "exp": 3600, "auth_time": 0,
               "sub": uid, "user_id": uid, "firebase": {"sign_in_provider": "custom", "identities": {}}, **claims}
    return b64({"alg": "none", "type": "JWT"}) + "." + b64(payload) + "."


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """Hearth started from a project whose firebase.json names only ports (no rules: the test
    loads them as rules-unit-testing does); returns the emulators discovered through the hub."""
    folder = tmp_path_factory.mktemp("rut")
    ports = {name: free_port() for name in ["firestore", "database", "storage", "hub"]}
    (folder / "firebase.json").write_text(json.dumps({"emulators": {name: {"port": port} for name, port in ports.items()}}))
    environment = {k: v for k, v in os.environ.items() if not k.endswith("_EMULATOR_HOST")}
    environment["TMPDIR"] = str(folder)
    log = open(folder / "hearth.log", "w+")
    proc = subprocess.Popen([hearth_binary(), "start", "--ephemeral", "--project", PROJECT], cwd=folder, env=environment,
                            stdout=log, stderr=subprocess.STDOUT)
    hub = f"127.0.0.1:{ports['hub']}"
    deadline = time.monotonic() + 30
    while True:
        status, body = (None, None)
        try:
            status, body = call("GET", f"http://{hub}/emulators")
        except OSError:
            pass
        if status == 200 and {"firestore", "database", "storage"} <= set(json.loads(body)):
            break
        assert proc.poll() is None and time.monotonic() < deadline, open(folder / "hearth.log").read()
        time.sleep(0.1)
    # discoverEmulators: host and port of database, firestore, storage and hub.
    discovered = {name: f"http://{info['host']}:{info['port']}" for name, info in json.loads(body).items()
                  if name in ("database", "firestore", "storage", "hub")}
    yield discovered
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=20)


def test_discovery_finds_each_emulator_at_its_port(env):
    assert set(env) == {"database", "firestore", "storage", "hub"}
    for name in ["database", "firestore", "storage"]:
        status, _ = call("GET", env[name] + "/")
        assert status < 500


def test_rules_load_as_initializeTestEnvironment_loads_them(env):
    status, body = call("PUT", f"{env['database']}/.settings/rules.json?ns={PROJECT}", DATABASE_RULES, {"Authorization": "Bearer owner"})
    assert status == 200, body
    status, body = call("PUT", f"{env['firestore']}/emulator/v1/projects/{PROJECT}:securityRules",
                        {"rules": {"files": [{"content": FIRESTORE_RULES}]}})
    assert status == 200, body
    status, body = call("PUT", f"{env['storage']}/internal/setRules",
                        {"rules": {"files": [{"name": "storage.rules", "content": STORAGE_RULES}]}}, {"Content-Type": "application/json"})
    assert status == 200, body
    # Rules that do not compile are refused with their problems (initializeTestEnvironment throws).
    status, body = call("PUT", f"{env['firestore']}/emulator/v1/projects/{PROJECT}:securityRules",
                        {"rules": {"files": [{"content": "service cloud.firestore { match /x { allow read: if ; } }"}]}})
    assert status == 400 or b"issues" in body


@pytest.fixture
def loaded(env):
    test_rules_load_as_initializeTestEnvironment_loads_them(env)
    return env


def document_url(env, path):
    return f"{env['firestore']}/v1/projects/{PROJECT}/databases/(default)/documents/{path}"


def test_firestore_contexts_follow_the_rules(loaded):
    alice, bob = {"Authorization": "Bearer " + mock_user_token("alice")}, {"Authorization": "Bearer " + mock_user_token("bob")}
    body = {"fields": {"name": {"stringValue": "Alice"}}}
    assert call("PATCH", document_url(loaded, "users/alice"), body, alice)[0] == 200
    assert call("GET", document_url(loaded, "users/alice"), None, alice)[0] == 200
    assert call("GET", document_url(loaded, "users/alice"), None, bob)[0] == 403
    assert call("GET", document_url(loaded, "users/alice"))[0] == 403  # unauthenticatedContext
    assert call("PATCH", document_url(loaded, "users/bob"), body, alice)[0] == 403
    # withSecurityRulesDisabled: the owner token.
    assert call("GET", document_url(loaded, "users/alice"), None, {"Authorization": "Bearer owner"})[0] == 200


def test_clearFirestore_deletes_every_document(loaded):
    owner = {"Authorization": "Bearer owner"}
    assert call("PATCH", document_url(loaded, "users/carol"), {"fields": {}}, owner)[0] == 200
    status, body = call("DELETE", f"{loaded['firestore']}/emulator/v1/projects/{PROJECT}/databases/(default)/documents")
    assert status == 200, body
    assert call("GET", document_url(loaded, "users/carol"), None, owner)[0] == 404


def test_database_contexts_follow_the_rules_and_clearDatabase_empties_it(loaded):
    base = loaded["database"]
    alice = "&auth=" + mock_user_token("alice")
    assert call("PUT", f"{base}/profiles/alice.json?ns={PROJECT}{alice}", {"name": "Alice"})[0] == 200
    assert call("PUT", f"{base}/profiles/bob.json?ns={PROJECT}{alice}", {"name": "Bob"})[0] == 401
    assert call("GET", f"{base}/profiles/alice.json?ns={PROJECT}")[0] == 401
    assert json.loads(call("GET", f"{base}/profiles/alice.json?ns={PROJECT}{alice}")[1]) == {"name": "Alice"}
    # clearDatabase: set(null) at the root as owner.
    owner = {"Authorization": "Bearer owner"}
    assert call("PUT", f"{base}/.json?ns={PROJECT}", "null", owner)[0] == 200
    assert json.loads(call("GET", f"{base}/.json?ns={PROJECT}", None, owner)[1]) is None


def object_url(env, name):
    return f"{env['storage']}/v0/b/{PROJECT}/o/" + urllib.parse.quote(name, safe="")


def upload(env, name, token):
    return call("POST", f"{env['storage']}/v0/b/{PROJECT}/o?name=" + urllib.parse.quote(name, safe=""), b"data",
                {"Authorization": "Firebase " + token, "Content-Type": "text/plain"})


def test_storage_contexts_follow_the_rules_and_clearStorage_deletes_the_root_items(loaded):
    alice = mock_user_token("alice")
    assert upload(loaded, "alice/a.txt", alice)[0] == 200
    assert upload(loaded, "bob/b.txt", alice)[0] == 403
    assert upload(loaded, "top.txt", alice)[0] == 200
    assert call("GET", object_url(loaded, "alice/a.txt") + "?alt=media")[0] == 403
    assert call("GET", object_url(loaded, "alice/a.txt") + "?alt=media", None, {"Authorization": "Firebase " + alice})[0] == 200
    # clearStorage: as owner, listAll() of the root (delimiter "/"), then delete each item.
    owner = {"Authorization": "Firebase owner"}
    status, body = call("GET", f"{loaded['storage']}/v0/b/{PROJECT}/o?prefix=&delimiter=%2F", None, owner)
    assert status == 200, body
    items = [item["name"] for item in json.loads(body).get("items", [])]
    assert items == ["top.txt"]
    for name in items:
        assert call("DELETE", object_url(loaded, name), None, owner)[0] in (200, 204)
    status, body = call("GET", f"{loaded['storage']}/v0/b/{PROJECT}/o?prefix=&delimiter=%2F", None, owner)
    assert json.loads(body).get("items", []) == []


def test_database_sdk_sends_the_mock_token_in_the_websocket_auth_request(loaded):
    """What `database.useEmulator(host, port, {mockUserToken})` does on the wire: the token goes in
    the v5 protocol's `auth` request, then writes are judged by the rules as that user."""
    import websocket
    host = loaded["database"].removeprefix("http://")
    socket_ = websocket.create_connection(f"ws://{host}/.ws?v=5&ns={PROJECT}", timeout=10)
    try:
        hello = json.loads(socket_.recv())
        assert hello["t"] == "c" and hello["d"]["t"] == "h"
        numbers = iter(range(1, 100))

        def ask(action, body):
            number = next(numbers)
            socket_.send(json.dumps({"t": "d", "d": {"r": number, "a": action, "b": body}}))
            while True:
                message = json.loads(socket_.recv())
                if message.get("t") == "d" and message["d"].get("r") == number:
                    return message["d"]["b"]

        assert ask("auth", {"cred": mock_user_token("alice")})["s"] == "ok"
        assert ask("p", {"p": "/profiles/alice", "d": {"name": "Alice"}})["s"] == "ok"
        assert ask("p", {"p": "/profiles/bob", "d": {"name": "Bob"}})["s"] == "permission_denied"
        # withSecurityRulesDisabled: the owner credential, sent with gauth.
        assert ask("gauth", {"cred": "owner"})["s"] == "ok"
        assert ask("p", {"p": "/profiles/bob", "d": {"name": "Bob"}})["s"] == "ok"
    finally:
        socket_.close()
