"""firebase-admin (Python) against Hearth's Auth emulator: user management, custom claims, token
verification (revoked and disabled users too), custom tokens, listing, imports, links."""
import base64
import hashlib
import hmac
import time
import uuid

import pytest

from authclient import apple_post_body, call, claims, ok, refresh
from conftest import AUTH_PROJECT


@pytest.fixture(scope="module")
def admin_auth(auth_emulator):
    import firebase_admin
    from firebase_admin import auth
    app = firebase_admin.initialize_app(options={"projectId": AUTH_PROJECT}, name="auth-admin-" + uuid.uuid4().hex)
    yield auth, app
    firebase_admin.delete_app(app)


def unique(prefix):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def test_create_get_update_delete(admin_auth):
    auth, app = admin_auth
    email = unique("ada") + "@Example.com"
    user = auth.create_user(email=email, password="secret12", display_name="Ada", phone_number="+15555550101",
                            photo_url="http://example.com/ada.png", email_verified=True, app=app)
    assert user.uid and len(user.uid) == 28
    assert user.email == email.lower()
    assert user.display_name == "Ada"
    assert user.email_verified is True
    assert {p.provider_id for p in user.provider_data} == {"password", "phone"}
    assert user.user_metadata.creation_timestamp > 0
    assert auth.get_user(user.uid, app=app).uid == user.uid
    assert auth.get_user_by_email(email, app=app).uid == user.uid
    assert auth.get_user_by_phone_number("+15555550101", app=app).uid == user.uid

    updated = auth.update_user(user.uid, display_name="Ada L.", phone_number=auth.DELETE_ATTRIBUTE, disabled=True, app=app)
    assert updated.display_name == "Ada L."
    assert updated.phone_number is None
    assert updated.disabled is True
    assert [p.provider_id for p in updated.provider_data] == ["password"]

    chosen = auth.create_user(uid=unique("chosen"), app=app)
    with pytest.raises(auth.UidAlreadyExistsError):
        auth.create_user(uid=chosen.uid, app=app)
    with pytest.raises(auth.EmailAlreadyExistsError):
        auth.create_user(email=email, app=app)

    auth.delete_user(user.uid, app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user(user.uid, app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.get_user_by_email(email, app=app)
    with pytest.raises(auth.UserNotFoundError):
        auth.delete_user(user.uid, app=app)


def test_custom_claims_appear_in_later_id_tokens(admin_auth, auth_emulator):
    auth, app = admin_auth
    email = unique("claims") + "@example.com"
    signed_up = ok(auth_emulator, "signUp", {"email": email, "password": "secret12", "returnSecureToken": True})
    uid = signed_up["localId"]
    auth.set_custom_user_claims(uid, {"admin": True, "tier": "gold"}, app=app)
    assert auth.get_user(uid, app=app).custom_claims == {"admin": True, "tier": "gold"}
    assert "admin" not in claims(signed_up["idToken"])
    status, refreshed = refresh(auth_emulator, signed_up["refreshToken"])
    assert status == 200, refreshed
    token = claims(refreshed["id_token"])
    assert token["admin"] is True and token["tier"] == "gold"
    verified = auth.verify_id_token(refreshed["id_token"], app=app)
    assert verified["uid"] == uid and verified["tier"] == "gold"
    with pytest.raises(ValueError):
        auth.set_custom_user_claims(uid, {"sub": "forged"}, app=app)
    auth.set_custom_user_claims(uid, None, app=app)
    assert auth.get_user(uid, app=app).custom_claims is None


def test_verify_id_token_claims_revocation_and_disabled_users(admin_auth, auth_emulator):
    auth, app = admin_auth
    email = unique("verify") + "@example.com"
    signed_up = ok(auth_emulator, "signUp", {"email": email, "password": "secret12", "returnSecureToken": True})
    uid, id_token = signed_up["localId"], signed_up["idToken"]
    verified = auth.verify_id_token(id_token, check_revoked=True, app=app)
    assert verified["uid"] == uid
    assert verified["iss"] == f"https://securetoken.google.com/{AUTH_PROJECT}"
    assert verified["aud"] == AUTH_PROJECT
    assert verified["email"] == email and verified["email_verified"] is False
    assert verified["firebase"] == {"identities": {"email": [email]}, "sign_in_provider": "password"}
    assert verified["exp"] - verified["iat"] == 3600

    # Revoked: tokens issued before the account's valid-since time.
    auth._get_client(app)._user_manager.update_user(uid, valid_since=verified["iat"] + 1)
    with pytest.raises(auth.RevokedIdTokenError):
        auth.verify_id_token(id_token, check_revoked=True, app=app)
    assert auth.verify_id_token(id_token, app=app)["uid"] == uid  # without the check, as in production
    status, reply = refresh(auth_emulator, signed_up["refreshToken"])
    assert status == 400 and reply["error"]["message"] == "TOKEN_EXPIRED"

    # revoke_refresh_tokens sets valid-since to now; a new sign-in afterwards is fine.
    auth.revoke_refresh_tokens(uid, app=app)
    assert auth.get_user(uid, app=app).tokens_valid_after_timestamp >= verified["iat"] * 1000
    deadline = time.time() + 3
    while True:  # the next second: a token issued in the revoking second counts as valid
        fresh = ok(auth_emulator, "signInWithPassword", {"email": email, "password": "secret12", "returnSecureToken": True})
        if claims(fresh["idToken"])["iat"] * 1000 >= auth.get_user(uid, app=app).tokens_valid_after_timestamp or time.time() > deadline:
            break
    assert auth.verify_id_token(fresh["idToken"], check_revoked=True, app=app)["uid"] == uid

    auth.update_user(uid, disabled=True, app=app)
    with pytest.raises(auth.UserDisabledError):
        auth.verify_id_token(fresh["idToken"], check_revoked=True, app=app)
    status, reply = call(auth_emulator, "signInWithPassword", {"email": email, "password": "secret12"})
    assert status == 400 and reply["error"]["message"] == "USER_DISABLED"

    with pytest.raises(auth.InvalidIdTokenError):
        auth.verify_id_token("not.a.token", app=app)
    foreign = base64.urlsafe_b64encode(b'{"alg":"none"}').decode().rstrip("=") + "." + \
        base64.urlsafe_b64encode(f'{{"aud":"other","iss":"https://securetoken.google.com/other","sub":"{uid}"}}'.encode()).decode().rstrip("=") + "."
    with pytest.raises(auth.InvalidIdTokenError):
        auth.verify_id_token(foreign, app=app)


def test_custom_token_signs_in_over_rest(admin_auth, auth_emulator):
    auth, app = admin_auth
    uid = unique("custom")
    token = auth.create_custom_token(uid, {"premium": True}, app=app).decode()
    reply = ok(auth_emulator, "signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert reply["isNewUser"] is True
    id_claims = claims(reply["idToken"])
    assert id_claims["sub"] == uid and id_claims["premium"] is True
    assert id_claims["firebase"]["sign_in_provider"] == "custom"
    verified = auth.verify_id_token(reply["idToken"], check_revoked=True, app=app)
    assert verified["uid"] == uid
    assert auth.get_user(uid, app=app).uid == uid
    again = ok(auth_emulator, "signInWithCustomToken", {"token": token, "returnSecureToken": True})
    assert again["isNewUser"] is False


def test_list_users_pages(admin_auth):
    auth, app = admin_auth
    prefix = unique("list")
    made = {auth.create_user(uid=f"{prefix}-{i:02d}", app=app).uid for i in range(25)}
    page = auth.list_users(max_results=10, app=app)
    assert len(page.users) == 10 and page.next_page_token
    seen = [u.uid for u in auth.list_users(max_results=7, app=app).iterate_all()]
    assert made <= set(seen)
    assert seen == sorted(seen)
    assert len(seen) == len(set(seen))
    result = auth.delete_users(sorted(made), app=app)
    assert result.success_count == 25 and result.failure_count == 0
    assert not made & {u.uid for u in auth.list_users(app=app).iterate_all()}


def test_import_users_and_sign_in_with_their_passwords(admin_auth, auth_emulator):
    auth, app = admin_auth
    prefix = unique("imp")
    salt = b"NaCl"
    hashed = hmac.new(b"secret", b"password" + salt, hashlib.sha256).digest()
    users = [
        auth.ImportUserRecord(uid=f"{prefix}-1", email=f"{prefix}-1@example.com", password_hash=hashed, password_salt=salt,
                              display_name="Imported", custom_claims={"role": "editor"}),
        auth.ImportUserRecord(uid=f"{prefix}-2", email=f"{prefix}-2@example.com", phone_number="+15555550177",
                              provider_data=[auth.UserProvider(uid=f"apple-{prefix}", provider_id="apple.com", email=f"{prefix}-2@example.com")]),
        # The Apple identity is already the second user's: this one is refused, the others imported.
        auth.ImportUserRecord(uid=f"{prefix}-3", provider_data=[auth.UserProvider(uid=f"apple-{prefix}", provider_id="apple.com")]),
    ]
    result = auth.import_users(users, hash_alg=auth.UserImportHash.hmac_sha256(key=b"secret"), app=app)
    assert result.success_count == 2 and result.failure_count == 1
    assert result.errors[0].index == 2
    assert "raw id exists in other account" in result.errors[0].reason

    imported = auth.get_user(f"{prefix}-1", app=app)
    assert imported.display_name == "Imported" and imported.custom_claims == {"role": "editor"}
    signed_in = ok(auth_emulator, "signInWithPassword", {"email": f"{prefix}-1@example.com", "password": "password", "returnSecureToken": True})
    assert signed_in["localId"] == f"{prefix}-1"
    assert claims(signed_in["idToken"])["role"] == "editor"
    status, reply = call(auth_emulator, "signInWithPassword", {"email": f"{prefix}-1@example.com", "password": "wrong-password"})
    assert status == 400 and reply["error"]["message"] == "INVALID_PASSWORD"

    federated = auth.get_user(f"{prefix}-2", app=app)
    assert {p.provider_id for p in federated.provider_data} == {"apple.com", "phone"}
    # The imported Apple identity signs in to that account.
    signed_in = ok(auth_emulator, "signInWithIdp", {"requestUri": "http://localhost", "postBody": apple_post_body(f"apple-{prefix}"),
                                                    "returnSecureToken": True})
    assert signed_in["localId"] == f"{prefix}-2"

    exported = [u for u in auth.list_users(app=app).iterate_all() if u.uid == f"{prefix}-1"][0]
    assert exported.password_hash and exported.password_salt


def test_get_users_by_identifiers_and_email_links(admin_auth):
    auth, app = admin_auth
    email = unique("ids") + "@example.com"
    user = auth.create_user(email=email, app=app)
    result = auth.get_users([auth.UidIdentifier(user.uid), auth.EmailIdentifier(email),
                             auth.UidIdentifier("nobody-" + uuid.uuid4().hex)], app=app)
    assert [u.uid for u in result.users] == [user.uid]
    assert len(result.not_found) == 1
    link = auth.generate_email_verification_link(email, app=app)
    assert "/emulator/action?mode=verifyEmail" in link and "oobCode=" in link
    reset = auth.generate_password_reset_link(email, app=app)
    assert "mode=resetPassword" in reset


def test_session_cookies(admin_auth, auth_emulator):
    auth, app = admin_auth
    signed_up = ok(auth_emulator, "signUp", {"email": unique("cookie") + "@example.com", "password": "secret12", "returnSecureToken": True})
    import datetime
    cookie = auth.create_session_cookie(signed_up["idToken"], expires_in=datetime.timedelta(hours=1), app=app)
    verified = auth.verify_session_cookie(cookie, check_revoked=True, app=app)
    assert verified["uid"] == signed_up["localId"]
    assert verified["iss"] == f"https://session.firebase.google.com/{AUTH_PROJECT}"
