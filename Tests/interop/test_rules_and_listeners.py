"""Security rules denials and snapshot listeners through the real client."""
import base64
import json
import threading
import urllib.request

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from authclient import TokenCredentials

RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /tasks/{id} {
      allow read, write: if request.auth != null && request.auth.uid == resource.data.userId;
      allow create: if request.auth != null && request.resource.data.userId == request.auth.uid;
    }
  }
}"""


def put_rules(base, project):
    body = json.dumps({"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}).encode()
    req = urllib.request.Request(f"{base}/emulator/v1/projects/{project}:securityRules", data=body, method="PUT",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req)


def id_token(uid):
    enc = lambda d: base64.urlsafe_b64encode(json.dumps(d).encode()).rstrip(b"=").decode()
    return enc({"alg": "none", "typ": "JWT"}) + "." + enc({"sub": uid, "user_id": uid}) + "."


def client_as(project, uid):
    """A client that sends a user's ID token: the server SDK sends `Bearer owner` to an
    emulator, so the metadata is replaced as a mobile or web client's would be."""
    c = firestore.Client(project=project, credentials=TokenCredentials(id_token(uid)))
    metadata = [(k, v) for k, v in c._rpc_metadata if k != "authorization"]
    c._rpc_metadata_internal = metadata + [("authorization", "Bearer " + id_token(uid))]
    return c


def test_rules_deny_with_permission_denied(hearth, db):
    put_rules(hearth, db.project)
    db.document("tasks/t1").set({"userId": "bob", "title": "x"})
    alice = client_as(db.project, "alice")
    alice.document("tasks/t2").set({"userId": "alice", "title": "mine"})
    assert alice.document("tasks/t2").get().get("title") == "mine"
    with pytest.raises(exceptions.PermissionDenied):
        alice.document("tasks/t1").get()
    assert [s.id for s in alice.collection("tasks").where(filter=FieldFilter("userId", "==", "alice")).stream()] == ["t2"]
    with pytest.raises(exceptions.PermissionDenied):
        list(alice.collection("tasks").stream())


def wait_for(events, count, timeout=5):
    deadline = threading.Event()
    for _ in range(int(timeout * 20)):
        if len(events) >= count:
            return
        deadline.wait(0.05)
    raise AssertionError(f"expected {count} snapshots, got {len(events)}: {events}")


def test_document_listener(db):
    events = []
    ref = db.document("live/doc")
    watch = ref.on_snapshot(lambda snaps, changes, t: events.append([s.to_dict() if s.exists else None for s in snaps]))
    wait_for(events, 1)
    ref.set({"v": 1})
    wait_for(events, 2)
    ref.delete()
    wait_for(events, 3)
    watch.unsubscribe()
    assert events[1] == [{"v": 1}]
    assert events[2] in ([None], [])


def test_query_listener_with_limit_window(db):
    for i, score in enumerate([10, 20, 30]):
        db.document(f"scores/p{i}").set({"score": score})
    events = []
    query = db.collection("scores").order_by("score", direction=firestore.Query.DESCENDING).limit(2)
    watch = query.on_snapshot(lambda snaps, changes, t: events.append(([s.id for s in snaps], sorted(c.type.name + ":" + c.document.id for c in changes))))
    # The Python SDK orders snapshots on the client (and multiplies by the direction enum, so
    # descending reads as ascending); the window's membership is what the server decides.
    wait_for(events, 1)
    assert sorted(events[0][0]) == ["p1", "p2"]
    db.document("scores/p0").set({"score": 99})
    wait_for(events, 2)
    assert sorted(events[1][0]) == ["p0", "p2"] and events[1][1] == ["ADDED:p0", "REMOVED:p1"]
    db.document("scores/p0").delete()
    wait_for(events, 3)
    assert sorted(events[2][0]) == ["p1", "p2"] and events[2][1] == ["ADDED:p1", "REMOVED:p0"]
    watch.unsubscribe()


def test_listener_denied_by_rules(hearth, db):
    put_rules(hearth, db.project)
    alice = client_as(db.project, "alice")
    snapshots = []
    watch = alice.collection("tasks").on_snapshot(lambda snaps, changes, t: snapshots.append(snaps))
    for _ in range(100):
        if not watch.is_active:
            break
        threading.Event().wait(0.05)
    assert not watch.is_active and snapshots == []
    allowed = alice.collection("tasks").where(filter=FieldFilter("userId", "==", "alice")).on_snapshot(
        lambda snaps, changes, t: snapshots.append(snaps))
    wait_for(snapshots, 1)
    allowed.unsubscribe()


def test_collection_listener_changes(db):
    db.document("notes/a").set({"n": 1, "tag": "x"})
    db.document("notes/b").set({"n": 2, "tag": "x"})
    events = []
    watch = db.collection("notes").on_snapshot(lambda snaps, changes, t: events.append(
        ([s.id for s in snaps], [(c.type.name, c.document.id, c.old_index, c.new_index) for c in changes])))
    wait_for(events, 1)
    assert events[0] == (["a", "b"], [("ADDED", "a", -1, 0), ("ADDED", "b", -1, 1)])
    db.document("notes/c").set({"n": 3})
    wait_for(events, 2)
    assert events[1] == (["a", "b", "c"], [("ADDED", "c", -1, 2)])
    db.document("notes/a").update({"n": 10})
    wait_for(events, 3)
    # (The Python SDK computes change indexes itself; its new_index for a modification is its own.)
    assert events[2][0] == ["a", "b", "c"] and [c[:3] for c in events[2][1]] == [("MODIFIED", "a", 0)]
    db.document("notes/b").delete()
    wait_for(events, 4)
    assert events[3] == (["a", "c"], [("REMOVED", "b", 1, -1)])
    # One batch, one snapshot.
    batch = db.batch()
    batch.set(db.document("notes/d"), {"n": 4})
    batch.delete(db.document("notes/c"))
    batch.commit()
    wait_for(events, 5)
    assert events[4][0] == ["a", "d"] and sorted(c[:2] for c in events[4][1]) == [("ADDED", "d"), ("REMOVED", "c")]
    watch.unsubscribe()


def test_filtered_listener_sees_documents_leave_and_return(db):
    db.document("jobs/j1").set({"state": "open"})
    events = []
    query = db.collection("jobs").where(filter=FieldFilter("state", "==", "open"))
    watch = query.on_snapshot(lambda snaps, changes, t: events.append(
        ([s.id for s in snaps], sorted(c.type.name + ":" + c.document.id for c in changes))))
    wait_for(events, 1)
    db.document("jobs/j1").update({"state": "closed"})
    wait_for(events, 2)
    assert events[1] == ([], ["REMOVED:j1"])
    db.document("jobs/j1").update({"state": "open"})
    wait_for(events, 3)
    assert events[2] == (["j1"], ["ADDED:j1"])
    watch.unsubscribe()


def test_listener_ended_when_rules_change(hearth, db):
    put_rules(hearth, db.project)
    db.document("tasks/t1").set({"userId": "alice", "title": "mine"})
    alice = client_as(db.project, "alice")
    snapshots = []
    watch = alice.document("tasks/t1").on_snapshot(lambda snaps, changes, t: snapshots.append(snaps))
    wait_for(snapshots, 1)
    assert watch.is_active
    # New rules deny every read. As in the official emulator, the open listener is re-checked,
    # and ends with PERMISSION_DENIED, when its results next change.
    body = json.dumps({"rules": {"files": [{"name": "firestore.rules", "content":
        "rules_version = '2';\nservice cloud.firestore {\n  match /databases/{database}/documents {\n"
        "    match /{document=**} { allow read, write: if false; }\n  }\n}"}]}}).encode()
    urllib.request.urlopen(urllib.request.Request(
        f"{hearth}/emulator/v1/projects/{db.project}:securityRules", data=body, method="PUT",
        headers={"Content-Type": "application/json"}))
    threading.Event().wait(0.3)
    assert watch.is_active and len(snapshots) == 1
    db.document("tasks/t1").update({"title": "changed"})
    for _ in range(100):
        if not watch.is_active:
            break
        threading.Event().wait(0.05)
    assert not watch.is_active and len(snapshots) == 1


def test_many_listeners_on_one_connection(db):
    """150 listeners on one client (one HTTP/2 connection) and calls beside them. The server
    says in SETTINGS that it takes any number of concurrent streams, as the official emulator
    does; had it enforced an unannounced 100, the client's next call would break the limit and
    the whole connection would end with GOAWAY PROTOCOL_ERROR."""
    ref = db.document("fanout/doc")
    ref.set({"v": 0})
    seen = [None] * 150
    changed = threading.Condition()

    def listener(i):
        def on_snapshot(snaps, changes, t):
            with changed:
                seen[i] = snaps[0].get("v") if snaps and snaps[0].exists else None
                changed.notify_all()
        return on_snapshot

    watches = [ref.on_snapshot(listener(i)) for i in range(150)]
    try:
        with changed:
            assert changed.wait_for(lambda: all(v == 0 for v in seen), timeout=20), seen
        for v in (1, 2, 3):
            ref.set({"v": v})
            assert ref.get().get("v") == v
            with changed:
                assert changed.wait_for(lambda: all(s == v for s in seen), timeout=20), seen
    finally:
        for w in watches:
            w.unsubscribe()
