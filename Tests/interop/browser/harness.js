// Test harness for the Firestore JS SDK (10.12.2) in a real browser, driven by selenium from
// Tests/interop/test_firestore_js_sdk.py. It exposes window.H:
//   H.open(name, opts)   a fresh app + Firestore instance ("client") pointed at the emulator
//   H.closeAll()         terminate every client (their WebChannel sessions end)
//   H.listen(ref, opts)  an onSnapshot listener whose snapshots are recorded in H.listeners[id]
//   H.enc(value)         any SDK value or snapshot as JSON, with tags for what JSON cannot say
//   H.dec(json, db)      the reverse, for values sent from Python (tags below)
// Tags: {"$nan":1} {"$inf":1|-1} {"$negzero":1} {"$bytes":"<base64>"} {"$ts":[seconds,nanos]}
//       {"$geo":[lat,lng]} {"$ref":"coll/doc"}; only in H.dec: {"$serverTimestamp":1}
//       {"$increment":n} {"$arrayUnion":[...]} {"$arrayRemove":[...]} {"$delete":1}
import * as app from "https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js";
import * as fs from "/sdk/firebase-firestore.js";

const compat = window.firebase;  // the namespaced API (firebase-app-compat + firestore-compat)
let seq = 0;

function isPlainObject(v) {
  return v !== null && typeof v === "object" && Object.getPrototypeOf(v) === Object.prototype;
}

function encNumber(v) {
  if (Number.isNaN(v)) return { $nan: 1 };
  if (v === Infinity) return { $inf: 1 };
  if (v === -Infinity) return { $inf: -1 };
  if (Object.is(v, -0)) return { $negzero: 1 };
  return v;
}

function meta(m) {
  return { hasPendingWrites: m.hasPendingWrites, fromCache: m.fromCache };
}

// A snapshot's changes, with metadata-only changes when its listener asked for them (the SDK
// throws when they are asked for on a listener that did not).
function docChanges(snapshot) {
  try {
    return snapshot.docChanges({ includeMetadataChanges: true });
  } catch (e) {
    return snapshot.docChanges();
  }
}

function enc(v) {
  if (v === null || v === undefined) return null;
  if (typeof v === "number") return encNumber(v);
  if (typeof v === "string" || typeof v === "boolean") return v;
  if (Array.isArray(v)) return v.map(enc);
  // modular classes
  if (v instanceof fs.Timestamp) return { $ts: [v.seconds, v.nanoseconds] };
  if (v instanceof fs.GeoPoint) return { $geo: [encNumber(v.latitude), encNumber(v.longitude)] };
  if (v instanceof fs.Bytes) return { $bytes: v.toBase64() };
  if (v instanceof fs.DocumentReference) return { $ref: v.path };
  if (v instanceof fs.DocumentSnapshot) {
    return { id: v.id, path: v.ref.path, exists: v.exists(), data: v.exists() ? enc(v.data()) : null,
             meta: meta(v.metadata) };
  }
  if (v instanceof fs.QuerySnapshot) {
    return {
      docs: v.docs.map((d) => [d.id, enc(d.data())]),
      paths: v.docs.map((d) => d.ref.path),
      changes: docChanges(v).map((c) => (
        { type: c.type, id: c.doc.id, oldIndex: c.oldIndex, newIndex: c.newIndex })),
      size: v.size, empty: v.empty, meta: meta(v.metadata),
    };
  }
  if (v instanceof fs.AggregateQuerySnapshot) return enc(v.data());
  // compat classes
  if (compat) {
    const c = compat.firestore;
    if (v instanceof c.Timestamp) return { $ts: [v.seconds, v.nanoseconds] };
    if (v instanceof c.GeoPoint) return { $geo: [encNumber(v.latitude), encNumber(v.longitude)] };
    if (v instanceof c.Blob) return { $bytes: v.toBase64() };
    if (v instanceof c.DocumentReference) return { $ref: v.path };
    if (v instanceof c.DocumentSnapshot) {
      return { id: v.id, path: v.ref.path, exists: v.exists, data: v.exists ? enc(v.data()) : null,
               meta: meta(v.metadata) };
    }
    if (v instanceof c.QuerySnapshot) {
      return {
        docs: v.docs.map((d) => [d.id, enc(d.data())]),
        paths: v.docs.map((d) => d.ref.path),
        changes: docChanges(v).map((ch) => (
          { type: ch.type, id: ch.doc.id, oldIndex: ch.oldIndex, newIndex: ch.newIndex })),
        size: v.size, empty: v.empty, meta: meta(v.metadata),
      };
    }
  }
  if (v instanceof Error) return { $error: { code: v.code || null, name: v.name, message: v.message } };
  if (typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v)) out[k] = enc(v[k]);
    return out;
  }
  return String(v);
}

// JSON (with tags) -> SDK values; `api` is the modular namespace or compat's firebase.firestore.
function dec(v, db, isCompat = false) {
  const F = isCompat ? compat.firestore : fs;
  const d = (x) => dec(x, db, isCompat);
  if (v === null || typeof v !== "object") return v;
  if (Array.isArray(v)) return v.map(d);
  if (isPlainObject(v)) {
    const keys = Object.keys(v);
    if (keys.length === 1 && keys[0].startsWith("$")) {
      const x = v[keys[0]];
      switch (keys[0]) {
        case "$nan": return NaN;
        case "$inf": return x > 0 ? Infinity : -Infinity;
        case "$negzero": return -0;
        case "$bytes": return isCompat ? F.Blob.fromBase64String(x) : F.Bytes.fromBase64String(x);
        case "$ts": return new F.Timestamp(x[0], x[1]);
        case "$geo": return new F.GeoPoint(d(x[0]), d(x[1]));
        case "$ref": return isCompat ? db.doc(x) : fs.doc(db, x);
        case "$serverTimestamp": return isCompat ? F.FieldValue.serverTimestamp() : fs.serverTimestamp();
        case "$increment": return isCompat ? F.FieldValue.increment(x) : fs.increment(x);
        case "$arrayUnion": return isCompat ? F.FieldValue.arrayUnion(...d(x)) : fs.arrayUnion(...d(x));
        case "$arrayRemove": return isCompat ? F.FieldValue.arrayRemove(...d(x)) : fs.arrayRemove(...d(x));
        case "$delete": return isCompat ? F.FieldValue.delete() : fs.deleteField();
        default: break;
      }
    }
    const out = {};
    for (const k of keys) out[k] = d(v[k]);
    return out;
  }
  return v;
}

const H = {
  fs, app, compat, enc, dec,
  target: null,        // {host, port}, set by the test before opening clients
  clients: {},         // name -> {app, db, compat: bool}
  listeners: {},       // id -> {events: [...], unsubscribe}

  // A fresh client: its own app (unique name), Firestore instance and so its own WebChannel
  // streams. opts: {project, longPolling, user (mockUserToken claims or null), compat,
  // settings (extra Firestore settings, modular only)}.
  open(name, opts) {
    const config = { projectId: opts.project, apiKey: "fake-api-key", appId: "1:1234567890:web:abcdef" };
    const appName = `${name}-${++seq}-${Date.now()}`;
    const emu = opts.user ? { mockUserToken: opts.user } : {};
    let client;
    if (opts.compat) {
      const a = compat.initializeApp(config, appName);
      const db = a.firestore();
      db.settings(opts.longPolling ? { experimentalForceLongPolling: true } : {});
      db.useEmulator(H.target.host, H.target.port, emu);
      client = { app: a, db, compat: true };
    } else {
      const a = app.initializeApp(config, appName);
      const settings = Object.assign(opts.longPolling ? { experimentalForceLongPolling: true } : {}, opts.settings || {});
      const db = fs.initializeFirestore(a, settings);
      fs.connectFirestoreEmulator(db, H.target.host, H.target.port, emu);
      client = { app: a, db, compat: false };
    }
    H.clients[name] = client;
    return appName;
  },

  async close(name) {
    const c = H.clients[name];
    if (!c) return;
    delete H.clients[name];
    for (const [id, l] of Object.entries(H.listeners)) {
      if (l.client === name) { try { l.unsubscribe(); } catch (e) { /* already gone */ } delete H.listeners[id]; }
    }
    if (c.compat) { await c.db.terminate(); await c.app.delete(); }
    else { await fs.terminate(c.db); await app.deleteApp(c.app); }
  },

  async closeAll() {
    for (const name of Object.keys(H.clients)) await H.close(name);
    for (const l of Object.values(H.listeners)) { try { l.unsubscribe(); } catch (e) { /* ignore */ } }
    H.listeners = {};
  },

  // Records every snapshot (encoded) and error of a listener; returns its id.
  listen(ref, options = {}, client = "a") {
    const id = `l${++seq}`;
    const entry = { client, events: [] };
    const next = (snap) => {
      try { entry.events.push(enc(snap)); } catch (e) { entry.events.push({ $error: { code: "harness", message: String(e) } }); }
    };
    const error = (e) => entry.events.push({ $error: { code: e.code || null, message: e.message } });
    const opts = { includeMetadataChanges: !!options.includeMetadataChanges };
    if (H.clients[client] && H.clients[client].compat) entry.unsubscribe = ref.onSnapshot(opts, next, error);
    else entry.unsubscribe = fs.onSnapshot(ref, opts, next, error);
    H.listeners[id] = entry;
    return id;
  },

  unlisten(id) {
    const l = H.listeners[id];
    if (l) { l.unsubscribe(); delete H.listeners[id]; }
  },

  events(id) { return H.listeners[id] ? H.listeners[id].events : null; },

  // Writes {path: taggedData} in one batch through client `name` (modular or compat).
  async seed(name, docs) {
    const c = H.clients[name];
    if (c.compat) {
      const batch = c.db.batch();
      for (const [path, data] of Object.entries(docs)) batch.set(c.db.doc(path), dec(data, c.db, true));
      await batch.commit();
    } else {
      const batch = fs.writeBatch(c.db);
      for (const [path, data] of Object.entries(docs)) batch.set(fs.doc(c.db, path), dec(data, c.db));
      await batch.commit();
    }
  },
};

window.H = H;
document.getElementById("status").textContent = "ready";
