#!/usr/bin/env bash
# Long fuzzing runs: builds the fuzz targets with the sanitizer stage's
# instrumentation (scripts/sanitize.sh: ASan, UBSan, libFuzzer's coverage)
# but at -O1, alone, in build/fuzz, and runs each one for RUNS executions (or
# until SECONDS pass), one after another, over a scratch copy of its seeds.
# Prints one line per target: executions, time, executions per second and
# corpus size, and keeps any crash input in build/fuzz/fuzz-artifacts/.
#
# usage: scripts/fuzz.sh [RUNS] [SECONDS] [TARGET...]
#   RUNS     executions per target (default 10000000)
#   SECONDS  the most time per target (default 3600)
#   TARGET   only these targets, with or without the _fuzz suffix
#            (default: every *_fuzz binary)
# RAW_FUZZ_MAX_LEN caps an input's size in bytes (default 8192).
# RAW_FUZZ_CAMPAIGN=DIR keeps each target's corpus in DIR/NAME instead of a
# scratch copy, so that a campaign longer than one sitting runs in segments
# that each resume from the corpus the last one left; DIR/NAME.segments
# records each segment's executions and seconds, and the line printed gives
# the campaign's total.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
runs="${1:-10000000}"
seconds="${2:-3600}"
max_len="${RAW_FUZZ_MAX_LEN:-8192}"
shift $(($# > 2 ? 2 : $#))
RAW_SANITIZE_BUILD_ONLY=1 RAW_SANITIZE_FLAGS="-O1 -g1" RAW_SANITIZE_TARGETS=raw_fuzz_targets \
  scripts/sanitize.sh . build/fuzz >/dev/null
bin=build/fuzz/bin
targets=("$@")
if ((${#targets[@]} == 0)); then
  for t in "$bin"/*_fuzz; do targets+=("$(basename "$t")"); done
fi
artifacts=build/fuzz/fuzz-artifacts
mkdir -p "$artifacts"
status=0
for target in "${targets[@]}"; do
  name="${target%_fuzz}"
  target="${name}_fuzz"
  if [[ -n "${RAW_FUZZ_CAMPAIGN:-}" ]]; then
    corpus="$RAW_FUZZ_CAMPAIGN/$name"
    mkdir -p "$corpus"
  else
    corpus="$(mktemp -d)"
  fi
  seeds=(tests/fuzz/corpus/"$name")
  case "$name" in
    sse_decoder) seeds=(tests/fixtures/sse/chat tests/fixtures/sse/responses
                        tests/fixtures/sse/anthropic tests/fixtures/sse/gemini) ;;
    chat_decoder) seeds=(tests/fixtures/sse/chat) ;;
    responses_decoder) seeds=(tests/fixtures/sse/responses) ;;
    anthropic_decoder) seeds=(tests/fixtures/sse/anthropic) ;;
    google_decoder) seeds=(tests/fixtures/sse/gemini) ;;
  esac
  log="$artifacts/$target.log"
  rc=0
  started=$(date +%s)
  "$bin/$target" -runs="$runs" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$target-" "$corpus" "${seeds[@]}" \
    >"$log" 2>&1 || rc=$?
  execs="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' | tail -1)"
  rate="$(grep -E '^stat::average_exec_per_sec' "$log" | awk '{print $2}' | tail -1)"
  total=""
  if [[ -n "${RAW_FUZZ_CAMPAIGN:-}" ]]; then
    echo "${execs:-0} $(($(date +%s) - started))" >>"$RAW_FUZZ_CAMPAIGN/$name.segments"
    total="$(awk '{e += $1; s += $2; n++} END {printf ", campaign %d executions in %d s, %d segments", e, s, n}' \
      "$RAW_FUZZ_CAMPAIGN/$name.segments")"
  fi
  printf '%-24s %s executions, %s/s, %s corpus files%s%s\n' "$target" "${execs:-?}" \
    "${rate:-?}" "$(ls "$corpus" | wc -l)" "$total" "$( ((rc == 0)) || echo ", FAILED (see $log)")"
  ((rc == 0)) || status=1
  [[ -n "${RAW_FUZZ_CAMPAIGN:-}" ]] || rm -rf "$corpus"
done
exit "$status"
