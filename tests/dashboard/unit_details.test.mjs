// The Details panel keeps up with the footer while a turn runs: which
// events redraw what, and the throttle on reading the stats again.
import { test } from "node:test";
import assert from "node:assert/strict";
import { detailsChange } from "../../clients/dashboard/web/assets/details_view.js";
import { throttle } from "../../clients/dashboard/web/assets/throttle.js";

test("estimates redraw the context line; requests, turns, compactions and clears the stats", () => {
  assert.equal(detailsChange({ contextEstimate: { tokens: "900" } }), "context");
  assert.equal(detailsChange({ usage: { inputTokens: "10" } }), "stats");
  assert.equal(detailsChange({ assistantMessage: { text: "hi" } }), "stats");
  assert.equal(detailsChange({ turnEnded: {} }), "stats");
  assert.equal(detailsChange({ compactionEnded: {} }), "stats");
  assert.equal(detailsChange({ contextCleared: {} }), "stats");
  assert.equal(detailsChange({ textDelta: { text: "w" } }), null);
  assert.equal(detailsChange({ reasoningDelta: { text: "w" } }), null);
  assert.equal(detailsChange(null), null);
});

// A clock the test moves by hand.
function fakeClock() {
  const clock = { t: 0, timers: [] };
  clock.now = () => clock.t;
  clock.setTimeout = (fn, ms) => clock.timers.push({ at: clock.t + ms, fn });
  clock.advance = (ms) => {
    clock.t += ms;
    for (const timer of clock.timers.filter((x) => x.at <= clock.t)) {
      clock.timers.splice(clock.timers.indexOf(timer), 1);
      timer.fn();
    }
  };
  return clock;
}

test("the stats are read at once, then at most once a second, and the last ask is never lost", () => {
  const clock = fakeClock();
  let runs = 0;
  const ask = throttle(() => { runs += 1; }, 1000, clock);
  ask();
  assert.equal(runs, 1);  // at once
  ask();
  ask();
  ask();
  assert.equal(runs, 1);  // a burst waits
  clock.advance(999);
  assert.equal(runs, 1);
  clock.advance(1);
  assert.equal(runs, 2);  // once for the whole burst
  clock.advance(5000);
  assert.equal(runs, 2);  // nothing asked since
  ask();
  assert.equal(runs, 3);  // quiet long enough: at once again
});
