#!/usr/bin/env bash
# Sets up and builds Raw with its tests and benchmarks (scripts/setup.sh
# --tests all, quick when nothing changed), then runs every test with ctest,
# then the sanitizer stage (scripts/sanitize.sh: a Clang build with ASan,
# UBSan, fuzz coverage, the lock analysis and the failpoints, in
# build/sanitize, and its tests: unit, end-to-end, fuzz and crash), then the
# ThreadSanitizer stage (scripts/tsan.sh: the common, store, loop and MCP
# tests in build/tsan). Exits non-zero when any fails.
#
# environment:
#   RAW_TEST_TIMEOUT        seconds one test may take (default 300)
#   RAW_TEST_TOTAL_TIMEOUT  seconds the whole run may take (default 3600)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

# Prints the tests of BUILD_DIR's last ctest run that failed, each with the
# end of its output.
summarize_failures() {
  local dir="$1" what="$2" failed="$1/Testing/Temporary/LastTestsFailed.log"
  [[ -s "$failed" ]] || return 0
  printf '\ntest: tests that failed in %s:\n' "$what"
  sed 's/^/  /' "$failed"
  local name
  while IFS=: read -r _ name; do
    printf '\n--- the end of the output of %s:\n' "$name"
    awk -v want="$name" '
      $0 ~ /^[0-9]+\/[0-9]+ Test: / { sub(/^[0-9]+\/[0-9]+ Test: /, ""); inside = ($0 == want); n = 0; next }
      inside && /^<end of output>/ { inside = 0 }
      inside { line[n++ % 40] = $0; total = n }
      END { for (i = (total > 40 ? total - 40 : 0); i < total; i++) print line[i % 40] }
    ' "$dir/Testing/Temporary/LastTest.log" 2>/dev/null || true
  done <"$failed"
}

scripts/setup.sh --tests all

printf 'test: running ctest in %s/build\n' "$(pwd)"
# ctest leaves this list in place when a later run passes.
rm -f build/Testing/Temporary/LastTestsFailed.log build/sanitize/Testing/Temporary/LastTestsFailed.log \
  build/tsan/Testing/Temporary/LastTestsFailed.log
status=0
timeout --kill-after=30 "${RAW_TEST_TOTAL_TIMEOUT:-3600}" \
  ctest --test-dir build --output-on-failure -j2 --timeout "${RAW_TEST_TIMEOUT:-300}" ||
  status=$?
# Figures some tests print about themselves (the Raven excerpt fixtures'
# acceptance and rejection rates), from ctest's log of this run.
grep -h '^\[raven fixtures\]' build/Testing/Temporary/LastTest.log 2>/dev/null | sort -u || true
if ((status == 124)); then
  printf 'test: ctest did not finish within %s seconds\n' "${RAW_TEST_TOTAL_TIMEOUT:-3600}" >&2
fi

sanitize_status=0
timeout --kill-after=30 "${RAW_TEST_TOTAL_TIMEOUT:-3600}" \
  scripts/sanitize.sh . build/sanitize || sanitize_status=$?
grep -h '^\[crash harness\]' build/sanitize/Testing/Temporary/LastTest.log 2>/dev/null || true
case "$sanitize_status" in
  0) ;;
  77) printf 'test: the sanitizer stage was skipped (see above)\n' >&2 ;;
  124) printf 'test: the sanitizer stage did not finish within %s seconds\n' \
         "${RAW_TEST_TOTAL_TIMEOUT:-3600}" >&2 ;;
esac
if ((status == 0 && sanitize_status != 0 && sanitize_status != 77)); then status=$sanitize_status; fi

tsan_status=0
timeout --kill-after=30 "${RAW_TEST_TOTAL_TIMEOUT:-3600}" \
  scripts/tsan.sh . build/tsan || tsan_status=$?
case "$tsan_status" in
  0) ;;
  77) printf 'test: the ThreadSanitizer stage was skipped (see above)\n' >&2 ;;
  124) printf 'test: the ThreadSanitizer stage did not finish within %s seconds\n' \
         "${RAW_TEST_TOTAL_TIMEOUT:-3600}" >&2 ;;
esac
if ((status == 0 && tsan_status != 0 && tsan_status != 77)); then status=$tsan_status; fi
# The failures again, last, so that whoever reads only the end of a long log
# still learns which tests failed and how.
if ((status != 0)); then
  summarize_failures build "the main build"
  summarize_failures build/sanitize "the sanitizer build"
  summarize_failures build/tsan "the ThreadSanitizer build"
fi
exit "$status"
