"""Malformed requests (bad JSON, wrong types, missing fields, oversized bodies, forged tokens, junk
bytes) get Firebase-shaped errors and never take the Auth emulator down; accounts persist across
restarts unless --ephemeral; --sign-tokens serves a JWKS that verifies its tokens."""
import base64
import json
import os
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from authclient import call, claims, ok, post, refresh
from conftest import ROOT, _free_port


def error_of(reply):
    assert isinstance(reply, dict) and "error" in reply, reply
    e = reply["error"]
    assert isinstance(e["code"], int) and isinstance(e["message"], str)
    assert e["errors"][0]["message"] == e["message"]
    return e


@pytest.mark.parametrize("raw,status,message", [
    (b"{", 400, "Invalid JSON payload received."),
    (b"\xff\xfe\x00", 400, "Invalid JSON payload received."),
    (b"[]", 400, "Invalid JSON payload received. / must be object"),
    (b'{"email": ["a"], "password": "secret12"}', 400, "Invalid JSON payload received. /email must be string"),
    (b'{"email": "a@b.c"}', 400, "MISSING_PASSWORD"),
    (b'{"password": "secret12"}', 400, "MISSING_EMAIL"),
    (b'{"email": "a@b.c", "password": "1"}', 400, "WEAK_PASSWORD : Password should be at least 6 characters"),
    (b'{"email": "' + b"x" * 100_000 + b'@b.c", "password": "secret12", "displayName": null}', 200, None),
    (b'{"nested": ' + b"[" * 200 + b"]" * 200 + b"}", 400, "Invalid JSON payload received."),  # deeper than the parser allows
])
def test_malformed_sign_up_bodies(auth_emulator, raw, status, message):
    got, reply = post(f"{auth_emulator}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", raw=raw)
    assert got == status, reply
    if message:
        assert error_of(reply)["message"].startswith(message)


def test_oversized_body_is_refused_and_the_server_stays_up(auth_emulator):
    status, reply = post(f"{auth_emulator}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k", raw=b"{" + b" " * (17 << 20) + b"}")
    assert status == 400
    assert "exceeds the limit" in error_of(reply)["message"]
    assert ok(auth_emulator, "signUp", {})["localId"]


@pytest.mark.parametrize("token,message", [
    ("", "MISSING_ID_TOKEN"),
    ("garbage", "INVALID_ID_TOKEN"),
    ("a.b.c", "INVALID_ID_TOKEN"),
    (base64.urlsafe_b64encode(b'{"alg":"none"}').decode() + "." + base64.urlsafe_b64encode(b'{"user_id":"nobody"}').decode() + ".", "USER_NOT_FOUND"),
])
def test_forged_id_tokens(auth_emulator, token, message):
    for verb in ("lookup", "update", "delete"):
        status, reply = call(auth_emulator, verb, {"idToken": token} if token else {})
        assert status == 400
        if verb == "update" and not token:
            assert error_of(reply)["message"] == "INVALID_REQ_TYPE : Unsupported request parameters."
        else:
            assert error_of(reply)["message"] == message


def test_forged_refresh_tokens_and_custom_tokens(auth_emulator):
    for forged in ("x", "eyJfQXV0aEVtdWxhdG9yUmVmcmVzaFRva2VuIjoiRE8gTk9UIE1PRElGWSJ9", "a" * 5000):
        status, reply = refresh(auth_emulator, forged)
        assert status == 400 and error_of(reply)["message"] == "INVALID_REFRESH_TOKEN"
    status, reply = call(auth_emulator, "signInWithCustomToken", {"token": "eyJhbGciOiJub25lIn0.eyJ1aWQiOiJ4In0."})
    assert status == 400 and error_of(reply)["message"].startswith("INVALID_CUSTOM_TOKEN")


def test_credentials_and_unknown_paths(auth_emulator):
    status, reply = post(f"{auth_emulator}/identitytoolkit.googleapis.com/v1/accounts:signUp", {})
    assert status == 403 and error_of(reply)["status"] == "PERMISSION_DENIED"
    status, reply = post(f"{auth_emulator}/identitytoolkit.googleapis.com/v1/accounts:signUp", {}, headers={"Authorization": "Bearer nope"})
    assert status == 401 and error_of(reply)["status"] == "UNAUTHENTICATED"
    status, reply = post(f"{auth_emulator}/identitytoolkit.googleapis.com/v1/projects/other/accounts:lookup?key=k", {})
    assert status == 400 and error_of(reply)["message"].startswith("INSUFFICIENT_PERMISSION")
    status, reply = post(f"{auth_emulator}/no/such/path", {})
    assert status == 404 and error_of(reply)["status"] == "NOT_FOUND"


def test_junk_bytes_on_the_socket(auth_emulator):
    host, port = auth_emulator.removeprefix("http://").split(":")
    for junk in (b"\x00\x01\x02garbage\r\n\r\n", b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\n",
                 b"POST /identitytoolkit.googleapis.com/v1/accounts:signUp?key=k HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"):
        with socket.create_connection((host, int(port)), timeout=5) as s:
            s.sendall(junk)
            s.shutdown(socket.SHUT_WR)
            try:
                s.recv(65536)
            except OSError:
                pass
    assert ok(auth_emulator, "signUp", {})["localId"]


def start_hearth(*args):
    """A Hearth of its own; returns the process, the Auth base URL and the Firestore base URL."""
    binary = os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth"))
    port, auth_port = _free_port(), _free_port()
    proc = subprocess.Popen([binary, "start", "--port", str(port), "--auth-port", str(auth_port), "--project", "demo-persist", "--hub-port", "0", *args],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{auth_port}"
    deadline = time.time() + 20
    while True:
        try:
            urllib.request.urlopen(base + "/", timeout=1)
            return proc, base, f"http://127.0.0.1:{port}"
        except OSError:
            if time.time() > deadline or proc.poll() is not None:
                proc.kill()
                raise RuntimeError("hearth did not start")
            time.sleep(0.05)


def stop(proc, sig=signal.SIGTERM):
    proc.send_signal(sig)
    proc.wait(timeout=10)


def test_accounts_persist_across_restarts_and_kill(hearth):
    with tempfile.TemporaryDirectory() as data:
        proc, base, _ = start_hearth("--data-dir", data)
        signed_up = ok(base, "signUp", {"email": "keep@example.com", "password": "secret12", "returnSecureToken": True})
        stop(proc, signal.SIGKILL)  # acknowledged sign-ups are in SQLite before the response
        assert os.path.exists(os.path.join(data, "auth.sqlite"))
        proc, base, _ = start_hearth("--data-dir", data)
        try:
            again = ok(base, "signInWithPassword", {"email": "keep@example.com", "password": "secret12", "returnSecureToken": True})
            assert again["localId"] == signed_up["localId"]
            status, refreshed = refresh(base, signed_up["refreshToken"])
            assert status == 200, refreshed
        finally:
            stop(proc)
        with open(os.path.join(data, "auth.sqlite"), "rb") as f:
            assert b"secret12" not in f.read()

    proc, base, _ = start_hearth("--ephemeral")
    ok(base, "signUp", {"email": "gone@example.com", "password": "secret12"})
    stop(proc)
    proc, base, _ = start_hearth("--ephemeral")
    try:
        status, reply = call(base, "signInWithPassword", {"email": "gone@example.com", "password": "secret12"})
        assert status == 400 and error_of(reply)["message"] == "EMAIL_NOT_FOUND"
    finally:
        stop(proc)


def test_signed_tokens_verify_with_the_served_keys(hearth):
    jwt = pytest.importorskip("jwt")  # PyJWT, installed with firebase-admin
    with tempfile.TemporaryDirectory() as data:
        proc, base, firestore_base = start_hearth("--data-dir", data, "--sign-tokens")
        try:
            token = ok(base, "signUp", {"returnSecureToken": True})["idToken"]
            discovery = json.load(urllib.request.urlopen(base + "/securetoken.google.com/demo-persist/.well-known/openid-configuration"))
            keys = jwt.PyJWKClient(discovery["jwks_uri"]).get_signing_key_from_jwt(token)
            verified = jwt.decode(token, keys.key, algorithms=["RS256"], audience="demo-persist",
                                  issuer="https://securetoken.google.com/demo-persist")
            assert verified["firebase"]["sign_in_provider"] == "anonymous"
            kid = jwt.get_unverified_header(token)["kid"]
            # Firestore rules see a signed token's claims as request.auth, as an unsigned one's.
            rules = ("rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /own/{uid} {"
                     " allow write: if request.auth.uid == uid && request.auth.token.firebase.sign_in_provider == 'anonymous'; } } }")
            urllib.request.urlopen(urllib.request.Request(
                f"{firestore_base}/emulator/v1/projects/demo-persist:securityRules", method="PUT",
                data=json.dumps({"rules": {"files": [{"name": "firestore.rules", "content": rules}]}}).encode()))
            doc = f"{firestore_base}/v1/projects/demo-persist/databases/(default)/documents/own/"
            body = json.dumps({"fields": {"ok": {"booleanValue": True}}}).encode()
            allowed = urllib.request.Request(doc + verified["sub"], data=body, method="PATCH", headers={"Authorization": "Bearer " + token})
            assert urllib.request.urlopen(allowed).status == 200
            denied = urllib.request.Request(doc + "someone-else", data=body, method="PATCH", headers={"Authorization": "Bearer " + token})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(denied)
            assert refused.value.code == 403
        finally:
            stop(proc)
        proc, base, _ = start_hearth("--data-dir", data, "--sign-tokens")
        try:
            assert jwt.get_unverified_header(ok(base, "signUp", {"returnSecureToken": True})["idToken"])["kid"] == kid
            forged = jwt.encode(claims(token), key=None, algorithm="none")
            status, reply = call(base, "lookup", {"idToken": forged})
            assert status == 400 and error_of(reply)["message"] == "INVALID_ID_TOKEN"
        finally:
            stop(proc)
