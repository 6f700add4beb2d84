// prefs.js: what the page keeps of its preferences, and what it does with
// the gateway's copy on start.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULTS, fontSizeChoice, hasStoredPrefs, normalize, reconcile, samePrefs } from "../../clients/dashboard/web/assets/prefs.js";

test("only the known panels are kept as collapsed, with boolean states", () => {
  assert.deepEqual(normalize({ collapsed: { details: false, sidebar: true } }).collapsed, { details: false });
  assert.deepEqual(normalize({ collapsed: { details: "yes" } }).collapsed, {});
  assert.deepEqual(normalize({ collapsed: [] }).collapsed, {});
  assert.deepEqual(Object.keys(normalize({ theme: "dark", token: "t", history: ["p"] })), ["theme", "fontSize", "collapsed"]);
});

test("preferences compare by their normalized values", () => {
  assert.ok(samePrefs({ theme: "dark", fontSize: 18 }, { fontSize: 18, theme: "dark", collapsed: {} }));
  assert.ok(samePrefs({}, DEFAULTS));
  assert.ok(!samePrefs({ theme: "dark" }, { theme: "light" }));
});

test("the gateway's copy is applied when it differs, and gets this browser's when it has none", () => {
  const local = normalize({ theme: "light", fontSize: 14 });
  assert.deepEqual(reconcile({ theme: "dark", fontSize: 19 }, local, true),
                   { action: "apply", prefs: { theme: "dark", fontSize: 19, collapsed: {} } });
  assert.deepEqual(reconcile({ theme: "light", fontSize: 14, collapsed: {} }, local, true), { action: "keep", prefs: local });
  assert.deepEqual(reconcile({}, local, true), { action: "push", prefs: local });
  assert.deepEqual(reconcile({}, normalize({}), false), { action: "keep", prefs: normalize({}) });
  assert.equal(reconcile(null, local, true).action, "push");
  assert.equal(reconcile([], local, false).action, "keep");
  // A bad value in the copy falls back to the default, like a bad stored one.
  assert.deepEqual(reconcile({ theme: "neon" }, local, true).prefs, normalize({}));
});

test("whether the storage holds preferences", () => {
  assert.equal(hasStoredPrefs({ getItem: () => null }), false);
  assert.equal(hasStoredPrefs({ getItem: () => "{}" }), true);
  assert.equal(hasStoredPrefs({ getItem: () => { throw new Error("disabled"); } }), false);
});

test("a font size out of range is brought into it, and the note says so", () => {
  assert.deepEqual(fontSizeChoice("19", 15), { fontSize: 19, note: "" });
  const big = fontSizeChoice("40", 15);
  assert.equal(big.fontSize, 28);
  assert.match(big.note, /10 to 28 px; 40 became 28 px/);
  assert.equal(fontSizeChoice("3", 15).fontSize, 10);
  assert.equal(fontSizeChoice("16.6", 15).fontSize, 17);
  assert.match(fontSizeChoice("16.6", 15).note, /became 17 px/);
  const empty = fontSizeChoice("", 18);
  assert.equal(empty.fontSize, 18);
  assert.match(empty.note, /kept 18 px/);
});
