// Slash commands, input history and browser preferences.
import test from "node:test";
import assert from "node:assert/strict";
import { InputHistory, completions, parseInput, recalledPrompts } from "../../clients/dashboard/web/assets/commands.js";
import { DEFAULTS, loadPrefs, normalize, savePrefs } from "../../clients/dashboard/web/assets/prefs.js";

test("slash commands parse, with clear errors", () => {
  assert.deepEqual(parseInput("hello"), { kind: "prompt", text: "hello" });
  assert.deepEqual(parseInput("  "), { kind: "empty" });
  assert.deepEqual(parseInput("/compact"), { kind: "command", name: "compact", arg: "" });
  assert.deepEqual(parseInput("/agent asker"), { kind: "command", name: "agent", arg: "asker" });
  assert.deepEqual(parseInput("//etc/passwd?"), { kind: "prompt", text: "/etc/passwd?" });
  assert.match(parseInput("/agent").message, /name the agent/);
  assert.match(parseInput("/frob").message, /Unknown command \/frob/);
  assert.match(parseInput("/clear now").message, /takes no argument/);
  assert.deepEqual(completions("/c").map((c) => c.name), ["compact", "clear"]);
  assert.deepEqual(completions("/agent x"), []);
});

test("input history walks back and returns to the draft", () => {
  const h = new InputHistory(3);
  h.push("one");
  h.push("two");
  h.push("two");
  assert.deepEqual(h.entries, ["one", "two"]);
  assert.equal(h.previous("draft"), "two");
  assert.equal(h.previous("two"), "one");
  assert.equal(h.previous("one"), "one");
  assert.equal(h.next("one"), "two");
  assert.equal(h.next("two"), "draft");
  h.push("3");
  h.push("4");
  assert.deepEqual(h.entries, ["two", "3", "4"]);
});

test("input history takes the session's older prompts before what was sent", () => {
  const h = new InputHistory(5);
  assert.equal(h.previous("draft"), "draft");  // nothing yet
  assert.equal(h.next("draft"), "draft");
  h.prepend(["b", "c"]);  // the newest page
  h.push("d");            // sent from this page
  assert.deepEqual(h.entries, ["b", "c", "d"]);
  assert.equal(h.previous("draft"), "d");
  assert.equal(h.previous("d"), "c");
  // An older page loads while browsing: the box keeps showing "c".
  h.prepend(["z", "a", "a", "b"]);
  assert.deepEqual(h.entries, ["z", "a", "b", "c", "d"]);
  assert.equal(h.previous("c"), "b");
  assert.equal(h.next("b"), "c");
  assert.equal(h.next("c"), "d");
  assert.equal(h.next("d"), "draft");
  // Full: older prompts are left out, the newest stay.
  h.prepend(["y"]);
  assert.deepEqual(h.entries, ["z", "a", "b", "c", "d"]);
  const small = new InputHistory(3);
  small.push("new");
  small.prepend(["o1", "o2", "o3"]);
  assert.deepEqual(small.entries, ["o2", "o3", "new"]);
});

test("recalled prompts are the user messages' texts, a leading slash escaped", () => {
  const items = [
    { kind: "user", text: "first" },
    { kind: "assistant", text: "answer" },
    { kind: "user", text: "", images: [{}] },  // an image alone
    { kind: "user", text: "/etc/passwd?" },
    { kind: "notice", text: "n" },
    { kind: "user", text: "multi\nline" },
  ];
  assert.deepEqual(recalledPrompts(items), ["first", "//etc/passwd?", "multi\nline"]);
  assert.deepEqual(parseInput(recalledPrompts(items)[1]), { kind: "prompt", text: "/etc/passwd?" });
});

test("preferences round-trip through storage and bad values fall back", () => {
  const store = new Map();
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  assert.deepEqual(loadPrefs(storage), normalize({}));
  savePrefs(storage, { theme: "dark", fontSize: 18, collapsed: { details: false }, history: ["a"] });
  assert.deepEqual(loadPrefs(storage), { theme: "dark", fontSize: 18, collapsed: { details: false } });
  assert.doesNotMatch(store.get("raw-dashboard-prefs"), /history/);  // never written
  store.set("raw-dashboard-prefs", "{not json");
  assert.equal(loadPrefs(storage).theme, DEFAULTS.theme);
  assert.equal(normalize({ theme: "neon", fontSize: 99 }).fontSize, DEFAULTS.fontSize);
  assert.equal(normalize({ theme: "neon" }).theme, "system");
});

test("loading removes the prompt history earlier versions stored", () => {
  const store = new Map([["raw-dashboard-prefs", JSON.stringify({ theme: "light", history: ["secret prompt"] })]]);
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  assert.deepEqual(loadPrefs(storage), { theme: "light", fontSize: DEFAULTS.fontSize, collapsed: {} });
  assert.doesNotMatch(store.get("raw-dashboard-prefs"), /secret prompt|history/);
  assert.equal(JSON.parse(store.get("raw-dashboard-prefs")).theme, "light");
  // Nothing to remove: nothing is written.
  const untouched = new Map([["raw-dashboard-prefs", "{\"theme\":\"dark\"}"]]);
  const writes = [];
  loadPrefs({ getItem: (k) => untouched.get(k) ?? null, setItem: (k, v) => writes.push([k, v]) });
  assert.deepEqual(writes, []);
});
