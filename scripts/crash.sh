#!/usr/bin/env bash
# A long run of the crash harness (tests/crash/): builds the sanitizer build
# (scripts/sanitize.sh, which has the failpoints) and kills its rawd KILLS
# times, printing the seed first and the figures last.
#
# usage: scripts/crash.sh [KILLS]   (default 1000)
# environment:
#   RAW_CRASH_SEED   replay the run that printed this seed
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
kills="${1:-1000}"
RAW_SANITIZE_BUILD_ONLY=1 scripts/sanitize.sh . build/sanitize
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:detect_stack_use_after_return=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
RAW_CRASH_KILLS="$kills" build/sanitize/bin/raw_crash_tests --gtest_filter="CrashHarness.*"
