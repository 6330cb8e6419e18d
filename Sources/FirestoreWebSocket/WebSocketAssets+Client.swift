/// The browser assets Hearth serves: the listen client at `/hearth.js` and the live demo at `/demo`.
package enum WebSocketAssets {
    /// A small client: realtime listeners over `/ws` and writes over REST, with plain
    /// JavaScript values converted to and from Firestore's typed JSON.
    package static let clientJavaScript = #"""
// hearth.js: listen to Hearth over WebSocket and write over REST.
// const db = new Hearth({ project: "demo" });
// const stop = db.onSnapshot({ query: { from: [{ collectionId: "tasks" }] } }, (snap) => { ... });
(function (global) {
  "use strict";

  function encodeValue(v) {
    if (v === null || v === undefined) return { nullValue: null };
    if (v && v.__serverTimestamp) return null;
    if (typeof v === "boolean") return { booleanValue: v };
    if (typeof v === "number") return Number.isInteger(v) ? { integerValue: String(v) } : { doubleValue: v };
    if (typeof v === "string") return { stringValue: v };
    if (v instanceof Date) return { timestampValue: v.toISOString() };
    if (Array.isArray(v)) return { arrayValue: { values: v.map(encodeValue) } };
    if (typeof v === "object") return { mapValue: { fields: encodeFields(v) } };
    throw new Error("hearth.js cannot encode " + typeof v);
  }
  function encodeFields(obj) {
    const out = {};
    for (const [k, v] of Object.entries(obj)) { const e = encodeValue(v); if (e) out[k] = e; }
    return out;
  }
  function decodeValue(v) {
    if ("nullValue" in v) return null;
    if ("booleanValue" in v) return v.booleanValue;
    if ("integerValue" in v) return Number(v.integerValue);
    if ("doubleValue" in v) return Number(v.doubleValue);
    if ("timestampValue" in v) return new Date(v.timestampValue);
    if ("stringValue" in v) return v.stringValue;
    if ("bytesValue" in v) return v.bytesValue;
    if ("referenceValue" in v) return v.referenceValue;
    if ("geoPointValue" in v) return { latitude: v.geoPointValue.latitude || 0, longitude: v.geoPointValue.longitude || 0 };
    if ("arrayValue" in v) return (v.arrayValue.values || []).map(decodeValue);
    if ("mapValue" in v) return decodeFields(v.mapValue.fields || {});
    return undefined;
  }
  function decodeFields(fields) {
    const out = {};
    for (const [k, v] of Object.entries(fields || {})) out[k] = decodeValue(v);
    return out;
  }
  function toDoc(d) {
    const parts = d.name.split("/documents/");
    const path = parts[1];
    return { id: path.split("/").pop(), path: path, data: decodeFields(d.fields), updateTime: d.updateTime, createTime: d.createTime };
  }
  function serverTimestampPaths(obj, prefix) {
    const paths = [];
    for (const [k, v] of Object.entries(obj)) {
      const p = prefix ? prefix + "." + k : k;
      if (v && v.__serverTimestamp) paths.push(p);
      else if (v && typeof v === "object" && !Array.isArray(v) && !(v instanceof Date)) paths.push(...serverTimestampPaths(v, p));
    }
    return paths;
  }

  class Hearth {
    constructor(options) {
      options = options || {};
      this.project = options.project || "demo";
      this.database = options.database || "(default)";
      this.token = options.token || null;
      const loc = global.location || { protocol: "http:", host: "127.0.0.1:8080" };
      this.base = options.base || (loc.protocol + "//" + loc.host);
      this.targets = new Map();
      this.nextId = 1;
      this.pending = [];
      this.connect();
    }
    static serverTimestamp() { return { __serverTimestamp: true }; }
    get documentsUrl() { return this.base + "/v1/projects/" + this.project + "/databases/" + this.database + "/documents"; }
    connect() {
      const url = this.base.replace(/^http/, "ws") + "/ws";
      this.socket = new WebSocket(url);
      this.socket.onopen = () => {
        for (const t of this.targets.values()) this.send(this.listenMessage(t));
        for (const m of this.pending) this.socket.send(m);
        this.pending = [];
      };
      this.socket.onmessage = (e) => this.receive(JSON.parse(e.data));
      this.socket.onclose = () => { if (!this.closed) setTimeout(() => this.connect(), 500); };
    }
    send(message) {
      const text = JSON.stringify(message);
      if (this.socket.readyState === 1) this.socket.send(text); else this.pending.push(text);
    }
    listenMessage(t) {
      const m = Object.assign({ type: "listen", targetId: t.id, project: this.project, database: this.database }, t.spec);
      if (this.token) m.token = this.token;
      if (t.resumeToken) m.resumeToken = t.resumeToken;
      return m;
    }
    // spec: { document: "tasks/t1" } or { query: <structuredQuery>, parent: "users/alice" }
    onSnapshot(spec, onNext, onError) {
      const t = { id: this.nextId++, spec: spec, docs: [], onNext: onNext, onError: onError, resumeToken: null };
      this.targets.set(t.id, t);
      this.send(this.listenMessage(t));
      return () => { this.targets.delete(t.id); this.send({ type: "unlisten", targetId: t.id }); };
    }
    receive(m) {
      const t = this.targets.get(m.targetId);
      if (m.type === "snapshot" && t) {
        if (m.documents) t.docs = m.documents.map(toDoc);
        else for (const c of m.docChanges) {
          if (c.oldIndex >= 0) t.docs.splice(c.oldIndex, 1);
          if (c.newIndex >= 0) t.docs.splice(c.newIndex, 0, toDoc(c.document));
        }
        t.resumeToken = m.resumeToken;
        const changes = m.docChanges.map((c) => ({ type: c.type, doc: toDoc(c.document), oldIndex: c.oldIndex, newIndex: c.newIndex }));
        t.onNext({ docs: t.docs.slice(), docChanges: changes, readTime: m.readTime, initial: m.initial });
      } else if (m.type === "error") {
        if (t) { this.targets.delete(t.id); if (t.onError) t.onError(m); }
        else if (global.console) console.warn("hearth:", m.message);
      }
    }
    async request(method, url, body) {
      const headers = { "Content-Type": "application/json" };
      if (this.token) headers["Authorization"] = "Bearer " + this.token;
      const r = await fetch(url, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined });
      const json = await r.json();
      if (!r.ok) throw Object.assign(new Error(json.error ? json.error.message : r.statusText), json.error || {});
      return json;
    }
    // Writes: plain objects; Hearth.serverTimestamp() becomes a REQUEST_TIME transform.
    async set(path, data) {
      const name = "projects/" + this.project + "/databases/" + this.database + "/documents/" + path;
      const transforms = serverTimestampPaths(data).map((p) => ({ fieldPath: p, setToServerValue: "REQUEST_TIME" }));
      const write = { update: { name: name, fields: encodeFields(data) } };
      if (transforms.length) write.updateTransforms = transforms;
      return this.request("POST", this.documentsUrl + ":commit", { writes: [write] });
    }
    async add(collection, data) {
      const id = Array.from(crypto.getRandomValues(new Uint8Array(10)), (b) => "abcdefghijklmnopqrstuvwxyz0123456789"[b % 36]).join("");
      await this.set(collection + "/" + id, data);
      return id;
    }
    async update(path, data) {
      const name = "projects/" + this.project + "/databases/" + this.database + "/documents/" + path;
      const mask = Object.keys(data).filter((k) => !(data[k] && data[k].__serverTimestamp));
      return this.request("POST", this.documentsUrl + ":commit", {
        writes: [{ update: { name: name, fields: encodeFields(data) }, updateMask: { fieldPaths: mask }, currentDocument: { exists: true } }],
      });
    }
    async delete(path) {
      const name = "projects/" + this.project + "/databases/" + this.database + "/documents/" + path;
      return this.request("POST", this.documentsUrl + ":commit", { writes: [{ delete: name }] });
    }
    close() { this.closed = true; this.socket.close(); }
  }
  global.Hearth = Hearth;
})(typeof window !== "undefined" ? window : globalThis);
"""#
}
