"""The Python server libraries against Hearth's Storage emulator: google-cloud-storage (through
STORAGE_EMULATOR_HOST) and firebase_admin.storage. Uploads from a string and a file, a 50 MB
resumable upload in chunks, downloads whole and by range, listings with prefixes and pages,
metadata patch and update, copy, rename, compose, rewrite, delete, buckets, conditions, checksums,
and V4 and V2 signed URLs fetched with plain HTTP.

One Hearth serves the module (its own ports; a fresh service account key made for it).
"""
import base64
import datetime
import hashlib
import json
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from storage_support import BUCKET, PROJECT, ROOT, StorageHearth, request  # noqa: E402


@pytest.fixture(scope="module")
def hearth(tmp_path_factory):
    binary = os.environ.get("HEARTH_BINARY", os.path.join(ROOT, ".build", "debug", "hearth"))
    server = StorageHearth(binary, str(tmp_path_factory.mktemp("storage-python")))
    previous = os.environ.get("STORAGE_EMULATOR_HOST")
    os.environ["STORAGE_EMULATOR_HOST"] = server.base
    yield server
    if previous is None:
        os.environ.pop("STORAGE_EMULATOR_HOST", None)
    else:
        os.environ["STORAGE_EMULATOR_HOST"] = previous
    server.stop()


@pytest.fixture
def client(hearth):
    from google.cloud import storage
    return storage.Client(project=PROJECT)


@pytest.fixture
def bucket(client):
    return client.bucket(BUCKET)


def md5_b64(data):
    return base64.b64encode(hashlib.md5(data).digest()).decode()


def crc32c_b64(data):
    import google_crc32c
    return base64.b64encode(google_crc32c.Checksum(data).digest()).decode()


def test_upload_from_string_and_download(bucket):
    blob = bucket.blob("py/hello.txt")
    blob.upload_from_string("hello, storage", content_type="text/plain")
    assert blob.size == 14 and blob.content_type == "text/plain"
    assert blob.md5_hash == md5_b64(b"hello, storage") and blob.crc32c == crc32c_b64(b"hello, storage")
    # download_as_bytes checks x-goog-hash against the bytes (crc32c): the values must be exact
    assert bucket.blob("py/hello.txt").download_as_bytes() == b"hello, storage"
    assert bucket.blob("py/hello.txt").download_as_text() == "hello, storage"


def test_upload_from_file_and_download_to_file(bucket, tmp_path):
    data = os.urandom(300_000)
    source = tmp_path / "in.bin"
    source.write_bytes(data)
    blob = bucket.blob("py/file.bin")
    blob.upload_from_filename(str(source), content_type="application/octet-stream")
    target = tmp_path / "out.bin"
    bucket.blob("py/file.bin").download_to_filename(str(target))
    assert target.read_bytes() == data


def test_resumable_upload_of_50_mb_in_chunks(bucket, tmp_path):
    data = os.urandom(50 * 1024 * 1024 + 123)
    source = tmp_path / "big.bin"
    source.write_bytes(data)
    blob = bucket.blob("py/big.bin", chunk_size=8 * 1024 * 1024)  # 7 chunks, each answered 308 but the last
    with open(source, "rb") as f:
        blob.upload_from_file(f, content_type="application/octet-stream", checksum="crc32c")
    assert blob.size == len(data) and blob.md5_hash == md5_b64(data)
    got = bucket.blob("py/big.bin").download_as_bytes(checksum="md5")
    assert hashlib.sha256(got).digest() == hashlib.sha256(data).digest()


def test_download_by_range(bucket):
    data = bytes(range(256)) * 4
    bucket.blob("py/range.bin").upload_from_string(data)
    blob = bucket.blob("py/range.bin")
    assert blob.download_as_bytes(start=10, end=19) == data[10:20]
    assert blob.download_as_bytes(start=1000) == data[1000:]
    status, headers, body = request("GET", f"{bucket.client._connection.API_BASE_URL}/download/storage/v1/b/{BUCKET}/o/py%2Frange.bin?alt=media",
                                    headers={"Range": "bytes=-4"})
    assert status == 206 and body == data[-4:] and headers["Content-Range"] == "bytes 1020-1023/1024"
    status, headers, _ = request("GET", f"{bucket.client._connection.API_BASE_URL}/download/storage/v1/b/{BUCKET}/o/py%2Frange.bin?alt=media",
                                 headers={"Range": "bytes=5000-"})
    assert status == 416 and headers["Content-Range"] == "bytes */1024"


def test_list_with_prefixes_and_pages(client, bucket):
    for name in ["list/a/1", "list/a/2", "list/b/1", "list/c", "list/d", "list/e", "list/f"]:
        bucket.blob(name).upload_from_string(name)
    top = client.list_blobs(BUCKET, prefix="list/", delimiter="/")
    assert [b.name for b in top] == ["list/c", "list/d", "list/e", "list/f"]
    assert top.prefixes == {"list/a/", "list/b/"}
    pages = list(client.list_blobs(BUCKET, prefix="list/", page_size=3).pages)
    assert [[b.name for b in page] for page in pages] == [["list/a/1", "list/a/2", "list/b/1"], ["list/c", "list/d", "list/e"], ["list/f"]]
    assert [b.name for b in client.list_blobs(BUCKET, prefix="list/", start_offset="list/c", end_offset="list/e")] == ["list/c", "list/d"]


def test_metadata_patch_and_update(bucket):
    blob = bucket.blob("py/meta.txt")
    blob.upload_from_string("m", content_type="text/plain")
    blob.metadata = {"color": "blue", "size": "big"}
    blob.cache_control = "no-cache"
    blob.content_language = "en"
    blob.patch()
    assert blob.metageneration == 2
    fresh = bucket.get_blob("py/meta.txt")
    assert fresh.metadata == {"color": "blue", "size": "big"} and fresh.cache_control == "no-cache" and fresh.content_language == "en"
    fresh.metadata = {"color": None}
    fresh.patch()
    assert bucket.get_blob("py/meta.txt").metadata == {"size": "big"}
    fresh.content_type = "text/markdown"
    fresh.update()  # PUT: the whole writable metadata
    assert bucket.get_blob("py/meta.txt").content_type == "text/markdown"


def test_copy_rename_delete(bucket):
    blob = bucket.blob("py/original.txt")
    blob.upload_from_string("to copy", content_type="text/plain")
    blob.metadata = {"k": "v"}
    blob.patch()
    copy = bucket.copy_blob(blob, bucket, "py/copy.txt")
    assert copy.download_as_bytes() == b"to copy" and copy.metadata == {"k": "v"} and copy.content_type == "text/plain"
    renamed = bucket.rename_blob(copy, "py/renamed.txt")
    assert renamed.name == "py/renamed.txt" and not bucket.blob("py/copy.txt").exists()
    renamed.delete()
    assert not bucket.blob("py/renamed.txt").exists()
    from google.api_core.exceptions import NotFound
    with pytest.raises(NotFound):
        bucket.blob("py/renamed.txt").delete()


def test_compose_and_rewrite(bucket):
    parts = [bucket.blob(f"py/part{i}") for i in range(3)]
    for i, part in enumerate(parts):
        part.upload_from_string(f"part{i};")
    whole = bucket.blob("py/whole")
    whole.content_type = "text/plain"
    whole.compose(parts)
    assert whole.download_as_bytes() == b"part0;part1;part2;"
    assert whole.component_count == 3 and whole.md5_hash is None and whole.crc32c == crc32c_b64(b"part0;part1;part2;")
    target = bucket.blob("py/rewritten")
    token, written, total = target.rewrite(whole)
    assert token is None and written == total == 18 and target.download_as_bytes() == b"part0;part1;part2;"


def test_buckets(client):
    from google.api_core.exceptions import Conflict, NotFound
    created = client.create_bucket("py-new-bucket")
    assert created.name == "py-new-bucket" and client.get_bucket("py-new-bucket").name == "py-new-bucket"
    assert "py-new-bucket" in [b.name for b in client.list_buckets()]
    with pytest.raises(Conflict):
        client.create_bucket("py-new-bucket")
    created.blob("x").upload_from_string("x")
    with pytest.raises(Conflict):
        created.delete()
    created.delete(force=True)
    with pytest.raises(NotFound):
        client.get_bucket("py-new-bucket")
    assert client.bucket("never-made-bucket").exists() is False


def test_conditions(bucket):
    from google.api_core.exceptions import PreconditionFailed
    blob = bucket.blob("py/once.txt")
    blob.upload_from_string("first", if_generation_match=0)
    with pytest.raises(PreconditionFailed):
        bucket.blob("py/once.txt").upload_from_string("second", if_generation_match=0)
    blob.upload_from_string("third", if_generation_match=blob.generation)
    assert bucket.blob("py/once.txt").download_as_bytes() == b"third"


def test_corrupted_upload_is_refused(hearth):
    """A multipart upload whose declared crc32c does not match its bytes is a 400, and no object."""
    boundary = "==b=="
    body = (f"--{boundary}\r\ncontent-type: application/json\r\n\r\n"
            + json.dumps({"name": "py/corrupt", "crc32c": "AAAAAA=="})
            + f"\r\n--{boundary}\r\ncontent-type: text/plain\r\n\r\nreal bytes\r\n--{boundary}--").encode()
    status, _, text = request("POST", f"{hearth.base}/upload/storage/v1/b/{BUCKET}/o?uploadType=multipart", body,
                              {"Content-Type": f'multipart/related; boundary="{boundary}"'})
    assert status == 400 and b"doesn't match calculated CRC32C" in text
    assert request("GET", f"{hearth.base}/storage/v1/b/{BUCKET}/o/py%2Fcorrupt")[0] == 404


def test_signed_urls(hearth, bucket):
    import requests
    from google.oauth2 import service_account
    creds = service_account.Credentials.from_service_account_file(hearth.service_account)
    blob = bucket.blob("signed/report 1.pdf")
    blob.upload_from_string(b"%PDF secret", content_type="application/pdf")
    for version in ("v4", "v2"):
        url = blob.generate_signed_url(version=version, expiration=datetime.timedelta(minutes=5), credentials=creds,
                                       api_access_endpoint=hearth.base)
        got = requests.get(url)
        assert got.status_code == 200 and got.content == b"%PDF secret", (version, got.text)
        tampered = url.replace("report%201.pdf", "report%202.pdf")
        refused = requests.get(tampered)
        assert refused.status_code == 403 and "<Code>SignatureDoesNotMatch</Code>" in refused.text
    # V4 with response overrides, and a signed PUT
    url = blob.generate_signed_url(version="v4", expiration=60, credentials=creds, api_access_endpoint=hearth.base,
                                   response_disposition="attachment; filename=r.pdf")
    assert requests.get(url).headers["Content-Disposition"] == "attachment; filename=r.pdf"
    put = bucket.blob("signed/upload.bin").generate_signed_url(version="v4", expiration=60, method="PUT", credentials=creds,
                                                               content_type="application/octet-stream", api_access_endpoint=hearth.base)
    assert requests.put(put, data=b"via signed put", headers={"Content-Type": "application/octet-stream"}).status_code == 200
    assert bucket.blob("signed/upload.bin").download_as_bytes() == b"via signed put"
    # expired: signed an hour ago for one minute
    import google.cloud.storage._signing as signing
    past = (datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)).strftime("%Y%m%dT%H%M%SZ")
    old = signing.generate_signed_url_v4(creds, f"/{BUCKET}/signed/report%201.pdf", expiration=60, api_access_endpoint=hearth.base,
                                         _request_timestamp=past)
    expired = requests.get(old)
    assert expired.status_code == 400 and "<Code>ExpiredToken</Code>" in expired.text
    # an account Hearth was not given
    from storage_support import make_service_account
    other = service_account.Credentials.from_service_account_file(
        make_service_account(os.path.join(os.path.dirname(hearth.service_account), "other.json"), "other@demo-app.iam.gserviceaccount.com"))
    unknown = requests.get(blob.generate_signed_url(version="v4", expiration=60, credentials=other, api_access_endpoint=hearth.base))
    assert unknown.status_code == 403 and "--storage-service-account" in unknown.text


def test_firebase_admin_storage(hearth):
    """firebase_admin.storage.bucket() uses the app's credential: one that sends the emulator's
    admin token ("owner") works offline, as a service account would need Google's token endpoint."""
    import firebase_admin
    import google.oauth2.credentials
    import requests
    from firebase_admin import credentials, storage
    from google.oauth2 import service_account

    class Owner(credentials.Base):
        def get_credential(self):
            return google.oauth2.credentials.Credentials("owner")

    app = firebase_admin.initialize_app(Owner(), {"storageBucket": BUCKET, "projectId": PROJECT}, name="storage-interop")
    try:
        admin_bucket = storage.bucket(app=app)
        blob = admin_bucket.blob("admin/notes.txt")
        blob.upload_from_string("from firebase_admin", content_type="text/plain")
        assert admin_bucket.blob("admin/notes.txt").download_as_text() == "from firebase_admin"
        assert "admin/notes.txt" in [b.name for b in admin_bucket.list_blobs(prefix="admin/")]
        blob.make_public()  # an ACL change: kept, returned, not enforced
        assert {"entity": "allUsers", "role": "READER"} in [{k: e[k] for k in ("entity", "role")} for e in blob.acl]
        creds = service_account.Credentials.from_service_account_file(hearth.service_account)
        url = blob.generate_signed_url(version="v4", expiration=60, credentials=creds, api_access_endpoint=hearth.base)
        assert requests.get(url).text == "from firebase_admin"
        blob.delete()
        assert not admin_bucket.blob("admin/notes.txt").exists()
    finally:
        firebase_admin.delete_app(app)
