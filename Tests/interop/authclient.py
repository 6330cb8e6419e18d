"""What the Auth interop tests share: the Identity Toolkit REST calls a client SDK makes (API key
only), fake IdP credentials, JWT decoding, and Firestore clients that send a user's ID token."""
import base64
import json
import urllib.error
import urllib.parse
import urllib.request

from google.auth.credentials import Credentials


def post(url, body=None, headers=None, raw=None):
    """POSTs JSON (or `raw` bytes); returns (status, parsed JSON or text)."""
    data = raw if raw is not None else json.dumps(body if body is not None else {}).encode()
    req = urllib.request.Request(url, data=data, method="POST",
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            status, text = r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode()
    try:
        return status, json.loads(text)
    except ValueError:
        return status, text


def call(auth, verb, body=None):
    """`accounts:{verb}` as a client SDK calls it: an API key, no credentials."""
    return post(f"{auth}/identitytoolkit.googleapis.com/v1/accounts:{verb}?key=fake-api-key", body)


def ok(auth, verb, body=None):
    status, reply = call(auth, verb, body)
    assert status == 200, reply
    return reply


def refresh(auth, refresh_token):
    """The Secure Token API, as the JS SDK calls it (a form body)."""
    form = urllib.parse.urlencode({"grant_type": "refresh_token", "refresh_token": refresh_token}).encode()
    return post(f"{auth}/securetoken.googleapis.com/v1/token?key=fake-api-key", raw=form,
                headers={"Content-Type": "application/x-www-form-urlencoded"})


def apple_post_body(sub, email=None, name=None):
    """A fake Sign in with Apple credential (JSON id_token), as a client SDK's postBody."""
    claims = {"sub": sub}
    if email:
        claims.update(email=email, email_verified="true")
    if name:
        claims["name"] = name
    return urllib.parse.urlencode({"id_token": json.dumps(claims), "providerId": "apple.com"})


def claims(token):
    """The payload of a JWT, unverified."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


class TokenCredentials(Credentials):
    """Sends a fixed bearer token (a user's ID token)."""

    def __init__(self, token):
        super().__init__()
        self.token = token

    def refresh(self, request):
        pass

    @property
    def expired(self):
        return False

    @property
    def valid(self):
        return True


def firestore_as(project, id_token):
    """A Firestore client that sends `id_token`, as a mobile or web client would: the server SDK
    would send `Bearer owner` to an emulator, so its metadata is replaced."""
    from google.cloud import firestore
    c = firestore.Client(project=project, credentials=TokenCredentials(id_token))
    metadata = [(k, v) for k, v in c._rpc_metadata if k != "authorization"]
    c._rpc_metadata_internal = metadata + [("authorization", "Bearer " + id_token)]
    return c
