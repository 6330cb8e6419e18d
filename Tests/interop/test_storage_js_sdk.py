"""The Cloud Storage JS SDK (10.12.2, the browser build) in headless Chromium against Hearth's
Storage emulator: connectStorageEmulator, uploadBytes, uploadBytesResumable with progress,
getDownloadURL opened by the page, getMetadata, updateMetadata, list/listAll, deleteObject, and
the storage rules refusing a wrong owner, an oversized file, a wrong content type, and deciding
with a Firestore document (rules/storage.rules, the bottles app of seed 002).

One Chromium and one Hearth serve the module; each case uses its own object paths. Needs the SDK
($FIREBASE_JS_SDK or ../shared/clients/firebase-js-10.12.2), Debian's chromium and
chromium-driver, and selenium; skipped when one is missing unless HEARTH_REQUIRE_BROWSER=1.
"""
import hashlib
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "browser"))
sys.path.insert(0, HERE)
import jsharness  # noqa: E402
from storage_support import BUCKET, ROOT, StorageHearth, example_rules, request  # noqa: E402

_RUN = """
const done = arguments[arguments.length - 1];
const args = arguments[0];
const st = S.st;
(async () => { %s })().then(
  (r) => done({ok: r === undefined ? null : r}),
  (e) => done({err: S.error(e)}));
"""


class SDKError(Exception):
    def __init__(self, info):
        super().__init__(f"{info.get('code')}: {info.get('message')}")
        self.code = info.get("code")
        self.status = info.get("status")
        self.server_response = info.get("serverResponse")


@pytest.fixture(scope="module")
def hearth(tmp_path_factory):
    binary = os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth"))
    server = StorageHearth(binary, str(tmp_path_factory.mktemp("storage-js")))
    server.set_rules(example_rules("storage.rules"))
    yield server
    server.stop()


@pytest.fixture(scope="module")
def page(hearth):
    jsharness.require_browser(pytest, need_sdk=True)
    pages = jsharness.PageServer(jsharness.find_sdk())
    driver = jsharness.open_chromium()
    driver.set_script_timeout(60)
    driver.get(f"{pages.base}/harness/storage.html?host=127.0.0.1&port={hearth.port}&bucket={BUCKET}")
    for _ in range(400):
        if driver.execute_script("return !!window.S"):
            break
        import time
        time.sleep(0.025)
    else:
        raise AssertionError("the storage harness page did not load: " + json.dumps(driver.get_log("browser"))[:2000])

    def run(js, **args):
        result = driver.execute_async_script(_RUN % js, args)
        if "err" in result:
            raise SDKError(result["err"])
        return result["ok"]

    yield run
    driver.quit()
    pages.close()


def admin_bytes(hearth, name):
    status, _, body = request("GET", f"{hearth.base}/storage/v1/b/{BUCKET}/o/{name.replace('/', '%2F')}?alt=media")
    assert status == 200, body
    return body


@pytest.fixture
def bottle(hearth):
    hearth.put_document("bottles/b-res", {"ownerId": "alice", "participants": ["alice", "carol"]})
    hearth.put_document("bottles/b1", {"ownerId": "alice", "participants": ["alice", "carol"]})


def test_upload_bytes_metadata_and_download_url(page, hearth):
    result = page("""
        const storage = S.client("alice");
        const r = st.ref(storage, "users/alice/avatar.png");
        const data = S.bytes(2000, 7);
        const up = await st.uploadBytes(r, data, {contentType: "image/png", customMetadata: {kind: "avatar"}});
        const meta = await st.getMetadata(r);
        const url = await st.getDownloadURL(r);
        const fetched = new Uint8Array(await (await fetch(url)).arrayBuffer());
        const same = fetched.length === data.length && fetched.every((b, i) => b === data[i]);
        return {upload: {size: up.metadata.size, type: up.metadata.contentType, path: up.metadata.fullPath},
                meta: {size: meta.size, type: meta.contentType, custom: meta.customMetadata, md5: meta.md5Hash,
                       name: meta.name, bucket: meta.bucket, generation: meta.generation},
                url, same};
    """)
    assert result["upload"] == {"size": 2000, "type": "image/png", "path": "users/alice/avatar.png"}
    assert result["meta"]["custom"] == {"kind": "avatar"}
    assert result["meta"]["name"] == "avatar.png" and result["meta"]["bucket"] == BUCKET
    stored = admin_bytes(hearth, "users/alice/avatar.png")
    import base64
    assert result["meta"]["md5"] == base64.b64encode(hashlib.md5(stored).digest()).decode()
    assert "alt=media&token=" in result["url"] and result["same"]


def test_upload_bytes_resumable_reports_progress(page, hearth, bottle):
    result = page("""
        const storage = S.client("alice");
        const r = st.ref(storage, "bottles/b-res/content/whisper.m4a");
        const data = S.bytes(3 * 1024 * 1024 + 11, 3);
        const events = [];
        const task = st.uploadBytesResumable(r, data, {contentType: "audio/m4a"});
        await new Promise((resolve, reject) => task.on("state_changed",
            (s) => events.push([s.bytesTransferred, s.totalBytes, s.state]), reject, resolve));
        return {events, size: task.snapshot.metadata.size, state: task.snapshot.state};
    """)
    transferred = [e[0] for e in result["events"]]
    assert result["state"] == "success" and result["size"] == 3 * 1024 * 1024 + 11
    assert transferred == sorted(transferred) and transferred[-1] == 3 * 1024 * 1024 + 11
    assert len(set(transferred)) >= 3, f"progress should come chunk by chunk: {result['events']}"
    assert len(admin_bytes(hearth, "bottles/b-res/content/whisper.m4a")) == 3 * 1024 * 1024 + 11


def test_update_metadata_and_delete(page, hearth):
    result = page("""
        const storage = S.client("alice");
        const r = st.ref(storage, "users/alice/avatar.png");
        await st.uploadBytes(r, S.bytes(100), {contentType: "image/png"});
        const updated = await st.updateMetadata(r, {cacheControl: "public, max-age=60", customMetadata: {a: "1", b: "2"}});
        const removed = await st.updateMetadata(r, {customMetadata: {a: null}});
        const after = await st.getMetadata(r);
        await st.deleteObject(r);
        let missing = null;
        try { await st.getMetadata(r); } catch (e) { missing = e.code; }
        return {cache: updated.cacheControl, custom: updated.customMetadata, removed: removed.customMetadata,
                after: after.cacheControl, metageneration: after.metageneration, missing};
    """)
    assert result["cache"] == "public, max-age=60" and result["custom"] == {"a": "1", "b": "2"}
    assert result["removed"] == {"b": "2"} and result["after"] == "public, max-age=60"
    assert result["missing"] == "storage/object-not-found"


def test_list_and_list_all(page, hearth):
    hearth.set_rules("""rules_version = '2';
        service firebase.storage { match /b/{bucket}/o { match /listing/{path=**} { allow read, write: if true; } } }""")
    try:
        result = page("""
            const storage = S.client(null);
            for (const name of ["a/1", "a/2", "b/x/1", "c", "d", "e"]) {
              await st.uploadBytes(st.ref(storage, `listing/${name}`), S.bytes(5));
            }
            const all = await st.listAll(st.ref(storage, "listing"));
            const first = await st.list(st.ref(storage, "listing"), {maxResults: 3});
            const second = await st.list(st.ref(storage, "listing"), {maxResults: 3, pageToken: first.nextPageToken});
            const names = (res) => ({items: res.items.map((i) => i.fullPath), prefixes: res.prefixes.map((p) => p.fullPath),
                                     next: !!res.nextPageToken});
            return {all: names(all), first: names(first), second: names(second)};
        """)
    finally:
        hearth.set_rules(example_rules("storage.rules"))
    assert result["all"] == {"items": ["listing/c", "listing/d", "listing/e"], "prefixes": ["listing/a", "listing/b"], "next": False}
    # Items and prefixes count together towards maxResults, as Cloud Storage counts them.
    assert result["first"] == {"items": ["listing/c"], "prefixes": ["listing/a", "listing/b"], "next": True}
    assert result["second"] == {"items": ["listing/d", "listing/e"], "prefixes": [], "next": False}


@pytest.mark.parametrize("case,path,size,content_type", [
    ("wrong owner", "users/bob/avatar.png", 100, "image/png"),
    ("oversized", "users/alice/avatar.png", 50 * 1024 + 1, "image/png"),
    ("wrong content type", "users/alice/avatar.png", 100, "image/jpeg"),
])
def test_rules_refuse(page, case, path, size, content_type):
    with pytest.raises(SDKError) as denied:
        page("""
            await st.uploadBytes(st.ref(S.client("alice"), args.path), S.bytes(args.size), {contentType: args.type});
        """, path=path, size=size, type=content_type)
    assert denied.value.code == "storage/unauthorized", case
    assert denied.value.status == 403
    # (The browser SDK keeps only the status text; the body's explanation is for other clients.)


def test_rules_refuse_a_large_resumable_upload_at_its_start(page):
    """A 6 MB resumable upload to a 5 MB rule: refused when it starts, before any chunk."""
    with pytest.raises(SDKError) as denied:
        page("""
            const task = st.uploadBytesResumable(st.ref(S.client("alice"), "bottles/b1/content/message_image.jpg"),
                                                 S.bytes(6 * 1024 * 1024), {contentType: "image/jpeg"});
            await new Promise((resolve, reject) => task.on("state_changed", null, reject, resolve));
        """)
    assert denied.value.code == "storage/unauthorized"


def test_rules_read_firestore(page, hearth, bottle):
    """bottles/{id}/content/{file}: the bottle's owner (from Firestore) may write, its
    participants may read, anyone else may not."""
    result = page("""
        const path = "bottles/b1/content/message_image.jpg";
        const outcome = async (p) => { try { await p; return "ok"; } catch (e) { return e.code; } };
        return {
          ownerWrites: await outcome(st.uploadBytes(st.ref(S.client("alice"), path), S.bytes(1000), {contentType: "image/jpeg"})),
          otherWrites: await outcome(st.uploadBytes(st.ref(S.client("bob"), path), S.bytes(1000), {contentType: "image/jpeg"})),
          participantReads: await outcome(st.getMetadata(st.ref(S.client("carol"), path))),
          strangerReads: await outcome(st.getMetadata(st.ref(S.client("bob"), path))),
          badName: await outcome(st.uploadBytes(st.ref(S.client("alice"), "bottles/b1/content/other.jpg"), S.bytes(10),
                                                {contentType: "image/jpeg"})),
          noBottle: await outcome(st.uploadBytes(st.ref(S.client("alice"), "bottles/nope/content/message_image.jpg"), S.bytes(10),
                                                 {contentType: "image/jpeg"})),
        };
    """)
    assert result == {"ownerWrites": "ok", "otherWrites": "storage/unauthorized", "participantReads": "ok",
                      "strangerReads": "storage/unauthorized", "badName": "storage/unauthorized",
                      "noBottle": "storage/unauthorized"}


def test_download_url_of_an_object_uploaded_by_the_server(page, hearth):
    """An object written through the GCS API has no token; the first Firebase metadata read
    gives it one, so getDownloadURL works (firebase-tools#3451)."""
    status, _, body = request("POST", f"{hearth.base}/upload/storage/v1/b/{BUCKET}/o?uploadType=media&name=users%2Falice%2Fserver.png",
                              b"server bytes", {"Content-Type": "image/png"})
    assert status == 200, body
    hearth.set_rules("""rules_version = '2';
        service firebase.storage { match /b/{bucket}/o { match /users/{uid}/{file} { allow read: if request.auth.uid == uid; } } }""")
    try:
        text = page("""
            const url = await st.getDownloadURL(st.ref(S.client("alice"), "users/alice/server.png"));
            return await (await fetch(url)).text();
        """)
    finally:
        hearth.set_rules(example_rules("storage.rules"))
    assert text == "server bytes"
