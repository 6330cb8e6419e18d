// Test harness for the Cloud Storage JS SDK (10.12.2) in a real browser, driven by selenium from
// Tests/interop/test_storage_js_sdk.py. It exposes window.S:
//   S.st                  the SDK's storage module (ref, uploadBytes, uploadBytesResumable, ...)
//   S.client(uid)         a Storage instance of its own app, connected to the emulator, signed in
//                         as `uid` with a mock ID token (null: no user)
//   S.bytes(n, seed)      n deterministic bytes
//   S.error(e)            {code, status, message, serverResponse} of an SDK error
import { initializeApp } from "https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js";
import * as st from "/sdk/firebase-storage.js";

const params = new URLSearchParams(location.search);
const host = params.get("host") || "127.0.0.1";
const port = Number(params.get("port"));
const bucket = params.get("bucket");
let seq = 0;

function client(uid) {
  const app = initializeApp({ projectId: bucket.replace(/\.appspot\.com$/, ""), storageBucket: bucket, apiKey: "fake" }, `app-${++seq}`);
  const storage = st.getStorage(app);
  st.connectStorageEmulator(storage, host, port, uid ? { mockUserToken: { user_id: uid } } : {});
  return storage;
}

function bytes(n, seed = 1) {
  const out = new Uint8Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

function error(e) {
  return { code: e && e.code, status: e && e.status, message: String((e && e.message) || e),
           serverResponse: (e && e.serverResponse) || null };
}

window.S = { st, client, bytes, error };
document.getElementById("status").textContent = "ready";
