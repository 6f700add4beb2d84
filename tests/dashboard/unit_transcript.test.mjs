// The transcript model the conversation view renders from events.
import test from "node:test";
import assert from "node:assert/strict";
import { LaterEvents, Transcript, batchCallIds, diffLines, formatArguments, isUnifiedDiff, pageItems, visibleText } from "../../clients/dashboard/web/assets/transcript.js";

const ev = (seq, payload) => ({ seq: String(seq), turnId: "t1", ...payload });

test("streamed deltas build one assistant item that the final message settles", () => {
  const t = new Transcript();
  t.apply(ev(1, { turnStarted: { userText: "hi" } }));
  t.apply(ev(2, { userMessage: { text: "hi" } }));
  const k1 = t.apply(ev(3, { textDelta: { text: "Hel" } }));
  const k2 = t.apply(ev(4, { textDelta: { text: "lo" } }));
  assert.deepEqual(k1, k2);
  const item = t.byKey.get(k1[0]);
  assert.equal(item.text, "Hello");
  assert.equal(item.streaming, true);
  t.apply(ev(5, { reasoningDelta: { text: "think" } }));
  t.apply(ev(6, { assistantMessage: { text: "Hello!", reasoning: "think" } }));
  assert.equal(item.text, "Hello!");
  assert.equal(item.streaming, false);
  assert.equal(t.items.filter((i) => i.kind === "assistant").length, 1);
  assert.equal(t.turnRunning, true);
  t.apply(ev(7, { turnEnded: { reason: "TURN_END_REASON_COMPLETED" } }));
  assert.equal(t.turnRunning, false);
  assert.equal(t.lastSeq, 7);
});

test("a stream reset empties the streaming text", () => {
  const t = new Transcript();
  const [key] = t.apply(ev(1, { textDelta: { text: "partial" } }));
  t.apply(ev(2, { streamReset: { reason: "retry" } }));
  assert.equal(t.byKey.get(key).text, "");
});

test("tool calls, their start and their results land on one card", () => {
  const t = new Transcript();
  t.apply(ev(1, { toolCallBatch: { calls: [{ callId: "a", name: "bash", tool: "builtin/bash", arguments: '{"command":"ls"}' },
                                          { callId: "b", name: "read", tool: "builtin/read", arguments: "{}" }] } }));
  t.apply(ev(2, { toolStarted: { callId: "a" } }));
  const card = t.items[0];
  assert.equal(card.calls[0].state, "running");
  t.apply(ev(3, { toolResult: { callId: "a", status: "TOOL_RESULT_STATUS_OK", content: "x", durationMs: "12" } }));
  t.apply(ev(4, { toolResult: { callId: "b", status: "TOOL_RESULT_STATUS_DENIED", content: "no" } }));
  assert.equal(t.items.length, 1);
  assert.equal(card.calls[0].status, "TOOL_RESULT_STATUS_OK");
  assert.equal(card.calls[0].durationMs, 12);
  assert.equal(card.calls[1].status, "TOOL_RESULT_STATUS_DENIED");
});

test("approvals are pending until resolved or the turn ends", () => {
  const t = new Transcript();
  t.apply(ev(1, { approvalRequested: { requestId: "r1", calls: [{ callId: "a", name: "bash", arguments: "{}" }] } }));
  assert.equal(t.pendingApproval().requestId, "r1");
  t.apply(ev(2, { approvalResolved: { requestId: "r1", answers: [{ callId: "a", decision: "APPROVAL_DECISION_DENY", message: "no" }] } }));
  assert.equal(t.pendingApproval(), null);
  t.apply(ev(3, { approvalRequested: { requestId: "r2", calls: [] } }));
  t.apply(ev(4, { turnEnded: { reason: "TURN_END_REASON_CANCELLED" } }));
  assert.equal(t.pendingApproval(), null);
});

test("compaction progress updates one item", () => {
  const t = new Transcript();
  t.apply(ev(1, { compactionStarted: { trigger: "COMPACTION_TRIGGER_MANUAL", tokensBefore: "5000", chunks: 2 } }));
  t.apply(ev(2, { compactionProgress: { chunk: 1, chunks: 2 } }));
  assert.equal(t.items[0].text, "compacting: summary 1 of 2");
  t.apply(ev(3, { compactionEnded: { outcome: "COMPACTION_OUTCOME_ACCEPTED", tokensBefore: "5000", tokensAfter: "800" } }));
  assert.equal(t.items.length, 1);
  assert.equal(t.items[0].phase, "ended");
  assert.equal(t.items[0].text, "context compacted: ~5.0k → ~800 tokens");
  t.apply(ev(4, { contextEstimate: { tokens: "800" } }));
  assert.equal(t.context.tokens, "800");
});

test("an older page reads on its own, a result without its call gets a card", () => {
  const items = pageItems([ev(10, { textDelta: { text: "cut" } }), ev(11, { toolResult: { callId: "z", name: "bash", content: "out" } })]);
  assert.equal(items[0].streaming, false);
  assert.equal(items[1].calls[0].content, "out");
});

test("arguments print in full and diffs are recognized", () => {
  const long = "x".repeat(5000);
  assert.ok(formatArguments(JSON.stringify({ text: long })).includes(long));
  assert.equal(formatArguments("not json"), "not json");
  const diff = "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-old\n+new\n same";
  assert.ok(isUnifiedDiff(diff));
  assert.ok(!isUnifiedDiff("plain output"));
  assert.deepEqual(diffLines(diff).map((l) => l.role), ["file", "file", "hunk", "del", "add", "context"]);
});

test("a compaction keeps the session busy from its start to its end", () => {
  const t = new Transcript();
  assert.equal(t.busy, false);
  t.apply(ev(1, { compactionStarted: { reason: "COMPACTION_REASON_MANUAL" } }));
  assert.equal(t.turnRunning, false);
  assert.equal(t.compacting, true);
  assert.equal(t.busy, true);
  t.apply(ev(2, { compactionProgress: { chunk: 1, chunks: 2 } }));
  assert.equal(t.busy, true);
  t.apply(ev(3, { compactionEnded: { outcome: "COMPACTION_OUTCOME_CANCELLED" } }));
  assert.equal(t.compacting, false);
  assert.equal(t.busy, false);
  // An automatic compaction inside a turn ends with the turn at the latest.
  t.apply(ev(4, { turnStarted: {} }));
  t.apply(ev(5, { compactionStarted: {} }));
  t.apply(ev(6, { turnEnded: { reason: "TURN_END_REASON_INTERRUPTED" } }));
  assert.equal(t.busy, false);
});

test("arguments show bidi and invisible characters as escapes, never applied", () => {
  const shown = formatArguments(JSON.stringify({ command: "echo hi \u2067\u2066; rm -rf ~ \u2069\u2066#\u2069\u2069" }));
  assert.doesNotMatch(shown, /[\u202A-\u202E\u2066-\u2069\u200B-\u200F\u2028\u2029\uFEFF]/);
  assert.ok(shown.includes("echo hi \\u2067\\u2066; rm -rf ~ \\u2069\\u2066#\\u2069\\u2069"), shown);
  // The escaped text is the same JSON value.
  assert.equal(JSON.parse(shown).command, "echo hi \u2067\u2066; rm -rf ~ \u2069\u2066#\u2069\u2069");
  // Tag characters (outside the BMP), a zero-width space, a line separator.
  const tagged = formatArguments(JSON.stringify({ path: "a\u{E0041}b\u200Bc\u2028d" }));
  assert.ok(tagged.includes("a\\udb40\\udc41b\\u200bc\\u2028d"), tagged);
  // Text that is not JSON gets visible markers; newlines and tabs stay.
  assert.equal(formatArguments("rm \u202Eevil\nx\ty"), "rm ⟨U+202E⟩evil\nx\ty");
  assert.equal(visibleText("allowed by \u2067rule\u2069"), "allowed by ⟨U+2067⟩rule⟨U+2069⟩");
  assert.equal(visibleText("plain reason"), "plain reason");
});

test("arguments keep numbers exactly as written, in JSON.stringify's layout", () => {
  assert.ok(formatArguments('{"n": 12345678901234567890}').includes('"n": 12345678901234567890'));
  assert.ok(formatArguments('{"x": 0.10000000000000000001, "e": 1E400}').includes("0.10000000000000000001"));
  const value = { a: [1, 2, { b: "c\nd", e: null, f: true }], g: {}, h: [], i: 'x"y\\z', j: -1.5 };
  assert.equal(formatArguments(JSON.stringify(value)), JSON.stringify(value, null, 2));
  assert.equal(formatArguments('  [ ]  '), "[]");
});

test("an older page cut before a call's result takes the result from the newer events", () => {
  // The newer page (read first) holds only the result: a card of its own.
  const newer = [ev(12, { toolResult: { callId: "c1", name: "bash", status: "TOOL_RESULT_STATUS_OK", content: "done", durationMs: "5" } }),
                 ev(13, { toolResult: { callId: "c2", name: "bash", status: "TOOL_RESULT_STATUS_DENIED", content: "no" } })];
  const later = new LaterEvents();
  const t = new Transcript();
  for (const e of newer) {
    t.apply(e);
    later.note(e);
  }
  assert.ok(t.items[0].calls[0].orphan);
  const items = pageItems([ev(10, { toolCallBatch: { calls: [{ callId: "c1", name: "bash", arguments: '{"command":"ls"}' },
                                                             { callId: "c2", name: "bash", arguments: "{}" }] } }),
                           ev(11, { toolStarted: { callId: "c1" } })], later);
  assert.equal(items.length, 1);
  const [c1, c2] = items[0].calls;
  assert.equal(c1.state, "done");
  assert.equal(c1.status, "TOOL_RESULT_STATUS_OK");
  assert.equal(c1.content, "done");
  assert.equal(c1.durationMs, 5);
  assert.equal(c1.arguments, '{"command":"ls"}');
  assert.equal(c2.state, "done");
  assert.equal(c2.status, "TOOL_RESULT_STATUS_DENIED");
  // The view drops the result-only cards of these calls.
  assert.deepEqual(batchCallIds(items), ["c1", "c2"]);
  assert.deepEqual(batchCallIds(t.items), []);
});

test("an older page's call started in a newer page is running, not queued", () => {
  const later = new LaterEvents();
  later.note(ev(11, { toolStarted: { callId: "c1" } }));
  const items = pageItems([ev(10, { toolCallBatch: { calls: [{ callId: "c1", name: "bash", arguments: "{}" }] } })], later);
  assert.equal(items[0].calls[0].state, "running");
});

test("an older page's approval answered or ended in a newer page is not waiting", () => {
  const requested = ev(10, { approvalRequested: { requestId: "r1", calls: [{ callId: "a", name: "bash", arguments: "{}" }] } });
  const answered = new LaterEvents();
  answered.note(ev(11, { approvalResolved: { requestId: "r1", resolution: "APPROVAL_RESOLUTION_ANSWERED",
                                             answers: [{ callId: "a", decision: "APPROVAL_DECISION_DENY" }] } }));
  const [item] = pageItems([requested], answered);
  assert.equal(item.pending, false);
  assert.equal(item.answers[0].decision, "APPROVAL_DECISION_DENY");
  const ended = new LaterEvents();
  ended.note(ev(12, { turnEnded: { reason: "TURN_END_REASON_CANCELLED" } }));
  assert.equal(pageItems([requested], ended)[0].pending, false);
  // Nothing newer: still waiting.
  assert.equal(pageItems([requested])[0].pending, true);
});
