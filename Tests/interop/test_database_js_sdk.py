"""The Realtime Database JS SDK (10.12.2, modular browser build) in headless Chromium against
Hearth's Realtime Database, over the SDK's own WebSocket protocol (docs/realtime-database.md).

One Chromium serves the module, with two tabs ("pages") on the harness
(Tests/interop/browser/database.html); each test opens fresh app instances (each its own
WebSocket) on its own namespace. Needs the SDK ($FIREBASE_JS_SDK or
../shared/clients/firebase-js-10.12.2), Debian's chromium and chromium-driver, and selenium;
where one is missing the module is skipped, loudly; HEARTH_REQUIRE_BROWSER=1 (which scripts/test
sets) fails it instead for a missing browser part, HEARTH_REQUIRE_JS_SDK=1 for a missing SDK.
"""
import base64
import json
import os
import re
import sys
import time
import urllib.error
import urllib.request

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "browser"))
import jsharness  # noqa: E402

_RUN = """
const done = arguments[arguments.length - 1];
const args = arguments[0];
const db = D.db;
(async () => { %s })().then(
  (r) => done({ok: r === undefined ? null : r}),
  (e) => done({err: {code: (e && e.code) || null, message: String((e && e.message) || e)}}));
"""


class JsError(Exception):
    def __init__(self, code, message):
        super().__init__(f"{code}: {message}")
        self.code, self.message = code, message


class Pages:
    """One Chromium with two tabs on the harness page."""

    def __init__(self, url):
        self.driver = jsharness.open_chromium()
        self.driver.set_script_timeout(30)
        self.url = url
        self.handles = []
        for i in range(2):
            if i:
                self.driver.switch_to.new_window("tab")
            self.driver.get(url)
            self.wait(lambda: self.driver.execute_script("return !!window.D"), "the harness to load")
            self.handles.append(self.driver.current_window_handle)

    def on(self, page):
        if self.driver.current_window_handle != self.handles[page]:
            self.driver.switch_to.window(self.handles[page])

    def run(self, js, page=0, **args):
        self.on(page)
        result = self.driver.execute_async_script(_RUN % js, args)
        if "err" in result:
            raise JsError(result["err"]["code"], result["err"]["message"])
        return result["ok"]

    def eval(self, expression, page=0):
        self.on(page)
        return self.driver.execute_script("return " + expression)

    def events(self, id, page=0):
        return self.eval(f"D.events({json.dumps(id)})", page)

    def wait(self, condition, what, timeout=15.0):
        deadline = time.monotonic() + timeout
        while True:
            value = condition()
            if value:
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out after {timeout} s waiting for {what}")
            time.sleep(0.02)

    def wait_events(self, id, predicate, what, page=0, timeout=15.0):
        state = {}

        def check():
            state["events"] = self.events(id, page)
            return predicate(state["events"])
        try:
            self.wait(check, what, timeout)
        except AssertionError as e:
            raise AssertionError(f"{e}; events: {json.dumps(state.get('events'))[:2000]}") from None
        return state["events"]

    def reload(self, page):
        self.on(page)
        self.driver.get(self.url)
        self.wait(lambda: self.driver.execute_script("return !!window.D"), "the harness to reload")

    def quit(self):
        try:
            self.driver.quit()
        except Exception:
            pass


@pytest.fixture(scope="module")
def pages(hearth):
    jsharness.require_browser(pytest, need_sdk=True)
    server = jsharness.PageServer(jsharness.find_sdk())
    p = Pages(server.base + "/harness/database.html")
    yield p
    p.quit()
    server.close()


@pytest.fixture
def ns(hearth, request):
    return "js-" + re.sub(r"[^a-z0-9-]", "-", request.node.name.replace("_", "-").lower())[:50]


def db_port():
    return int(os.environ["FIREBASE_DATABASE_EMULATOR_HOST"].split(":")[1])


def rest(method, path, ns, body=None, auth="Bearer owner", raw=None, headers=None):
    url = f"http://127.0.0.1:{db_port()}{path}{'&' if '?' in path else '?'}ns={ns}"
    data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
    req = urllib.request.Request(url, data=data, method=method)
    if auth:
        req.add_header("Authorization", auth)
    for k, v in (headers or {}).items():
        req.add_header(k, v)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def mock_token(uid):
    def enc(obj):
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()
    now = int(time.time())
    return enc({"alg": "none", "type": "JWT"}) + "." + enc({"sub": uid, "user_id": uid, "iat": now, "exp": now + 3600}) + "."


def open_app(pages, ns, page=0, user=None):
    options = {"mockUserToken": {"sub": user, "user_id": user}} if user else {}
    return pages.run("return D.open(args.ns, args.port, args.options);", page, ns=ns, port=db_port(), options=options)


def test_set_get_update_push_remove_and_on_value(pages, ns):
    a = open_app(pages, ns)
    result = pages.run("""
        const r = (p) => D.ref(args.a, p);
        await db.set(r('items/one'), {n: 1, tags: ['x', 'y'], nested: {deep: true}});
        await db.update(r('items'), {'one/n': 2, 'two': {n: 3}});
        const pushed = await db.push(r('items'), {n: 4});
        const viaGet = (await db.get(r('items'))).val();
        await db.remove(r('items/two'));
        const after = (await db.get(r('items'))).val();
        return {viaGet, after, key: pushed.key};
    """, a=a)
    key = result["key"]
    assert len(key) == 20
    assert result["viaGet"] == {"one": {"n": 2, "tags": ["x", "y"], "nested": {"deep": True}}, "two": {"n": 3}, key: {"n": 4}}
    assert result["after"] == {"one": {"n": 2, "tags": ["x", "y"], "nested": {"deep": True}}, key: {"n": 4}}
    status, _, text = rest("GET", "/items.json", ns)
    assert status == 200 and json.loads(text) == result["after"]
    # onValue in a second app hears a REST write
    b = open_app(pages, ns)
    pages.run("db.onValue(D.ref(args.b, 'items/one/n'), D.record('v')('value'));", b=b)
    pages.wait_events("v", lambda e: e and e[-1][2] == 2, "the first value")
    rest("PUT", "/items/one/n.json", ns, 7)
    pages.wait_events("v", lambda e: e[-1][2] == 7, "the REST write")


def test_child_events_with_queries_and_limits(pages, ns):
    rest("PUT", "/.settings/rules.json", ns, raw=json.dumps({"rules": {".read": True, ".write": True,
                                                               "scores": {".indexOn": ["score"]}}}).encode())
    rest("PUT", "/scores.json", ns, {"a": {"score": 10}, "b": {"score": 20}, "c": {"score": 30}, "d": {"score": 40}})
    app = open_app(pages, ns)
    pages.run("""
        const q = db.query(D.ref(args.app, 'scores'), db.orderByChild('score'), db.limitToLast(2));
        const rec = D.record('q');
        db.onChildAdded(q, rec('added'));
        db.onChildChanged(q, rec('changed'));
        db.onChildRemoved(q, rec('removed'));
        db.onChildMoved(q, rec('moved'));
    """, app=app)
    events = pages.wait_events("q", lambda e: len(e) >= 2, "the initial window")
    assert [(k, key) for k, key, _, _ in events] == [("added", "c"), ("added", "d")]
    rest("PUT", "/scores/e.json", ns, {"score": 50})
    events = pages.wait_events("q", lambda e: len(e) >= 4, "e to enter, c to leave")
    assert sorted([(k, key) for k, key, _, _ in events[2:4]]) == [("added", "e"), ("removed", "c")]
    rest("PATCH", "/scores/d.json", ns, {"score": 60})
    events = pages.wait_events("q", lambda e: any(k == "moved" for k, _, _, _ in e), "d to move past e")
    assert ("changed", "d", {"score": 60}, "e") in [tuple(x) for x in events]
    assert ("moved", "d", {"score": 60}, "e") in [tuple(x) for x in events]
    rest("DELETE", "/scores/d.json", ns)
    events = pages.wait_events("q", lambda e: ("removed", "d") in [(k, key) for k, key, _, _ in e], "d to go")
    pages.wait_events("q", lambda e: [(k, key) for k, key, _, _ in e].count(("added", "c")) == 2, "c to come back")
    # startAt / endAt / equalTo / startAfter / endBefore and orderByKey, orderByValue, orderByPriority
    got = pages.run("""
        const r = D.ref(args.app, 'scores');
        const keys = async (...c) => Object.keys((await db.get(db.query(r, ...c))).val() || {});
        return {
          range: await keys(db.orderByChild('score'), db.startAt(20), db.endAt(50)),
          equal: await keys(db.orderByChild('score'), db.equalTo(30)),
          after: await keys(db.orderByChild('score'), db.startAfter(20)),
          before: await keys(db.orderByChild('score'), db.endBefore(30)),
          byKey: await keys(db.orderByKey(), db.startAfter('a'), db.limitToFirst(2)),
        };
    """, app=app)
    assert got == {"range": ["b", "c", "e"], "equal": ["c"], "after": ["c", "e"], "before": ["a", "b"], "byKey": ["b", "c"]}


def test_transactions_under_contention_from_two_pages(pages, ns):
    a = open_app(pages, ns, page=0)
    b = open_app(pages, ns, page=1)
    start = """
        window.txDone = null;
        (async () => {
          const r = D.ref(args.app, 'counter');
          let committed = 0;
          for (let i = 0; i < 15; i++) {
            const res = await db.runTransaction(r, (v) => (v || 0) + 1);
            if (res.committed) committed++;
          }
          window.txDone = committed;
        })().catch((e) => { window.txDone = 'error: ' + e; });
    """
    pages.run(start, 0, app=a)
    pages.run(start, 1, app=b)
    for page in (0, 1):
        done = pages.wait(lambda: pages.eval("window.txDone", page), f"page {page}'s transactions", timeout=60)
        assert done == 15, done
    status, _, text = rest("GET", "/counter.json", ns)
    assert json.loads(text) == 30


def test_on_disconnect_runs_when_a_page_closes(pages, ns):
    watcher = open_app(pages, ns, page=0)
    pages.run("db.onValue(D.ref(args.w, 'presence/alice'), D.record('presence')('value'));", 0, w=watcher)
    alice = open_app(pages, ns, page=1)
    pages.run("""
        const r = D.ref(args.a, 'presence/alice');
        await db.onDisconnect(r).set({online: false, at: db.serverTimestamp()});
        await db.onDisconnect(D.ref(args.a, 'presence/cancelled')).set(true);
        await db.onDisconnect(D.ref(args.a, 'presence/cancelled')).cancel();
        await db.set(r, {online: true});
    """, 1, a=alice)
    pages.wait_events("presence", lambda e: e and e[-1][2] == {"online": True}, "alice online", page=0)
    pages.reload(1)  # the page goes away: its socket closes
    events = pages.wait_events("presence", lambda e: e[-1][2] and e[-1][2].get("online") is False, "alice offline", page=0)
    assert abs(events[-1][2]["at"] - time.time() * 1000) < 60_000
    status, _, text = rest("GET", "/presence/cancelled.json", ns)
    assert json.loads(text) is None


def test_info_connected_and_server_time_offset(pages, ns):
    app = open_app(pages, ns)
    pages.run("db.onValue(D.ref(args.app, '.info/connected'), D.record('conn')('value'));", app=app)
    pages.wait_events("conn", lambda e: e and e[-1][2] is True, "connected")
    offset = pages.run("""
        return await new Promise((resolve) => {
          const stop = db.onValue(D.ref(args.app, '.info/serverTimeOffset'), (s) => { resolve(s.val()); setTimeout(() => stop()); });
        });
    """, app=app)
    assert isinstance(offset, (int, float)) and abs(offset) < 60_000
    pages.run("db.goOffline(D.apps[args.app].db);", app=app)
    pages.wait_events("conn", lambda e: e[-1][2] is False, "disconnected")
    pages.run("db.goOnline(D.apps[args.app].db);", app=app)
    pages.wait_events("conn", lambda e: e[-1][2] is True, "reconnected")


def test_rules_denials_with_a_signed_in_user(pages, ns):
    rules = {"rules": {"users": {"$uid": {".read": "auth != null && auth.uid === $uid",
                                          ".write": "auth != null && auth.uid === $uid",
                                          ".validate": "newData.hasChildren(['name'])"}}}}
    assert rest("PUT", "/.settings/rules.json", ns, raw=json.dumps(rules).encode())[0] == 200
    rest("PUT", "/users/bob.json", ns, {"name": "Bob"})
    alice = open_app(pages, ns, user="alice")
    got = pages.run("""
        const r = (p) => D.ref(args.a, p);
        await db.set(r('users/alice'), {name: 'Alice'});
        const own = (await db.get(r('users/alice'))).val();
        const errors = {};
        try { await db.set(r('users/bob'), {name: 'Mallory'}); } catch (e) { errors.write = e.code || e.message; }
        try { await db.set(r('users/alice'), {age: 3}); } catch (e) { errors.validate = e.code || e.message; }
        try { await db.get(r('users/bob')); } catch (e) { errors.read = String(e.message); }
        db.onValue(r('users/bob'), D.record('bob')('value'), D.recordError('bob'));
        return {own, errors};
    """, a=alice)
    assert got["own"] == {"name": "Alice"}
    assert "PERMISSION_DENIED" in got["errors"]["write"].upper()
    assert "PERMISSION_DENIED" in got["errors"]["validate"].upper()
    assert "permission" in got["errors"]["read"].lower()
    events = pages.wait_events("bob", lambda e: e and e[-1][0] == "cancel", "the listen to be refused")
    assert "permission" in events[-1][2].lower()
    assert json.loads(rest("GET", "/users/bob.json", ns)[2]) == {"name": "Bob"}


def test_server_values_priorities_and_large_messages(pages, ns):
    a = open_app(pages, ns)
    b = open_app(pages, ns)
    big = "x" * 100_000 + "é😀"
    got = pages.run("""
        const r = (p) => D.ref(args.a, p);
        await db.set(r('t'), {at: db.serverTimestamp(), n: 5});
        await db.update(r('t'), {n: db.increment(3)});
        await db.setWithPriority(r('p/low'), 'low', 1);
        await db.setWithPriority(r('p/high'), 'high', 10);
        await db.setWithPriority(r('p/none'), 'none', null);
        await db.set(r('big'), args.big);
        const other = (await db.get(D.ref(args.b, 'big'))).val();
        const ordered = [];
        (await db.get(db.query(D.ref(args.b, 'p'), db.orderByPriority()))).forEach((c) => { ordered.push(c.key); });
        return {t: (await db.get(r('t'))).val(), bigOk: other === args.big, ordered};
    """, a=a, b=b, big=big)
    assert got["bigOk"] is True
    assert got["ordered"] == ["none", "low", "high"]
    assert got["t"]["n"] == 8 and abs(got["t"]["at"] - time.time() * 1000) < 60_000
    status, _, text = rest("GET", "/p.json?format=export", ns)
    assert json.loads(text) == {"low": {".value": "low", ".priority": 1}, "high": {".value": "high", ".priority": 10}, "none": "none"}


def test_node_hash_matches_the_sdk(pages, ns):
    """The SDK's hash of what it holds equals Hearth's ETag for the same data: the hash a
    transaction sends must match, or every transaction is refused."""
    a = open_app(pages, ns)
    values = [1, 0.1, 2 ** 53 - 1, -3.5, 1e300, 5e-324, "text", "é😀", True, False,
              {"a": 1, "b": {"c": [1, 2, 3]}}, {"x": {".value": 1, ".priority": 2}, "y": "z"},
              {"10": 1, "9": 2, "a": 3, "-1": 4}]
    for i, value in enumerate(values):
        hash_ = pages.run("""
            const r = D.ref(args.a, 'h/' + args.i);
            await db.set(r, args.value);
            let snap = null;
            await new Promise((resolve) => { const stop = db.onValue(r, (s) => { snap = s; resolve(); setTimeout(() => stop()); }); });
            return D.hash(snap);
        """, a=a, i=i, value=value)
        status, headers, text = rest("GET", f"/h/{i}.json", ns, headers={"X-Firebase-ETag": "true"})
        assert headers.get("ETag") == hash_, (value, headers.get("ETag"), hash_)


def test_listen_hash_and_reconnect_keep_data(pages, ns):
    rest("PUT", "/doc.json", ns, {"a": 1})
    app = open_app(pages, ns)
    pages.run("db.onValue(D.ref(args.app, 'doc'), D.record('doc')('value'));", app=app)
    pages.wait_events("doc", lambda e: e and e[-1][2] == {"a": 1}, "the first value")
    pages.run("db.goOffline(D.apps[args.app].db);", app=app)
    rest("PUT", "/doc/b.json", ns, 2)
    pages.run("db.goOnline(D.apps[args.app].db);", app=app)
    pages.wait_events("doc", lambda e: e[-1][2] == {"a": 1, "b": 2}, "the change made while offline")
