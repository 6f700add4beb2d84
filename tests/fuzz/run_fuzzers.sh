#!/usr/bin/env bash
# Builds Raw's libFuzzer targets with Clang in a nested build and runs each
# one for a short time over the SSE fixtures (the CTest test fuzz_decoders
# of a non-Clang build; see CMakeLists.txt beside this file).
#
# usage: run_fuzzers.sh SOURCE_DIR FUZZ_BUILD_DIR [SECONDS]
#   SECONDS: how long each target runs (default 10; RAW_FUZZ_SECONDS in the
#   environment overrides it).
# exit status: 0 when every target ran clean, 77 (skipped) when clang++ or
# libFuzzer is not installed, anything else when the build failed or a
# fuzzer found a crash, a leak or a broken invariant.
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 SOURCE_DIR FUZZ_BUILD_DIR [SECONDS]" >&2
  exit 2
fi
src="$1"
build="$2"
seconds="${RAW_FUZZ_SECONDS:-${3:-10}}"

say() { printf 'fuzz: %s\n' "$*"; }

compiler="$(command -v clang++ || true)"
if [[ -z "$compiler" ]]; then
  say "skipped: clang++ is not installed (Debian packages clang and libclang-rt-14-dev)"
  exit 77
fi
# libFuzzer's runtime comes in a separate package from the compiler.
runtime_dir="$("$compiler" --print-runtime-dir 2>/dev/null || true)"
if ! compgen -G "$runtime_dir/libclang_rt.fuzzer*.a" >/dev/null &&
  ! compgen -G "$("$compiler" -print-resource-dir)/lib/linux/libclang_rt.fuzzer-*.a" >/dev/null; then
  say "skipped: libFuzzer is not installed for $compiler (Debian package libclang-rt-14-dev)"
  exit 77
fi

# Share the ccache entries of other checkouts of the same sources.
export CCACHE_BASEDIR="$src"
export CCACHE_NOHASHDIR=1

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  say "configuring a Clang build in $build"
  generator=()
  if command -v ninja >/dev/null; then generator=(-G Ninja); fi
  cmake -S "$src" -B "$build" "${generator[@]}" -DCMAKE_CXX_COMPILER="$compiler" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAW_CCACHE=ON -DRAW_BUILD_BENCH=OFF >/dev/null
fi
# Each target runs for the time asked for; reconfigure only when it changed.
# Every library is built with coverage instrumentation and the sanitizers,
# so that libFuzzer explores the code under test, not only the targets.
sanitize="fuzzer-no-link,address,undefined"
if ! grep -qxF "RAW_SANITIZE:STRING=$sanitize" "$build/CMakeCache.txt"; then
  cmake "$build" -DRAW_SANITIZE="$sanitize" >/dev/null
fi
run_args="-max_total_time=$seconds -timeout=10"
if ! grep -qxF "RAW_FUZZ_RUN_ARGS:STRING=$run_args" "$build/CMakeCache.txt"; then
  cmake "$build" -DRAW_FUZZ_RUN_ARGS="$run_args" >/dev/null
fi

say "building the fuzz targets"
cmake --build "$build" --target raw_fuzz_targets -j "${RAW_JOBS:-2}"

say "running each fuzz target for $seconds s"
ctest --test-dir "$build" -L fuzz --output-on-failure
