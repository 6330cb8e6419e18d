"""The Firebase JS SDK (10.12.2, browser build, `connectAuthEmulator`) in headless Chromium
against Hearth's Auth emulator: anonymous sign-in, email and password sign-up and sign-in,
linking an email credential, an Apple OAuth credential, `auth/credential-already-in-use` with the
credential recovered from the error, `onAuthStateChanged`, `getIdToken(true)`, sign-out; then
phone sign-in with the SDK's reCAPTCHA stand-in; then Firestore rules in the same page (over the
SDK's WebChannel transport) see `request.auth.uid`.

One Chromium serves the module; each test makes its own app instances (Tests/interop/browser/
auth.html). Needs the SDK ($FIREBASE_JS_SDK or ../shared/clients/firebase-js-10.12.2), Debian's
chromium and chromium-driver, and selenium; skipped where one is missing, unless
HEARTH_REQUIRE_BROWSER=1.
"""
import json
import os
import sys
import urllib.request
import uuid

import pytest

from authclient import post
from conftest import AUTH_PROJECT

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "browser"))
import jsharness  # noqa: E402

@pytest.fixture(scope="module")
def browser(hearth, auth_emulator):
    jsharness.require_browser(pytest, need_sdk=True)
    pages = jsharness.PageServer(jsharness.find_sdk())
    b = jsharness.Browser(pages.base + "/harness/auth.html")
    yield b
    b.quit()
    pages.close()


def new_auth(browser, auth_emulator):
    name = "app-" + uuid.uuid4().hex[:12]
    browser.run("H.newAuth(args.name, args.project, args.url);", name=name, project=AUTH_PROJECT, url=auth_emulator)
    return name


def apple_id_token(sub, email):
    return json.dumps({"sub": sub, "email": email, "email_verified": "true", "name": "Apple User"})


def test_anonymous_sign_in(browser, auth_emulator):
    a = new_auth(browser, auth_emulator)
    user = browser.run("""
        const au = H.clients[args.a].auth;
        const cred = await H.auth.signInAnonymously(au);
        const result = await cred.user.getIdTokenResult();
        return {uid: cred.user.uid, anonymous: cred.user.isAnonymous, provider: result.signInProvider,
                claims: result.claims, current: au.currentUser.uid};""", a=a)
    assert user["anonymous"] is True and user["uid"] == user["current"]
    assert user["provider"] == "anonymous"
    assert user["claims"]["aud"] == AUTH_PROJECT and user["claims"]["user_id"] == user["uid"]


def test_email_password_sign_up_sign_in_and_errors(browser, auth_emulator):
    a = new_auth(browser, auth_emulator)
    email = f"js-{uuid.uuid4().hex[:8]}@example.com"
    result = browser.run("""
        const au = H.clients[args.a].auth, A = H.auth;
        const codeOf = async (p) => { try { await p; return "ok"; } catch (e) { return e.code; } };
        const created = await A.createUserWithEmailAndPassword(au, args.email, "secret12");
        const uid = created.user.uid;
        await A.signOut(au);
        const signedIn = await A.signInWithEmailAndPassword(au, args.email.toUpperCase(), "secret12");
        return {
          same: signedIn.user.uid === uid,
          email: signedIn.user.email,
          providers: signedIn.user.providerData.map((p) => p.providerId),
          wrongPassword: await codeOf(A.signInWithEmailAndPassword(au, args.email, "wrong-password")),
          unknown: await codeOf(A.signInWithEmailAndPassword(au, "nobody-" + args.email, "secret12")),
          exists: await codeOf(A.createUserWithEmailAndPassword(au, args.email, "secret12")),
          weak: await codeOf(A.createUserWithEmailAndPassword(au, "weak-" + args.email, "123")),
          badEmail: await codeOf(A.createUserWithEmailAndPassword(au, "not-an-email", "secret12")),
          methods: await A.fetchSignInMethodsForEmail(au, args.email),
        };""", a=a, email=email)
    assert result["same"] and result["email"] == email and result["providers"] == ["password"]
    assert result["wrongPassword"] == "auth/wrong-password"
    assert result["unknown"] == "auth/user-not-found"
    assert result["exists"] == "auth/email-already-in-use"
    assert result["weak"] == "auth/weak-password"
    assert result["badEmail"] == "auth/invalid-email"
    assert result["methods"] == ["password"]


def test_link_email_credential_to_anonymous_user(browser, auth_emulator):
    a = new_auth(browser, auth_emulator)
    email = f"link-{uuid.uuid4().hex[:8]}@example.com"
    result = browser.run("""
        const au = H.clients[args.a].auth, A = H.auth;
        const anon = await A.signInAnonymously(au);
        const linked = await A.linkWithCredential(anon.user, A.EmailAuthProvider.credential(args.email, "secret12"));
        const token = await linked.user.getIdTokenResult();
        await A.signOut(au);
        const again = await A.signInWithEmailAndPassword(au, args.email, "secret12");
        return {anonUid: anon.user.uid, linkedUid: linked.user.uid, anonymous: linked.user.isAnonymous,
                providers: linked.user.providerData.map((p) => p.providerId), provider: token.signInProvider,
                againUid: again.user.uid, operation: linked.operationType};""", a=a, email=email)
    assert result["linkedUid"] == result["anonUid"] == result["againUid"]
    assert result["anonymous"] is False
    assert result["providers"] == ["password"] and result["provider"] == "password"
    assert result["operation"] == "link"


def test_apple_credential_and_credential_already_in_use(browser, auth_emulator):
    """The seed flow in the browser: two devices, one Apple ID.

    `linkWithCredential` does not ask for the IdP credential back (no `returnIdpCredential`), so,
    as in production, its `auth/credential-already-in-use` error carries none and the app signs in
    with the credential it has. Popup and redirect flows, and the iOS and Android SDKs, do ask;
    then the error carries the credential and `OAuthProvider.credentialFromError` recovers it: the
    second half sends the request as they do (the page's fetch adds the flag), so the SDK's own
    error handling and recovery run on Hearth's answer."""
    phone, ipad, tablet = (new_auth(browser, auth_emulator) for _ in range(3))
    sub = "apple-" + uuid.uuid4().hex[:10]
    result = browser.run("""
        const A = H.auth;
        const apple = () => new A.OAuthProvider("apple.com").credential({idToken: args.idToken, rawNonce: "nonce-1"});
        const phone = H.clients[args.phone].auth, ipad = H.clients[args.ipad].auth, tablet = H.clients[args.tablet].auth;
        const first = await A.signInAnonymously(phone);
        const linked = await A.linkWithCredential(first.user, apple());

        const second = await A.signInAnonymously(ipad);
        let plain = null;
        try { await A.linkWithCredential(second.user, apple()); } catch (e) { plain = e; }
        const fromPlain = A.OAuthProvider.credentialFromError(plain);
        const retried = await A.signInWithCredential(ipad, apple());

        const third = await A.signInAnonymously(tablet);
        const realFetch = window.fetch;
        window.fetch = (url, init) => {
          if (String(url).includes("accounts:signInWithIdp") && init && init.body) {
            init = {...init, body: JSON.stringify({...JSON.parse(init.body), returnIdpCredential: true})};
          }
          return realFetch(url, init);
        };
        let tagged = null;
        try { await A.linkWithCredential(third.user, apple()); } catch (e) { tagged = e; } finally { window.fetch = realFetch; }
        const recovered = A.OAuthProvider.credentialFromError(tagged);
        const signedIn = await A.signInWithCredential(tablet, recovered);
        const token = await signedIn.user.getIdTokenResult();
        return {permanent: linked.user.uid, sameAsAnonymous: linked.user.uid === first.user.uid,
                linkedProviders: linked.user.providerData.map((p) => p.providerId), email: linked.user.email,
                plainCode: plain && plain.code, fromPlain: fromPlain, retriedUid: retried.user.uid,
                taggedCode: tagged && tagged.code, recoveredProvider: recovered && recovered.providerId,
                signedInUid: signedIn.user.uid, tabletAnonymousUid: third.user.uid,
                provider: token.signInProvider, identities: token.claims.firebase.identities,
                additional: A.getAdditionalUserInfo(signedIn)};
        """, phone=phone, ipad=ipad, tablet=tablet, idToken=apple_id_token(sub, f"{sub}@privaterelay.appleid.com"))
    assert result["sameAsAnonymous"] is True
    assert result["linkedProviders"] == ["apple.com"]
    assert result["email"] == f"{sub}@privaterelay.appleid.com"
    assert result["plainCode"] == "auth/credential-already-in-use"
    assert result["fromPlain"] is None
    assert result["retriedUid"] == result["permanent"]
    assert result["taggedCode"] == "auth/credential-already-in-use"
    assert result["recoveredProvider"] == "apple.com"
    assert result["signedInUid"] == result["permanent"] != result["tabletAnonymousUid"]
    assert result["provider"] == "apple.com"
    assert result["identities"]["apple.com"] == [sub]
    assert result["additional"]["isNewUser"] is False and result["additional"]["providerId"] == "apple.com"


def test_auth_state_refresh_and_sign_out(browser, auth_emulator):
    a = new_auth(browser, auth_emulator)
    first = browser.run("""
        const au = H.clients[args.a].auth, A = H.auth;
        A.onAuthStateChanged(au, (u) => H.record(args.a, u ? u.uid : null));
        const cred = await A.signInAnonymously(au);
        const before = await cred.user.getIdTokenResult();
        return {uid: cred.user.uid, iat: before.claims.iat};""", a=a)
    # An admin sets custom claims; getIdToken(true) refreshes through the Secure Token API.
    status, reply = post(f"{auth_emulator}/identitytoolkit.googleapis.com/v1/projects/{AUTH_PROJECT}/accounts:update",
                         {"localId": first["uid"], "customAttributes": json.dumps({"role": "reviewer"})},
                         headers={"Authorization": "Bearer owner"})
    assert status == 200, reply
    after = browser.run("""
        const au = H.clients[args.a].auth, A = H.auth;
        const token = await au.currentUser.getIdToken(true);
        const claims = H.claims(token);
        await A.signOut(au);
        await new Promise((resolve) => setTimeout(resolve, 0));
        return {role: claims.role, iat: claims.iat, current: au.currentUser, events: H.events(args.a)};""", a=a)
    assert after["role"] == "reviewer"
    assert after["iat"] >= first["iat"]
    assert after["current"] is None
    browser.wait(lambda: browser.eval(f"H.events('{a}').length") >= 3, "the signed-out state")
    assert browser.eval(f"H.events('{a}')") == [None, first["uid"], None]


def test_phone_sign_in_and_a_number_already_in_use(browser, auth_emulator):
    """signInWithPhoneNumber with the SDK's reCAPTCHA stand-in (the emulator turns app
    verification off), the code read from the emulator's list; then linking that number to
    another user fails with a credential that signs in to the number's account."""
    phone, other = new_auth(browser, auth_emulator), new_auth(browser, auth_emulator)
    number = "+1555" + str(uuid.uuid4().int % 10**7).zfill(7)
    result = browser.run("""
        const A = H.auth, url = args.url + "/emulator/v1/projects/" + args.project + "/verificationCodes";
        const latestCode = async () => { const r = await fetch(url); const codes = (await r.json()).verificationCodes; return codes[codes.length - 1].code; };
        const box = () => { const d = document.createElement("div"); document.body.appendChild(d); return d; };
        const au = H.clients[args.phone].auth;
        const confirmation = await A.signInWithPhoneNumber(au, args.number, new A.RecaptchaVerifier(au, box(), {size: "invisible"}));
        const cred = await confirmation.confirm(await latestCode());
        const token = await cred.user.getIdTokenResult();
        const ou = H.clients[args.other].auth;
        const anon = await A.signInAnonymously(ou);
        const linking = await A.linkWithPhoneNumber(anon.user, args.number, new A.RecaptchaVerifier(ou, box(), {size: "invisible"}));
        let error = null;
        try { await linking.confirm(await latestCode()); } catch (e) { error = e; }
        const recovered = A.PhoneAuthProvider.credentialFromError(error);
        const again = await A.signInWithCredential(ou, recovered);
        return {uid: cred.user.uid, phone: cred.user.phoneNumber, provider: token.signInProvider,
                code: error && error.code, againUid: again.user.uid};""",
        phone=phone, other=other, number=number, url=auth_emulator, project=AUTH_PROJECT)
    assert result["phone"] == number and result["provider"] == "phone"
    assert result["code"] == "auth/account-exists-with-different-credential"
    assert result["againUid"] == result["uid"]


RULES = """rules_version = '2';
service cloud.firestore {
  match /databases/{database}/documents {
    match /notes/{uid} {
      allow read, write: if request.auth != null && request.auth.uid == uid
        && request.auth.token.firebase.sign_in_provider == 'anonymous';
    }
  }
}"""


def test_firestore_rules_see_request_auth_uid(browser, hearth, auth_emulator):
    body = json.dumps({"rules": {"files": [{"name": "firestore.rules", "content": RULES}]}}).encode()
    urllib.request.urlopen(urllib.request.Request(f"{hearth}/emulator/v1/projects/{AUTH_PROJECT}:securityRules",
                                                  data=body, method="PUT", headers={"Content-Type": "application/json"}))
    a = new_auth(browser, auth_emulator)
    host, port = hearth.removeprefix("http://").split(":")
    result = browser.run("""
        const c = H.clients[args.a], A = H.auth, F = H.fs;
        const db = F.initializeFirestore(c.app, {experimentalForceLongPolling: true});
        F.connectFirestoreEmulator(db, args.host, Number(args.port));
        const cred = await A.signInAnonymously(c.auth);
        const uid = cred.user.uid;
        await F.setDoc(F.doc(db, "notes", uid), {text: "mine"});
        const read = await F.getDoc(F.doc(db, "notes", uid));
        let denied = null;
        try { await F.setDoc(F.doc(db, "notes", "someone-else"), {text: "not mine"}); } catch (e) { denied = e.code; }
        await F.terminate(db);
        return {text: read.data().text, denied};""", a=a, host=host, port=port)
    assert result == {"text": "mine", "denied": "permission-denied"}
