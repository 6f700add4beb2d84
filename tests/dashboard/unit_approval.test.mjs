// What the approval prompt offers for each call of a batch.
import test from "node:test";
import assert from "node:assert/strict";
import { approvalTitle, isPending, sessionOptions, stateWords } from "../../clients/dashboard/web/assets/approval_view.js";

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
