"""The seed app's flow (../shared/seeds/003): an anonymous user's tasks, Sign in with Apple on a
second device failing with credential-already-in-use, signing in to the permanent account, and a
server-side migration that verifies both ID tokens and moves the tasks in one transaction; then
Firestore rules, seeing Hearth's ID tokens as request.auth, let the permanent user read every task
and the anonymous one none."""
import json
import os
import time
import urllib.parse
import urllib.request
import uuid

import pytest
from google.api_core import exceptions
from google.cloud import firestore
from google.cloud.firestore_v1.base_query import FieldFilter

from authclient import apple_post_body, call, claims, firestore_as, ok
from conftest import AUTH_PROJECT, ROOT

RULES = open(os.path.join(ROOT, "fixtures", "auth", "seed-flow.rules")).read()  # shared with AuthSeedFlowTests.swift


def put_rules(firestore_base, project):
    body = json.dumps({"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}).encode()
    req = urllib.request.Request(f"{firestore_base}/emulator/v1/projects/{project}:securityRules", data=body, method="PUT",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req)


@pytest.fixture
def admin(auth_emulator):
    import firebase_admin
    from firebase_admin import auth
    app = firebase_admin.initialize_app(options={"projectId": AUTH_PROJECT}, name="seed-" + uuid.uuid4().hex)
    yield auth, app
    firebase_admin.delete_app(app)


def link_apple(auth_emulator, id_token, apple):
    """linkWithCredential(appleCredential) as the SDKs send it (returnIdpCredential)."""
    return call(auth_emulator, "signInWithIdp", {"requestUri": "http://localhost", "postBody": apple, "idToken": id_token,
                                                 "returnSecureToken": True, "returnIdpCredential": True})


def migrate_tasks(auth, app, db, anonymous_token, permanent_token):
    """The seed's Cloud Function, run here as the server would: verify both tokens (anonymous,
    then permanent and freshly signed in), then move the tasks in one transaction."""
    anonymous = auth.verify_id_token(anonymous_token, check_revoked=True, app=app)
    assert anonymous["firebase"]["sign_in_provider"] == "anonymous"
    permanent = auth.verify_id_token(permanent_token, check_revoked=True, app=app)
    assert permanent["firebase"]["sign_in_provider"] != "anonymous"
    assert time.time() - permanent["auth_time"] < 60

    @firestore.transactional
    def move(transaction):
        query = db.collection("tasks").where(filter=FieldFilter("userId", "==", anonymous["uid"]))
        tasks = list(query.stream(transaction=transaction))
        for task in tasks:
            transaction.update(task.reference, {"userId": permanent["uid"]})
        return len(tasks)

    return move(db.transaction())


def test_anonymous_tasks_move_to_the_apple_account(hearth, auth_emulator, admin):
    auth, app = admin
    project = AUTH_PROJECT
    put_rules(hearth, project)
    server_db = firestore.Client(project=project)  # Bearer owner: the admin side
    apple = apple_post_body("apple-" + uuid.uuid4().hex, email=f"{uuid.uuid4().hex[:8]}@privaterelay.appleid.com", name="Alice")

    # Device 1: anonymous, then linked to Apple: the permanent account.
    device1 = ok(auth_emulator, "signUp", {"returnSecureToken": True})
    status, linked = link_apple(auth_emulator, device1["idToken"], apple)
    assert status == 200 and "errorMessage" not in linked, linked
    permanent_uid = linked["localId"]
    assert permanent_uid == device1["localId"]
    firestore_as(project, linked["idToken"]).collection("tasks").document("t-phone").set({"userId": permanent_uid, "title": "Buy milk"})

    # Device 2: a new anonymous user adds tasks, which rules tie to its uid.
    device2 = ok(auth_emulator, "signUp", {"returnSecureToken": True})
    anonymous_uid = device2["localId"]
    anonymous_db = firestore_as(project, device2["idToken"])
    for i in range(3):
        anonymous_db.collection("tasks").document(f"t-ipad-{i}").set({"userId": anonymous_uid, "title": f"iPad task {i}"})
    with pytest.raises(exceptions.PermissionDenied):
        anonymous_db.collection("tasks").document("t-forged").set({"userId": permanent_uid, "title": "not mine"})

    # Linking the same Apple ID there fails: credential already in use, with the credential.
    status, refused = link_apple(auth_emulator, device2["idToken"], apple)
    assert status == 200
    assert refused["errorMessage"] == "FEDERATED_USER_ID_ALREADY_LINKED"  # the SDKs' credential-already-in-use
    assert "idToken" not in refused
    recovered = "id_token=" + urllib.parse.quote(refused["oauthIdToken"]) + "&providerId=" + refused["providerId"]
    status, plain = call(auth_emulator, "signInWithIdp", {"requestUri": "http://localhost", "postBody": apple, "idToken": device2["idToken"]})
    assert status == 400 and plain["error"]["message"] == "FEDERATED_USER_ID_ALREADY_LINKED"

    # ... so device 2 signs in to the permanent account with that credential.
    signed_in = ok(auth_emulator, "signInWithIdp", {"requestUri": "http://localhost", "postBody": recovered,
                                                    "returnSecureToken": True, "returnIdpCredential": True})
    assert signed_in["localId"] == permanent_uid
    permanent_token = signed_in["idToken"]
    token = claims(permanent_token)
    assert token["firebase"]["sign_in_provider"] == "apple.com"
    assert token["email_verified"] is True

    # The server moves the anonymous user's tasks, in one transaction.
    assert migrate_tasks(auth, app, server_db, device2["idToken"], permanent_token) == 3

    permanent_db = firestore_as(project, permanent_token)
    mine = permanent_db.collection("tasks").where(filter=FieldFilter("userId", "==", permanent_uid)).get()
    assert sorted(d.id for d in mine) == ["t-ipad-0", "t-ipad-1", "t-ipad-2", "t-phone"]
    assert permanent_db.collection("tasks").document("t-ipad-0").get().get("title") == "iPad task 0"
    assert anonymous_db.collection("tasks").where(filter=FieldFilter("userId", "==", anonymous_uid)).get() == []
    with pytest.raises(exceptions.PermissionDenied):
        anonymous_db.collection("tasks").document("t-ipad-0").get()

    # Rules see the token's claims: provider, identities, verified email.
    permanent_db.collection("profiles").document(permanent_uid).set({"email": token["email"]})
    with pytest.raises(exceptions.PermissionDenied):
        anonymous_db.collection("profiles").document(anonymous_uid).set({"email": token["email"]})
