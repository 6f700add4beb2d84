// Slash commands, input history and browser preferences.
import test from "node:test";
import assert from "node:assert/strict";
import { InputHistory, completions, parseInput } from "../../clients/dashboard/web/assets/commands.js";
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

test("preferences round-trip through storage and bad values fall back", () => {
  const store = new Map();
  const storage = { getItem: (k) => store.get(k) ?? null, setItem: (k, v) => store.set(k, v) };
  assert.deepEqual(loadPrefs(storage), normalize({}));
  savePrefs(storage, { theme: "dark", fontSize: 18, collapsed: { details: false }, history: ["a"] });
  assert.deepEqual(loadPrefs(storage), { theme: "dark", fontSize: 18, collapsed: { details: false }, history: ["a"] });
  store.set("raw-dashboard-prefs", "{not json");
  assert.equal(loadPrefs(storage).theme, DEFAULTS.theme);
  assert.equal(normalize({ theme: "neon", fontSize: 99 }).fontSize, DEFAULTS.fontSize);
  assert.equal(normalize({ theme: "neon" }).theme, "system");
});
