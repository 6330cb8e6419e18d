extension WebSocketAssets {
    /// A shared task list: open it in two tabs and edits in one appear in the other at once; on
    /// Hearth's own `hearth.js` (WebSocket) by default, on the Firebase JS SDK with `?sdk=firebase`.
    package static let demoHTML = #"""
<!doctype html>
<html lang="en">
<meta charset="utf-8">
<title>Hearth live demo: shared tasks</title>
<link rel="icon" href="data:,">
<style>
  body { font: 16px system-ui, sans-serif; max-width: 34rem; margin: 2rem auto; color: #222; }
  h1 { font-size: 1.4rem; } form { display: flex; gap: .5rem; margin-bottom: 1rem; }
  input[type=text] { flex: 1; padding: .4rem; } li { list-style: none; padding: .3rem 0; display: flex; gap: .5rem; align-items: center; }
  li.done span { text-decoration: line-through; color: #888; } ul { padding: 0; } #status { color: #666; font-size: .85rem; }
  button.delete { margin-left: auto; }
</style>
<h1>Shared tasks</h1>
<p id="status">connecting…</p>
<form id="add"><input id="title" type="text" placeholder="What needs doing?" autocomplete="off"><button>Add</button></form>
<ul id="tasks"></ul>
<script>
  // Two ways to talk to Hearth, one page: Hearth's own hearth.js over WebSocket (the default),
  // or the Firebase JS SDK over WebChannel (?sdk=firebase; its ES modules from ?sdkBase=, by
  // default Google's CDN). Both give the page the same small store.
  const params = new URLSearchParams(location.search);
  const project = params.get("project") || "demo";
  const list = document.getElementById("tasks");
  const status = document.getElementById("status");

  function render(docs, when) {
    status.textContent = docs.length + " task(s), updated " + when.toLocaleTimeString();
    list.replaceChildren(...docs.map((doc) => {
      const li = document.createElement("li");
      li.dataset.id = doc.id;
      li.className = doc.done ? "done" : "";
      const box = document.createElement("input");
      box.type = "checkbox"; box.checked = !!doc.done;
      box.onchange = () => store.setDone(doc.id, box.checked);
      const text = document.createElement("span");
      text.textContent = doc.title;
      const del = document.createElement("button");
      del.className = "delete"; del.textContent = "✕";
      del.onclick = () => store.remove(doc.id);
      li.append(box, text, del);
      return li;
    }));
  }
  const failed = (error) => { status.textContent = "error: " + error.message; };

  function hearthStore() {
    const db = new Hearth({ project: project });
    return {
      listen: () => db.onSnapshot(
        { query: { from: [{ collectionId: "tasks" }], orderBy: [{ field: { fieldPath: "createdTime" }, direction: "ASCENDING" }] } },
        (snap) => render(snap.docs.map((d) => ({ id: d.id, title: d.data.title, done: d.data.done })), new Date(snap.readTime)), failed),
      add: (title) => db.add("tasks", { title: title, done: false, createdTime: Hearth.serverTimestamp() }),
      setDone: (id, done) => db.update("tasks/" + id, { done: done }),
      remove: (id) => db.delete("tasks/" + id),
    };
  }

  async function firebaseStore() {
    const base = params.get("sdkBase") || "https://www.gstatic.com/firebasejs/10.12.2/";
    const app = await import(base + "firebase-app.js");
    const fs = await import(base + "firebase-firestore.js");
    const db = fs.getFirestore(app.initializeApp({ projectId: project, apiKey: "demo" }, "demo-" + project));
    fs.connectFirestoreEmulator(db, location.hostname, Number(location.port || 80));
    const tasks = fs.collection(db, "tasks");
    return {
      listen: () => fs.onSnapshot(fs.query(tasks, fs.orderBy("createdTime")),
        (snap) => render(snap.docs.map((d) => ({ id: d.id, title: d.get("title"), done: d.get("done") })), new Date()), failed),
      add: (title) => fs.addDoc(tasks, { title: title, done: false, createdTime: fs.serverTimestamp() }),
      setDone: (id, done) => fs.updateDoc(fs.doc(tasks, id), { done: done }),
      remove: (id) => fs.deleteDoc(fs.doc(tasks, id)),
    };
  }

  let store;
  (async () => {
    if (params.get("sdk") === "firebase") {
      // The SDK's modules import the app module by its CDN address: map it to the base given.
      const map = document.createElement("script");
      map.type = "importmap";
      const base = params.get("sdkBase");
      map.textContent = JSON.stringify({ imports: base ? { "https://www.gstatic.com/firebasejs/10.12.2/firebase-app.js": base + "firebase-app.js" } : {} });
      document.head.append(map);
      store = await firebaseStore();
    } else {
      await new Promise((resolve, reject) => {
        const script = document.createElement("script");
        script.src = "/hearth.js"; script.onload = resolve; script.onerror = reject;
        document.head.append(script);
      });
      store = hearthStore();
    }
    store.listen();
  })().catch(failed);
  document.getElementById("add").onsubmit = async (e) => {
    e.preventDefault();
    const input = document.getElementById("title");
    const title = input.value.trim();
    if (!title) return;
    input.value = "";
    await store.add(title);
  };
</script>
</html>
"""#
}
