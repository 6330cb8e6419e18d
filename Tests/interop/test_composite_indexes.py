"""Composite-index requirements enforced as production enforces them, through the real Python
client: a query no index serves fails with FailedPrecondition and production's console link
(which decodes to the index to create) plus the entry to paste; `hearth indexes suggest --write`
adds it to firestore.indexes.json, Hearth reloads the file, and the same query (and the seed
app's tasks listener) then works. docs/composite-indexes.md has the rules."""
import base64
import os
import re
import subprocess
import threading
import time

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from conftest import HearthProcess, hearth_binary

LINK = re.compile(r"https://console\.firebase\.google\.com/v1/r/project/([^/]+)/firestore/indexes\?create_composite=([A-Za-z0-9_-]+)")


def decode_index(parameter):
    """The google.firestore.admin.v1.Index a link parameter holds (protobuf, read by hand)."""
    data = base64.urlsafe_b64decode(parameter + "=" * (-len(parameter) % 4))

    def fields(buf):
        i, out = 0, []
        while i < len(buf):
            key = buf[i]
            i += 1
            number, wire = key >> 3, key & 7
            if wire == 0:
                value, shift = 0, 0
                while True:
                    b = buf[i]
                    i += 1
                    value |= (b & 0x7F) << shift
                    shift += 7
                    if b < 0x80:
                        break
                out.append((number, value))
            elif wire == 2:
                length = buf[i]
                i += 1
                out.append((number, buf[i:i + length]))
                i += length
            else:
                raise AssertionError(f"unexpected wire type {wire}")
        return out

    index = {"fields": []}
    for number, value in fields(data):
        if number == 1:
            index["name"] = value.decode()
        elif number == 2:
            index["queryScope"] = {1: "COLLECTION", 2: "COLLECTION_GROUP"}[value]
        elif number == 3:
            field = dict(fields(value))
            order = {1: "ASCENDING", 2: "DESCENDING"}.get(field.get(2))
            index["fields"].append((field[1].decode(), order or ("CONTAINS" if field.get(3) == 1 else None)))
    return index


@pytest.fixture
def project_dir(tmp_path):
    (tmp_path / "firestore.indexes.json").write_text('{"indexes": [], "fieldOverrides": []}\n')
    (tmp_path / "firebase.json").write_text('{"firestore": {"indexes": "firestore.indexes.json"}}\n')
    return tmp_path


@pytest.fixture
def strict(project_dir):
    """Hearth started in the project's folder: it finds firestore.indexes.json through firebase.json."""
    process = HearthProcess(cwd=project_dir)
    yield process
    process.stop()


def client(process, project):
    previous = os.environ.get("FIRESTORE_EMULATOR_HOST")
    os.environ["FIRESTORE_EMULATOR_HOST"] = process.host
    try:
        return firestore.Client(project=project)
    finally:
        if previous is not None:
            os.environ["FIRESTORE_EMULATOR_HOST"] = previous


def seed_query(db):
    return db.collection("tasks").where(filter=FieldFilter("userId", "==", "alice")).order_by("createdTime")


def wait_until(condition, seconds=10):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_missing_index_fails_with_production_link_then_suggest_write_fixes_it(strict, project_dir):
    db = client(strict, "idx-seed")
    for i in range(3):
        db.document(f"tasks/t{i}").set({"userId": "alice", "createdTime": i, "title": f"task {i}"})
    with pytest.raises(exceptions.FailedPrecondition) as failure:
        list(seed_query(db).stream())
    message = failure.value.message
    assert message.startswith("The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/idx-seed/")
    project, parameter = LINK.search(message).groups()
    assert project == "idx-seed"
    assert decode_index(parameter) == {
        "name": "projects/idx-seed/databases/(default)/collectionGroups/tasks/indexes/_",
        "queryScope": "COLLECTION",
        "fields": [("userId", "ASCENDING"), ("createdTime", "ASCENDING"), ("__name__", "ASCENDING")],
    }
    assert '"collectionGroup": "tasks"' in message.split("\n", 1)[1]  # the entry to paste
    # Equality alone is served by merging single-field indexes: no index asked for.
    assert len(list(db.collection("tasks").where(filter=FieldFilter("userId", "==", "alice")).stream())) == 3

    out = subprocess.run([hearth_binary(), "indexes", "suggest", "--port", str(strict.port), "--write", "firestore.indexes.json"],
                         cwd=project_dir, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "tasks COLLECTION (userId ASCENDING, createdTime ASCENDING)" in out.stdout
    # Hearth reloads the file by itself.
    assert wait_until(lambda: _served(seed_query(db)))
    assert [d.id for d in seed_query(db).stream()] == ["t0", "t1", "t2"]


def _served(query):
    try:
        list(query.stream())
        return True
    except exceptions.FailedPrecondition:
        return False


def test_seed_tasks_listener_needs_the_index(strict, project_dir):
    db = client(strict, "idx-listen")
    db.document("tasks/a").set({"userId": "alice", "createdTime": 1})
    snapshots = []
    watch = seed_query(db).on_snapshot(lambda snaps, changes, t: snapshots.append([s.id for s in snaps]))
    assert wait_until(lambda: not watch.is_active)  # the target is removed with FAILED_PRECONDITION
    assert snapshots == []
    (project_dir / "firestore.indexes.json").write_text(
        '{"indexes": [{"collectionGroup": "tasks", "queryScope": "COLLECTION", "fields": ['
        '{"fieldPath": "userId", "order": "ASCENDING"}, {"fieldPath": "createdTime", "order": "ASCENDING"}]}]}\n')
    assert wait_until(lambda: _served(seed_query(db)))
    watch = seed_query(db).on_snapshot(lambda snaps, changes, t: snapshots.append([s.id for s in snaps]))
    assert wait_until(lambda: snapshots == [["a"]])
    db.document("tasks/b").set({"userId": "alice", "createdTime": 2})
    assert wait_until(lambda: snapshots[-1] == ["a", "b"])
    watch.unsubscribe()


def test_aggregation_and_collection_group_verdicts(strict):
    db = client(strict, "idx-agg")
    db.document("tasks/a").set({"userId": "alice", "points": 3})
    # sum over a field with an equality filter needs (userId, points).
    with pytest.raises(exceptions.FailedPrecondition):
        db.collection("tasks").where(filter=FieldFilter("userId", "==", "alice")).sum("points").get()
    # A count with the same filter is served by the single-field index.
    assert db.collection("tasks").where(filter=FieldFilter("userId", "==", "alice")).count().get()[0][0].value == 1
    # A collection-group query with a filter needs a COLLECTION_GROUP scope index.
    with pytest.raises(exceptions.FailedPrecondition) as failure:
        list(db.collection_group("tasks").where(filter=FieldFilter("userId", "==", "alice")).stream())
    assert "requires a COLLECTION_GROUP_ASC index for collection tasks and field userId" in failure.value.message


def test_warn_mode_serves_and_off_mode_is_silent(tmp_path):
    (tmp_path / "firestore.indexes.json").write_text('{"indexes": []}\n')
    process = HearthProcess("--indexes", str(tmp_path / "firestore.indexes.json"), "--index-mode", "warn")
    try:
        db = client(process, "idx-warn")
        db.document("tasks/a").set({"userId": "alice", "createdTime": 1})
        for _ in range(2):
            assert [d.id for d in seed_query(db).stream()] == ["a"]
    finally:
        log = process.stop()
    assert log.count("index warning") == 1  # once per query shape
    assert "The query requires an index" in log
