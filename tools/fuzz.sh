#!/usr/bin/env bash
# Runs the libFuzzer targets that `bash tools/setup.sh --fuzz` builds in build-fuzz/
# (docs/fuzzing.md), one after the other, each for SECONDS (default 60) over its
# corpora:
#   build-fuzz/fuzz/work/T   what this and earlier runs found (written here)
#   tests/fuzz/corpus/T      the checked-in seeds and every crasher fixed so far
#   build-fuzz/fuzz/T        the generated seeds (frontend: fuzz_seeds' kernels)
# Exits non-zero on the first crash, leak, timeout (-timeout, s per input) or
# out-of-memory (-rss_limit_mb); the input that did it is written to
# build-fuzz/fuzz/artifacts/. Extra arguments after `--` go to libFuzzer.
#
#   bash tools/fuzz.sh                  # every target for 60 s
#   bash tools/fuzz.sh 600 npy          # npy_fuzzer for 10 minutes
#   bash tools/fuzz.sh 0 frontend -- -runs=10000000   # 10M inputs, no time limit
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
shift || true
targets=()
while (($#)) && [ "$1" != "--" ]; do targets+=("$1"); shift; done
if (($#)); then shift; fi
if ((${#targets[@]} == 0)); then targets=(frontend npy); fi

out=build-fuzz/fuzz
for t in "${targets[@]}"; do
  fuzzer=build-fuzz/tests/fuzz/${t}_fuzzer
  if [ ! -x "$fuzzer" ]; then echo "fuzz: no $fuzzer; run bash tools/setup.sh --fuzz" >&2; exit 2; fi
  mkdir -p "$out/work/$t" "$out/artifacts" "$out/$t"
  args=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1
    -artifact_prefix="$out/artifacts/$t-")
  # The dictionary: checked in (tests/fuzz/T.dict) or generated (build-fuzz/fuzz/T.dict).
  for dict in "tests/fuzz/$t.dict" "$out/$t.dict"; do
    if [ -f "$dict" ]; then args+=(-dict="$dict"); fi
  done
  echo "=== ${t}_fuzzer: $seconds s"
  "$fuzzer" "${args[@]}" "$@" "$out/work/$t" "tests/fuzz/corpus/$t" "$out/$t"
done
