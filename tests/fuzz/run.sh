#!/usr/bin/env bash
# Build the libFuzzer harnesses of the C core with clang and run each for a
# while. Usage: tests/fuzz/run.sh [seconds per harness, default 60] [harness ...]
#
# Builds into build-fuzz/ (next to the sources' root), seeds every run with
# the committed corpus tests/fuzz/corpus/<harness>/ and writes what it
# discovers to build-fuzz/work/<harness>/ (not to the committed corpus). A
# crash, a leak, a sanitizer report, a broken invariant or an input slower
# than 30 s stops the run with a non-zero status; the input is left in
# build-fuzz/ as crash-*, leak-* or timeout-* (add it to the corpus and a C
# regression test when fixed). The execution count of each harness is
# printed at the end ("stat::number_of_executed_units").
#
# FUZZ_SEED=N fixes libFuzzer's random seed (CI sets it, so that a red run
# can be replayed: the same seed and corpus take the same mutations, and only
# the machine's speed decides how far they get). Unset, every run explores
# afresh: do that for long runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
SECONDS_EACH=${1:-60}
shift || true
HARNESSES=("$@")
[ ${#HARNESSES[@]} -gt 0 ] || HARNESSES=(fuzz_data fuzz_setters fuzz_train fuzz_homkermap fuzz_model_file fuzz_kernel_train)
CLANG=${CLANG:-clang}
OUT="$ROOT/build-fuzz"
mkdir -p "$OUT/work"

# The core's sources, as meson.build lists them (so a new source needs no edit here).
mapfile -t CORE < <(sed -n "/^core_sources = files(/,/^)/p" meson.build | grep -o "src/core/[A-Za-z0-9_/]*\.c")
[ ${#CORE[@]} -gt 0 ] || { echo "no core sources found in meson.build" >&2; exit 1; }
FLAGS=(-std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -fno-omit-frame-pointer
       -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iinclude)

# The core once, instrumented for coverage (fuzzer-no-link), one clang per
# core of the machine; then each harness links those objects.
OBJ="$OUT/obj"
rm -rf "$OBJ"
mkdir -p "$OBJ"
CORE_FLAGS=("${FLAGS[@]/-fsanitize=fuzzer,address,undefined/-fsanitize=fuzzer-no-link,address,undefined}")
export CLANG OBJ
printf '%s\n' "${CORE[@]}" |
  xargs -P "$(nproc)" -I{} bash -c '"$CLANG" "$@" -c {} -o "$OBJ/$(echo {} | tr / _).o"' _ "${CORE_FLAGS[@]}"
for h in "${HARNESSES[@]}"; do
  "$CLANG" "${FLAGS[@]}" -o "$OUT/$h" "tests/fuzz/$h.c" "$OBJ"/*.o -lm
done

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
SEED_ARG=()
[ -z "${FUZZ_SEED:-}" ] || SEED_ARG=(-seed="$FUZZ_SEED")
status=0
for h in "${HARNESSES[@]}"; do
  echo "== $h: ${SECONDS_EACH}s (log: build-fuzz/$h.log)"
  mkdir -p "$OUT/work/$h" "tests/fuzz/corpus/$h"
  if (cd "$OUT" && nice "./$h" -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=2048 "${SEED_ARG[@]}" \
        -print_final_stats=1 "work/$h" "$ROOT/tests/fuzz/corpus/$h" >"$OUT/$h.log" 2>&1); then
    grep -E "^(Done|stat::number_of_executed_units|stat::average_exec_per_sec)" "$OUT/$h.log"
  else
    status=1
    grep -v -E "^(INFO|#[0-9])" "$OUT/$h.log" | head -n 60
    echo "$h FAILED: the input is in build-fuzz/ (crash-*, leak-*, timeout-*, oom-*)"
  fi
done
exit $status
