#!/usr/bin/env bash
# The Python tests and JAX's own SparseCore test files with another Python and JAX
# than .venv's, as a user has them: scjit built as a wheel (pip wheel .) and
# installed with pip into a fresh virtual environment with that JAX.
#
#   bash tools/jax-line-tests.sh [--upstream-only] PYTHON JAX_VERSION
#   (e.g. "$(pyenv prefix 3.12)/bin/python" 0.12.1; --upstream-only: JAX's test files only)
#
# The environment is build-py/<python>-jax<version>; the wheel is built in
# build-pip/ (incrementally) and kept in build-pip/dist. Runs tests/python against
# the installed package (with its `jit-run` command), then tools/upstream/check.py
# on v6e and v7x. Fails, saying so, when PYTHON is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
upstream_only=false
if [ "${1:-}" = --upstream-only ]; then upstream_only=true; shift; fi
python=${1:?usage: tools/jax-line-tests.sh PYTHON JAX_VERSION}
jax=${2:?usage: tools/jax-line-tests.sh PYTHON JAX_VERSION}
if ! "$python" -c '' 2>/dev/null; then
  echo "jax-line-tests: no Python at '$python' (pyenv versions lists the ones installed)" >&2
  exit 1
fi
tag=$("$python" -c 'import sys; print(f"py{sys.version_info[0]}.{sys.version_info[1]}")')
venv=build-py/$tag-jax$jax
if ! "$venv/bin/python" -c '' 2>/dev/null; then
  echo "jax-line-tests: creating $venv"
  rm -rf "$venv"
  "$python" -m venv "$venv"
fi
# tests/python's pinned packages, with this JAX instead of .venv's.
requirements=$venv/requirements.txt
{ grep -v -E '^(jax|jaxlib)==' tests/python/requirements.txt; echo "jax==$jax"; echo "jaxlib==$jax"; } > "$requirements.new"
if ! cmp -s "$requirements.new" "$requirements"; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$requirements.new"
  mv "$requirements.new" "$requirements"
else
  rm "$requirements.new"
fi

echo "jax-line-tests: pip wheel . ($tag)"
rm -f build-pip/dist/scjit-*-cp"${tag#py}"*.whl
"$venv/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps -w build-pip/dist .
wheel=$(ls build-pip/dist/scjit-*-cp"$(echo "${tag#py}" | tr -d .)"-*.whl)
"$venv/bin/python" -m pip install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel"

echo "jax-line-tests: jit-run from the wheel"
"$venv/bin/jit-run" examples/add_one_manual.scir > /dev/null

if ! $upstream_only; then
  echo "jax-line-tests: tests/python with JAX $jax ($tag)"
  env -u PYTHONPATH SCJIT_JIT_RUN="$PWD/$venv/bin/jit-run" PYTHONDONTWRITEBYTECODE=1 \
    "$venv/bin/python" -m pytest -q -p no:cacheprovider -p no:warnings tests/python
fi

for target in v6e v7x; do
  echo "jax-line-tests: JAX's own SparseCore tests on $target with JAX $jax ($tag)"
  status=0
  env -u PYTHONPATH PYTHONDONTWRITEBYTECODE=1 "$venv/bin/python" tools/upstream/check.py --python "$PWD/$venv/bin/python" \
    --target "$target" > "$venv/upstream-$target.log" 2>&1 || status=$?
  tail -1 "$venv/upstream-$target.log"
  if ((status == 77)); then continue; fi  # the test files are not beside the checkout
  if ((status != 0)); then cat "$venv/upstream-$target.log"; exit 1; fi
done
