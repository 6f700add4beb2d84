// typeahead.js: keys typed while a session opens are text for its message
// box, never shortcuts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TypeAhead } from "../../clients/dashboard/web/assets/typeahead.js";

const key = (k, mods = {}) => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods });

test("printable keys are kept in order, shortcut letters included", () => {
  const t = new TypeAhead();
  for (const k of [..."dogs and ideas?"]) assert.equal(t.key(key(k)), true);
  assert.equal(t.take(), "dogs and ideas?");
  assert.equal(t.take(), "");
});

test("Backspace edits, Shift+Enter adds a line, Enter sends nothing", () => {
  const t = new TypeAhead();
  for (const k of ["h", "i", "x", "Backspace"]) t.key(key(k));
  assert.equal(t.key(key("Enter", { shiftKey: true })), true);
  t.key(key("é"));
  assert.equal(t.key(key("Enter")), true);  // held back, not kept
  assert.equal(t.take(), "hi\né");
});

test("keys with modifiers and keys that are not text are left to the page", () => {
  const t = new TypeAhead();
  assert.equal(t.key(key("c", { ctrlKey: true })), false);
  assert.equal(t.key(key("v", { metaKey: true })), false);
  assert.equal(t.key(key("Tab")), false);
  assert.equal(t.key(key("Escape")), false);
  assert.equal(t.key(key("ArrowUp")), false);
  assert.equal(t.take(), "");
});
