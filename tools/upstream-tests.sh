#!/usr/bin/env bash
# Runs JAX's own SparseCore test files, unmodified, on this CPU with scjit as the
# SparseCore backend, and ends with pytest's summary line.
#
#   tools/upstream-tests.sh [--python PY] [--target v6e|v7x] [--check-rules] [pytest args...]
#
# --python PY runs them with the JAX installed in PY's environment, where scjit
# must be installed too (pip install .); the default is .venv's Python (JAX
# 0.10.2), which imports scjit from the build (tools/setup.sh first).
# --check-rules also lowers every kernel through JAX's own SparseCore lowering and
# fails a test whose kernel scjit's rules judge otherwise (scjit.jax.oracle).
#
# The files are the newest in ../shared/upstream/jax-vX.Y.Z/tests/pallas beside
# this checkout (or $SCJIT_UPSTREAM, one such jax-vX.Y.Z folder) not newer than the
# JAX that runs them: tpu_sparsecore_pallas_test.py,
# tpu_sparsecore_pallas_debug_check_test.py,
# tpu_sparsecore_pallas_distributed_test.py (on 8 CPU devices standing for 8
# chips) and tpu_pallas_mpmd_test.py (whose tests that build a TensorCore mesh
# skip themselves: scjit runs SparseCore kernels only).
# A file the installed JAX cannot import (0.11.0's MPMD file under JAX 0.11.1 and
# later, which renamed an API it uses at import) is a collection error; the
# other files still run.
# tools/upstream/scjit_upstream_plugin.py says what it changes: only what tells
# the tests they are on a TPU, and the settings JAX's own runs use.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
python=$root/.venv/bin/python
target=v7x
check_rules=()
while (($#)); do
  case "$1" in
    --python) python=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --check-rules) check_rules=(--scjit-check-rules); shift ;;
    *) break ;;
  esac
done
if [[ "$python" == */* ]]; then python=$(cd "$(dirname "$python")" && pwd)/$(basename "$python"); fi  # the run cds
if ! jax_version=$("$python" -c 'import jax; print(jax.__version__)' 2>/dev/null); then
  echo "upstream-tests: $python has no JAX" >&2
  exit 2
fi
upstream=${SCJIT_UPSTREAM:-$("$python" "$root/tools/upstream/files.py" "$root/../shared/upstream" "$jax_version")}
tests=$upstream/tests/pallas
if [ -z "$upstream" ] || [ ! -f "$tests/tpu_sparsecore_pallas_test.py" ]; then
  echo "upstream-tests: no JAX SparseCore test files for JAX $jax_version in $root/../shared/upstream" \
    "(set SCJIT_UPSTREAM to a jax-vX.Y.Z folder)" >&2
  exit 2
fi
files=()
for f in tpu_sparsecore_pallas_test.py tpu_sparsecore_pallas_debug_check_test.py \
  tpu_sparsecore_pallas_distributed_test.py tpu_pallas_mpmd_test.py; do
  if [ -f "$tests/$f" ]; then files+=("$tests/$f"); fi
done
cd "$upstream"
PYTHONPATH="$root/tools/upstream${PYTHONPATH:+:$PYTHONPATH}" \
  exec "$python" -m pytest -p scjit_upstream_plugin -p no:cacheprovider --scjit-target "$target" \
  --jax_test_dut=tpu --continue-on-collection-errors "${check_rules[@]}" \
  -q "${files[@]}" "$@"
