// The dashboard's wording of counts, context estimates and usage coverage.
import test from "node:test";
import assert from "node:assert/strict";
import { cacheRatioText, formatContext, formatCount, formatTokens, groupDigits, overheadText, usageRows } from "../../clients/dashboard/web/assets/format.js";

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
