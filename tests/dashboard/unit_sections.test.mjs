// sections.js: the transcript's sections stay as the reader left them when
// their item is drawn again (a streamed delta, a tool's result).
import { test } from "node:test";
import assert from "node:assert/strict";
import { OpenSections } from "../../clients/dashboard/web/assets/sections.js";

test("a section the reader opened stays open when its item is drawn again", () => {
  const s = new OpenSections();
  assert.equal(s.isOpen("assistant-5-2", "reasoning", false), false);
  s.note("assistant-5-2", "reasoning", true, false);  // the reader opens Reasoning mid-stream
  assert.equal(s.isOpen("assistant-5-2", "reasoning", false), true);  // the next delta's render
  assert.equal(s.isOpen("assistant-9-4", "reasoning", false), false);  // another item's is its own
  s.note("assistant-5-2", "reasoning", false, false);  // closed again
  assert.equal(s.isOpen("assistant-5-2", "reasoning", false), false);
});

test("sections nobody toggled follow their default, per call", () => {
  const s = new OpenSections();
  // Arguments are open while the call runs and closed once it is done.
  assert.equal(s.isOpen("tools-3-1", "arguments:c1", true), true);
  s.note("tools-3-1", "arguments:c1", true, true);  // the element's own first toggle: the default
  assert.equal(s.isOpen("tools-3-1", "arguments:c1", false), false);
  // A result the reader opened stays open; the other call's does not.
  s.note("tools-3-1", "result:c1", true, false);
  assert.equal(s.isOpen("tools-3-1", "result:c1", false), true);
  assert.equal(s.isOpen("tools-3-1", "result:c2", false), false);
  // Arguments the reader closed while the call ran stay closed.
  s.note("tools-3-1", "arguments:c2", false, true);
  assert.equal(s.isOpen("tools-3-1", "arguments:c2", true), false);
});
