"""The Firestore JS SDK (10.12.2, browser builds) in headless Chromium against an emulator, over
Firestore's WebChannel transport (docs/webchannel-protocol.md) and the SDK's REST calls.

Every case runs twice: `streaming` (WebChannel back channel as one streamed response, CI=0;
auto-detection of long-polling is turned off so the mode is certain) and `long-polling`
(`experimentalForceLongPolling: true`, CI=1: every back-channel request ends after data).

Target:
- default: Hearth, through the `hearth` fixture of conftest.py ($HEARTH_BINARY start --ephemeral).
- FIRESTORE_JS_TARGET=official: the official emulator, started here through
  `gcloud emulators firestore start` (skipped where gcloud is absent).
- FIRESTORE_JS_TARGET=http://127.0.0.1:PORT: an emulator that is already running.

  FIRESTORE_JS_TARGET=official .venv/bin/python -m pytest -q Tests/interop/test_firestore_js_sdk.py

Needs the SDK ($FIREBASE_JS_SDK, or ../shared/clients/firebase-js-10.12.2 beside the repository),
Debian's chromium and chromium-driver, and selenium; where one is missing the module is skipped,
unless HEARTH_REQUIRE_BROWSER=1, which turns that into a failure. A target that does not answer
a WebChannel handshake fails every browser case at once, with what it answered.

One Chromium serves the whole module; each case opens fresh app instances ("clients", each with
its own WebChannel streams) in the page (Tests/interop/browser/harness.js) and its own project
ID, so cases are independent. Values cross between the page and Python as JSON with tags for
what JSON cannot carry (see harness.js: {"$nan":1}, {"$ts":[s,n]}, {"$bytes":b64}, ...).
The REST API (as admin, `Authorization: Bearer owner`) checks what was stored, with its types.
Expected values are those of the official emulator (the reference for Hearth), including its
quirks, which are commented where they appear. The `test_wire_*` cases speak WebChannel
directly (no browser) and pin the framing facts the SDK depends on.

Against the official emulator (only), a long-polling case that hangs is run once more with a
fresh project and a warning: under load that emulator sometimes ends a long poll empty and then
sends the same frame twice on the next one, after which the SDK waits forever
(docs/webchannel-protocol.md, section 13). Hearth gets no second try.

The network drop uses a real drop: Chrome DevTools' Network.emulateNetworkConditions(offline),
which fails the page's open requests (the hanging back channel included) and fires `offline`;
`disableNetwork()`/`enableNetwork()` is covered by a case of its own.
"""
import base64
import functools
import http.client
import inspect
import json
import os
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
import warnings

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "browser"))
import jsharness  # noqa: E402

MODES = ["streaming", "long-polling"]


# ---------------------------------------------------------------------------------------------
# fixtures

@pytest.fixture(scope="module")
def js_target(request):
    """{"base", "host", "port", "name"} of the emulator under test."""
    choice = os.environ.get("FIRESTORE_JS_TARGET", "hearth").strip()
    if choice == "official":
        if not jsharness.gcloud_available():
            pytest.skip("FIRESTORE_JS_TARGET=official needs gcloud (the official Firestore emulator)")
        emulator = jsharness.OfficialEmulator()
        base = emulator.start()
        request.addfinalizer(emulator.stop)
        name = "official"
    elif choice.startswith("http://"):
        base = choice.rstrip("/")
        name = base
    else:
        base = request.getfixturevalue("hearth")
        name = "hearth"
    parsed = urllib.parse.urlsplit(base)
    return {"base": base, "host": parsed.hostname, "port": parsed.port, "name": name}


@pytest.fixture(scope="module")
def browser(js_target):
    jsharness.require_browser(pytest, need_sdk=True)
    sdk = jsharness.find_sdk()
    problem = _probe_webchannel(js_target)
    if problem:
        # fail every browser case at once rather than each after its timeouts
        pytest.fail(f"{js_target['name']} ({js_target['base']}) does not speak Firestore's WebChannel: {problem}")
    server = jsharness.PageServer(sdk)
    b = jsharness.Browser(server.base + "/harness/firestore.html")
    b.target = js_target
    b.driver.execute_script("H.target = arguments[0]", {"host": js_target["host"], "port": js_target["port"]})
    yield b
    b.quit()
    server.close()


def _probe_webchannel(target):
    """None when a Listen channel handshake is answered with a session; else what went wrong."""
    database = "projects/probe/databases/(default)"
    form = urllib.parse.urlencode({"count": 1, "ofs": 0, "req0___data__": json.dumps({
        "database": database, "addTarget": {"documents": {"documents": [database + "/documents/p/p"]}, "targetId": 2}})})
    try:
        status, _, text = _channel(target, "POST", {"VER": 8, "database": database, "RID": 1, "CVER": 22,
                                                    "X-HTTP-Session-Id": "gsessionid", "zx": "probe", "t": 1},
                                   body=form, timeout=10)
    except OSError as error:
        return f"POST /google.firestore.v1.Firestore/Listen/channel failed: {error}"
    match = re.search(r'\["c","([^"]+)"', text)
    if status != 200 or not match:
        return f"POST /google.firestore.v1.Firestore/Listen/channel answered {status} {text[:200]!r}"
    _channel(target, "POST", {"VER": 8, "database": database, "SID": match.group(1), "RID": 2,
                              "TYPE": "terminate", "zx": "probe"}, body="", timeout=10)
    return None


class Case:
    """One test case in one mode: its project, its clients in the page, REST as admin."""

    def __init__(self, browser, target, mode, project):
        self.browser, self.target, self.mode, self.project = browser, target, mode, project
        self.offline = False

    def reset(self):
        """A fresh start for a second try: clients closed (or the page reloaded), a new project."""
        if self.offline:
            self.set_offline(False)
        try:
            self.browser.run("await H.closeAll()")
        except Exception:
            self.browser.load()
            self.browser.driver.execute_script("H.target = arguments[0]",
                                               {"host": self.target["host"], "port": self.target["port"]})
        self.project = "js-" + uuid.uuid4().hex[:12]

    # the page
    def open(self, name="a", user=None, compat=False, settings=None):
        if settings is None and not compat and self.mode == "streaming":
            settings = {"experimentalAutoDetectLongPolling": False}
        self.browser.run("H.open(args.name, args.opts)", name=name, opts={
            "project": self.project, "longPolling": self.mode == "long-polling", "user": user,
            "compat": compat, "settings": settings or {}})

    def run(self, js, **args):
        return self.browser.run(js, **args)

    def events(self, listener):
        return self.browser.events(listener)

    def wait(self, listener, predicate, what, timeout=20.0):
        return self.browser.wait_events(listener, predicate, what, timeout)

    def wait_last(self, listener, predicate, what, timeout=20.0):
        """Waits until the last event satisfies predicate; returns that event."""
        return self.wait(listener, lambda ev: bool(ev) and predicate(ev[-1]), what, timeout)[-1]

    def set_offline(self, offline):
        self.offline = offline
        self.browser.set_offline(offline)

    # REST, as admin
    def _rest(self, method, path, body=None):
        url = f"{self.target['base']}/v1/projects/{self.project}/databases/(default)/documents{path}"
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers={
            "Authorization": "Bearer owner", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read() or b"null")
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read() or b"null")

    def rest_doc(self, path):
        """The stored document (REST JSON) or None."""
        status, body = self._rest("GET", "/" + urllib.parse.quote(path))
        if status == 404:
            return None
        assert status == 200, body
        return body

    def rest_fields(self, path):
        doc = self.rest_doc(path)
        return None if doc is None else doc.get("fields", {})

    def rest_commit(self, writes):
        status, body = self._rest("POST", ":commit", {"writes": writes})
        assert status == 200, body
        return body

    def rest_set(self, path, fields):
        name = f"projects/{self.project}/databases/(default)/documents/{path}"
        return self.rest_commit([{"update": {"name": name, "fields": fields}}])

    def name(self, path):
        return f"projects/{self.project}/databases/(default)/documents/{path}"

    def rules(self, text):
        body = json.dumps({"rules": {"files": [{"name": "firestore.rules", "content": text}]}}).encode()
        req = urllib.request.Request(
            f"{self.target['base']}/emulator/v1/projects/{self.project}:securityRules", data=body,
            method="PUT", headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=30) as r:
            assert r.status == 200


@pytest.fixture(params=MODES)
def case(request, browser, js_target):
    project = "js-" + uuid.uuid4().hex[:12]
    c = Case(browser, js_target, request.param, project)
    yield c
    if c.offline:
        try:
            browser.set_offline(False)
        except Exception:
            pass
    try:
        browser.run("await H.closeAll()")
    except Exception:
        browser.load()
        browser.driver.execute_script("H.target = arguments[0]",
                                      {"host": js_target["host"], "port": js_target["port"]})


def _raises(case, js, code, **args):
    with pytest.raises(jsharness.JsError) as info:
        case.run(js, **args)
    assert info.value.code == code, str(info.value)
    return info.value


def ids(snapshot):
    return [d[0] for d in snapshot["docs"]]


def changes(snapshot):
    return [(c["type"], c["id"], c["oldIndex"], c["newIndex"]) for c in snapshot["changes"]]


SYNCED = {"hasPendingWrites": False, "fromCache": False}

# Reads from a second client (no local cache: the data comes from the server).
GET_B = "return await fs.getDoc(fs.doc(db2, args.path))"


def _set_and_read(case, path, value):
    case.open("a")
    case.open("b")
    case.run("await fs.setDoc(fs.doc(db, args.path), H.dec(args.v, db))", path=path, v=value)
    snap = case.run(GET_B, path=path)
    assert snap["exists"] is True and snap["meta"] == SYNCED
    return snap["data"]


# ---------------------------------------------------------------------------------------------
# values

def test_values_null_bool_numbers(case):
    value = {"nul": None, "t": True, "f": False, "zero": 0, "neg": -42,
             "maxsafe": 9007199254740991, "minsafe": -9007199254740991, "pow53": 9007199254740992,
             "d": 1.5, "dneg": -2.25, "tiny": 5e-324, "huge": 1.7976931348623157e308,
             "nan": {"$nan": 1}, "pinf": {"$inf": 1}, "ninf": {"$inf": -1}}
    assert _set_and_read(case, "v/numbers", value) == value
    f = case.rest_fields("v/numbers")
    assert f["nul"] == {"nullValue": None}
    assert f["t"] == {"booleanValue": True} and f["f"] == {"booleanValue": False}
    assert f["zero"] == {"integerValue": "0"} and f["neg"] == {"integerValue": "-42"}
    assert f["maxsafe"] == {"integerValue": "9007199254740991"}
    assert f["minsafe"] == {"integerValue": "-9007199254740991"}
    # beyond 2^53 the SDK has no safe integer: it sends a double
    assert f["pow53"] == {"doubleValue": 9007199254740992.0}
    assert f["d"] == {"doubleValue": 1.5} and f["dneg"] == {"doubleValue": -2.25}
    assert f["tiny"] == {"doubleValue": 5e-324} and f["huge"] == {"doubleValue": 1.7976931348623157e308}
    assert f["nan"] == {"doubleValue": "NaN"}
    assert f["pinf"] == {"doubleValue": "Infinity"} and f["ninf"] == {"doubleValue": "-Infinity"}


def test_value_negative_zero(case):
    # The SDK sends -0 as {"doubleValue": "-0"}. Hearth keeps the sign, in storage and in every
    # protocol, so -0 comes back; the official emulator stores +0 (an intended difference,
    # docs/differences.md), which this case checks in the differential mode.
    if case.target["name"] == "official":
        assert _set_and_read(case, "v/z", {"z": {"$negzero": 1}}) == {"z": 0}
        assert case.rest_fields("v/z")["z"] == {"doubleValue": 0}
        return
    assert _set_and_read(case, "v/z", {"z": {"$negzero": 1}}) == {"z": {"$negzero": 1}}
    assert str(case.rest_fields("v/z")["z"]["doubleValue"]) == "-0.0"


def test_values_strings_and_unicode_names(case):
    value = {"empty": "", "ascii": "hello", "accents": "é ü ß ñ", "emoji": "😀👍🏽🇫🇷", "cjk": "日本語テキスト",
             "escapes": "tab\tnl\ncr\rquote\"back\\slash/", "nul": "a\u0000b", "long": "xé😀" * 5000,
             "clé": "key é", "😀": "emoji key", "dotted.key": "d", "sp ace": "s"}
    path = "vé/dé😀 x"
    assert _set_and_read(case, path, value) == value
    doc = case.rest_doc(path)
    assert doc["name"] == case.name(path)
    assert doc["fields"]["emoji"] == {"stringValue": "😀👍🏽🇫🇷"}
    assert doc["fields"]["😀"] == {"stringValue": "emoji key"}
    assert doc["fields"]["long"] == {"stringValue": "xé😀" * 5000}


def test_values_bytes(case):
    every = base64.b64encode(bytes(range(256))).decode()
    value = {"all": {"$bytes": every}, "empty": {"$bytes": ""}, "one": {"$bytes": "/w=="}}
    assert _set_and_read(case, "v/bytes", value) == value
    f = case.rest_fields("v/bytes")
    assert f["all"] == {"bytesValue": every}
    assert f["empty"] == {"bytesValue": ""}
    assert f["one"] == {"bytesValue": "/w=="}


def test_values_timestamps(case):
    value = {"ts": {"$ts": [1700000000, 123456789]}, "micro": {"$ts": [1700000000, 123456000]},
             "before_epoch": {"$ts": [-1, 500000000]}, "epoch": {"$ts": [0, 0]},
             "min": {"$ts": [-62135596800, 0]}, "max": {"$ts": [253402300799, 999999000]}}
    got = _set_and_read(case, "v/ts", value)
    # stored with microsecond precision: nanoseconds below a microsecond are cut
    assert got == dict(value, ts={"$ts": [1700000000, 123456000]})
    f = case.rest_fields("v/ts")
    assert f["ts"] == {"timestampValue": "2023-11-14T22:13:20.123456Z"}
    assert f["before_epoch"] == {"timestampValue": "1969-12-31T23:59:59.500Z"}
    assert f["epoch"] == {"timestampValue": "1970-01-01T00:00:00Z"}
    assert f["min"] == {"timestampValue": "0001-01-01T00:00:00Z"}
    assert f["max"] == {"timestampValue": "9999-12-31T23:59:59.999999Z"}


def test_values_geopoints(case):
    value = {"paris": {"$geo": [48.8566, 2.3522]}, "corner": {"$geo": [-90, -180]},
             "other": {"$geo": [90, 180]}, "origin": {"$geo": [0, 0]}}
    assert _set_and_read(case, "v/geo", value) == value
    f = case.rest_fields("v/geo")
    assert f["paris"] == {"geoPointValue": {"latitude": 48.8566, "longitude": 2.3522}}
    assert f["corner"] == {"geoPointValue": {"latitude": -90.0, "longitude": -180.0}}
    assert f["origin"] == {"geoPointValue": {}}


def test_values_references(case):
    value = {"r": {"$ref": "other/x"}, "deep": {"$ref": "a/b/c/d"}, "list": [{"$ref": "l/1"}, {"$ref": "l/2"}]}
    assert _set_and_read(case, "v/refs", value) == value
    f = case.rest_fields("v/refs")
    assert f["r"] == {"referenceValue": case.name("other/x")}
    assert f["deep"] == {"referenceValue": case.name("a/b/c/d")}


def test_values_arrays_and_maps(case):
    value = {"arr": [1, "two", None, True, 2.5, {"$ts": [1, 0]}, {"m": [1, 2, {"deep": [3]}]}],
             "dups": [1, 1, "a", "a"], "empty_arr": [], "empty_map": {},
             "map": {"a": {"b": {"c": "deep"}}, "key with space": 1, "dotted.key": 2, "clé": 3}}
    assert _set_and_read(case, "v/nested", value) == value
    f = case.rest_fields("v/nested")
    assert f["empty_arr"] == {"arrayValue": {}}
    assert f["empty_map"] == {"mapValue": {}}
    assert f["dups"] == {"arrayValue": {"values": [{"integerValue": "1"}, {"integerValue": "1"},
                                                   {"stringValue": "a"}, {"stringValue": "a"}]}}
    assert f["map"]["mapValue"]["fields"]["a"] == {
        "mapValue": {"fields": {"b": {"mapValue": {"fields": {"c": {"stringValue": "deep"}}}}}}}


def test_value_vector_written_over_rest_reads_as_map(case):
    # SDK 10.12.2 has no vector(): a vector stored by another client is a plain map to it.
    case.rest_set("v/vec", {"emb": {"mapValue": {"fields": {
        "__type__": {"stringValue": "__vector__"},
        "value": {"arrayValue": {"values": [{"doubleValue": 1.0}, {"doubleValue": 2.5}, {"doubleValue": -3.0}]}}}}}})
    case.open("a")
    snap = case.run("return await fs.getDoc(fs.doc(db, 'v/vec'))")
    assert snap["data"] == {"emb": {"__type__": "__vector__", "value": [1, 2.5, -3]}}
    assert snap["meta"] == SYNCED


def test_set_merge_and_update_field_paths(case):
    case.open("a")
    case.open("b")
    got = case.run("""
      const ref = fs.doc(db, 'u/doc');
      await fs.setDoc(ref, {a: 1, m: {x: 1, y: 1}});
      await fs.setDoc(ref, {m: {y: 2, z: 3}}, {merge: true});
      await fs.setDoc(ref, {a: 5, m: {x: 9, y: 99}}, {mergeFields: ['m.x']});
      await fs.updateDoc(ref, {'m.y': 20}, );
      await fs.updateDoc(ref, new fs.FieldPath('dot.ted'), 7, 'n.e.w', true);
      return (await fs.getDoc(fs.doc(db2, 'u/doc'))).data();""")
    assert got == {"a": 1, "m": {"x": 9, "y": 20, "z": 3}, "dot.ted": 7, "n": {"e": {"w": True}}}
    assert sorted(case.rest_fields("u/doc")) == ["a", "dot.ted", "m", "n"]


def test_update_missing_document_is_not_found(case):
    case.open("a")
    _raises(case, "await fs.updateDoc(fs.doc(db, 'u/missing'), {a: 1})", "not-found")
    assert case.rest_doc("u/missing") is None
    # the write stream carries on after the error
    case.run("await fs.setDoc(fs.doc(db, 'u/after'), {ok: true})")
    assert case.rest_fields("u/after") == {"ok": {"booleanValue": True}}


def test_delete_document(case):
    case.open("a")
    case.open("b")
    case.run("await fs.setDoc(fs.doc(db, 'd/x'), {v: 1}); await fs.deleteDoc(fs.doc(db, 'd/x'));"
             "await fs.deleteDoc(fs.doc(db, 'd/never'))")
    snap = case.run(GET_B, path="d/x")
    assert snap == {"id": "x", "path": "d/x", "exists": False, "data": None, "meta": SYNCED}
    assert case.rest_doc("d/x") is None


def test_add_doc_generates_id(case):
    case.open("a")
    case.open("b")
    ref = case.run("const r = await fs.addDoc(fs.collection(db, 'auto'), {v: 'é'}); return r.id")
    assert re.fullmatch(r"[A-Za-z0-9]{20}", ref)
    assert case.run(GET_B, path="auto/" + ref)["data"] == {"v": "é"}


# ---------------------------------------------------------------------------------------------
# field transforms

def test_server_timestamp(case):
    case.open("a")
    case.open("b")
    case.run("await fs.setDoc(fs.doc(db, 't/x'), {at: fs.serverTimestamp(), m: {at: fs.serverTimestamp()}, n: 1})")
    doc = case.rest_doc("t/x")
    at = doc["fields"]["at"]["timestampValue"]
    # every server timestamp of one write has the same value, the time of the request (the
    # official emulator takes it in milliseconds, a little before the commit's updateTime)
    assert doc["fields"]["m"] == {"mapValue": {"fields": {"at": {"timestampValue": at}}}}
    assert _close(at, doc["updateTime"])
    got = case.run(GET_B, path="t/x")["data"]
    assert got == {"at": {"$ts": _parse_ts(at)}, "m": {"at": {"$ts": _parse_ts(at)}}, "n": 1}
    case.run("await fs.updateDoc(fs.doc(db, 't/x'), {later: fs.serverTimestamp()})")
    doc2 = case.rest_doc("t/x")
    later = doc2["fields"]["later"]["timestampValue"]
    assert _close(later, doc2["updateTime"]) and _parse_ts(later) >= _parse_ts(at)
    assert doc2["fields"]["at"] == doc["fields"]["at"]


def _close(ts, update_time, seconds=2.0):
    a, b = _parse_ts(ts), _parse_ts(update_time)
    return abs((a[0] + a[1] / 1e9) - (b[0] + b[1] / 1e9)) <= seconds


def _parse_ts(text):
    m = re.fullmatch(r"(\d{4})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z", text)
    import calendar
    seconds = calendar.timegm(tuple(int(x) for x in m.groups()[:6]))
    nanos = int((m.group(7) or "0").ljust(9, "0"))
    return [seconds, nanos]


def test_increment(case):
    case.open("a")
    case.open("b")
    got = case.run("""
      const ref = fs.doc(db, 'inc/x');
      await fs.setDoc(ref, {i: 5, d: 1.5, s: 'str', i2: 10});
      await fs.updateDoc(ref, {i: fs.increment(3), d: fs.increment(0.25), s: fs.increment(2),
                               missing: fs.increment(7), i2: fs.increment(1.5), 'm.n': fs.increment(-1)});
      await fs.updateDoc(ref, {i: fs.increment(-10)});
      return (await fs.getDoc(fs.doc(db2, 'inc/x'))).data();""")
    assert got == {"i": -2, "d": 1.75, "s": 2, "missing": 7, "i2": 11.5, "m": {"n": -1}}
    f = case.rest_fields("inc/x")
    assert f["i"] == {"integerValue": "-2"}
    assert f["d"] == {"doubleValue": 1.75}
    assert f["s"] == {"integerValue": "2"}  # a non-number is replaced by the operand
    assert f["missing"] == {"integerValue": "7"}
    assert f["i2"] == {"doubleValue": 11.5}  # integer + double is a double


def test_array_union_and_remove(case):
    case.open("a")
    case.open("b")
    got = case.run("""
      const ref = fs.doc(db, 'arr/x');
      await fs.setDoc(ref, {a: [1, 2, 2, 'x'], b: [{k: 1}], s: 'not an array'});
      await fs.updateDoc(ref, {a: fs.arrayUnion(2, 3, 'y', 3), b: fs.arrayUnion({k: 1}, {k: 2}),
                               c: fs.arrayUnion(1), s: fs.arrayUnion('z')});
      const mid = (await fs.getDoc(fs.doc(db2, 'arr/x'))).data();
      await fs.updateDoc(ref, {a: fs.arrayRemove(2, 'x', 'absent'), b: fs.arrayRemove({k: 1}), d: fs.arrayRemove(1)});
      return [mid, (await fs.getDocFromServer(fs.doc(db, 'arr/x'))).data()];""")
    assert got[0] == {"a": [1, 2, 2, "x", 3, "y"], "b": [{"k": 1}, {"k": 2}], "c": [1], "s": ["z"]}
    assert got[1] == {"a": [1, 3, "y"], "b": [{"k": 2}], "c": [1], "d": [], "s": ["z"]}


def test_delete_field(case):
    case.open("a")
    case.open("b")
    got = case.run("""
      const ref = fs.doc(db, 'df/x');
      await fs.setDoc(ref, {a: 1, b: {c: 1, d: 2}, e: 3, f: 4});
      await fs.updateDoc(ref, {a: fs.deleteField(), 'b.c': fs.deleteField(), missing: fs.deleteField()});
      await fs.setDoc(ref, {e: fs.deleteField(), g: 5}, {merge: true});
      return (await fs.getDoc(fs.doc(db2, 'df/x'))).data();""")
    assert got == {"b": {"d": 2}, "f": 4, "g": 5}
    assert sorted(case.rest_fields("df/x")) == ["b", "f", "g"]


# ---------------------------------------------------------------------------------------------
# queries

QUERY_DOCS = {
    "q/a": {"n": 1, "s": "a", "tags": ["x", "y"], "g": "odd"},
    "q/b": {"n": 2, "s": "b", "tags": ["y"], "g": "even"},
    "q/c": {"n": 3, "s": "c", "tags": [], "g": "odd"},
    "q/d": {"n": 4, "s": "d", "tags": ["z", "x"], "g": "even"},
    "q/e": {"n": 5, "s": "e", "g": "odd"},
    "q/f": {"s": "f", "g": "none"},
    "q/h": {"n": None, "s": "h"},
}


def _seeded(case):
    case.open("a")
    case.run("await H.seed('a', args.docs)", docs=QUERY_DOCS)
    case.open("b")


def _ids(case, constraints):
    """IDs returned by getDocs on client b (fresh cache: from the server)."""
    snap = case.run("return await fs.getDocs(fs.query(fs.collection(db2, 'q'), ...(%s)))" % constraints)
    assert snap["meta"] == SYNCED
    return ids(snap)


def test_query_equality_and_ranges(case):
    _seeded(case)
    assert _ids(case, "[fs.where('n', '==', 3)]") == ["c"]
    assert _ids(case, "[fs.where('n', '<', 3)]") == ["a", "b"]
    assert _ids(case, "[fs.where('n', '<=', 3)]") == ["a", "b", "c"]
    assert _ids(case, "[fs.where('n', '>', 3)]") == ["d", "e"]
    assert _ids(case, "[fs.where('n', '>=', 3)]") == ["c", "d", "e"]
    assert _ids(case, "[fs.where('n', '==', null)]") == ["h"]
    assert _ids(case, "[fs.where('g', '==', 'odd'), fs.where('n', '>', 1)]") == ["c", "e"]
    assert _ids(case, "[fs.where('s', '>=', 'c'), fs.where('s', '<', 'f')]") == ["c", "d", "e"]
    assert _ids(case, "[fs.where(fs.documentId(), 'in', ['b', 'e', 'zz'])]") == ["b", "e"]
    assert _ids(case, "[fs.where('n', '==', 99)]") == []


def test_query_not_equal_in_not_in(case):
    _seeded(case)
    # != and not-in skip documents without the field; != also skips null
    assert _ids(case, "[fs.where('n', '!=', 3)]") == ["a", "b", "d", "e"]
    assert _ids(case, "[fs.where('n', '!=', null)]") == ["a", "b", "c", "d", "e"]
    assert _ids(case, "[fs.where('n', 'in', [1, 4, 9])]") == ["a", "d"]
    assert _ids(case, "[fs.where('n', 'not-in', [1, 4])]") == ["b", "c", "e"]
    assert _ids(case, "[fs.where('g', 'in', ['even', 'none'])]") == ["b", "d", "f"]


def test_query_array_contains(case):
    _seeded(case)
    assert _ids(case, "[fs.where('tags', 'array-contains', 'x')]") == ["a", "d"]
    assert _ids(case, "[fs.where('tags', 'array-contains-any', ['y', 'z'])]") == ["a", "b", "d"]
    assert _ids(case, "[fs.where('tags', 'array-contains', 'nope')]") == []
    assert _ids(case, "[fs.where('tags', '==', [])]") == ["c"]


def test_query_or_and_composites(case):
    _seeded(case)
    got = case.run("""return await fs.getDocs(fs.query(fs.collection(db2, 'q'),
        fs.or(fs.where('n', '==', 1), fs.and(fs.where('g', '==', 'even'), fs.where('n', '>', 2)))))""")
    assert ids(got) == ["a", "d"]
    got = case.run("""return await fs.getDocs(fs.query(fs.collection(db2, 'q'),
        fs.and(fs.where('g', '==', 'odd'), fs.or(fs.where('n', '==', 1), fs.where('n', '==', 5)))))""")
    assert ids(got) == ["a", "e"]
    got = case.run("""return await fs.getDocs(fs.query(fs.collection(db2, 'q'),
        fs.or(fs.where('s', '==', 'f'), fs.where('tags', 'array-contains', 'z'))))""")
    assert ids(got) == ["d", "f"]


def test_query_order_and_limits(case):
    _seeded(case)
    assert _ids(case, "[fs.orderBy('s', 'desc'), fs.limit(3)]") == ["h", "f", "e"]
    assert _ids(case, "[fs.orderBy('g'), fs.orderBy('n', 'desc')]") == ["d", "b", "e", "c", "a"]
    # orderBy skips documents without the field; null sorts first
    assert _ids(case, "[fs.orderBy('n')]") == ["h", "a", "b", "c", "d", "e"]
    assert _ids(case, "[fs.orderBy('n'), fs.limitToLast(2)]") == ["d", "e"]
    assert _ids(case, "[fs.orderBy('n', 'desc'), fs.limitToLast(2)]") == ["a", "h"]
    assert _ids(case, "[fs.where('n', '>', 1), fs.orderBy('n', 'desc'), fs.limit(2)]") == ["e", "d"]
    full = case.run("return await fs.getDocs(fs.query(fs.collection(db2, 'q'), fs.where('n', '<=', 2)))")
    assert full["docs"] == [["a", QUERY_DOCS["q/a"]], ["b", QUERY_DOCS["q/b"]]]


def test_query_cursors(case):
    _seeded(case)
    assert _ids(case, "[fs.orderBy('n'), fs.startAt(2)]") == ["b", "c", "d", "e"]
    assert _ids(case, "[fs.orderBy('n'), fs.startAfter(2)]") == ["c", "d", "e"]
    assert _ids(case, "[fs.orderBy('n'), fs.startAt(2), fs.endBefore(5)]") == ["b", "c", "d"]
    assert _ids(case, "[fs.orderBy('n'), fs.startAfter(1), fs.endAt(3)]") == ["b", "c"]
    assert _ids(case, "[fs.orderBy('n', 'desc'), fs.startAt(4), fs.limit(2)]") == ["d", "c"]
    assert _ids(case, "[fs.orderBy('g'), fs.orderBy('n'), fs.startAfter('odd', 1)]") == ["c", "e"]
    got = case.run("""const c = await fs.getDoc(fs.doc(db2, 'q/c'));
        const after = await fs.getDocs(fs.query(fs.collection(db2, 'q'), fs.orderBy('n'), fs.startAfter(c)));
        const until = await fs.getDocs(fs.query(fs.collection(db2, 'q'), fs.orderBy('s'), fs.endAt(c)));
        return [after, until];""")
    assert ids(got[0]) == ["d", "e"]
    assert ids(got[1]) == ["a", "b", "c"]


def test_query_collection_group(case):
    case.open("a")
    case.run("await H.seed('a', args.docs)", docs={
        "cg/x/items/1": {"v": 1}, "cg/y/items/2": {"v": 2}, "other/z/items/3": {"v": 3},
        "items/4": {"v": 4}, "cg/x/notitems/5": {"v": 5}, "cg/x/items/6/items/7": {"v": 7}})
    case.open("b")
    got = case.run("return await fs.getDocs(fs.query(fs.collectionGroup(db2, 'items'), fs.where('v', '>=', 2), fs.orderBy('v')))")
    assert got["paths"] == ["cg/y/items/2", "other/z/items/3", "items/4", "cg/x/items/6/items/7"]
    got = case.run("return await fs.getDocs(fs.collectionGroup(db2, 'items'))")
    assert got["paths"] == ["cg/x/items/1", "cg/x/items/6/items/7", "cg/y/items/2", "items/4", "other/z/items/3"]
    sub = case.run("return await fs.getDocs(fs.collection(db2, 'cg/x/items'))")
    assert sub["paths"] == ["cg/x/items/1"]


def test_query_order_across_value_types(case):
    values = [
        ("01", None), ("02", False), ("03", True), ("04", {"$nan": 1}), ("05", {"$inf": -1}), ("06", -1),
        ("07", 0.5), ("08", 1), ("09", {"$inf": 1}), ("10", {"$ts": [0, 1000]}), ("11", ""), ("12", "a"),
        ("13", "é"), ("14", {"$bytes": "AA=="}), ("15", {"$ref": "a/b"}), ("16", {"$geo": [0, 0]}),
        ("17", []), ("18", [1]), ("19", {}), ("20", {"a": 1}),
    ]
    case.open("a")
    # written in reverse so that the order cannot come from the IDs
    case.run("await H.seed('a', args.docs)", docs={f"t/{k}": {"v": v} for k, v in reversed(values)})
    case.open("b")
    got = case.run("return await fs.getDocs(fs.query(fs.collection(db2, 't'), fs.orderBy('v')))")
    assert ids(got) == [k for k, _ in values]
    assert [d[1]["v"] for d in got["docs"]] == [v for _, v in values]
    got = case.run("return await fs.getDocs(fs.query(fs.collection(db2, 't'), fs.orderBy('v', 'desc'), fs.limit(3)))")
    assert ids(got) == ["20", "19", "18"]


# ---------------------------------------------------------------------------------------------
# aggregations (REST runAggregationQuery)

def test_count(case):
    _seeded(case)
    got = case.run("""
      const all = await fs.getCountFromServer(fs.collection(db2, 'q'));
      const some = await fs.getCountFromServer(fs.query(fs.collection(db2, 'q'), fs.where('n', '>', 2)));
      const none = await fs.getCountFromServer(fs.collection(db2, 'empty'));
      const lim = await fs.getCountFromServer(fs.query(fs.collection(db2, 'q'), fs.orderBy('n'), fs.limit(2)));
      return [all.data().count, some.data().count, none.data().count, lim.data().count];""")
    assert got == [7, 3, 0, 2]


def test_sum_and_average(case):
    # (count() beside sum()/average() is left out where some documents lack the summed field:
    # the official emulator then counts only the documents that have it, Firestore counts all.)
    _seeded(case)
    got = case.run("""
      const q = fs.collection(db2, 'q');
      const r = await fs.getAggregateFromServer(q, {total: fs.sum('n'), mean: fs.average('n')});
      const odd = await fs.getAggregateFromServer(fs.query(q, fs.where('g', '==', 'odd')), {t: fs.sum('n'), m: fs.average('n')});
      const none = await fs.getAggregateFromServer(q, {s: fs.sum('missing'), a: fs.average('missing')});
      const empty = await fs.getAggregateFromServer(fs.collection(db2, 'empty'), {t: fs.sum('n'), m: fs.average('n'), c: fs.count()});
      return [r.data(), odd.data(), none.data(), empty.data()];""")
    assert got == [{"total": 15, "mean": 3}, {"t": 9, "m": 3}, {"s": 0, "a": None}, {"t": 0, "m": None, "c": 0}]
    # a string is skipped by sum and average; an integer plus a double is a double
    case.run("await H.seed('a', {'mix/1': {x: 1}, 'mix/2': {x: 2.5}, 'mix/3': {x: 'text'}, 'mix/4': {x: -0.5}, 'ints/1': {x: 2}, 'ints/2': {x: 5}})")
    got = case.run("""return [(await fs.getAggregateFromServer(fs.collection(db2, 'mix'), {s: fs.sum('x'), a: fs.average('x'), c: fs.count()})).data(),
                             (await fs.getAggregateFromServer(fs.collection(db2, 'ints'), {s: fs.sum('x'), a: fs.average('x')})).data()]""")
    assert got == [{"s": 3, "a": 1, "c": 4}, {"s": 7, "a": 3.5}]


def test_aggregation_under_a_parent_document(case):
    case.open("a")
    case.run("await H.seed('a', {'p/one/kids/a': {n: 2}, 'p/one/kids/b': {n: 3}, 'p/two/kids/c': {n: 10}})")
    case.open("b")
    got = case.run("""
      const sub = fs.collection(db2, 'p/one/kids');
      const group = fs.collectionGroup(db2, 'kids');
      return [(await fs.getAggregateFromServer(sub, {c: fs.count(), s: fs.sum('n')})).data(),
              (await fs.getAggregateFromServer(group, {c: fs.count(), s: fs.sum('n')})).data()];""")
    assert got == [{"c": 2, "s": 5}, {"c": 3, "s": 15}]


# ---------------------------------------------------------------------------------------------
# batches and transactions

def test_write_batch(case):
    case.open("a")
    case.open("b")
    case.run("await H.seed('a', {'wb/keep': {v: 1}, 'wb/upd': {v: 1, w: 1}, 'wb/del': {v: 1}})")
    got = case.run("""
      const b = fs.writeBatch(db);
      b.set(fs.doc(db, 'wb/new'), {v: 'new', at: fs.serverTimestamp()});
      b.update(fs.doc(db, 'wb/upd'), {v: fs.increment(1), w: fs.deleteField()});
      b.delete(fs.doc(db, 'wb/del'));
      await b.commit();
      return await fs.getDocs(fs.collection(db2, 'wb'));""")
    assert ids(got) == ["keep", "new", "upd"]
    assert got["docs"][2][1] == {"v": 2}
    new = case.rest_doc("wb/new")
    upd = case.rest_doc("wb/upd")
    assert new["updateTime"] == upd["updateTime"]  # one commit
    assert _close(new["fields"]["at"]["timestampValue"], new["updateTime"])


def test_write_batch_is_atomic(case):
    case.open("a")
    _raises(case, """const b = fs.writeBatch(db);
        b.set(fs.doc(db, 'wb/created'), {v: 1});
        b.update(fs.doc(db, 'wb/missing'), {v: 1});
        await b.commit();""", "not-found")
    assert case.rest_doc("wb/created") is None
    case.run("const b = fs.writeBatch(db); b.set(fs.doc(db, 'wb/created'), {v: 2}); await b.commit();")
    assert case.rest_fields("wb/created") == {"v": {"integerValue": "2"}}


def test_transaction_reads_then_writes(case):
    case.open("a")
    case.run("await H.seed('a', {'acct/a': {bal: 100}, 'acct/b': {bal: 50}})")
    got = case.run("""
      return await fs.runTransaction(db, async (t) => {
        const a = await t.get(fs.doc(db, 'acct/a'));
        const b = await t.get(fs.doc(db, 'acct/b'));
        t.update(fs.doc(db, 'acct/a'), {bal: a.data().bal - 30});
        t.update(fs.doc(db, 'acct/b'), {bal: b.data().bal + 30});
        t.set(fs.doc(db, 'acct/log'), {moved: 30, at: fs.serverTimestamp()});
        return a.data().bal + b.data().bal;
      });""")
    assert got == 150
    assert case.rest_fields("acct/a") == {"bal": {"integerValue": "70"}}
    assert case.rest_fields("acct/b") == {"bal": {"integerValue": "80"}}
    log = case.rest_doc("acct/log")
    assert _close(log["fields"]["at"]["timestampValue"], log["updateTime"])
    assert case.rest_doc("acct/a")["updateTime"] == log["updateTime"]


def test_transaction_contention_retries(case):
    case.open("a")
    case.open("b")
    case.run("await fs.setDoc(fs.doc(db, 'tx/x'), {n: 1})")
    got = case.run("""
      let attempts = 0;
      const ref = fs.doc(db, 'tx/x');
      const seen = await fs.runTransaction(db, async (t) => {
        attempts++;
        const snap = await t.get(ref);
        // another client changes the document between this transaction's read and its commit
        if (attempts === 1) await fs.updateDoc(fs.doc(db2, 'tx/x'), {n: 100});
        t.update(ref, {n: snap.data().n + 1});
        return snap.data().n;
      });
      return {attempts, seen};""")
    assert got == {"attempts": 2, "seen": 100}
    assert case.rest_fields("tx/x") == {"n": {"integerValue": "101"}}


def test_read_only_transaction_verifies_its_reads(case):
    # A transaction that only reads commits `verify` writes (REST commit) with the read versions
    # as preconditions; a change in between makes it run again.
    case.open("a")
    case.open("b")
    case.run("await H.seed('a', {'ro/x': {n: 1}, 'ro/y': {n: 2}})")
    got = case.run("""
      let attempts = 0;
      const sum = await fs.runTransaction(db, async (t) => {
        attempts++;
        const x = await t.get(fs.doc(db, 'ro/x'));
        if (attempts === 1) await fs.updateDoc(fs.doc(db2, 'ro/y'), {n: 20});
        const y = await t.get(fs.doc(db, 'ro/y'));
        const z = await t.get(fs.doc(db, 'ro/missing'));
        return x.data().n + y.data().n + (z.exists() ? 1000 : 0);
      });
      return {attempts, sum};""")
    # y changed before it was read: nothing to retry for, the reads are consistent
    assert got == {"attempts": 1, "sum": 21}
    got = case.run("""
      let attempts = 0;
      const sum = await fs.runTransaction(db, async (t) => {
        attempts++;
        const x = await t.get(fs.doc(db, 'ro/x'));
        const y = await t.get(fs.doc(db, 'ro/y'));
        if (attempts === 1) await fs.updateDoc(fs.doc(db2, 'ro/x'), {n: 10});
        return x.data().n + y.data().n;
      });
      return {attempts, sum};""")
    assert got == {"attempts": 2, "sum": 30}
    assert case.rest_fields("ro/x") == {"n": {"integerValue": "10"}}


def test_transaction_reads_missing_then_creates(case):
    case.open("a")
    case.open("b")
    got = case.run("""
      return await fs.runTransaction(db, async (t) => {
        const s = await t.get(fs.doc(db, 'tx/new'));
        t.set(fs.doc(db, 'tx/new'), {created: true});
        return s.exists();
      });""")
    assert got is False
    assert case.rest_fields("tx/new") == {"created": {"booleanValue": True}}
    # the same transaction again, with a competing create in between: the retry sees the document
    got = case.run("""
      let attempts = 0;
      const r = await fs.runTransaction(db, async (t) => {
        attempts++;
        const s = await t.get(fs.doc(db, 'tx/new2'));
        if (attempts === 1) await fs.setDoc(fs.doc(db2, 'tx/new2'), {by: 'b'});
        if (!s.exists()) t.set(fs.doc(db, 'tx/new2'), {by: 'a'});
        return s.exists() ? s.data().by : null;
      });
      return {attempts, r};""")
    assert got == {"attempts": 2, "r": "b"}
    assert case.rest_fields("tx/new2") == {"by": {"stringValue": "b"}}


# ---------------------------------------------------------------------------------------------
# listeners

def test_document_listener_from_second_client(case):
    case.open("a")
    case.open("b")
    lid = case.run("return H.listen(fs.doc(db2, 'ls/x'), {}, 'b')")
    first = case.wait_last(lid, lambda e: True, "the first snapshot")
    assert first == {"id": "x", "path": "ls/x", "exists": False, "data": None, "meta": SYNCED}
    case.run("await fs.setDoc(fs.doc(db, 'ls/x'), {v: 1, s: 'é😀'})")
    assert case.wait_last(lid, lambda e: e["exists"], "the created document")["data"] == {"v": 1, "s": "é😀"}
    case.run("await fs.updateDoc(fs.doc(db, 'ls/x'), {v: 2})")
    assert case.wait_last(lid, lambda e: e["data"] and e["data"]["v"] == 2, "the update")["data"] == {"v": 2, "s": "é😀"}
    case.run("await fs.deleteDoc(fs.doc(db, 'ls/x'))")
    case.wait_last(lid, lambda e: not e["exists"], "the deletion")
    events = case.events(lid)
    assert [(e["exists"], e["data"], e["meta"]) for e in events] == [
        (False, None, SYNCED), (True, {"v": 1, "s": "é😀"}, SYNCED), (True, {"v": 2, "s": "é😀"}, SYNCED),
        (False, None, SYNCED)]


def test_query_listener_doc_changes(case):
    case.open("a")
    case.run("await H.seed('a', {'l/a': {n: 10}, 'l/b': {n: 20}, 'l/z': {n: 1}})")
    case.open("b")
    lid = case.run("return H.listen(fs.query(fs.collection(db2, 'l'), fs.where('n', '>=', 10), fs.orderBy('n')), {}, 'b')")

    def step(js, expected_ids, expected_changes):
        # The first snapshot may arrive before this looks (it answers the listen, not a write).
        before = len(case.events(lid)) if js else 0
        if js:
            case.run(js)
        events = case.wait(lid, lambda ev: len(ev) > before and ids(ev[-1]) == expected_ids, f"docs {expected_ids}")
        assert len(events) == before + 1  # one snapshot per write
        assert changes(events[-1]) == expected_changes
        assert events[-1]["meta"] == SYNCED

    step(None, ["a", "b"], [("added", "a", -1, 0), ("added", "b", -1, 1)])
    step("await fs.setDoc(fs.doc(db, 'l/c'), {n: 15})", ["a", "c", "b"], [("added", "c", -1, 1)])
    step("await fs.updateDoc(fs.doc(db, 'l/a'), {n: 25})", ["c", "b", "a"], [("modified", "a", 0, 2)])
    step("await fs.updateDoc(fs.doc(db, 'l/c'), {n: 16, extra: true})", ["c", "b", "a"], [("modified", "c", 0, 0)])
    step("await fs.updateDoc(fs.doc(db, 'l/b'), {n: 5})", ["c", "a"], [("removed", "b", 1, -1)])
    step("await fs.deleteDoc(fs.doc(db, 'l/c'))", ["a"], [("removed", "c", 0, -1)])
    step("await fs.updateDoc(fs.doc(db, 'l/z'), {n: 11})", ["z", "a"], [("added", "z", -1, 0)])
    final = case.events(lid)[-1]
    assert final["docs"] == [["z", {"n": 11}], ["a", {"n": 25}]]
    assert len(case.events(lid)) == 7


def test_own_write_metadata(case):
    case.open("a")
    lid = case.run("return H.listen(fs.doc(db, 'own/x'), {includeMetadataChanges: true})")
    case.wait_last(lid, lambda e: e["meta"] == SYNCED, "the synced empty snapshot")
    before = len(case.events(lid))
    case.run("await fs.setDoc(fs.doc(db, 'own/x'), {v: 1})")
    case.wait_last(lid, lambda e: e["exists"] and e["meta"] == SYNCED, "the acknowledged write")
    after = [(e["exists"], e["data"], e["meta"]["hasPendingWrites"], e["meta"]["fromCache"])
             for e in case.events(lid)[before:]]
    assert after == [(True, {"v": 1}, True, False), (True, {"v": 1}, False, False)]
    # a query listener in the same client sees the pending write first as well
    qid = case.run("return H.listen(fs.collection(db, 'own'), {includeMetadataChanges: true})")
    case.wait_last(qid, lambda e: e["meta"] == SYNCED and ids(e) == ["x"], "the query")
    n = len(case.events(qid))
    case.run("await fs.setDoc(fs.doc(db, 'own/y'), {v: 2})")
    case.wait_last(qid, lambda e: ids(e) == ["x", "y"] and e["meta"] == SYNCED, "y acknowledged")
    seq = [(ids(e), e["meta"]["hasPendingWrites"]) for e in case.events(qid)[n:]]
    assert seq == [(["x", "y"], True), (["x", "y"], False)]


def test_limit_listener_keeps_its_window(case):
    case.open("a")
    case.run("await H.seed('a', {'w/a': {n: 1}, 'w/b': {n: 2}, 'w/c': {n: 3}})")
    case.open("b")
    lid = case.run("return H.listen(fs.query(fs.collection(db2, 'w'), fs.orderBy('n'), fs.limit(2)), {}, 'b')")
    snap = case.wait_last(lid, lambda e: ids(e) == ["a", "b"], "the first window")
    assert changes(snap) == [("added", "a", -1, 0), ("added", "b", -1, 1)]
    case.run("await fs.setDoc(fs.doc(db, 'w/d'), {n: 0})")
    snap = case.wait_last(lid, lambda e: ids(e) == ["d", "a"], "d entering the window")
    assert changes(snap) == [("removed", "b", 1, -1), ("added", "d", -1, 0)]
    case.run("await fs.deleteDoc(fs.doc(db, 'w/d'))")
    snap = case.wait_last(lid, lambda e: ids(e) == ["a", "b"], "b back in the window")
    assert changes(snap) == [("removed", "d", 0, -1), ("added", "b", -1, 1)]


def test_unsubscribe_stops_events(case):
    case.open("a")
    case.open("b")
    first = case.run("return H.listen(fs.doc(db2, 'un/x'), {}, 'b')")
    case.wait(first, lambda ev: len(ev) == 1, "the first snapshot")
    case.run("H.unlisten(args.id)", id=first)
    second = case.run("return H.listen(fs.doc(db2, 'un/y'), {}, 'b')")
    case.wait(second, lambda ev: len(ev) == 1, "the second listener")
    case.run("await fs.setDoc(fs.doc(db, 'un/x'), {v: 1}); await fs.setDoc(fs.doc(db, 'un/y'), {v: 1})")
    case.wait_last(second, lambda e: e["exists"], "the write on the second listener")
    assert case.events(first) is None  # removed with its events
    # the client still serves new listeners on the same stream
    third = case.run("return H.listen(fs.doc(db2, 'un/x'), {}, 'b')")
    assert case.wait_last(third, lambda e: e["exists"], "the re-listen")["data"] == {"v": 1}


def test_many_targets_on_one_stream(case):
    case.open("a")
    case.open("b")
    case.run("""
      H.ids = [H.listen(fs.doc(db2, 'mt/a'), {}, 'b'), H.listen(fs.doc(db2, 'mt/b'), {}, 'b'),
               H.listen(fs.query(fs.collection(db2, 'mt'), fs.where('k', '==', 1)), {}, 'b'),
               H.listen(fs.collectionGroup(db2, 'sub'), {}, 'b')];""")
    lids = case.browser.eval("H.ids")
    for lid in lids:
        case.wait(lid, lambda ev: len(ev) == 1, "every first snapshot")
    case.run("""const w = fs.writeBatch(db);
        w.set(fs.doc(db, 'mt/a'), {k: 1}); w.set(fs.doc(db, 'mt/b'), {k: 2}); w.set(fs.doc(db, 'mt/a/sub/s'), {k: 3});
        await w.commit();""")
    a = case.wait_last(lids[0], lambda e: e["exists"], "mt/a")
    b = case.wait_last(lids[1], lambda e: e["exists"], "mt/b")
    q = case.wait_last(lids[2], lambda e: ids(e) == ["a"], "the query")
    g = case.wait_last(lids[3], lambda e: e["paths"] == ["mt/a/sub/s"], "the group")
    assert (a["data"], b["data"], q["docs"], g["docs"]) == ({"k": 1}, {"k": 2}, [["a", {"k": 1}]], [["s", {"k": 3}]])
    assert [len(case.events(lid)) for lid in lids] == [2, 2, 2, 2]


def test_default_settings(case):
    # Default settings: auto-detection of long-polling on (the SDK's default) in streaming mode.
    case.open("a", settings={} if case.mode == "streaming" else None)
    case.open("b", settings={} if case.mode == "streaming" else None)
    lid = case.run("return H.listen(fs.doc(db2, 'ds/x'), {}, 'b')")
    case.wait(lid, lambda ev: len(ev) == 1, "the first snapshot")
    for i in range(3):
        case.run("await fs.setDoc(fs.doc(db, 'ds/x'), {i: args.i})", i=i)
        case.wait_last(lid, lambda e, i=i: e["exists"] and e["data"] == {"i": i}, f"write {i}")


def test_listener_survives_network_drop(case):
    case.open("a")
    case.rest_set("nd/x", {"v": {"integerValue": "1"}})
    lid = case.run("return H.listen(fs.doc(db, 'nd/x'), {includeMetadataChanges: true})")
    case.wait_last(lid, lambda e: e["meta"] == SYNCED and e["data"] == {"v": 1}, "the synced document")
    case.set_offline(True)
    case.wait_last(lid, lambda e: e["meta"]["fromCache"], "a snapshot from cache once offline")
    # while the page is offline: a change on the server, and a local write
    case.rest_commit([{"update": {"name": case.name("nd/x"), "fields": {"v": {"integerValue": "2"}}},
                       "updateMask": {"fieldPaths": ["v"]}}])
    case.run("H.pending = fs.setDoc(fs.doc(db, 'nd/x'), {w: 'offline'}, {merge: true})")
    local = case.wait_last(lid, lambda e: e["meta"]["hasPendingWrites"], "the pending local write")
    assert local["data"] == {"v": 1, "w": "offline"} and local["meta"]["fromCache"] is True
    time.sleep(0.3)
    assert case.events(lid)[-1]["data"] == {"v": 1, "w": "offline"}  # nothing from the server meanwhile
    case.set_offline(False)
    final = case.wait_last(lid, lambda e: e["meta"] == SYNCED and e["data"] == {"v": 2, "w": "offline"},
                           "the reconnected listener", timeout=30)
    assert final["exists"] is True
    case.run("await H.pending")
    assert case.rest_fields("nd/x") == {"v": {"integerValue": "2"}, "w": {"stringValue": "offline"}}
    # and it keeps listening
    case.rest_commit([{"update": {"name": case.name("nd/x"), "fields": {"v": {"integerValue": "3"}}},
                       "updateMask": {"fieldPaths": ["v"]}}])
    case.wait_last(lid, lambda e: e["data"] == {"v": 3, "w": "offline"}, "a later change")


def test_disable_and_enable_network(case):
    case.open("a")
    case.open("b")
    lid = case.run("return H.listen(fs.doc(db, 'dn/x'), {includeMetadataChanges: true})")
    case.wait_last(lid, lambda e: e["meta"] == SYNCED, "the first snapshot")
    case.run("await fs.disableNetwork(db)")
    case.wait_last(lid, lambda e: e["meta"]["fromCache"], "fromCache after disableNetwork")
    case.run("await fs.setDoc(fs.doc(db2, 'dn/x'), {by: 'b'})")
    case.run("H.pending = fs.setDoc(fs.doc(db, 'dn/y'), {by: 'a'})")
    time.sleep(0.3)
    assert case.events(lid)[-1]["exists"] is False
    assert case.rest_doc("dn/y") is None
    case.run("await fs.enableNetwork(db)")
    final = case.wait_last(lid, lambda e: e["meta"] == SYNCED and e["exists"], "the change after enableNetwork")
    assert final["data"] == {"by": "b"}
    case.run("await H.pending")
    assert case.rest_fields("dn/y") == {"by": {"stringValue": "a"}}


# ---------------------------------------------------------------------------------------------
# security rules (mockUserToken: an unsigned JWT)

RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /public/{id} { allow read, write: if true; }
    match /users/{uid}/{document=**} {
      allow read, write: if request.auth != null && request.auth.uid == uid;
    }
    match /posts/{id} {
      allow read: if request.auth != null && resource.data.owner == request.auth.uid;
      allow create: if request.auth != null && request.resource.data.owner == request.auth.uid;
    }
    match /staff/{id} {
      allow read: if request.auth != null && request.auth.token.email == 'alice@example.com'
                  && request.auth.token.email_verified == true;
    }
  }
}
"""
ALICE = {"sub": "alice", "email": "alice@example.com", "email_verified": True}


def test_rules_writes(case):
    case.rules(RULES)
    case.open("a", user=ALICE)
    case.open("anon")
    case.run("await fs.setDoc(fs.doc(db, 'users/alice'), {v: 1}); await fs.setDoc(fs.doc(db, 'users/alice/notes/n'), {v: 2})")
    _raises(case, "await fs.setDoc(fs.doc(db, 'users/bob'), {v: 1})", "permission-denied")
    _raises(case, "await fs.setDoc(fs.doc(db, 'posts/p'), {owner: 'bob'})", "permission-denied")
    _raises(case, "await fs.setDoc(fs.doc(C.anon.db, 'users/alice'), {v: 9})", "permission-denied")
    _raises(case, "await fs.deleteDoc(fs.doc(C.anon.db, 'users/alice'))", "permission-denied")
    # after denials the write stream carries on
    case.run("await fs.setDoc(fs.doc(db, 'posts/p'), {owner: 'alice'}); await fs.setDoc(fs.doc(C.anon.db, 'public/x'), {v: 1})")
    assert case.rest_fields("users/alice") == {"v": {"integerValue": "1"}}
    assert case.rest_fields("posts/p") == {"owner": {"stringValue": "alice"}}
    assert case.rest_doc("users/bob") is None


def test_rules_reads_queries_and_aggregations(case):
    case.rules(RULES)
    case.rest_commit([{"update": {"name": case.name(p), "fields": f}} for p, f in [
        ("users/alice", {"v": {"integerValue": "1"}}), ("users/bob", {"v": {"integerValue": "2"}}),
        ("posts/p1", {"owner": {"stringValue": "alice"}, "n": {"integerValue": "1"}}),
        ("posts/p2", {"owner": {"stringValue": "bob"}, "n": {"integerValue": "2"}}),
        ("posts/p3", {"owner": {"stringValue": "alice"}, "n": {"integerValue": "3"}})]])
    case.open("a", user=ALICE)
    assert case.run("return await fs.getDoc(fs.doc(db, 'users/alice'))")["data"] == {"v": 1}
    _raises(case, "await fs.getDoc(fs.doc(db, 'users/bob'))", "permission-denied")
    _raises(case, "await fs.getDocs(fs.collection(db, 'posts'))", "permission-denied")
    mine = case.run("return await fs.getDocs(fs.query(fs.collection(db, 'posts'), fs.where('owner', '==', 'alice')))")
    assert mine["docs"] == [["p1", {"owner": "alice", "n": 1}], ["p3", {"owner": "alice", "n": 3}]]
    count = case.run("return (await fs.getCountFromServer(fs.query(fs.collection(db, 'posts'), fs.where('owner', '==', 'alice')))).data()")
    assert count == {"count": 2}
    _raises(case, "await fs.getCountFromServer(fs.collection(db, 'posts'))", "permission-denied")
    _raises(case, "await fs.getAggregateFromServer(fs.collection(db, 'users'), {s: fs.sum('v')})", "permission-denied")


def test_rules_listeners(case):
    case.rules(RULES)
    case.rest_set("users/bob", {"v": {"integerValue": "2"}})
    case.open("a", user=ALICE)
    denied_doc = case.run("return H.listen(fs.doc(db, 'users/bob'))")
    denied_query = case.run("return H.listen(fs.collection(db, 'posts'))")
    allowed = case.run("return H.listen(fs.doc(db, 'users/alice'))")
    for lid in (denied_doc, denied_query):
        ev = case.wait(lid, lambda ev: len(ev) >= 1, "the listener's error")
        assert len(ev) == 1 and ev[0]["$error"]["code"] == "permission-denied", ev
    case.wait(allowed, lambda ev: len(ev) == 1, "the allowed listener")
    # the stream still serves the allowed target after the denied ones
    case.run("await fs.setDoc(fs.doc(db, 'users/alice'), {v: 7})")
    assert case.wait_last(allowed, lambda e: e.get("exists"), "alice's write")["data"] == {"v": 7}
    time.sleep(0.2)
    assert len(case.events(denied_doc)) == 1 and len(case.events(denied_query)) == 1


def test_rules_token_claims(case):
    case.rules(RULES)
    case.rest_set("staff/s", {"v": {"integerValue": "1"}})
    case.open("a", user=ALICE)
    case.open("m", user={"sub": "mallory", "email": "mallory@example.com", "email_verified": True})
    case.open("u", user={"sub": "alice", "email": "alice@example.com", "email_verified": False})
    assert case.run("return await fs.getDoc(fs.doc(db, 'staff/s'))")["data"] == {"v": 1}
    _raises(case, "await fs.getDoc(fs.doc(C.m.db, 'staff/s'))", "permission-denied")
    _raises(case, "await fs.getDoc(fs.doc(C.u.db, 'staff/s'))", "permission-denied")
    # user_id comes from sub: mallory owns users/mallory
    case.run("await fs.setDoc(fs.doc(C.m.db, 'users/mallory'), {v: 1})")
    assert case.rest_fields("users/mallory") == {"v": {"integerValue": "1"}}


def test_rules_transactions(case):
    case.rules(RULES)
    case.rest_set("public/p", {"n": {"integerValue": "1"}})
    case.open("a", user=ALICE)
    _raises(case, """await fs.runTransaction(db, async (t) => {
        const s = await t.get(fs.doc(db, 'public/p'));
        t.set(fs.doc(db, 'users/bob'), {n: s.data().n});
      });""", "permission-denied")
    _raises(case, "await fs.runTransaction(db, async (t) => { await t.get(fs.doc(db, 'users/bob')); })", "permission-denied")
    got = case.run("""return await fs.runTransaction(db, async (t) => {
        const s = await t.get(fs.doc(db, 'public/p'));
        t.set(fs.doc(db, 'users/alice'), {n: s.data().n + 1});
        return s.data().n;
      });""")
    assert got == 1
    assert case.rest_doc("users/bob") is None
    assert case.rest_fields("users/alice") == {"n": {"integerValue": "2"}}


# ---------------------------------------------------------------------------------------------
# the compat (namespaced, v8-style) API

def test_compat_values_and_transforms(case):
    case.open("a", compat=True)
    case.open("b")
    case.run("""
      const F = H.compat.firestore;
      await db.collection('cv').doc('x').set({
        ts: new F.Timestamp(1700000000, 5000), geo: new F.GeoPoint(1.5, -2.5), blob: F.Blob.fromUint8Array(new Uint8Array([1, 2, 255])),
        ref: db.doc('other/y'), arr: [1, 'a'], nested: {n: null, f: 2.5}, at: F.FieldValue.serverTimestamp(), n: 1});
      await db.collection('cv').doc('x').update({n: F.FieldValue.increment(2), arr: F.FieldValue.arrayUnion('b'),
                                                  'nested.f': F.FieldValue.delete()});""")
    compat_read = case.run("return await db.collection('cv').doc('x').get({source: 'server'})")
    modular_read = case.run(GET_B, path="cv/x")
    doc = case.rest_doc("cv/x")
    expected = {"ts": {"$ts": [1700000000, 5000]}, "geo": {"$geo": [1.5, -2.5]}, "blob": {"$bytes": "AQL/"},
                "ref": {"$ref": "other/y"}, "arr": [1, "a", "b"], "nested": {"n": None},
                "at": {"$ts": _parse_ts(doc["fields"]["at"]["timestampValue"])}, "n": 3}
    assert compat_read["data"] == expected and modular_read["data"] == expected
    assert compat_read["exists"] is True and compat_read["meta"] == SYNCED
    assert doc["fields"]["ref"] == {"referenceValue": case.name("other/y")}


def test_compat_queries_and_listener(case):
    case.open("a", compat=True)
    case.run("await H.seed('a', args.docs)", docs=QUERY_DOCS)
    got = case.run("return await db.collection('q').where('n', '>', 1).orderBy('n', 'desc').limit(3).get()")
    assert ids(got) == ["e", "d", "c"]
    got = case.run("return await db.collection('q').where('tags', 'array-contains-any', ['y']).get()")
    assert ids(got) == ["a", "b"]
    case.open("b", compat=True)
    lid = case.run("return H.listen(db2.collection('q').where('g', '==', 'even').orderBy('n'), {}, 'b')")
    snap = case.wait_last(lid, lambda e: ids(e) == ["b", "d"], "the compat query listener")
    assert changes(snap) == [("added", "b", -1, 0), ("added", "d", -1, 1)]
    case.run("await db.doc('q/c').update({g: 'even'})")
    snap = case.wait_last(lid, lambda e: ids(e) == ["b", "c", "d"], "c joining")
    assert changes(snap) == [("added", "c", -1, 1)] and snap["meta"] == SYNCED


def test_compat_batch_and_transaction(case):
    case.open("a", compat=True)
    case.run("await H.seed('a', {'cb/a': {n: 1}, 'cb/b': {n: 2}})")
    got = case.run("""
      const F = H.compat.firestore;
      const batch = db.batch();
      batch.set(db.doc('cb/c'), {n: 3});
      batch.update(db.doc('cb/a'), {n: F.FieldValue.increment(10)});
      batch.delete(db.doc('cb/b'));
      await batch.commit();
      return await db.runTransaction(async (t) => {
        const a = await t.get(db.doc('cb/a'));
        const c = await t.get(db.doc('cb/c'));
        t.update(db.doc('cb/c'), {n: a.data().n + c.data().n});
        return a.data().n;
      });""")
    assert got == 11
    assert case.rest_fields("cb/c") == {"n": {"integerValue": "14"}}
    assert case.rest_doc("cb/b") is None


def test_compat_rules_with_mock_user_token(case):
    case.rules(RULES)
    case.open("a", compat=True, user=ALICE)
    case.run("await db.doc('users/alice').set({v: 1})")
    _raises(case, "await db.doc('users/bob').set({v: 1})", "permission-denied")
    _raises(case, "await db.doc('users/bob').get()", "permission-denied")
    lid = case.run("return H.listen(db.collection('posts'))")
    ev = case.wait(lid, lambda ev: len(ev) >= 1, "the denied compat listener")
    assert ev[0]["$error"]["code"] == "permission-denied"
    assert case.run("return await db.doc('users/alice').get({source: 'server'})")["data"] == {"v": 1}


# ---------------------------------------------------------------------------------------------
# WebChannel on the wire (no browser): the framing facts the SDK depends on

def _channel(target, method, query, body=None, read_until=None, timeout=10.0):
    """One HTTP request to the Listen channel; returns (status, headers, text read)."""
    conn = http.client.HTTPConnection(target["host"], target["port"], timeout=timeout)
    path = "/google.firestore.v1.Firestore/Listen/channel?" + urllib.parse.urlencode(query)
    headers = {"Origin": "http://127.0.0.1:1"}
    if body is not None:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    conn.request(method, path, body=body, headers=headers)
    resp = conn.getresponse()
    data = b""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            piece = resp.read1(65536) if hasattr(resp, "read1") else resp.read(1)
        except (http.client.IncompleteRead, OSError):
            break
        if not piece:
            break
        data += piece
        if read_until and read_until(data.decode("utf-8", "replace")):
            break
    conn.close()
    return resp.status, dict((k.lower(), v) for k, v in resp.getheaders()), data.decode("utf-8")


def _frames(text):
    """Splits `<length>\\n<json>` frames, the length counted in UTF-16 code units (as JS strings)."""
    frames, i = [], 0
    while i < len(text):
        nl = text.index("\n", i)
        length = int(text[i:nl])
        start = nl + 1
        # walk `length` UTF-16 units
        units, j = 0, start
        while units < length:
            units += 2 if ord(text[j]) > 0xFFFF else 1
            j += 1
        assert units == length, "a frame ends inside a surrogate pair"
        frames.append(json.loads(text[start:j]))
        i = j
    return frames


def _complete_frames(text):
    try:
        _frames(text)
        return True
    except (ValueError, IndexError, json.JSONDecodeError):
        return False


@pytest.mark.parametrize("mode", MODES)
def test_wire_handshake_framing_counts_utf16_units(js_target, mode):
    project = "wire-" + uuid.uuid4().hex[:10]
    database = f"projects/{project}/databases/(default)"
    name = f"{database}/documents/w/é😀"
    body = json.dumps({"writes": [{"update": {"name": name, "fields": {"s": {"stringValue": "é😀ü𝄞"}}}}]}).encode()
    urllib.request.urlopen(urllib.request.Request(
        f"{js_target['base']}/v1/{database}/documents:commit", data=body, method="POST",
        headers={"Authorization": "Bearer owner", "Content-Type": "application/json"})).read()
    listen = json.dumps({"database": database, "addTarget": {"documents": {"documents": [name]}, "targetId": 2}})
    form = urllib.parse.urlencode({"count": 1, "ofs": 0, "req0___data__": listen})
    form = "headers=" + urllib.parse.quote("X-Goog-Api-Client:gl-js/ fire/10.12.2\r\nContent-Type:text/plain\r\n") + "&" + form
    status, headers, text = _channel(js_target, "POST", {
        "VER": 8, "database": database, "RID": 1234, "CVER": 22, "X-HTTP-Session-Id": "gsessionid",
        "zx": "abc", "t": 1}, body=form)
    assert status == 200
    frames = _frames(text)
    assert len(frames) == 1 and frames[0][0][0] == 0
    handshake = frames[0][0][1]
    assert handshake[0] == "c" and isinstance(handshake[1], str) and handshake[1] and handshake[3] == 8
    sid = handshake[1]
    assert headers["access-control-allow-origin"] == "http://127.0.0.1:1"

    def has_document(t):
        return _complete_frames(t) and "documentChange" in t
    status, headers, text = _channel(js_target, "GET", {
        "VER": 8, "database": database, "RID": "rpc", "SID": sid, "AID": 0,
        "CI": 0 if mode == "streaming" else 1, "TYPE": "xmlhttp", "zx": "def", "t": 1}, read_until=has_document)
    assert status == 200
    arrays = [a for frame in _frames(text) for a in frame]
    assert [a[0] for a in arrays] == list(range(1, len(arrays) + 1))  # array IDs count up from 1
    changes_ = [a[1][0] for a in arrays if a[1] != ["noop"]]
    assert changes_[0] == {"targetChange": {"targetChangeType": "ADD", "targetIds": [2]}}
    doc = next(c["documentChange"]["document"] for c in changes_ if "documentChange" in c)
    assert doc["name"] == name and doc["fields"] == {"s": {"stringValue": "é😀ü𝄞"}}
    _channel(js_target, "POST", {"VER": 8, "database": database, "SID": sid, "RID": 1235, "TYPE": "terminate", "zx": "x"},
             body="")


@pytest.mark.parametrize("mode", MODES)
def test_wire_unknown_session_is_400(js_target, mode):
    database = "projects/wire-unknown/databases/(default)"
    status, _, text = _channel(js_target, "GET", {
        "VER": 8, "database": database, "RID": "rpc", "SID": "no-such-session", "AID": 0,
        "CI": 0 if mode == "streaming" else 1, "TYPE": "xmlhttp", "zx": "a", "t": 1}, timeout=5)
    assert status == 400
    form = urllib.parse.urlencode({"count": 1, "ofs": 1, "req0___data__": json.dumps({"database": database, "removeTarget": 2})})
    status, _, _ = _channel(js_target, "POST", {"VER": 8, "database": database, "SID": "no-such-session", "RID": 7,
                                                "AID": 0, "zx": "b", "t": 1}, body=form, timeout=5)
    assert status == 400


# ---------------------------------------------------------------------------------------------
# one more try for the official emulator's long-polling hangs (see the module docstring)

def _is_hang(error):
    from selenium.common.exceptions import TimeoutException
    return isinstance(error, TimeoutException) or (
        isinstance(error, AssertionError) and str(error).startswith("timed out after"))


def _second_try_on_official_long_poll_hang(test):
    @functools.wraps(test)
    def wrapper(case, *args, **kwargs):
        try:
            return test(case, *args, **kwargs)
        except Exception as error:
            if case.target["name"] != "official" or case.mode != "long-polling" or not _is_hang(error):
                raise
            warnings.warn(f"{test.__name__}[long-polling] hung against {case.target['name']} "
                          f"({str(error).splitlines()[0][:200]}); trying once more")
            case.reset()
            return test(case, *args, **kwargs)
    return wrapper


for _name, _function in list(globals().items()):
    if _name.startswith("test_") and "case" in inspect.signature(_function).parameters:
        globals()[_name] = _second_try_on_official_long_poll_hang(_function)
