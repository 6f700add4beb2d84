#!/usr/bin/env bash
# The sanitizer stage of the test run: a Clang build of the whole tree in a
# build directory of its own, then every test of that build.
#
# One build serves four checks, so that each file is compiled once more, not
# four times:
#   - AddressSanitizer and UndefinedBehaviorSanitizer in every target, with
#     -fno-sanitize-recover: the unit and end-to-end tests run under both, and
#     any report fails the test that caused it;
#   - libFuzzer's coverage instrumentation (fuzzer-no-link), so that the fuzz
#     targets (tests/fuzz/, label "fuzz") are guided inside the libraries,
#     and a short run of each is part of this stage;
#   - Clang's lock analysis (-Wthread-safety as errors) of Raw's own code;
#   - the failpoints of common/failpoint.h, which the crash harness
#     (tests/crash/, label "crash") uses to kill rawd at chosen points.
# The build is a unity build (CMAKE_UNITY_BUILD, 16 files per translation
# unit): most of a file's compile time here is parsing the headers it
# includes, which a unity build does once per group. ccache keeps a rerun to
# the groups whose files changed.
#
# usage: sanitize.sh SOURCE_DIR BUILD_DIR [ctest arguments...]
# environment:
#   RAW_JOBS                parallel compile jobs and tests (default 2)
#   RAW_SANITIZE_BUILD_ONLY 1: build, run nothing
#   RAW_FUZZ_SECONDS        how long each fuzz target runs (default 10)
#   RAW_TEST_TIMEOUT        seconds one test may take (default 300)
#   RAW_SANITIZE_FLAGS      compile flags (default "-O0 -g1", see below)
#   RAW_SANITIZE_TARGETS    what to build (default: every target listed below)
# exit status: 0 when everything built and passed, 77 (skipped) when clang++
# or its runtime libraries are not installed, anything else on a failure.
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 SOURCE_DIR BUILD_DIR [ctest arguments...]" >&2
  exit 2
fi
src="$(cd "$1" && pwd)"
build="$2"
shift 2

say() { printf 'sanitize: %s\n' "$*"; }
# shellcheck source=scripts/unity_build.sh
source "$(dirname "${BASH_SOURCE[0]}")/unity_build.sh"

compiler="$(command -v clang++ || true)"
if [[ -z "$compiler" ]]; then
  say "skipped: clang++ is not installed (Debian package clang)"
  exit 77
fi
# The sanitizer and libFuzzer runtimes come in a separate package.
if ! compgen -G "$("$compiler" -print-resource-dir)/lib/linux/libclang_rt.asan-*.a" >/dev/null ||
  ! compgen -G "$("$compiler" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null; then
  say "skipped: the sanitizer runtimes are not installed for $compiler (Debian package libclang-rt-14-dev)"
  exit 77
fi

# Share the ccache entries of other checkouts of the same sources.
export CCACHE_BASEDIR="$src"
export CCACHE_NOHASHDIR=1

# -O0: with ASan, UBSan and the fuzzer's coverage instrumentation, Clang
# compiles the libraries 2.3 times as fast as at -O1 (the optimizer works
# over all that instrumentation), which matters more to the whole run than
# the slower tests; line tables (-g1) for the reports. Assertions stay on.
# Long fuzzing runs (scripts/fuzz.sh) build the fuzz targets alone at -O1
# instead, in a build directory of their own: they then run 3.5 times as
# fast.
flags="${RAW_SANITIZE_FLAGS:--O0 -g1}"
if [[ -f "$build/CMakeCache.txt" ]] && ! grep -qxF "CMAKE_CXX_FLAGS:STRING=$flags" "$build/CMakeCache.txt"; then
  cmake "$build" -DCMAKE_CXX_FLAGS="$flags" >/dev/null
fi
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  say "configuring a Clang build in $build"
  generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="$flags" -DRAW_CCACHE=ON \
    -DRAW_SANITIZE=fuzzer-no-link,address,undefined -DRAW_THREAD_SAFETY=ON \
    -DRAW_FAILPOINTS=ON -DRAW_BUILD_BENCH=OFF >/dev/null
fi
raw_unity_build "$build"

# The daemon's libraries, rawd and raw (whose code the lock analysis covers),
# their unit tests, the end-to-end tests of rawd, the crash harness and the
# fuzz targets; raw-acp and the dashboard gateway, with their unit and
# end-to-end tests and those of the local HTTP and WebSocket server they
# share (clients/web, whose coroutine file has one check fewer under Clang
# 14: clients/CMakeLists.txt). The dashboard's web app (Node, Chromium) and
# the terminal client's tmux tests stay in the main build.
targets=(rawd raw raw_e2e_tests raw_crash_tests raw_fuzz_targets
  raw_common_tests raw_layers_tests raw_events_tests raw_store_tests raw_config_tests
  raw_http_tests raw_providers_tests raw_openai_responses_tests raw_anthropic_tests
  raw_google_tests raw_search_tests raw_raven_tests raw_raven_web_tests raw_raven_draft_tests
  raw_tools_tests raw_skills_tests raw_packages_tests raw_hooks_tests raw_context_tests
  raw_vars_tests raw_mcp_tests raw_loop_tests raw_api_tests raw_app_tests
  raw-acp raw-dashboard raw_web_tests raw_acp_tests raw_acp_e2e_tests raw_dashboard_tests
  raw_dashboard_gateway_e2e_tests)
if [[ -n "${RAW_SANITIZE_TARGETS:-}" ]]; then read -ra targets <<<"$RAW_SANITIZE_TARGETS"; fi
# Each fuzz target's CTest run: RAW_FUZZ_SECONDS seconds (default 10).
run_args="-max_total_time=${RAW_FUZZ_SECONDS:-10} -timeout=10"
if ! grep -qxF "RAW_FUZZ_RUN_ARGS:STRING=$run_args" "$build/CMakeCache.txt"; then
  cmake "$build" -DRAW_FUZZ_RUN_ARGS="$run_args" >/dev/null
fi

say "building (ASan, UBSan, fuzz coverage, -Werror=thread-safety, failpoints)"
start=$SECONDS
# With Ninja, keep going after a file that fails, so that one run lists
# every finding.
keep_going=()
if grep -q "^CMAKE_GENERATOR:INTERNAL=Ninja$" "$build/CMakeCache.txt"; then keep_going=(-- -k 0); fi
cmake --build "$build" -j "${RAW_JOBS:-2}" --target "${targets[@]}" "${keep_going[@]}"
say "built in $((SECONDS - start)) s"
if [[ "${RAW_SANITIZE_BUILD_ONLY:-}" == 1 ]]; then exit 0; fi

# halt_on_error: the first report ends the process with a failure, in rawd
# as in the test binary; the report goes to the test's output (stderr) and,
# for a daemon, to its log. Leak checking stays on.
export ASAN_OPTIONS="${ASAN_OPTIONS:-halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"
say "running the tests of $build"
start=$SECONDS
status=0
# Tests of targets left unbuilt above are registered as <target>_NOT_BUILT;
# the dashboard's Node tests (label "dashboard") run in the main build.
ctest --test-dir "$build" --output-on-failure -j "${RAW_JOBS:-2}" \
  --timeout "${RAW_TEST_TIMEOUT:-300}" -E '_NOT_BUILT$' -LE dashboard "$@" || status=$?
say "tests finished in $((SECONDS - start)) s"
exit "$status"
