"""The real google-cloud-firestore client against Hearth over gRPC."""
import datetime
import threading
import time

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1 import transforms
from google.cloud.firestore_v1.base_query import And, FieldFilter, Or


def test_every_value_type_round_trips(db):
    when = datetime.datetime(2024, 5, 1, 10, 0, 0, 123456, tzinfo=datetime.timezone.utc)
    other = db.document("things/other")
    data = {
        "null": None, "bool": True, "int": -(2 ** 63), "float": 1.5, "nan": float("nan"), "inf": float("inf"),
        "time": when, "text": "héllo 😀", "bytes": b"\x00\xff", "ref": other,
        "geo": firestore.GeoPoint(51.5, -0.1), "list": [1, "a", {"k": None}], "map": {"nested": {"deep": [True]}},
    }
    db.document("things/all").set(data)
    back = db.document("things/all").get().to_dict()
    assert back["null"] is None and back["bool"] is True and back["int"] == -(2 ** 63)
    assert back["float"] == 1.5 and back["nan"] != back["nan"] and back["inf"] == float("inf")
    assert back["time"] == when and back["text"] == "héllo 😀" and back["bytes"] == b"\x00\xff"
    assert back["ref"].path == "things/other" and back["geo"] == firestore.GeoPoint(51.5, -0.1)
    assert back["list"] == [1, "a", {"k": None}] and back["map"] == {"nested": {"deep": [True]}}


def test_set_merge_update_delete(db):
    ref = db.document("users/alice")
    ref.set({"name": "Alice", "address": {"city": "Paris", "zip": "75001"}})
    ref.set({"address": {"city": "Lyon"}, "age": 30}, merge=True)
    assert ref.get().to_dict() == {"name": "Alice", "address": {"city": "Lyon", "zip": "75001"}, "age": 30}
    ref.update({"address.zip": firestore.DELETE_FIELD, "age": 31})
    assert ref.get().to_dict() == {"name": "Alice", "address": {"city": "Lyon"}, "age": 31}
    ref.delete()
    assert not ref.get().exists
    with pytest.raises(exceptions.NotFound):
        ref.update({"age": 1})


def test_transforms(db):
    ref = db.document("counters/c")
    ref.set({"n": 1, "tags": ["a", "b"], "hi": 5, "lo": 5})
    ref.update({
        "n": firestore.Increment(2), "tags": firestore.ArrayUnion(["c", "a"]), "at": firestore.SERVER_TIMESTAMP,
        "hi": transforms.Maximum(9), "lo": transforms.Minimum(2),
    })
    ref.update({"tags": firestore.ArrayRemove(["b"])})
    d = ref.get().to_dict()
    assert d["n"] == 3 and d["tags"] == ["a", "c"] and d["hi"] == 9 and d["lo"] == 2
    assert isinstance(d["at"], datetime.datetime)


def test_create_conflict_and_preconditions(db):
    ref = db.document("c/once")
    ref.create({"v": 1})
    with pytest.raises(exceptions.AlreadyExists):
        ref.create({"v": 2})
    snap = ref.get()
    ref.update({"v": 3}, option=db.write_option(last_update_time=snap.update_time))
    with pytest.raises(exceptions.FailedPrecondition):
        ref.update({"v": 4}, option=db.write_option(last_update_time=snap.update_time))


def test_batch_and_get_all(db):
    batch = db.batch()
    for i in range(5):
        batch.set(db.document(f"items/i{i}"), {"i": i})
    batch.delete(db.document("items/i4"))
    batch.commit()
    refs = [db.document(f"items/i{i}") for i in range(5)]
    found = {s.id: s.exists for s in db.get_all(refs)}
    assert found == {"i0": True, "i1": True, "i2": True, "i3": True, "i4": False}


def test_transactions_retry_under_contention(db):
    ref = db.document("counters/shared")
    ref.set({"n": 0})

    @firestore.transactional
    def bump(tx):
        snap = ref.get(transaction=tx)
        tx.update(ref, {"n": snap.get("n") + 1})

    def worker():
        client = firestore.Client(project=db.project)
        for _ in range(10):
            tx = client.transaction()

            @firestore.transactional
            def inc(t):
                s = client.document(ref.path).get(transaction=t)
                t.update(client.document(ref.path), {"n": s.get("n") + 1})
            inc(tx)

    threads = [threading.Thread(target=worker) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    bump(db.transaction())
    assert ref.get().get("n") == 21


def seed(db):
    rows = [
        ("a", {"n": 1, "s": "x", "tags": ["red", "blue"], "g": "one"}),
        ("b", {"n": 2.5, "s": "y", "tags": ["blue"], "g": "two"}),
        ("c", {"n": 3, "s": "x", "tags": [], "g": "one"}),
        ("d", {"n": None, "s": "z", "g": "two"}),
        ("e", {"n": 4, "s": "y", "tags": ["green"], "g": "one"}),
    ]
    for id, data in rows:
        db.document(f"things/{id}").set(data)
    return db.collection("things")


def ids(query):
    return [s.id for s in query.stream()]


def test_query_operators(db):
    c = seed(db)
    assert ids(c.where(filter=FieldFilter("n", "==", 1))) == ["a"]
    assert ids(c.where(filter=FieldFilter("n", "!=", 1))) == ["b", "c", "e"]
    assert ids(c.where(filter=FieldFilter("n", "<", 3))) == ["a", "b"]
    assert ids(c.where(filter=FieldFilter("n", "<=", 3))) == ["a", "b", "c"]
    assert ids(c.where(filter=FieldFilter("n", ">", 2))) == ["b", "c", "e"]
    assert ids(c.where(filter=FieldFilter("n", ">=", 3))) == ["c", "e"]
    assert ids(c.where(filter=FieldFilter("tags", "array_contains", "blue"))) == ["a", "b"]
    assert ids(c.where(filter=FieldFilter("tags", "array_contains_any", ["red", "green"]))) == ["a", "e"]
    assert ids(c.where(filter=FieldFilter("s", "in", ["x", "z"]))) == ["a", "c", "d"]
    assert ids(c.where(filter=FieldFilter("s", "not-in", ["x", "z"]))) == ["b", "e"]
    assert ids(c.where(filter=FieldFilter("n", "==", None))) == ["d"]
    assert ids(c.where(filter=Or([FieldFilter("s", "==", "z"), And([FieldFilter("g", "==", "one"), FieldFilter("n", ">", 2)])]))) == ["d", "c", "e"]


def test_order_cursors_limits_select(db):
    c = seed(db)
    ordered = c.order_by("n", direction=firestore.Query.DESCENDING)
    assert ids(ordered) == ["e", "c", "b", "a", "d"]
    snap = db.document("things/c").get()
    assert ids(c.order_by("n").start_after(snap)) == ["e"]
    assert ids(c.order_by("n").end_before(snap)) == ["d", "a", "b"]
    assert [s.id for s in c.order_by("n").limit_to_last(2).get()] == ["c", "e"]
    assert ids(c.order_by("n").offset(1).limit(2)) == ["a", "b"]
    assert [s.to_dict() for s in c.where(filter=FieldFilter("n", "==", 1)).select(["s"]).stream()] == [{"s": "x"}]


def test_collection_group_and_listing(db):
    db.document("rooms/r1/messages/m1").set({"t": 1})
    db.document("rooms/r2/messages/m2").set({"t": 2})
    db.document("messages/m3").set({"t": 3})
    assert sorted(s.id for s in db.collection_group("messages").stream()) == ["m1", "m2", "m3"]
    assert sorted(c.id for c in db.collections()) == ["messages", "rooms"]
    assert [c.id for c in db.document("rooms/r1").collections()] == ["messages"]
    missing = [r.id for r in db.collection("rooms").list_documents()]
    assert missing == ["r1", "r2"]
    db.recursive_delete(db.collection("rooms"))
    assert list(db.collection_group("messages").stream())[0].id == "m3"


def test_partition_query_splits_a_collection_group(db):
    batch = db.batch()
    for i in range(120):
        batch.set(db.document(f"{'a' if i % 2 else 'b'}/p/parts/d{i:03}"), {"i": i})
    batch.commit()
    db.document("elsewhere/x").set({"i": -1})
    group = db.collection_group("parts")
    partitions = list(group.get_partitions(3))
    assert len(partitions) == 4
    seen = [[s.get("i") for s in p.query().stream()] for p in partitions]
    assert [len(run) for run in seen] == [30, 30, 30, 30]
    assert sorted(i for run in seen for i in run) == list(range(120))
    assert partitions[1].start_at.path == partitions[0].end_at.path
    assert len(list(db.collection_group("none").get_partitions(5))) == 1
    with pytest.raises(exceptions.InvalidArgument):
        list(group.get_partitions(0))


def test_listings_at_a_read_time(db):
    db.document("gone/1").set({})
    db.document("p/x/c/1").set({})
    then = db.document("p/z/c/1").set({}).update_time
    db.document("gone/1").delete()
    db.document("p/x/c/1").delete()
    db.document("new/1").set({})
    db.document("p/y/c/1").set({})
    assert sorted(c.id for c in db.collections()) == ["new", "p"]
    assert sorted(c.id for c in db.collections(read_time=then)) == ["gone", "p"]
    assert [d.id for d in db.collection("p").list_documents()] == ["y", "z"]
    assert [d.id for d in db.collection("p").list_documents(read_time=then)] == ["x", "z"]


def test_recursive_delete_every_id(db):
    # The SDK scans a collection from `__id-9223372036854775808__`, a numeric ID that sorts
    # before every other ID; IDs with digits and capitals sort below '_' as strings.
    ids = ["1", "10", "9", "A", "Z", "_x", "a", "\u00e9"]
    for i in ids:
        db.document(f"c/{i}").set({"i": i})
    db.document("c/1/s/x").set({"deep": True})
    db.document("keep/k").set({"k": 1})
    assert sorted(d.reference.path for d in db.collection("c").recursive().stream()) == sorted(
        [f"c/{i}" for i in ids] + ["c/1/s/x"])
    assert db.recursive_delete(db.collection("c")) == len(ids) + 1
    assert list(db.collection("c").list_documents()) == []
    assert [c.id for c in db.collections()] == ["keep"]
    for i in ["__id5__", "__id-3__", "__id10__", "1", "A"]:
        db.document(f"n/{i}").set({"v": 1})
    assert [d.id for d in db.collection("n").stream()] == ["__id-3__", "__id5__", "__id10__", "1", "A"]


def test_vector_values(db):
    from google.cloud.firestore_v1.vector import Vector
    db.document("v/a").set({"v": Vector([1.0, 2.5, -3.0])})
    assert db.document("v/a").get().to_dict() == {"v": Vector([1.0, 2.5, -3.0])}
    # Vectors sort after arrays and before maps, by length, then element by element.
    for key, value in {"d": [5], "b": Vector([3.0]), "c": Vector([1.0, 1.0]), "a": Vector([1.0, 2.0]), "e": {"x": 1}}.items():
        db.document(f"o/{key}").set({"f": value})
    assert [d.id for d in db.collection("o").order_by("f").stream()] == ["d", "b", "c", "a", "e"]
    with pytest.raises(exceptions.InvalidArgument):
        db.document("v/e").set({"v": Vector([])})


def test_vector_search(db):
    from google.cloud.firestore_v1.base_vector_query import DistanceMeasure
    from google.cloud.firestore_v1.vector import Vector
    for key, v in {"a": [1.0, 0.0], "b": [0.0, 1.0], "c": [1.0, 1.0], "d": [2.0, 2.0]}.items():
        db.document(f"docs/{key}").set({"emb": Vector(v), "tag": key in "ab"})
    db.document("docs/other").set({"emb": Vector([1.0, 0.0, 0.0])})
    near = db.collection("docs").find_nearest("emb", Vector([1.0, 0.0]), limit=3,
                                               distance_measure=DistanceMeasure.EUCLIDEAN, distance_result_field="dist")
    assert [(s.id, round(s.get("dist"), 6)) for s in near.stream()] == [("a", 0.0), ("c", 1.0), ("b", 1.414214)]
    top = db.collection("docs").find_nearest("emb", Vector([1.0, 0.0]), limit=2, distance_measure=DistanceMeasure.DOT_PRODUCT)
    assert [s.id for s in top.get()] == ["d", "a"]
    tagged = db.collection("docs").where(filter=FieldFilter("tag", "==", True)).find_nearest(
        "emb", Vector([0.0, 1.0]), limit=5, distance_measure=DistanceMeasure.COSINE, distance_threshold=0.5)
    assert [s.id for s in tagged.get()] == ["b"]
    with pytest.raises(exceptions.InvalidArgument):
        db.collection("docs").limit(2).find_nearest("emb", Vector([1.0, 0.0]), limit=3,
                                                    distance_measure=DistanceMeasure.EUCLIDEAN).get()


def test_aggregations(db):
    c = seed(db)
    assert c.count().get()[0][0].value == 5
    assert c.sum("n").get()[0][0].value == 10.5
    assert c.avg("n").get()[0][0].value == pytest.approx(2.625)
    assert c.where(filter=FieldFilter("s", "==", "x")).count().get()[0][0].value == 2


def test_firebase_admin_client(hearth):
    import firebase_admin
    import google.auth.credentials
    from firebase_admin import credentials, firestore as admin_firestore

    class Anonymous(credentials.Base):
        def get_credential(self):
            return google.auth.credentials.AnonymousCredentials()

    app = firebase_admin.initialize_app(Anonymous(), {"projectId": "interop-admin"}, name="interop")
    client = admin_firestore.client(app)
    client.document("admins/root").set({"ok": True})
    assert client.document("admins/root").get().get("ok") is True
    firebase_admin.delete_app(app)


def test_client_deadline_on_a_commit_waiting_for_a_lock(db):
    # The deadline is the client's (Hearth takes grpc-timeout out of the call's metadata, see
    # decision 0005): a commit held by another transaction's read lock ends DEADLINE_EXCEEDED
    # for its caller when the deadline passes, and the server goes on serving.
    ref = db.document("locked/doc")
    ref.set({"n": 0})
    other = firestore.Client(project=db.project)
    outcome = {}

    @firestore.transactional
    def hold(tx):
        ref.get(transaction=tx)  # a read lock until this transaction ends
        start = time.monotonic()
        try:
            other.document(ref.path).set({"n": 5}, timeout=0.3, retry=None)
            outcome["result"] = "written"
        except exceptions.DeadlineExceeded:
            outcome["result"] = "deadline"
        outcome["elapsed"] = time.monotonic() - start
        tx.update(ref, {"n": 1})

    hold(db.transaction())
    assert outcome["result"] == "deadline"
    assert outcome["elapsed"] < 1.5  # the client's 0.3 s, not the 2 s lock timeout
    assert ref.get().exists
    other.document("locked/after").set({"ok": True})
    assert other.document("locked/after").get().get("ok") is True
