extension WebSocketAssets {
    /// A shared task list: open it in two tabs and edits in one appear in the other at once.
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
<script src="/hearth.js"></script>
<script>
  const params = new URLSearchParams(location.search);
  const db = new Hearth({ project: params.get("project") || "demo" });
  const list = document.getElementById("tasks");
  const status = document.getElementById("status");
  db.onSnapshot({ query: { from: [{ collectionId: "tasks" }], orderBy: [{ field: { fieldPath: "createdTime" }, direction: "ASCENDING" }] } },
    (snap) => {
      status.textContent = snap.docs.length + " task(s), updated " + new Date(snap.readTime).toLocaleTimeString();
      list.replaceChildren(...snap.docs.map((doc) => {
        const li = document.createElement("li");
        li.dataset.id = doc.id;
        li.className = doc.data.done ? "done" : "";
        const box = document.createElement("input");
        box.type = "checkbox"; box.checked = !!doc.data.done;
        box.onchange = () => db.update("tasks/" + doc.id, { done: box.checked });
        const text = document.createElement("span");
        text.textContent = doc.data.title;
        const del = document.createElement("button");
        del.className = "delete"; del.textContent = "✕";
        del.onclick = () => db.delete("tasks/" + doc.id);
        li.append(box, text, del);
        return li;
      }));
    },
    (error) => { status.textContent = "error: " + error.message; });
  document.getElementById("add").onsubmit = async (e) => {
    e.preventDefault();
    const input = document.getElementById("title");
    const title = input.value.trim();
    if (!title) return;
    input.value = "";
    await db.add("tasks", { title: title, done: false, createdTime: Hearth.serverTimestamp() });
  };
</script>
</html>
"""#
}
