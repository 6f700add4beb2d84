// The dashboard's wording of counts, context estimates and usage coverage.
import test from "node:test";
import assert from "node:assert/strict";
import { cacheRatioText, formatContext, formatCount, formatTime, formatTokens, groupDigits, overheadText, requestsText,
         sessionsShownText, turnEndText, usageRows } from "../../clients/dashboard/web/assets/format.js";

test("estimates always carry ~", () => {
  assert.equal(formatTokens("850"), "~850");
  assert.equal(formatTokens(12345), "~12.3k");
  assert.equal(formatTokens("240000"), "~240k");
  assert.equal(formatTokens(1250000), "~1.25M");
});

test("a percentage only when the window is known", () => {
  assert.equal(formatContext({ tokens: "12300" }), "~12.3k");
  assert.equal(formatContext({ tokens: "9600", windowTokens: "100000", percent: 9.6 }), "~9.6k (9.6%)");
  assert.equal(formatContext({ tokens: "50000", windowTokens: "100000" }), "~50.0k (50%)");
  assert.equal(formatContext({ tokens: "5", windowTokens: "0" }), "~5");
});

test("unreported counts read unknown, never 0", () => {
  assert.equal(formatCount(undefined), "unknown");
  assert.equal(formatCount("0"), "0");
  assert.equal(formatCount("48200"), "48.2k");
  assert.equal(groupDigits("1234567"), "1,234,567");
});

test("usage rows say how many requests reported each field", () => {
  const rows = usageRows({
    requests: "14",
    inputTokens: { total: "5000", requestsReported: "14" },
    cacheReadTokens: { total: "1200", requestsReported: "12" },
    reasoningTokens: { requestsReported: "0" },
  });
  const byKey = Object.fromEntries(rows.map((r) => [r.key, r]));
  assert.equal(byKey.cacheReadTokens.coverage, "12 of 14 requests reported cache reads");
  assert.equal(byKey.inputTokens.total, "5,000");
  assert.equal(byKey.reasoningTokens.total, "unknown");
  assert.equal(byKey.outputTokens.coverage, "0 of 14 requests reported output tokens");
  assert.equal(rows.length, 5);
});

test("the cache-read ratio names the requests it covers", () => {
  assert.equal(cacheRatioText({ cacheReadRatio: 0.25, cacheRatioRequests: "12" }), "Cache-read ratio 25.0% (over 12 requests)");
  assert.match(cacheRatioText({}), /no request reported both/);
  assert.equal(overheadText({}), null);
  assert.equal(overheadText({ overhead: { steps: "0" } }), null);
  assert.equal(overheadText({ overhead: { steps: "7", p50Us: "420", p99Us: "2500", lastTurn: [] } }),
    "Raw's own overhead per step: p50 0.42 ms, p99 2.50 ms (over 7 steps; the model, tools and approvals left out)");
});

test("one model request is singular", () => {
  assert.equal(requestsText("1"), "1 model request");
  assert.equal(requestsText(0), "0 model requests");
  assert.equal(requestsText(undefined), "0 model requests");
  assert.equal(requestsText("1234"), "1,234 model requests");
});

test("session times are the browser's local time", () => {
  const zone = process.env.TZ;
  try {
    // 2025-03-07 09:05 UTC
    const ms = String(Date.UTC(2025, 2, 7, 9, 5));
    process.env.TZ = "UTC";
    assert.equal(formatTime(ms), "2025-03-07 09:05");
    process.env.TZ = "Asia/Kolkata";  // UTC+05:30
    assert.equal(formatTime(ms), "2025-03-07 14:35");
    process.env.TZ = "America/Los_Angeles";  // UTC-08:00 then
    assert.equal(formatTime(ms), "2025-03-07 01:05");
    assert.equal(formatTime("0"), "");
    assert.equal(formatTime(undefined), "");
  } finally {
    if (zone === undefined) delete process.env.TZ;
    else process.env.TZ = zone;
  }
});

test("the session list counts the rows it shows", () => {
  assert.equal(sessionsShownText(49, ""), "49 shown");
  assert.equal(sessionsShownText(0, ""), "No sessions yet.");
  assert.equal(sessionsShownText(0, "foo"), "No session matches.");
});

test("a turn's end reads the same in the conversation and to screen readers", () => {
  assert.equal(turnEndText("TURN_END_REASON_COMPLETED", ""), "Turn completed");
  assert.equal(turnEndText("TURN_END_REASON_ERROR", "the provider refused"), "Turn failed: the provider refused");
  assert.equal(turnEndText("TURN_END_REASON_UNSPECIFIED"), "Turn ended");
});
