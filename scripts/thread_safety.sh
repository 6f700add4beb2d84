#!/usr/bin/env bash
# Checks the lock annotations (ABSL_GUARDED_BY, ABSL_EXCLUSIVE_LOCKS_REQUIRED,
# ...) of Raw's own code with Clang's -Wthread-safety, which g++ lacks: a
# nested Clang build of the libraries and executables of common/, daemon/
# and clients/ (no tests, no benchmarks), unoptimized and without debug
# information, where any thread-safety warning is an error. ccache keeps a
# rerun to the files that changed. The CTest test thread_safety of a
# non-Clang build runs this; a Clang build checks the same with
# -DRAW_THREAD_SAFETY=ON.
#
# usage: thread_safety.sh SOURCE_DIR BUILD_DIR
# environment:
#   RAW_JOBS   parallel compile jobs (default 2)
# exit status: 0 when the code compiles without a thread-safety warning, 77
# (skipped) when clang++ is not installed, anything else when it does not.
set -euo pipefail

if (($# != 2)); then
  echo "usage: $0 SOURCE_DIR BUILD_DIR" >&2
  exit 2
fi
src="$1"
build="$2"

say() { printf 'thread-safety: %s\n' "$*"; }

compiler="$(command -v clang++ || true)"
if [[ -z "$compiler" ]]; then
  say "skipped: clang++ is not installed (Debian package clang)"
  exit 77
fi

# Share the ccache entries of other checkouts of the same sources.
export CCACHE_BASEDIR="$src"
export CCACHE_NOHASHDIR=1

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  say "configuring a Clang build in $build"
  generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  # Build type None: no -O, no -g; only the diagnostics matter here.
  cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE=None -DRAW_CCACHE=ON -DRAW_THREAD_SAFETY=ON \
    -DRAW_BUILD_TESTS=OFF -DRAW_BUILD_BENCH=OFF >/dev/null
fi

say "compiling common/, daemon/ and clients/ with -Werror=thread-safety"
start=$SECONDS
# With Ninja, keep going after a file with findings, so that one run lists them
# all.
keep_going=()
if grep -q "^CMAKE_GENERATOR:INTERNAL=Ninja$" "$build/CMakeCache.txt"; then keep_going=(-- -k 0); fi
cmake --build "$build" --target rawd raw -j "${RAW_JOBS:-2}" "${keep_going[@]}"
say "no thread-safety findings ($((SECONDS - start)) s)"
