#!/usr/bin/env bash
# The ThreadSanitizer stage of the test run: a Clang build with
# -fsanitize=thread in a build directory of its own, of the libraries whose
# tests exercise Raw's threads without gRPC (common: the worker pool and
# queues; store: the writer, the readers and the checkpointer; loop: session
# runners, turns, subscriptions and leases; mcp: the clients and their
# servers), then those tests.
#
# Debian builds Abseil and libstdc++ without ThreadSanitizer. Their
# synchronization is announced by an interposer linked into these test
# programs (tests/tsan/absl_sync_annotations.cc), and what it cannot reach
# is suppressed by name with the reason (tests/tsan/suppressions.txt). gRPC
# is not instrumented either, which is why the API's tests are not here.
#
# usage: tsan.sh SOURCE_DIR BUILD_DIR [ctest arguments...]
# environment:
#   RAW_JOBS           parallel compile jobs and tests (default 2)
#   RAW_TEST_TIMEOUT   seconds one test may take (default 300)
# exit status: 0 when everything built and passed, 77 (skipped) when clang++
# or its ThreadSanitizer runtime is not installed, anything else on a
# failure.
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 SOURCE_DIR BUILD_DIR [ctest arguments...]" >&2
  exit 2
fi
src="$(cd "$1" && pwd)"
build="$2"
shift 2

say() { printf 'tsan: %s\n' "$*"; }
# shellcheck source=scripts/unity_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/unity_build.sh"

compiler="$(command -v clang++ || true)"
if [[ -z "$compiler" ]]; then
  say "skipped: clang++ is not installed (Debian package clang)"
  exit 77
fi
if ! compgen -G "$("$compiler" -print-resource-dir)/lib/linux/libclang_rt.tsan-*.a" >/dev/null; then
  say "skipped: the ThreadSanitizer runtime is not installed for $compiler (Debian package libclang-rt-14-dev)"
  exit 77
fi

export CCACHE_BASEDIR="$src"
export CCACHE_NOHASHDIR=1

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  say "configuring a Clang build in $build"
  generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  # -O0: this build compiles most of the daemon a third time, and its tests
  # run in half a minute even unoptimized; -g1 keeps line numbers in reports.
  cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O0 -g1" -DRAW_CCACHE=ON \
    -DRAW_SANITIZE=thread -DRAW_BUILD_BENCH=OFF >/dev/null
fi
# A unity build, as in the sanitizer stage (scripts/unity_build.sh).
raw_unity_build "$build"

targets=(tsan_race_probe raw_common_tests raw_store_tests raw_loop_tests raw_mcp_tests)
say "building (ThreadSanitizer): ${targets[*]}"
start=$SECONDS
cmake --build "$build" -j "${RAW_JOBS:-2}" --target "${targets[@]}"
say "built in $((SECONDS - start)) s"

# A report fails the test that made it (the process exits with 66 at the
# end); second_deadlock_stack names both threads of a lock-order inversion.
export TSAN_OPTIONS="${TSAN_OPTIONS:-suppressions=$src/tests/tsan/suppressions.txt:second_deadlock_stack=1:history_size=4}"
say "running the tests of $build"
start=$SECONDS
status=0
# Tests of the binaries not built here are registered as <target>_NOT_BUILT;
# the fuzz targets (label "fuzz") run in the sanitizer stage.
ctest --test-dir "$build" --output-on-failure -j "${RAW_JOBS:-2}" \
  --timeout "${RAW_TEST_TIMEOUT:-300}" -E '_NOT_BUILT$' -LE fuzz "$@" || status=$?
say "tests finished in $((SECONDS - start)) s"
exit "$status"
