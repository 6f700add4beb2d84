#!/bin/bash
# scripts/hot-text.sh [BUILD_DIR]
# Rewrites the hot-text linker scripts of rawd (daemon/app/hot-text.ld) and
# raw (clients/cli/hot-text.ld) from a profile of bench/e2e_bench's scenario
# (turns of `raw run`, each a model request per tool call), so that the code
# those turns run sits together at the start of each program's code
# (docs/performance.md, "Code layout"). Run it after changes that move much
# code in or out of a turn, then rebuild and check the figures.
#
# Needs valgrind and python3 (for this script only; the build does not),
# and a Ninja build directory (default: build).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

for tool in valgrind python3 ninja; do
  command -v "$tool" >/dev/null || { echo "hot-text: $tool is needed" >&2; exit 1; }
done

cmake --build "$build" --target rawd raw e2e_bench child_peak

# Which functions run: both programs under callgrind through one short
# e2e_bench (two turns of nine tool calls and an answer).
callgrind="$(command -v valgrind) --quiet --tool=callgrind --dump-instr=no --demangle=no --compress-strings=no"
RAW_BENCH_DAEMON_LAUNCHER="$callgrind --callgrind-out-file=$work/rawd.%p" \
RAW_BENCH_CLIENT_LAUNCHER="$callgrind --callgrind-out-file=$work/raw.%p" \
  "$build/bin/e2e_bench" 2 9 >"$work/bench.log"

# Where they are: each program linked again, as the build links it, with a
# link map, into the scratch directory.
relink() {
  local program=$1
  local command
  command=$(ninja -C "$build" -t commands "bin/$program" | tail -n 1)
  command=${command/ -o bin\/$program / -o $work/$program -Wl,-Map=$work/$program.map -Wl,--no-demangle }
  (cd "$build" && eval "$command")
}

write_script() {
  local program=$1 out=$2
  relink "$program"
  local profiles=("$work/$program".[0-9]*)
  python3 "$root/scripts/hot_text.py" "$work/$program" "$work/$program.map" "${profiles[@]}" \
    >"$out.new"
  mv "$out.new" "$out"
  echo "hot-text: ${out#"$root"/}: $(sed -n 2p "$out" | sed -e 's/^ *//' -e 's/ \*\/$//')"
}

write_script rawd "$root/daemon/app/hot-text.ld"
write_script raw "$root/clients/cli/hot-text.ld"
