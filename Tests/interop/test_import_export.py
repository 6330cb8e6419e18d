"""Import and export (docs/import-export.md) with the real SDKs: data written to every service
(google-cloud-firestore, firebase_admin auth, db and storage) goes through `hearth export DIR`,
and a fresh Hearth started with `--import DIR` on an empty data directory reads all of it back
identical: every Firestore value type with create and update times, Auth accounts with their
password hashes (sign-in still works), claims and providers, the database tree with priorities,
Storage objects with their metadata. `--export-on-exit` writes on SIGTERM and at the end of
`hearth exec`; a kill -9 during a large export leaves the previous export as it was."""
import datetime
import glob
import hashlib
import json
import math
import os
import signal
import struct
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from conftest import _free_port as free_port, hearth_binary, wait_until_answering

PROJECT = "demo-export"
BUCKET = PROJECT + ".appspot.com"
NAMESPACE = PROJECT + "-default-rtdb"


def http(method, url, body=None, headers=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method, headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()


class Suite:
    """`hearth start` with every service on free ports and data in `data_dir`."""

    def __init__(self, data_dir, *extra, log_path):
        self.ports = {name: free_port() for name in ["firestore", "auth", "database", "storage", "hub"]}
        self.log = open(log_path, "a+")
        self.proc = subprocess.Popen(
            [hearth_binary(), "start", "--data-dir", str(data_dir), "--project", PROJECT,
             "--port", str(self.ports["firestore"]), "--auth-port", str(self.ports["auth"]),
             "--database-port", str(self.ports["database"]), "--storage-port", str(self.ports["storage"]),
             "--hub-port", str(self.ports["hub"]), *extra],
            stdout=self.log, stderr=subprocess.STDOUT)
        for port in self.ports.values():
            wait_until_answering(f"http://127.0.0.1:{port}/", self.proc, self.output, attempts=600)

    def host(self, name):
        return f"127.0.0.1:{self.ports[name]}"

    def output(self):
        self.log.seek(0)
        return self.log.read()

    def environment(self, monkeypatch):
        monkeypatch.setenv("FIRESTORE_EMULATOR_HOST", self.host("firestore"))
        monkeypatch.setenv("FIREBASE_AUTH_EMULATOR_HOST", self.host("auth"))
        monkeypatch.setenv("FIREBASE_DATABASE_EMULATOR_HOST", self.host("database"))
        monkeypatch.setenv("STORAGE_EMULATOR_HOST", "http://" + self.host("storage"))
        monkeypatch.setenv("FIREBASE_STORAGE_EMULATOR_HOST", self.host("storage"))

    def export(self, directory):
        return subprocess.run([hearth_binary(), "export", str(directory), "--hub", self.host("hub")],
                              capture_output=True, text=True, timeout=600)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.kill()
        return self.output()

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture
def suites(tmp_path):
    started = []

    def start(name, *extra):
        suite = Suite(tmp_path / name, *extra, log_path=tmp_path / (name + ".log"))
        started.append(suite)
        return suite
    yield start
    for suite in started:
        suite.kill()
        suite.log.close()


class Clients:
    """The SDKs, pointed at one Hearth (they read the emulator variables when made)."""

    def __init__(self, suite, monkeypatch, name):
        import firebase_admin
        import google.auth.credentials
        import google.oauth2.credentials
        from firebase_admin import credentials
        from google.cloud import firestore

        suite.environment(monkeypatch)

        class Owner(credentials.Base):
            def get_credential(self):
                return google.oauth2.credentials.Credentials("owner")

        self.app = firebase_admin.initialize_app(Owner(), {
            "projectId": PROJECT, "storageBucket": BUCKET,
            "databaseURL": f"https://{NAMESPACE}.firebaseio.com"}, name=name)
        self.firestore = firestore.Client(project=PROJECT)
        self.second = firestore.Client(project=PROJECT, database="second-db")
        self.suite = suite

    def close(self):
        import firebase_admin
        firebase_admin.delete_app(self.app)


@pytest.fixture
def clients(monkeypatch):
    made = []

    def make(suite):
        c = Clients(suite, monkeypatch, f"export-{len(made)}-{id(made)}")
        made.append(c)
        return c
    yield make
    for c in made:
        c.close()


def every_value(db):
    from google.cloud.firestore_v1.vector import Vector
    from google.cloud import firestore
    return {
        "null": None, "true": True, "false": False,
        "int_max": 2**63 - 1, "int_min": -2**63, "zero": 0,
        "pi": math.pi, "tiny": 5e-324, "huge": 1.7976931348623157e308,
        "neg_zero": -0.0, "nan": float("nan"), "inf": float("inf"), "neg_inf": float("-inf"),
        "time": datetime.datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=datetime.timezone.utc),
        "old_time": datetime.datetime(1, 1, 1, tzinfo=datetime.timezone.utc),
        "nul_string": "a\x00b\U0001F600\"\\\n", "empty": "",
        "bytes": b"\x00\xff\x01\x80", "no_bytes": b"",
        "ref": db.document("users/alice"),
        "geo": firestore.GeoPoint(-90, 180), "geo_zero": firestore.GeoPoint(-0.0, 0.0),
        "array": [1, 1.0, "1", None, -0.0, {"in": b"x"}, {}],
        "map": {"a": 1, "b.c": {"`x`": True}, "deep": {"er": {"est": -0.0}}}, "empty_map": {},
        "vector": Vector([1.5, -0.0, 2.0]),
    }


def canonical(value):
    """A value with its exact type and bits, comparable with ==."""
    from google.cloud import firestore
    from google.cloud.firestore_v1.vector import Vector
    if value is None or isinstance(value, bool):
        return (type(value).__name__, value)
    if isinstance(value, int):
        return ("int", value)
    if isinstance(value, float):
        return ("float", "nan" if math.isnan(value) else struct.pack(">d", value).hex())
    if isinstance(value, datetime.datetime):
        return ("time", value.isoformat(), getattr(value, "nanosecond", None))
    if isinstance(value, (str, bytes)):
        return (type(value).__name__, value)
    if isinstance(value, firestore.GeoPoint):
        return ("geo", canonical(value.latitude), canonical(value.longitude))
    if isinstance(value, Vector):
        return ("vector", [canonical(v) for v in value.to_map_value()["value"]])
    if isinstance(value, list):
        return ("array", [canonical(v) for v in value])
    if isinstance(value, dict):
        return ("map", sorted((k, canonical(v)) for k, v in value.items()))
    if hasattr(value, "path") and hasattr(value, "_client"):
        return ("ref", value._client._database_string, value.path)
    raise AssertionError(f"unexpected value {value!r}")


def firestore_state(c):
    """Every document of both databases: path → (fields, createTime, updateTime)."""
    out = {}
    for client in (c.firestore, c.second):
        def walk(collections):
            for collection in collections:
                for snap in collection.stream():
                    out[(client._database, snap.reference.path)] = (
                        canonical(snap.to_dict()), snap.create_time.isoformat(), snap.update_time.isoformat(),
                        snap.create_time.nanosecond, snap.update_time.nanosecond)
                    walk(snap.reference.collections())
        walk(client.collections())
    return out


def auth_state(c):
    from firebase_admin import auth
    return sorted((json.dumps(u._data, sort_keys=True) for u in auth.list_users(app=c.app).iterate_all()))


def database_state(c):
    status, body = http("GET", f"http://{c.suite.host('database')}/.json?ns={NAMESPACE}&format=export",
                        headers={"Authorization": "Bearer owner"})
    assert status == 200, body
    return json.loads(body)


def storage_state(c):
    from firebase_admin import storage
    out = {}
    for blob in storage.bucket(app=c.app).list_blobs():
        out[blob.name] = (blob.download_as_bytes(), blob.content_type, blob.metadata, blob.cache_control, blob.md5_hash,
                          blob.crc32c, blob.size, blob.generation, blob.metageneration,
                          blob.time_created.isoformat(), blob.updated.isoformat())
    return out


def state(c):
    return {"firestore": firestore_state(c), "auth": auth_state(c), "database": database_state(c), "storage": storage_state(c)}


def sign_in(suite, email, password):
    return http("POST", f"http://{suite.host('auth')}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=fake",
                {"email": email, "password": password, "returnSecureToken": True})[0]


def write_everything(c):
    from firebase_admin import auth, db, storage
    values = every_value(c.firestore)
    c.firestore.document("things/every").set(values)
    c.firestore.document("things/every/sub/child").set({"n": 1})
    c.firestore.document("things/a\x00b").set({"id with NUL": True})
    c.second.document("elsewhere/doc").set({"db": "second", "when": datetime.datetime(2020, 2, 29, 23, 59, 59, 999999,
                                                                                       tzinfo=datetime.timezone.utc)})
    c.firestore.document("things/updated").set({"v": 1})
    c.firestore.document("things/updated").update({"v": 2})  # createTime != updateTime

    auth.create_user(uid="alice", email="alice@example.com", password="secret12", display_name="Alice",
                     phone_number="+15555550123", email_verified=True, app=c.app)
    auth.set_custom_user_claims("alice", {"admin": True, "level": 3}, app=c.app)
    auth.create_user(uid="bob", disabled=True, app=c.app)
    salt = b"carol-salt"
    digest = hashlib.pbkdf2_hmac("sha256", b"carol-pass", salt, 5000)
    result = auth.import_users([auth.ImportUserRecord(
        uid="carol", email="carol@example.com", password_hash=digest, password_salt=salt, custom_claims={"role": "editor"},
        provider_data=[auth.UserProvider(uid="g-123", provider_id="google.com", email="carol@gmail.com", display_name="Carol")])],
        hash_alg=auth.UserImportHash.pbkdf2_sha256(rounds=5000), app=c.app)
    assert result.success_count == 1, [e.reason for e in result.errors]
    assert sign_in(c.suite, "alice@example.com", "secret12") == 200
    assert sign_in(c.suite, "carol@example.com", "carol-pass") == 200

    db.reference("/", app=c.app).set({
        "scores": {"a": {".value": 10, ".priority": 1}, "b": {".value": "x", ".priority": "p"}, ".priority": 5},
        "list": [1, 2, 3], "flag": True, "pi": 3.141592653589793, "text": "hi\u0000there",
    })

    bucket = storage.bucket(app=c.app)
    blob = bucket.blob("docs/readme.txt")
    blob.metadata = {"owner": "alice", "k": "v"}
    blob.cache_control = "no-cache"
    blob.upload_from_string("hello export", content_type="text/plain")
    bucket.blob("bin/all-bytes").upload_from_string(bytes(range(256)) * 100, content_type="application/octet-stream")


def tree(directory):
    """Every file below `directory` with its bytes' digest."""
    out = {}
    for path in sorted(glob.glob(os.path.join(directory, "**"), recursive=True)):
        if os.path.isfile(path):
            with open(path, "rb") as f:
                out[os.path.relpath(path, directory)] = hashlib.sha256(f.read()).hexdigest()
    return out


def test_export_then_import_gives_every_service_back_identical(suites, clients, tmp_path):
    first = suites("first")
    c = clients(first)
    write_everything(c)
    before = state(c)
    assert len(before["firestore"]) == 5 and len(before["auth"]) == 3 and len(before["storage"]) == 2

    out = tmp_path / "export"
    result = first.export(out)
    assert result.returncode == 0, result.stderr + first.output()
    assert "Firestore: 5 documents" in result.stdout
    metadata = json.loads((out / "firebase-export-metadata.json").read_text())
    assert {k: metadata[k]["path"] for k in ("firestore", "database", "auth", "storage")} == {
        "firestore": "firestore_export", "database": "database_export", "auth": "auth_export", "storage": "storage_export"}
    assert (out / "database_export" / f"{NAMESPACE}.json").exists()
    accounts = json.loads((out / "auth_export" / "accounts.json").read_text())
    assert accounts["kind"] == "identitytoolkit#DownloadAccountResponse" and len(accounts["users"]) == 3
    assert json.loads((out / "storage_export" / "buckets.json").read_text()) == {"buckets": [{"id": BUCKET}]}
    lines = (out / "firestore_export" / "hearth" / PROJECT / "(default).jsonl").read_text().splitlines()
    assert len(lines) == 4 and all(json.loads(line)["name"].startswith(f"projects/{PROJECT}/databases/(default)/") for line in lines)
    first.stop()

    second = suites("second", "--import", str(out))
    c2 = clients(second)
    after = state(c2)
    for service in before:
        assert after[service] == before[service], service
    # The hashes are usable, with their own algorithms: PBKDF2 at 1,000 rounds (Hearth's) and
    # at 5,000 (carol's import).
    assert sign_in(second, "alice@example.com", "secret12") == 200
    assert sign_in(second, "carol@example.com", "carol-pass") == 200
    assert sign_in(second, "carol@example.com", "wrong-pass") == 400
    # New writes get times after the imported ones.
    write = c2.firestore.document("things/new").set({"x": 1})
    assert write.update_time > max(snap.update_time for snap in c2.firestore.collection("things").stream() if snap.id != "new")


def test_export_on_exit_writes_on_sigterm(suites, clients, tmp_path):
    out = tmp_path / "on-exit"
    suite = suites("exiting", "--export-on-exit", str(out))
    c = clients(suite)
    c.firestore.document("kept/doc").set({"n": 42, "neg_zero": -0.0})
    assert not out.exists()
    log = suite.stop()
    assert suite.proc.returncode == 0, log
    assert "exported to" in log, log
    line = json.loads((out / "firestore_export" / "hearth" / PROJECT / "(default).jsonl").read_text())
    assert line["fields"] == {"n": {"integerValue": "42"}, "neg_zero": {"doubleValue": -0.0}}
    assert str(json.dumps(line["fields"]["neg_zero"])) == '{"doubleValue": -0.0}'


def test_export_on_exit_without_a_directory_writes_back_to_the_import(suites, clients, tmp_path):
    seed = tmp_path / "seed"
    first = suites("seeding")
    clients(first).firestore.document("seed/one").set({"v": 1})
    assert first.export(seed).returncode == 0
    first.stop()
    suite = suites("round", "--import", str(seed), "--export-on-exit")
    c = clients(suite)
    assert c.firestore.document("seed/one").get().to_dict() == {"v": 1}
    c.firestore.document("seed/two").set({"v": 2})
    suite.stop()
    names = sorted(json.loads(line)["name"].rsplit("/", 1)[1]
                   for line in (seed / "firestore_export" / "hearth" / PROJECT / "(default).jsonl").read_text().splitlines())
    assert names == ["one", "two"]


def test_exec_exports_when_its_command_ends(tmp_path):
    out = tmp_path / "exec-export"
    script = ("import json, os, urllib.request\n"
              "host = os.environ['FIRESTORE_EMULATOR_HOST']\n"
              "req = urllib.request.Request(f'http://{host}/v1/projects/demo-export/databases/(default)/documents/from?documentId=exec',"
              " data=json.dumps({'fields': {'ok': {'booleanValue': True}}}).encode(), method='POST',"
              " headers={'Content-Type': 'application/json'})\n"
              "urllib.request.urlopen(req).read()\n")
    ports = [str(free_port()) for _ in range(5)]
    result = subprocess.run([hearth_binary(), "exec", "--ephemeral", "--project", PROJECT, "--port", ports[0], "--auth-port", ports[1],
                             "--database-port", ports[2], "--storage-port", ports[3], "--hub-port", ports[4],
                             "--export-on-exit", str(out), "--", sys.executable, "-c", script],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    line = json.loads((out / "firestore_export" / "hearth" / PROJECT / "(default).jsonl").read_text())
    assert line["name"].endswith("/documents/from/exec") and line["fields"] == {"ok": {"booleanValue": True}}


def test_kill_9_during_an_export_leaves_the_previous_export_intact(suites, clients, tmp_path):
    suite = suites("big")
    c = clients(suite)
    c.firestore.document("state/marker").set({"version": 1})
    out = tmp_path / "kept"
    assert suite.export(out).returncode == 0
    previous = tree(out)
    assert any(name.endswith(".jsonl") for name in previous)

    # 20,000 documents of ~2 KB: an export of ~40 MB, long enough to be killed in the middle.
    filler = "x" * 2000
    for start in range(0, 20_000, 500):
        batch = c.firestore.batch()
        for i in range(start, start + 500):
            batch.set(c.firestore.document(f"big/{i:05d}"), {"i": i, "filler": filler})
        batch.commit()
    c.firestore.document("state/marker").set({"version": 2})

    exporting = subprocess.Popen([hearth_binary(), "export", str(out), "--hub", suite.host("hub")],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    staging_files = os.path.join(str(tmp_path), ".kept.hearth-export-*", "firestore_export", "hearth", PROJECT, "*.jsonl")
    deadline = time.time() + 60
    while time.time() < deadline:
        written = glob.glob(staging_files)
        if written and os.path.getsize(written[0]) > 1_000_000:
            break
        time.sleep(0.005)
    else:
        raise AssertionError("the export never started writing: " + suite.output())
    suite.proc.send_signal(signal.SIGKILL)
    suite.proc.wait()
    exporting.wait(timeout=60)
    assert exporting.returncode != 0  # the hub died before answering
    # Killed in the middle: the half-written export is still in its temporary directory...
    assert glob.glob(staging_files)
    # ...and the previous export is exactly as it was.
    assert tree(out) == previous

    again = suites("after-kill", "--import", str(out))
    c2 = clients(again)
    assert c2.firestore.document("state/marker").get().to_dict() == {"version": 1}
    assert list(c2.firestore.collection("big").limit(1).stream()) == []
