#!/usr/bin/env bash
# Time to first screen and per scroll-back page of a 10,000-item session in
# the dashboard: runs the browser test that seeds such a session into a real
# rawd, opens it through a real raw-dashboard in headless chromium and
# scrolls to its first item, and prints the timings it measured in the page
# (figures in docs/performance.md).
#
# usage: bench/dashboard_history_bench.sh [BUILD_DIR]   (default: build)
# Needs: the build's raw_dashboard_browser_tests, rawd, raw-dashboard, and
# tests/dashboard/node_modules (scripts/setup.sh --tests).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
build="${1:-build}"
test_bin="$build/bin/raw_dashboard_browser_tests"
[[ -x "$test_bin" ]] || { echo "dashboard_history_bench: $test_bin is not built" >&2; exit 1; }
for run in 1 2 3; do
  out="$("$test_bin" --gtest_filter='*ScrollsBackThroughTenThousandItems*' 2>&1)" || {
    printf '%s\n' "$out" >&2
    exit 1
  }
  line="$(grep -o 'dashboard history of .*' <<<"$out" || true)"
  [[ -n "$line" ]] || { printf '%s\n' "$out" >&2; echo "dashboard_history_bench: no timing line" >&2; exit 1; }
  echo "run $run: $line"
done
