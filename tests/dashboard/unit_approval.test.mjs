// What the approval prompt offers for each call of a batch.
import test from "node:test";
import assert from "node:assert/strict";
import { approvalTitle, isPending, REASON_CHARS, reasonText, sessionOptions, stateWords } from "../../clients/dashboard/web/assets/approval_view.js";

const call = (state, extra = {}) => ({ callId: state, name: "bash", arguments: "{}", state, ...extra });

test("only pending calls wait for an answer; the title counts them", () => {
  const calls = [call("APPROVAL_STATE_ALLOWED"), call("APPROVAL_STATE_PENDING"), call("APPROVAL_STATE_DENIED"),
                 call("APPROVAL_STATE_NOT_APPLICABLE")];
  assert.deepEqual(calls.map(isPending), [false, true, false, false]);
  assert.equal(approvalTitle(calls), "1 of 4 calls needs approval");
  assert.equal(approvalTitle([calls[1], calls[1]]), "Approval needed for 2 calls");
  assert.equal(approvalTitle([calls[1], calls[1], calls[0]]), "2 of 3 calls need approval");
  assert.match(stateWords(calls[0]), /allowed/);
  assert.match(stateWords(calls[2]), /denied/);
  assert.match(stateWords(calls[3]), /not subject to approval/);
  assert.match(stateWords(calls[1]), /needs your approval/);
});

test("the session options are the rules rawd offers, shown visibly", () => {
  const c = call("APPROVAL_STATE_PENDING", { sessionRules: [{ rules: ['allow builtin/bash command "touch x"'] },
                                                            { rules: ['allow builtin/bash command "touch \u202E*"'] }] });
  assert.deepEqual(sessionOptions(c), [['allow builtin/bash command "touch x"'], ['allow builtin/bash command "touch ⟨U+202E⟩*"']]);
  assert.deepEqual(sessionOptions(call("APPROVAL_STATE_PENDING", { sessionRules: [] })), []);
  assert.deepEqual(sessionOptions(call("APPROVAL_STATE_PENDING")), []);
});

test("calls answered one by one leave the title counting the rest", () => {
  const calls = [call("APPROVAL_STATE_PENDING", { callId: "c1" }), call("APPROVAL_STATE_PENDING", { callId: "c2" })];
  assert.equal(approvalTitle(calls), "Approval needed for 2 calls");
  assert.equal(approvalTitle(calls, new Map([["c1", "allow"]])), "1 of 2 calls needs approval");
  assert.equal(approvalTitle(calls, new Map([["c1", "allow"], ["c2", "deny"]])), "0 of 2 calls need approval");
  const mixed = [call("APPROVAL_STATE_ALLOWED", { callId: "c0" }), ...calls];
  assert.equal(approvalTitle(mixed, new Map([["c2", "deny"]])), "1 of 3 calls needs approval");
});

test("a long reason is shortened for its line; a short one is shown whole", () => {
  assert.equal(reasonText("bash asks"), "bash asks");
  const long = `ask builtin/bash for echo ${"q".repeat(3000)}`;
  const shown = reasonText(long);
  assert.equal([...shown].length, REASON_CHARS);
  assert.ok(shown.endsWith("…"));
  assert.ok(long.startsWith(shown.slice(0, -1)));
  // Hidden characters still show, and are not cut in half.
  assert.match(reasonText("touch \u202Ex"), /⟨U\+202E⟩/);
});
