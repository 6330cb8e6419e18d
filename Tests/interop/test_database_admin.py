"""The Realtime Database emulator with the real Python Admin SDK (firebase_admin.db, over REST
and server-sent events) and with plain HTTP where the SDK has no call for a feature.

Each test gets its own namespace (`<ns>.firebaseio.com`, which the SDK turns into `?ns=` with
FIREBASE_DATABASE_EMULATOR_HOST set by conftest.py). Expected values follow the REST reference
and the SDK's own behaviour (docs/realtime-database.md lists the sources).
"""
import base64
import json
import threading
import time
import urllib.error
import urllib.request

import pytest


def _jwt(claims):
    """An unsigned Firebase ID token (the emulators accept any signature, as the official ones do)."""
    def enc(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    now = int(time.time())
    body = {"iss": "https://securetoken.google.com/demo", "aud": "demo", "iat": now, "exp": now + 3600,
            "auth_time": now, "firebase": {"sign_in_provider": "password", "identities": {}}}
    body.update(claims)
    return enc({"alg": "none", "typ": "JWT"}) + "." + enc(body) + "."


def _user(uid):
    return _jwt({"sub": uid, "user_id": uid})


class Raw:
    """Plain HTTP to the database port, for what the SDK does not expose."""

    def __init__(self, base, ns):
        self.base, self.ns = base, ns

    def request(self, method, path, body=None, headers=None, params="", auth="owner", raw_body=None):
        url = f"{self.base}{path}?ns={self.ns}" + (("&" + params) if params else "")
        data = raw_body if raw_body is not None else (None if body is None else json.dumps(body).encode())
        req = urllib.request.Request(url, data=data, method=method)
        if auth == "owner":
            req.add_header("Authorization", "Bearer owner")
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                text = r.read().decode()
                return r.status, dict(r.headers), text
        except urllib.error.HTTPError as e:
            return e.code, dict(e.headers), e.read().decode()

    def json(self, method, path, body=None, **kw):
        status, headers, text = self.request(method, path, body, **kw)
        return status, (json.loads(text) if text else None)


@pytest.fixture
def rtdb(hearth, request):
    import firebase_admin
    import google.auth.credentials
    from firebase_admin import credentials, db

    class Anonymous(credentials.Base):
        def get_credential(self):
            return google.auth.credentials.AnonymousCredentials()

    import re
    ns = "py-" + re.sub(r"[^a-z0-9-]", "-", request.node.name.replace("_", "-").lower())[:50]
    options = {"databaseURL": f"https://{ns}.firebaseio.com"}
    override = getattr(request, "param", None)
    if override is not None:
        options["databaseAuthVariableOverride"] = override
    app = firebase_admin.initialize_app(Anonymous(), options, name=ns + str(id(request)))
    import os
    base = "http://" + os.environ["FIREBASE_DATABASE_EMULATOR_HOST"]
    raw = Raw(base, ns)
    raw.request("PUT", "/.json", None)  # start empty
    yield db.reference("/", app=app), raw, app
    firebase_admin.delete_app(app)


def test_get_set_update_push_delete(rtdb):
    root, raw, _ = rtdb
    ref = root.child("users/alice")
    ref.set({"name": "Alice", "age": 30, "tags": ["a", "b"], "ok": True, "pi": 3.25, "none": None, "é": "ü"})
    assert ref.get() == {"name": "Alice", "age": 30, "tags": ["a", "b"], "ok": True, "pi": 3.25, "é": "ü"}
    ref.update({"age": 31, "address/city": "Paris", "tags": None})
    assert ref.get() == {"name": "Alice", "age": 31, "ok": True, "pi": 3.25, "é": "ü", "address": {"city": "Paris"}}
    pushed = [root.child("log").push({"n": i}) for i in range(5)]
    keys = [p.key for p in pushed]
    assert keys == sorted(keys) and all(len(k) == 20 for k in keys)
    assert list(root.child("log").order_by_key().get().keys()) == keys
    assert root.child("log").child(keys[2]).get() == {"n": 2}
    default = root.child("empty-push").push()
    assert default.get() == ""
    root.child("users/alice/address").delete()
    assert ref.child("address").get() is None
    assert root.child("nowhere/at/all").get() is None
    assert root.get(shallow=True) == {"users": True, "log": True, "empty-push": True}
    ref.set(5)
    assert root.child("users").get() == {"alice": 5}


def test_numbers_strings_and_arrays_come_back_as_stored(rtdb):
    root, raw, _ = rtdb
    values = {"int": 9007199254740991, "neg": -42, "float": 0.1, "big": 1e21, "small": 1.5e-7, "zero": 0,
              "text": "line\nbreak \"quoted\" <tag> 😀", "t": True, "f": False,
              "array": [1, None, 3], "sparse": {"0": "a", "3": "d"}, "notarray": {"0": "a", "5": "f"}}
    root.child("v").set(values)
    got = root.child("v").get()
    expected = dict(values)
    expected["array"] = [1, None, 3]
    expected["sparse"] = ["a", None, None, "d"]
    assert got == expected


def test_queries_with_every_order_and_filter(rtdb):
    root, raw, _ = rtdb
    raw.request("PUT", "/.settings/rules.json", raw_body=json.dumps(
        {"rules": {".read": True, ".write": True, "scores": {".indexOn": ["score", "info/rank", ".value"]},
                   "vals": {".indexOn": ".value"}}}).encode())
    scores = {"alice": {"score": 10, "info": {"rank": 3}}, "bob": {"score": 5, "info": {"rank": 1}},
              "carol": {"score": 10, "info": {"rank": 2}}, "dave": {"score": "n/a"}, "erin": {"score": True},
              "frank": {"x": 1}, "gina": {"score": False}, "hank": {"score": {"nested": 1}}, "ivy": {"score": -3}}
    root.child("scores").set(scores)
    ref = root.child("scores")
    by_score = ref.order_by_child("score")
    assert list(by_score.get().keys()) == ["frank", "gina", "erin", "ivy", "bob", "alice", "carol", "dave", "hank"]
    assert list(by_score.start_at(5).get().keys()) == ["bob", "alice", "carol", "dave", "hank"]
    assert list(by_score.start_at(5).end_at(10).get().keys()) == ["bob", "alice", "carol"]
    assert list(ref.order_by_child("score").equal_to(10).get().keys()) == ["alice", "carol"]
    assert list(ref.order_by_child("score").limit_to_first(3).get().keys()) == ["frank", "gina", "erin"]
    assert list(ref.order_by_child("score").limit_to_last(2).get().keys()) == ["dave", "hank"]
    assert list(ref.order_by_child("score").start_at("a").get().keys()) == ["dave", "hank"]
    assert list(ref.order_by_child("info/rank").start_at(2).get().keys()) == ["carol", "alice"]
    assert list(ref.order_by_key().start_at("c").end_at("g").get().keys()) == ["carol", "dave", "erin", "frank"]
    assert list(ref.order_by_key().limit_to_last(2).get().keys()) == ["hank", "ivy"]
    root.child("vals").set({"a": 3, "b": 1, "c": "x", "d": 2, "e": True, "10": 0, "9": 5})
    vals = root.child("vals").order_by_value()
    assert list(vals.get().keys()) == ["e", "10", "b", "d", "a", "9", "c"]
    assert vals.start_at(2).end_at(3).get() == {"d": 2, "a": 3}
    # Integer-like keys come first, numerically (the Python SDK re-sorts keys as strings itself,
    # so the server's order shows in which keys a limit keeps).
    assert set(root.child("vals").order_by_key().limit_to_first(2).get().keys()) == {"9", "10"}
    assert set(root.child("vals").order_by_key().limit_to_first(3).get().keys()) == {"9", "10", "a"}
    # orderBy $priority (the SDK builds it, but only as a raw query)
    raw.request("PUT", "/prio.json", {"x": {".value": 1, ".priority": 20}, "y": {".value": 2, ".priority": 10},
                                      "z": {".value": 3, ".priority": "a"}, "w": 4})
    status, got = raw.json("GET", "/prio.json", params='orderBy="$priority"&startAt=10&endAt=20')
    assert status == 200 and got == {"x": 1, "y": 2}
    status, got = raw.json("GET", "/prio.json", params='orderBy="$priority"&limitToFirst=1')
    assert got == {"w": 4}
    # startAfter / endBefore (the JS SDK's REST forms, value and key)
    status, got = raw.json("GET", "/scores.json", params='orderBy="score"&startAfter=5&endBefore=10,"carol"')
    assert status == 200 and list(got) == ["alice"]
    # a query on a child without .indexOn is refused over REST as production refuses it
    status, got = raw.json("GET", "/scores.json", params='orderBy="x"&limitToFirst=1')
    assert status == 400 and got["error"] == 'Index not defined, add ".indexOn": "x", for path "/scores", to the rules'
    status, got = raw.json("GET", "/scores.json", params='startAt=1')
    assert status == 400 and "orderBy must be defined" in got["error"]


def test_transactions_with_etags_under_contention(rtdb):
    root, raw, _ = rtdb
    counter = root.child("counter")
    value, etag = counter.get(etag=True)
    assert value is None and etag
    assert counter.transaction(lambda v: (v or 0) + 1) == 1
    errors = []

    def worker():
        try:
            for _ in range(10):
                counter.transaction(lambda v: (v or 0) + 1)
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert counter.get() == 41
    value, etag = counter.get(etag=True)
    changed, snapshot, new_etag = counter.get_if_changed(etag)
    assert (changed, snapshot, new_etag) == (False, None, None)
    ok, data, etag2 = counter.set_if_unchanged(etag, 100)
    assert ok and data == 100 and etag2 and etag2 != etag
    ok, data, etag3 = counter.set_if_unchanged(etag, 200)
    assert not ok and data == 100 and etag3 == etag2
    changed, snapshot, _ = counter.get_if_changed(etag)
    assert changed and snapshot == 100


def test_listen_streams_puts_and_patches(rtdb):
    root, raw, _ = rtdb
    ref = root.child("room")
    ref.set({"a": 1})
    events, seen = [], threading.Event()

    def callback(event):
        events.append((event.event_type, event.path, event.data))
        seen.set()

    registration = ref.listen(callback)
    try:
        def wait_for(n):
            deadline = time.time() + 10
            while len(events) < n and time.time() < deadline:
                seen.wait(0.1)
                seen.clear()
            assert len(events) >= n, events
        wait_for(1)
        ref.child("b").set(2)
        wait_for(2)
        ref.update({"c": 3, "d/e": 4})
        wait_for(3)
        root.set({"room": {"z": 0}})
        wait_for(4)
        ref.delete()
        wait_for(5)
        assert events[:5] == [
            ("put", "/", {"a": 1}),
            ("put", "/b", 2),
            ("patch", "/", {"c": 3, "d/e": 4}),
            ("put", "/", {"z": 0}),
            ("put", "/", None),
        ]
    finally:
        close_listener(registration, ref.child("nudge"))


def close_listener(registration, nudge):
    """ListenerRegistration.close() joins a thread blocked reading the stream, which only wakes
    when the next event (or the 30 s keep-alive) arrives: writes wake it at once."""
    done = threading.Event()

    def nudger():
        n = 0
        while not done.wait(0.05):
            n += 1
            nudge.set(n)
    helper = threading.Thread(target=nudger)
    helper.start()
    try:
        registration.close()
    finally:
        done.set()
        helper.join()


@pytest.mark.parametrize("rtdb", [{"uid": "alice"}], indirect=True)
def test_auth_variable_override_runs_the_rules(rtdb):
    root, raw, _ = rtdb
    status, _ = raw.json("PUT", "/.settings/rules.json", raw_body=json.dumps({"rules": {
        "users": {"$uid": {".read": "auth != null && auth.uid == $uid", ".write": "auth != null && auth.uid == $uid"}}}}).encode())
    assert status == 200
    root.child("users/alice").set({"ok": True})
    assert root.child("users/alice").get() == {"ok": True}
    from firebase_admin import exceptions
    with pytest.raises(exceptions.UnauthenticatedError) as info:
        root.child("users/bob").set({"ok": True})
    assert "Permission denied" in str(info.value)


def test_rules_settings_and_seed_acl_flows(rtdb):
    root, raw, _ = rtdb
    import os
    rules = open(os.path.join(os.path.dirname(__file__), "..", "..", "rules", "acl-sharing.database.rules.json")).read()
    status, body = raw.json("PUT", "/.settings/rules.json", raw_body=rules.encode())
    assert (status, body) == (200, {"status": "ok"})
    status, headers, text = raw.request("GET", "/.settings/rules.json")
    assert status == 200 and text == rules
    status, body = raw.json("PUT", "/.settings/rules.json", raw_body=b'{"rules": {".read": "auth.uid"}}')
    assert status == 400 and "boolean" in body["error"]
    status, _, _ = raw.request("PUT", "/.settings/rules.json", raw_body=b"{}", auth=None)
    assert status == 401

    def as_user(uid, method, path, body=None):
        return raw.json(method, path, body, params="auth=" + _user(uid), auth=None)

    # alice saves a private object (the controller's three steps), then shares it with bob
    assert as_user("alice", "PUT", "/permissions/user/alice/o1.json", True)[0] == 200
    assert as_user("alice", "PUT", "/objects/o1.json", {"title": "plan"})[0] == 200
    assert as_user("alice", "PUT", "/permissions/user/bob/o1.json", True)[0] == 200
    # reads as each user
    assert as_user("alice", "GET", "/objects/o1.json") == (200, {"title": "plan"})
    assert as_user("bob", "GET", "/objects/o1.json") == (200, {"title": "plan"})
    assert as_user("carol", "GET", "/objects/o1.json")[0] == 401
    assert raw.json("GET", "/objects/o1.json", auth=None)[0] == 401
    assert as_user("bob", "GET", "/permissions/user/bob.json") == (200, {"o1": True})
    assert as_user("carol", "GET", "/permissions/user/bob.json")[0] == 401
    # carol cannot share it with herself, or edit it
    assert as_user("carol", "PUT", "/permissions/user/carol/o1.json", True)[0] == 401
    assert as_user("carol", "PUT", "/objects/o1.json", {"title": "mine"})[0] == 401
    # bob edits it and makes it public: carol may read, not write
    assert as_user("bob", "PATCH", "/objects/o1.json", {"title": "plan v2"})[0] == 200
    assert as_user("bob", "PUT", "/permissions/public/o1.json", True)[0] == 200
    assert as_user("carol", "GET", "/objects/o1.json") == (200, {"title": "plan v2"})
    assert as_user("carol", "PUT", "/objects/o1.json", {"title": "mine"})[0] == 401
    # revoke: alice removes bob (false, then null, as the controller does) and makes it private
    assert as_user("alice", "PUT", "/permissions/user/bob/o1.json", False)[0] == 200
    assert as_user("alice", "DELETE", "/permissions/user/bob/o1.json")[0] == 200
    assert as_user("alice", "DELETE", "/permissions/public/o1.json")[0] == 200
    assert as_user("bob", "GET", "/objects/o1.json")[0] == 401
    assert as_user("bob", "PUT", "/objects/o1.json", {"title": "x"})[0] == 401
    assert as_user("carol", "GET", "/objects/o1.json")[0] == 401
    assert as_user("alice", "GET", "/objects/o1.json") == (200, {"title": "plan v2"})
    coverage = raw.json("GET", "/.inspect/coverage.json")[1]
    assert any(r["path"] == "/objects/$objectId" and r["kind"] == ".read" and r["allowed"] > 0 and r["denied"] > 0
               for r in coverage["rules"])


def test_rest_options_and_errors(rtdb):
    root, raw, _ = rtdb
    raw.request("PUT", "/p.json", {"a": {".value": 1, ".priority": 5}, "b": {"c": 2, ".priority": "x"}})
    assert raw.json("GET", "/p.json", params="format=export")[1] == {"a": {".value": 1, ".priority": 5}, "b": {"c": 2, ".priority": "x"}}
    status, _, text = raw.request("GET", "/p.json", params="print=pretty")
    assert text == '{\n  "a" : 1,\n  "b" : {\n    "c" : 2\n  }\n}'
    assert raw.request("PUT", "/q.json", 1, params="print=silent")[0] == 204
    assert raw.json("GET", "/p/a/.priority.json") == (200, 5)
    assert raw.json("PUT", "/p/a/.priority.json", 7)[0] == 200
    assert raw.json("GET", "/p.json", params="format=export")[1]["a"] == {".value": 1, ".priority": 7}
    assert raw.json("POST", "/m.json", {"x": 1}, headers={"X-HTTP-Method-Override": "PATCH"})[0] == 200
    assert raw.json("GET", "/m.json") == (200, {"x": 1})
    status, body = raw.json("PUT", "/t.json", {"at": {".sv": "timestamp"}, "n": {".sv": {"increment": 2}}})
    assert status == 200 and abs(body["at"] - time.time() * 1000) < 60_000 and body["n"] == 2
    assert raw.json("PATCH", "/t.json", {"n": {".sv": {"increment": 2.5}}})[1] == {"n": 4.5}
    status, body = raw.json("PUT", "/t.json", {".sv": "nope"})
    assert status == 400 and "server value" in body["error"]
    bad = [
        ("PUT", "/x.json", b'{"a": '),
        ("PUT", "/x.json", b'{"a.b": 1}'),
        ("PUT", "/x.json", json.dumps({"k" * 769: 1}).encode()),
        ("PUT", "/x.json", json.dumps(json.loads("{\"k\":" * 33 + "1" + "}" * 33)).encode()),
        ("PUT", "/bad$path.json", b"1"),
        ("PUT", "/bad[path.json", b"1"),
        ("GET", "/x.json?shallow=true&orderBy=%22%24key%22", None),
        ("GET", "/x.json?timeout=20min", None),
        ("PUT", "/x.json?writeSizeLimit=huge", b"1"),
    ]
    for method, path, body in bad:
        p, _, params = path.partition("?")
        status, headers, text = raw.request(method, p, raw_body=body, params=params)
        assert status == 400, (path, status, text)
        assert json.loads(text)["error"] and text.startswith('{\n  "error" : '), text
    assert raw.request("GET", "/x.json", params="timeout=3s")[0] == 200
    raw.request("PUT", "/big.json", {str(i): {"v": i} for i in range(20)})
    status, body = raw.json("DELETE", "/big.json", params="writeSizeLimit=tiny")
    assert status == 200
    assert raw.json("GET", "/anything.json", params="auth=not-a-token", auth=None)[0] == 401


def test_a_256mb_write_is_refused_and_the_server_carries_on(rtdb):
    root, raw, _ = rtdb
    import http.client
    import os
    host, port = os.environ["FIREBASE_DATABASE_EMULATOR_HOST"].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    size = 256 * 1024 * 1024 + 1
    conn.putrequest("PUT", f"/huge.json?ns={raw.ns}")
    conn.putheader("Authorization", "Bearer owner")
    conn.putheader("Content-Length", str(size))
    conn.endheaders()
    try:
        conn.send(b'"' + b"x" * (1024 * 1024))
    except OSError:
        pass
    response = conn.getresponse()
    assert response.status == 413
    assert "error" in json.loads(response.read())
    conn.close()
    root.child("after").set(1)
    assert root.child("after").get() == 1
