// The Realtime Database JS SDK (10.12.2, modular) in a page, driven from Python
// (Tests/interop/test_database_js_sdk.py): window.D holds the SDK's functions, the apps made by
// the tests, and the events their listeners recorded.
import { initializeApp, deleteApp } from "/sdk/firebase-app.js";
import * as rtdb from "/sdk/firebase-database.js";

const apps = {};
const events = {};
let nextApp = 0;

window.D = {
  db: rtdb,
  apps,
  // A new app (its own Repo, so its own WebSocket) on namespace `ns`, connected to Hearth.
  open(ns, port, options = {}) {
    const name = "app" + (nextApp++);
    const app = initializeApp({ projectId: "demo-" + ns, databaseURL: `https://${ns}.firebaseio.com` }, name);
    const db = rtdb.getDatabase(app);
    rtdb.connectDatabaseEmulator(db, "127.0.0.1", port, options);
    apps[name] = { app, db };
    return name;
  },
  async close(name) {
    await deleteApp(apps[name].app);
    delete apps[name];
  },
  ref(name, path) { return rtdb.ref(apps[name].db, path); },
  // Records what a listener hears under `id`: [kind, key, value, previousKey].
  record(id) {
    events[id] = events[id] || [];
    return (kind) => (snap, prev) => events[id].push([kind, snap.key, snap.val(), prev === undefined ? null : prev]);
  },
  recordError(id) {
    events[id] = events[id] || [];
    return (error) => events[id].push(["cancel", error.code || null, String(error.message), null]);
  },
  events(id) { return events[id] || []; },
  // The SDK's own node hash of a snapshot.
  hash(snap) { return snap._node.hash(); },
};
document.getElementById("status").textContent = "ready";
