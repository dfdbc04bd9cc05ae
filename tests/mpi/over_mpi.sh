#!/usr/bin/env bash
# Kernels on several chips in one process and over mpirun (docs/runtime.md,
# "Chips in several processes"):
#  - every example kernel in one process on 1, 2, 4 and 8 chips in a row
#    (--devices x=N; collective_permute_2d keeps its 2 x 4 mesh, all_to_all
#    and mpmd_reduce_scatter their 4 chips) ends with
#    exit 0, and on 4 chips over 2 and 4 ranks prints the same outputs
#    (stdout's fnv1a64 summaries) and findings (stderr) with the same exit code;
#  - the ring and the all-to-all under --seed, the same;
#  - a deadlock and run-time errors spanning ranks (tests/mpi/*.scir) end
#    every rank with the report of one process.
#   tests/mpi/over_mpi.sh BUILD_DIR SOURCE_DIR
set -uo pipefail
build=$1 src=$2
jit_run=$build/jit-run
# Open MPI refuses root without these (CI runs as root); more ranks than cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun --oversubscribe --bind-to none)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
  echo "FAIL $*"
  failures=$((failures + 1))
}

# Compares `jit-run ARGS` in one process with the same over N ranks: stdout,
# stderr (without mpirun's own banner, which follows a failing rank's exit)
# and exit code.
compare() {
  local label=$1 n=$2
  shift 2
  "$jit_run" "$@" >"$tmp/one.out" 2>"$tmp/one.err"
  local want=$?
  timeout 300 "${mpirun[@]}" -n "$n" "$jit_run" "$@" >"$tmp/mpi.out" 2>"$tmp/mpi.raw"
  local got=$?
  sed '/^-----------------------------------------/,$d' "$tmp/mpi.raw" >"$tmp/mpi.err"
  if [ "$got" != "$want" ] || ! cmp -s "$tmp/one.out" "$tmp/mpi.out" || ! cmp -s "$tmp/one.err" "$tmp/mpi.err"; then
    fail "$label over $n ranks: exit $got (one process: $want)"
    diff "$tmp/one.out" "$tmp/mpi.out" | head -5
    diff "$tmp/one.err" "$tmp/mpi.err" | head -10
    head -5 "$tmp/mpi.raw"
  else
    echo "ok   $label over $n ranks (exit $got)"
  fi
}

# The arguments to run example FILE on N chips in a row: the mesh, the
# in-range inputs jit-run's IO-INDEX warning names for index parameters, the
# checks both kinds of run have (the race check needs every chip in one
# process), and one thread (random indices make the scatters racy, and only a
# racy kernel's bytes on one thread are reproducible).
example_args() {
  local file=$1 n=$2
  local args=("$file" --check bounds,init,sync --threads 1)
  grep -q "devices(y" "$file" || args+=(--devices "x=$n")
  for spec in $("$jit_run" "${args[@]}" 2>&1 >/dev/null | sed -n 's/^help: pass --in \([^ ]*\) .*/\1/p'); do
    args+=(--in "$spec")
  done
  printf '%s\n' "${args[@]}"
}

for file in "$src"/examples/*.scir "$src"/examples/guide/*.scir; do
  name=$(basename "$file" .scir)
  for n in 1 2 4 8; do
    # (all_to_all's and mpmd_reduce_scatter's shapes are those of 4 chips:
    # a block per chip.)
    case "$name" in all_to_all | mpmd_reduce_scatter) [ "$n" != 4 ] && continue ;; esac
    mapfile -t args < <(example_args "$file" "$n")
    if ! "$jit_run" "${args[@]}" >/dev/null 2>"$tmp/err"; then
      fail "$name on $n chips in one process"
      head -5 "$tmp/err"
    fi
  done
  mapfile -t args < <(example_args "$file" 4)
  for ranks in 2 4; do compare "$name" "$ranks" "${args[@]}"; done
done

for ranks in 2 4; do
  compare "collective_permute --seed 7" "$ranks" "$src/examples/collective_permute.scir" --seed 7
  compare "all_to_all --seed 7" "$ranks" "$src/examples/all_to_all.scir" --seed 7 --threads 2
  compare "half_ring (deadlock)" "$ranks" "$src/tests/mpi/half_ring.scir"
  compare "off_the_ring (RT-BOUNDS, RT-SYNC)" "$ranks" "$src/tests/mpi/off_the_ring.scir"
done
# A mesh of fewer chips than ranks is refused on every rank, by rank 0.
timeout 60 "${mpirun[@]}" -n 4 "$jit_run" "$src/examples/remote_vmem_shared.scir" >/dev/null 2>"$tmp/err"
if ! grep -q "error\[IO-USAGE\]: kernel @remote_vmem_shared runs on 2 devices, fewer than the 4 processes" "$tmp/err" ||
  [ "$(grep -c 'error\[' "$tmp/err")" != 1 ]; then
  fail "4 ranks for 2 chips"
  head -5 "$tmp/err"
else
  echo "ok   4 ranks for 2 chips refused"
fi
exit $((failures > 0))
