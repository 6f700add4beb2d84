// Runs `fn` at most once every `ms`: a call when none ran for `ms` runs at
// once, and the calls within that time run once, together, when it is
// over, so the last one is never lost. For work that events ask for many
// times a second (the Details panel's stats while a turn runs).
// `clock` is for tests: {now(), setTimeout(fn, ms)}.
export function throttle(fn, ms, clock = { now: () => performance.now(), setTimeout: (f, t) => setTimeout(f, t) }) {
  let last = -Infinity;
  let waiting = false;
  const run = () => {
    waiting = false;
    last = clock.now();
    fn();
  };
  return () => {
    if (waiting) return;
    const wait = last + ms - clock.now();
    if (wait <= 0) {
      run();
      return;
    }
    waiting = true;
    clock.setTimeout(run, wait);
  };
}
