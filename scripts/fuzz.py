#!/usr/bin/env python3
"""Hostile-input fuzzing of a running Hearth: malformed HTTP/1, HTTP/2 and gRPC, WebSocket frames
and security rules, sent to every port Hearth serves.

    .venv/bin/python scripts/fuzz.py --hearth .build/debug/hearth            # the CI budget
    .venv/bin/python scripts/fuzz.py --hearth .build/release/hearth --long   # a long run
    .venv/bin/python scripts/fuzz.py --hearth H --seed 7 --count 5000 --seconds 120

It starts Hearth itself (data on disk, in a temporary directory, every service it has on a free
port), stores a few documents in a project the inputs never name, then sends inputs made from a
seeded random generator, and fails on:

- the process ending (a crash);
- a 5xx answer (HTTP) or INTERNAL / UNKNOWN (gRPC) to an input;
- an input that gets no answer (nor a close) within 2 s of being sent in full;
- a stored document changed.

Inputs are bounded in count (--count) and time (--seconds). Every failure prints the input's
number, so `--seed S --only N` replays it. Needs grpcio (in .venv, from scripts/requirements-test.txt).
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import free_port  # noqa: E402  (below the ephemeral range, never handed out twice)

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ANSWER_WITHIN = 2.0
EXPORT_WITHIN = 15.0
KEEP = "fuzz-keep"  # the project whose documents must not change
FUZZ = "fuzz"


# ---------------------------------------------------------------------------------------------
# Hearth


class Hearth:
    def __init__(self, binary):
        self.dir = tempfile.mkdtemp(prefix="hearth-fuzz-")
        help_text = subprocess.run([binary, "start", "--help"], capture_output=True, text=True).stdout
        self.ports = {"firestore": free_port()}
        args = [binary, "start", "--data-dir", os.path.join(self.dir, "data"), "--port", str(self.ports["firestore"]),
                "--project", FUZZ]
        for service, flag in (("auth", "--auth-port"), ("database", "--database-port"), ("storage", "--storage-port"), ("hub", "--hub-port")):
            if flag in help_text:
                self.ports[service] = free_port()
                args += [flag, str(self.ports[service])]
        self.log = open(os.path.join(self.dir, "hearth.log"), "w")
        self.proc = subprocess.Popen(args, stdout=self.log, stderr=subprocess.STDOUT, cwd=self.dir)
        for service, port in self.ports.items():
            self._wait(port)

    def _wait(self, port):
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"hearth exited at start:\n{self.tail()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit(f"hearth did not listen on {port}")

    def alive(self):
        return self.proc.poll() is None

    def tail(self):
        self.log.flush()
        with open(os.path.join(self.dir, "hearth.log"), errors="replace") as f:
            return f.read()[-3000:]

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.dir, ignore_errors=True)


def admin(port, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Authorization": "Bearer owner", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


KEPT = {
    "c/a": {"s": {"stringValue": "kept"}, "n": {"integerValue": "1"}},
    "c/b": {"m": {"mapValue": {"fields": {"x": {"doubleValue": 1.5}}}}, "a": {"arrayValue": {"values": [{"nullValue": None}]}}},
    "users/alice": {"name": {"stringValue": "Alice"}, "t": {"timestampValue": "2024-01-01T00:00:00Z"}},
}


def kept_documents(port):
    docs = {}
    for path in KEPT:
        status, body = admin(port, "GET", f"/v1/projects/{KEEP}/databases/(default)/documents/{path}")
        docs[path] = (status, body)
    return docs


# ---------------------------------------------------------------------------------------------
# Mutations


def random_value(rng, depth=0):
    kind = rng.randrange(9 if depth < 4 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.choice([True, False])
    if kind == 2:
        return rng.choice([0, -1, 2**63, -(2**63) - 1, 10**400, 1.5, -0.0])
    if kind == 3:
        return rng.choice(["", "x" * rng.randrange(1, 3000), "\u0000", "\ud800", "é", "NaN", "Infinity", "../..", "%00"])
    if kind == 4:
        return rng.choice(["integerValue", "doubleValue", "stringValue", "mapValue", "arrayValue", "fields", "values",
                           "referenceValue", "timestampValue", "bytesValue", "geoPointValue", "nullValue"])
    if kind == 5:
        return "projects/fuzz/databases/(default)/documents/" + rng.choice(["c/d", "c", "", "c/d/e", "__x__/y", "c/" + "d" * 2000])
    if kind == 6:
        return [random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    if kind == 7:
        return {rng.choice(["fields", "where", "from", "writes", "update", "name", "x", ""]): random_value(rng, depth + 1)
                for _ in range(rng.randrange(4))}
    return {"mapValue": {"fields": {"f": random_value(rng, depth + 1)}}}


def mutate_json(rng, value):
    """A copy of `value` with one node replaced, removed or nested deeply."""
    if isinstance(value, dict) and value and rng.random() < 0.7:
        key = rng.choice(list(value))
        out = dict(value)
        r = rng.random()
        if r < 0.2:
            del out[key]
        elif r < 0.6:
            out[key] = mutate_json(rng, value[key])
        else:
            out[key] = random_value(rng)
        return out
    if isinstance(value, list) and value and rng.random() < 0.7:
        out = list(value)
        i = rng.randrange(len(out))
        out[i] = mutate_json(rng, out[i])
        return out
    if rng.random() < 0.1:
        # Nested past what json.dumps can write: a marker that dumps() below expands.
        return f"DEEP:{rng.choice(['map', 'list'])}:{rng.choice([50, 500, 5000])}"
    return random_value(rng)


def dumps(value):
    """json.dumps, with each DEEP marker expanded to its nesting."""
    text = json.dumps(value)
    while '"DEEP:' in text:
        i = text.index('"DEEP:')
        j = text.index('"', i + 1)
        _, shape, n = text[i + 1:j].split(":")
        n = int(n)
        deep = ('{"mapValue":{"fields":{"d":' * n + "null" + "}}}" * n) if shape == "map" else ("[" * n + "]" * n)
        text = text[:i] + deep + text[j + 1:]
    return text


def mutate_bytes(rng, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randrange(1, 6)):
        if not data:
            break
        op = rng.randrange(5)
        i = rng.randrange(len(data))
        if op == 0:
            data[i] = rng.randrange(256)
        elif op == 1:
            del data[i:i + rng.randrange(1, 20)]
        elif op == 2:
            data[i:i] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 20)))
        elif op == 3:
            data[i:i] = data[i:i + rng.randrange(1, 200)] * rng.randrange(2, 50)
        else:
            data = data[:i]
    return bytes(data)


# ---------------------------------------------------------------------------------------------
# HTTP/1


DOCS = f"/v1/projects/{FUZZ}/databases/(default)/documents"
CHANNEL = "/google.firestore.v1.Firestore/{}/channel?VER=8&database=projects%2Ffuzz%2Fdatabases%2F(default)&RID={}&CVER=22&X-HTTP-Session-Id=gsessionid&zx=abc&t=1"


def firestore_requests():
    doc = {"fields": {"s": {"stringValue": "v"}, "n": {"integerValue": "3"}, "m": {"mapValue": {"fields": {"a": {"booleanValue": True}}}}}}
    query = {"structuredQuery": {"from": [{"collectionId": "c"}], "where": {"fieldFilter": {"field": {"fieldPath": "n"}, "op": "GREATER_THAN", "value": {"integerValue": "1"}}},
                                 "orderBy": [{"field": {"fieldPath": "n"}, "direction": "DESCENDING"}], "limit": 5}}
    return [
        ("GET", DOCS + "/c/d", None),
        ("PATCH", DOCS + "/c/d?updateMask.fieldPaths=s", doc),
        ("POST", DOCS + "/c?documentId=x", doc),
        ("DELETE", DOCS + "/c/d", None),
        ("POST", DOCS + ":commit", {"writes": [{"update": {"name": f"projects/{FUZZ}/databases/(default)/documents/c/d", **doc},
                                                "updateTransforms": [{"fieldPath": "n", "increment": {"integerValue": "1"}}]}]}),
        ("POST", DOCS + ":runQuery", query),
        ("POST", DOCS + ":runAggregationQuery", {"structuredAggregationQuery": {**query, "aggregations": [{"alias": "c", "count": {}}]}}),
        ("POST", DOCS + ":batchGet", {"documents": [f"projects/{FUZZ}/databases/(default)/documents/c/d"]}),
        ("POST", DOCS + ":beginTransaction", {"options": {"readWrite": {}}}),
        ("POST", DOCS + ":listCollectionIds", {"pageSize": 10}),
        ("GET", DOCS + "/c?pageSize=3&orderBy=n", None),
        ("PUT", f"/emulator/v1/projects/{FUZZ}:securityRules", {"rules": {"files": [{"name": "firestore.rules", "content": "service cloud.firestore { match /databases/{d}/documents { match /{x=**} { allow read, write: if true; } } }"}]}}),
        ("GET", f"/emulator/v1/projects/{FUZZ}:ruleCoverage", None),
        ("DELETE", f"/emulator/v1/projects/{FUZZ}/databases/(default)/documents", None),
        ("POST", CHANNEL.format("Listen", 1), "form:" + json.dumps({"database": f"projects/{FUZZ}/databases/(default)", "addTarget": {"query": {"parent": f"projects/{FUZZ}/databases/(default)/documents", **query}, "targetId": 2}})),
        ("POST", CHANNEL.format("Write", 1), "form:" + json.dumps({"database": f"projects/{FUZZ}/databases/(default)"})),
        ("GET", CHANNEL.format("Listen", "rpc") + "&SID=nosuch&AID=0&CI=0&TYPE=xmlhttp", None),
        ("OPTIONS", DOCS + ":commit", None),
        ("GET", "/", None),
    ]


def auth_requests():
    v1 = "/identitytoolkit.googleapis.com/v1"
    return [
        ("POST", v1 + "/accounts:signUp?key=k", {"email": "a@example.com", "password": "secret1", "returnSecureToken": True}),
        ("POST", v1 + "/accounts:signInWithPassword?key=k", {"email": "a@example.com", "password": "secret1"}),
        ("POST", v1 + "/accounts:lookup?key=k", {"idToken": "e30.e30."}),
        ("POST", v1 + "/accounts:signInWithIdp?key=k", {"postBody": "id_token=" + "e30.eyJzdWIiOiJ4In0." + "&providerId=apple.com", "requestUri": "http://localhost"}),
        ("POST", v1 + "/accounts:update?key=k", {"idToken": "x", "displayName": "n"}),
        ("POST", "/securetoken.googleapis.com/v1/token?key=k", "form:grant_type=refresh_token&refresh_token=x"),
        ("POST", f"{v1}/projects/{FUZZ}/accounts:batchCreate", {"users": [{"localId": "u1", "email": "u1@example.com"}]}),
        ("GET", f"/emulator/v1/projects/{FUZZ}/config", None),
        ("GET", "/", None),
    ]


def database_requests():
    return [
        ("GET", "/x.json?ns=fuzz", None),
        ("PUT", "/x/y.json?ns=fuzz", {"a": 1, "b": [1, 2], "c": {".sv": "timestamp"}}),
        ("PATCH", "/x.json?ns=fuzz", {"y/z": True}),
        ("POST", "/x.json?ns=fuzz", "s"),
        ("GET", "/x.json?ns=fuzz&orderBy=\"$key\"&limitToFirst=2", None),
        ("DELETE", "/x.json?ns=fuzz", None),
        ("PUT", "/.settings/rules.json?ns=fuzz", {"rules": {".read": True, ".write": True}}),
    ]


def storage_requests():
    return [
        ("POST", "/v0/b/fuzz.appspot.com/o?name=a%2Fb.txt", "raw:hello"),
        ("GET", "/v0/b/fuzz.appspot.com/o/a%2Fb.txt?alt=media", None),
        ("GET", "/v0/b/fuzz.appspot.com/o?prefix=a%2F&delimiter=%2F", None),
        ("PATCH", "/v0/b/fuzz.appspot.com/o/a%2Fb.txt", {"contentType": "text/plain", "metadata": {"k": "v"}}),
        ("POST", "/upload/storage/v1/b/fuzz.appspot.com/o?uploadType=media&name=c", "raw:data"),
        ("GET", "/storage/v1/b/fuzz.appspot.com/o", None),
        ("DELETE", "/v0/b/fuzz.appspot.com/o/a%2Fb.txt", None),
    ]


def hub_requests(export_dir):
    return [
        ("GET", "/emulators", None),
        ("GET", "/", None),
        ("POST", "/_admin/export", {"path": export_dir}),
        ("GET", "/emulators/firestore", None),
    ]


def encode_body(body):
    if body is None:
        return b"", None
    if isinstance(body, str) and body.startswith("form:"):
        text = body[5:]
        if text.startswith("{"):
            text = "count=1&ofs=0&req0___data__=" + urllib.request.quote(text)
        return text.encode(), "application/x-www-form-urlencoded"
    if isinstance(body, str) and body.startswith("raw:"):
        return body[4:].encode(), "application/octet-stream"
    return dumps(body).encode(), "application/json"


def build_http1(rng, base_requests):
    method, path, body = rng.choice(base_requests)
    if isinstance(body, (dict, list)) and rng.random() < 0.6:
        body = mutate_json(rng, body)
    payload, content_type = encode_body(body)
    headers = [("Host", "127.0.0.1")]
    if content_type:
        headers.append(("Content-Type", content_type))
    r = rng.random()
    if r < 0.25:
        headers.append(("Authorization", "Bearer owner"))
    elif r < 0.5:
        claims = {"sub": "alice", "user_id": "alice", "aud": FUZZ, "iss": f"https://securetoken.google.com/{FUZZ}",
                  "exp": rng.choice([0, 4100000000, -1, "x", 10**30]), "iat": 1, "auth_time": 1}
        if rng.random() < 0.5:
            claims = mutate_json(rng, claims)
        token = base64.urlsafe_b64encode(json.dumps({"alg": rng.choice(["none", "RS256", "HS256", ""])}).encode()).rstrip(b"=").decode()
        token += "." + base64.urlsafe_b64encode(json.dumps(claims).encode()).rstrip(b"=").decode() + "."
        headers.append(("Authorization", "Bearer " + token if rng.random() < 0.9 else token * 3000))
    kind = rng.randrange(12)
    if kind == 0:
        path = path + "/" + "".join(rng.choice(["%", "%zz", "%00", "%ff", "..", "/", "é", "\u2028", "a" * 500, "?", "#", "&x=", ";"]) for _ in range(rng.randrange(1, 12)))
    elif kind == 1:
        method = rng.choice(["GETT", "", "G\x00T", "CONNECT", "TRACE", "PROPFIND", "X" * 300])
    elif kind == 2:
        headers.append(("X-Big", "v" * rng.choice([10_000, 100_000, 1_000_000])))
    elif kind == 3:
        headers.append(("Content-Length", rng.choice(["-1", "abc", "99999999999999999999", str(len(payload) + 10), "1, 2"])))
    elif kind == 4:
        headers.append(("Transfer-Encoding", "chunked"))
        payload = rng.choice([b"zz\r\nabc\r\n0\r\n\r\n", b"FFFFFFFFFFFFFFFF\r\n", b"3\r\nabcdef\r\n0\r\n\r\n",
                              b"%x\r\n" % len(payload) + payload + b"\r\n0\r\n\r\n"])
    elif kind == 5:
        payload = rng.choice([payload[: len(payload) // 2], payload + b"trailing", b"\xff\xfe" + payload, b"{" * 100_000,
                              json.dumps("x" * 11_000_000).encode()])
    elif kind == 6:
        headers.append(("X-Nul", "a\x00b"))
    elif kind == 7:
        headers.append(("Connection", rng.choice(["close", "keep-alive, Upgrade", "Upgrade"])))
        headers.append(("Upgrade", rng.choice(["websocket", "h2c", "x"])))
    version = "HTTP/1.1" if rng.random() < 0.97 else rng.choice(["HTTP/1.0", "HTTP/2.0", "HTTP/9", "HTCPCP/1.0", ""])
    has_length = any(h[0].lower() in ("content-length", "transfer-encoding") for h in headers)
    if payload and not has_length:
        headers.append(("Content-Length", str(len(payload))))
    head = f"{method} {path} {version}\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers) + "\r\n"
    raw = head.encode("utf-8", "surrogatepass") + payload
    if kind == 8:
        raw = mutate_bytes(rng, raw)
    return raw


def exchange_http1(port, raw, within=ANSWER_WITHIN):
    """Sends `raw`, half-closes, and returns ("status", code) for an answer, ("closed", None) for a
    close without one, or ("silent", None) when nothing came within `within` seconds."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.settimeout(ANSWER_WITHIN + 3)
        try:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server answered (and stopped reading) before all was sent
        s.settimeout(within)
        data = b""
        try:
            while b"\r\n" not in data:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            return ("silent", None) if not data else ("partial", data[:80])
        except OSError:
            pass
        if not data:
            return ("closed", None)
        line = data.split(b"\r\n", 1)[0].split()
        if len(line) >= 2 and line[1].isdigit():
            return ("status", int(line[1]))
        return ("garbled", data[:80])
    finally:
        s.close()


# ---------------------------------------------------------------------------------------------
# WebSocket


def ws_frame(rng, payload: bytes, opcode=1, mask=True, fin=True):
    b0 = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        head = bytes([b0, (0x80 if mask else 0) | n])
    elif n < 65536:
        head = bytes([b0, (0x80 if mask else 0) | 126]) + struct.pack(">H", n)
    else:
        head = bytes([b0, (0x80 if mask else 0) | 127]) + struct.pack(">Q", n)
    if not mask:
        return head + payload
    key = bytes(rng.randrange(256) for _ in range(4))
    return head + key + bytes(b ^ key[i % 4] for i, b in enumerate(payload))


def build_websocket(rng, service):
    if service == "database":
        path = "/.ws?v=5&ns=fuzz"
        messages = [{"t": "d", "d": {"r": 1, "a": "q", "b": {"p": "/x", "h": ""}}},
                    {"t": "d", "d": {"r": 2, "a": "p", "b": {"p": "/x/y", "d": {"a": 1}}}},
                    {"t": "d", "d": {"r": 3, "a": "auth", "b": {"cred": "e30.e30."}}},
                    {"t": "c", "d": {"t": "p", "d": {}}}]
    else:
        path = "/ws"
        messages = [{"type": "listen", "targetId": 1, "query": {"from": [{"collectionId": "c"}]}},
                    {"type": "listen", "targetId": 2, "document": "c/d"},
                    {"type": "unlisten", "targetId": 1},
                    {"type": "auth", "token": "e30.e30."}]
    frames = []
    for _ in range(rng.randrange(1, 6)):
        message = rng.choice(messages)
        if rng.random() < 0.7:
            message = mutate_json(rng, message)
        payload = dumps(message).encode()
        k = rng.randrange(10)
        if k == 0:
            frames.append(ws_frame(rng, mutate_bytes(rng, payload)))
        elif k == 1:
            frames.append(ws_frame(rng, payload, opcode=rng.choice([0, 2, 3, 7, 9, 10, 11, 15])))
        elif k == 2:
            frames.append(ws_frame(rng, payload, mask=False))
        elif k == 3:
            frames.append(bytes([0x81, 0xFF]) + struct.pack(">Q", 2**63 - 1) + b"\0\0\0\0" + payload)
        elif k == 4:
            frames.append(ws_frame(rng, payload, fin=False) + ws_frame(rng, payload, opcode=1))
        elif k == 5:
            frames.append(ws_frame(rng, b"\xff\xfe\xfd", opcode=1))
        elif k == 6:
            frames.append(ws_frame(rng, b"x" * rng.choice([200_000, 20_000_000])))
        else:
            frames.append(ws_frame(rng, payload))
    return path, b"".join(frames)


def exchange_websocket(port, path, frames):
    """Upgrades, sends the frames, and reports whether the server answered or closed in time."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                  f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        s.settimeout(ANSWER_WITHIN)
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                return ("closed", None)
            head += chunk
        status = int(head.split()[1])
        if status != 101:
            return ("status", status)
        try:
            s.sendall(frames)
        except OSError:
            return ("closed", None)
        # A well-formed listen may just be waiting for changes; only the process's life and
        # (below) a prompt reply to a frame that ends the protocol are checked.
        try:
            s.recv(4096)
        except (socket.timeout, OSError):
            pass
        return ("ok", None)
    except socket.timeout:
        return ("silent", None)
    finally:
        s.close()


# ---------------------------------------------------------------------------------------------
# gRPC and raw HTTP/2


GRPC_METHODS = ["GetDocument", "ListDocuments", "Commit", "BatchGetDocuments", "RunQuery", "RunAggregationQuery",
                "BeginTransaction", "Rollback", "ListCollectionIds", "BatchWrite", "CreateDocument", "UpdateDocument",
                "DeleteDocument", "PartitionQuery"]
STREAMING = {"BatchGetDocuments", "RunQuery", "RunAggregationQuery", "PartitionQuery"}


def proto_field(number, wire, value):
    key = (number << 3) | wire
    out = bytearray()

    def varint(n):
        n &= (1 << 64) - 1
        while True:
            b = n & 0x7F
            n >>= 7
            out.append(b | (0x80 if n else 0))
            if not n:
                break

    varint(key)
    if wire == 0:
        varint(value)
    elif wire == 2:
        varint(len(value))
        out.extend(value)
    return bytes(out)


def random_proto(rng, depth=0):
    out = bytearray()
    database = f"projects/{FUZZ}/databases/(default)".encode()
    out += proto_field(1, 2, database + (b"/documents/c/d" if rng.random() < 0.5 else b""))
    for _ in range(rng.randrange(6)):
        number = rng.choice([1, 2, 3, 4, 5, 6, 7, 8, 10, 536870911])
        if rng.random() < 0.5 and depth < 3:
            out += proto_field(number, 2, random_proto(rng, depth + 1))
        elif rng.random() < 0.5:
            out += proto_field(number, 0, rng.choice([0, 1, 2**63, 2**64 - 1, 7]))
        else:
            out += proto_field(number, 2, bytes(rng.randrange(256) for _ in range(rng.randrange(40))))
    if rng.random() < 0.3:
        out = bytearray(mutate_bytes(rng, bytes(out)))
    return bytes(out)


def grpc_call(channel, grpc, rng):
    method = rng.choice(GRPC_METHODS)
    path = f"/google.firestore.v1.Firestore/{method}"
    payload = random_proto(rng)
    metadata = [("authorization", "Bearer owner")] if rng.random() < 0.5 else []
    metadata.append(("google-cloud-resource-prefix", f"projects/{FUZZ}/databases/(default)"))
    try:
        if method in STREAMING:
            call = channel.unary_stream(path, request_serializer=None, response_deserializer=None)
            for _ in call(payload, timeout=ANSWER_WITHIN, metadata=metadata):
                pass
        else:
            call = channel.unary_unary(path, request_serializer=None, response_deserializer=None)
            call(payload, timeout=ANSWER_WITHIN, metadata=metadata)
        return method, "OK"
    except grpc.RpcError as e:
        return method, e.code().name


def raw_http2(port, rng):
    """The connection preface and random frames: the server may answer or close; it must live."""
    frames = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" if rng.random() < 0.8 else b""
    for _ in range(rng.randrange(1, 8)):
        payload = bytes(rng.randrange(256) for _ in range(rng.randrange(30)))
        length = len(payload) if rng.random() < 0.8 else rng.randrange(2**24)
        frames += struct.pack(">I", length)[1:] + bytes([rng.randrange(12), rng.randrange(256)]) \
            + struct.pack(">I", rng.choice([0, 1, 2, 3, 2**31 - 1, rng.randrange(2**32)])) + payload
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    try:
        s.sendall(frames)
        s.settimeout(0.3)
        try:
            s.recv(4096)
        except (socket.timeout, OSError):
            pass
    except OSError:
        pass
    finally:
        s.close()


# ---------------------------------------------------------------------------------------------
# Rules


def rules_sources():
    texts = []
    for d in ("rules", "fixtures/auth"):
        full = os.path.join(ROOT, d)
        if os.path.isdir(full):
            for name in sorted(os.listdir(full)):
                if name.endswith(".rules") and "storage" not in name:
                    with open(os.path.join(full, name)) as f:
                        texts.append(f.read())
    return texts or ["rules_version = '2'; service cloud.firestore { match /databases/{d}/documents { match /{x=**} { allow read: if true; } } }"]


def mutate_rules(rng, text):
    r = rng.random()
    if r < 0.5:
        return mutate_bytes(rng, text.encode()).decode("utf-8", "replace")
    if r < 0.7:
        i = rng.randrange(len(text))
        return text[:i] + rng.choice(["(" * 300, "!" * 300, " && true" * 2000, "'", "\"", "/*", "$(", "{x=**}", "match /a {",
                                      ".matches('(a+)+$')", "let x = 1;" * 200, "\u0000", "function f(a,b,c,d,e,f,g,h) { return true; }"]) + text[i:]
    if r < 0.85:
        return text + "\n" + text[: rng.randrange(len(text))]
    return text * rng.randrange(2, 60)


# ---------------------------------------------------------------------------------------------


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--hearth", default=os.path.join(ROOT, ".build", "debug", "hearth"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=1500, help="inputs to send (default 1500)")
    ap.add_argument("--seconds", type=float, default=60, help="stop after this long (default 60)")
    ap.add_argument("--long", action="store_true", help="a long run: 100,000 inputs or 30 minutes")
    ap.add_argument("--only", type=int, help="send only input N of the seed's sequence (to replay a failure)")
    args = ap.parse_args(argv)
    if args.long:
        args.count, args.seconds = 100_000, 1800
    try:
        import grpc
    except ImportError:
        grpc = None
        print("fuzz: grpcio is not installed: gRPC inputs skipped (use .venv/bin/python)")

    hearth = Hearth(os.path.abspath(args.hearth))
    failures = []
    tallies = {}
    try:
        fs = hearth.ports["firestore"]
        for path, fields in KEPT.items():
            status, body = admin(fs, "PATCH", f"/v1/projects/{KEEP}/databases/(default)/documents/{path}", {"fields": fields})
            assert status == 200, body
        before = kept_documents(fs)
        channel = grpc.insecure_channel(f"127.0.0.1:{fs}") if grpc else None
        http1_targets = [("firestore", fs, firestore_requests())]
        for service, requests_ in (("auth", auth_requests()), ("database", database_requests()), ("storage", storage_requests()),
                                   ("hub", hub_requests(os.path.join(hearth.dir, "export")))):
            if service in hearth.ports:
                http1_targets.append((service, hearth.ports[service], requests_))
        ws_targets = [("firestore", fs)] + ([("database", hearth.ports["database"])] if "database" in hearth.ports else [])
        rules = rules_sources()
        kinds = ["http1"] * 10 + ["ws"] * 2 + ["rules"] * 2 + (["grpc"] * 3 if channel else []) + ["h2raw"]
        start = time.time()
        sent = 0
        slowest = []
        for n in range(args.count):
            if time.time() - start > args.seconds:
                break
            rng = random.Random(f"{args.seed}:{n}")
            if args.only is not None and n != args.only:
                continue
            kind = rng.choice(kinds)
            what = kind
            t0 = time.time()
            if kind == "http1":
                service, port, base = rng.choice(http1_targets)
                raw = build_http1(rng, base)
                # An export writes and flushes every service's data to disk: real work, given
                # longer than a lookup (on a busy CI disk it has taken over 2 s).
                within = EXPORT_WITHIN if b"/_admin/export" in raw[:200] else ANSWER_WITHIN
                outcome, detail = exchange_http1(port, raw, within)
                what = f"http1 {service} {raw[:100]!r}"
                if outcome == "silent":
                    failures.append((n, what, f"no answer within {within} s"))
                elif outcome == "status" and detail >= 500:
                    failures.append((n, what, f"answered {detail}"))
                tallies[f"http1 {service} {outcome}"] = tallies.get(f"http1 {service} {outcome}", 0) + 1
            elif kind == "ws":
                service, port = rng.choice(ws_targets)
                path, frames = build_websocket(rng, service)
                outcome, detail = exchange_websocket(port, path, frames)
                what = f"websocket {service} {frames[:80]!r}"
                if outcome == "silent":
                    failures.append((n, what, "no answer to the upgrade within 2 s"))
                elif outcome == "status" and detail >= 500:
                    failures.append((n, what, f"upgrade answered {detail}"))
                tallies[f"websocket {service} {outcome}"] = tallies.get(f"websocket {service} {outcome}", 0) + 1
            elif kind == "rules":
                text = mutate_rules(rng, rng.choice(rules))
                body = {"rules": {"files": [{"name": "firestore.rules", "content": text}]}}
                t = time.time()
                status, answer = admin(fs, "PUT", f"/emulator/v1/projects/{FUZZ}:securityRules", body)
                elapsed = time.time() - t
                what = f"rules ({len(text)} characters)"
                if status >= 500:
                    failures.append((n, what, f"answered {status}: {answer[:200]!r}"))
                elif elapsed > ANSWER_WITHIN:
                    failures.append((n, what, f"compiled in {elapsed:.1f} s"))
                if status == 200:
                    # Evaluate it: a signed-in read and write through the new rules.
                    token = "e30." + base64.urlsafe_b64encode(json.dumps({"sub": "alice", "user_id": "alice"}).encode()).rstrip(b"=").decode() + "."
                    for method, body_ in (("GET", None), ("PATCH", {"fields": {"v": {"stringValue": "a" * 100}}})):
                        req = urllib.request.Request(f"http://127.0.0.1:{fs}{DOCS}/users/alice", method=method,
                                                     data=json.dumps(body_).encode() if body_ else None,
                                                     headers={"Authorization": "Bearer " + token})
                        try:
                            urllib.request.urlopen(req, timeout=ANSWER_WITHIN + 3).read()
                        except urllib.error.HTTPError as e:
                            if e.code >= 500:
                                failures.append((n, what, f"a request under the rules answered {e.code}"))
                        except OSError as e:
                            failures.append((n, what, f"a request under the rules got no answer: {e}"))
                tallies[f"rules {status}"] = tallies.get(f"rules {status}", 0) + 1
            elif kind == "grpc":
                method, code = grpc_call(channel, grpc, rng)
                what = f"grpc {method}"
                if code in ("INTERNAL", "UNKNOWN", "DEADLINE_EXCEEDED", "UNAVAILABLE"):
                    failures.append((n, what, f"status {code}"))
                tallies[f"grpc {code}"] = tallies.get(f"grpc {code}", 0) + 1
            else:
                raw_http2(fs, rng)
                what = "raw HTTP/2 frames"
                tallies["h2raw"] = tallies.get("h2raw", 0) + 1
            sent += 1
            if not hearth.alive():
                failures.append((n, what, "the process ended"))
                break
            elapsed = time.time() - t0
            slowest = sorted(slowest + [(elapsed, n, what[:60])], reverse=True)[:3]
            if elapsed > 10:
                failures.append((n, what, f"took {elapsed:.1f} s"))
        if hearth.alive():
            after = kept_documents(fs)
            for path in KEPT:
                if before[path] != after[path]:
                    failures.append((-1, f"document {path}", f"changed: {before[path]} -> {after[path]}"))
        print(f"fuzz: seed {args.seed}, {sent} inputs in {time.time() - start:.1f} s to ports {hearth.ports}")
        for key in sorted(tallies):
            print(f"  {key}: {tallies[key]}")
        print("  slowest: " + "; ".join(f"input {n} {t:.2f} s ({what})" for t, n, what in slowest))
        if failures:
            for n, what, why in failures[:40]:
                print(f"FAIL input {n}: {why} | {what}")
            print(f"{len(failures)} failures (replay one with --seed {args.seed} --only N)")
            if not hearth.alive():
                print("hearth's log ends:\n" + hearth.tail())
            return 1
        print("no failures")
        return 0
    finally:
        hearth.stop()


if __name__ == "__main__":
    sys.exit(main())
