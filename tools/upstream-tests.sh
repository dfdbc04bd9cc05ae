#!/usr/bin/env bash
# Runs JAX's own SparseCore test files, unmodified, on this CPU with scjit as the
# SparseCore backend, and ends with pytest's summary line.
#
#   tools/upstream-tests.sh [--target v6e|v7x] [--check-rules] [pytest args...]
#
# --check-rules also lowers every kernel through JAX's own SparseCore lowering and
# fails a test whose kernel scjit's rules judge otherwise (scjit.jax.oracle).
#
# The files are those of JAX 0.10.2 in ../shared/upstream/jax-v0.10.2/tests/pallas
# beside this checkout (or $SCJIT_UPSTREAM): tpu_sparsecore_pallas_test.py,
# tpu_sparsecore_pallas_debug_check_test.py and
# tpu_sparsecore_pallas_distributed_test.py (on 8 CPU devices standing for 8
# chips). tools/upstream/scjit_upstream_plugin.py says what it
# changes: only what tells the tests they are on a TPU, and the settings JAX's own
# runs use. Needs tools/setup.sh first (the build and .venv).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=v7x
check_rules=()
while (($#)); do
  case "$1" in
    --target) target=$2; shift 2 ;;
    --check-rules) check_rules=(--scjit-check-rules); shift ;;
    *) break ;;
  esac
done
upstream=${SCJIT_UPSTREAM:-$root/../shared/upstream/jax-v0.10.2}
tests=$upstream/tests/pallas
if [ ! -f "$tests/tpu_sparsecore_pallas_test.py" ]; then
  echo "upstream-tests: JAX's SparseCore tests are not in $tests (set SCJIT_UPSTREAM to the jax-v0.10.2 folder)" >&2
  exit 2
fi
files=("$tests/tpu_sparsecore_pallas_test.py" "$tests/tpu_sparsecore_pallas_debug_check_test.py"
  "$tests/tpu_sparsecore_pallas_distributed_test.py")
cd "$upstream"
PYTHONPATH="$root/build/python:$root/tools/upstream${PYTHONPATH:+:$PYTHONPATH}" \
  exec "$root/.venv/bin/python" -m pytest -p scjit_upstream_plugin -p no:cacheprovider --scjit-target "$target" \
  --jax_test_dut=tpu "${check_rules[@]}" \
  -q "${files[@]}" "$@"
