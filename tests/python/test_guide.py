"""The SparseCore guide's kernels (examples/guide/) run by jit-run on an 8-lane and a
16-lane target, checked against numpy references written from the guide.

Each case writes its inputs as .npy files, runs the built jit-run as a user would
(`--in name=file.npy --out name=file.npy`, plus `--target` when the file does not name
its own) and compares the outputs with an independent numpy computation: np.cumsum,
x + 1, x[ids], and a scatter written as a loop. Every run must exit 0 with nothing on
stdout or stderr, and its report must name the target asked for.

jit-run is $SCJIT_JIT_RUN (CTest sets it), else build/jit-run of this checkout.
"""

import json
import os
import pathlib
import re
import subprocess

import numpy as np
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
GUIDE = ROOT / "examples" / "guide"
JIT_RUN = os.environ.get("SCJIT_JIT_RUN", str(ROOT / "build" / "jit-run"))

# v6e: 8 lanes, v7x: 16 lanes; both have 2 SparseCores of 16 vector subcores.
TARGETS = ("v6e", "v7x")
INT32 = np.iinfo(np.int32)

# The file of each kernel on each target: one file for both where the kernel has no
# lane-width vectors, one per target where it has (add_one_<target>.scir).
FILES = {
    "cumsum": {"v6e": "cumsum.scir", "v7x": "cumsum.scir"},
    "add_one": {"v6e": "add_one_v6e.scir", "v7x": "add_one_v7x.scir"},
    "gather": {"v6e": "gather.scir", "v7x": "gather.scir"},
    "scatter": {"v6e": "scatter.scir", "v7x": "scatter.scir"},
    "gather_async": {"v6e": "gather_async.scir", "v7x": "gather_async.scir"},
    "core_map_add_one": {"v6e": "core_map_add_one.scir", "v7x": "core_map_add_one.scir"},
}


def run_kernel(tmp_path, kernel, target, inputs, outputs=("o",)):
    """Runs examples/guide/<kernel's file> on `target` with `inputs` (name -> array;
    parameters left out get jit-run's default, iota) and returns the named outputs."""
    path = GUIDE / FILES[kernel][target]
    args = [JIT_RUN, str(path)]
    named = re.search(r'^target "(\w+)"', path.read_text(), re.MULTILINE)
    if named:
        assert named.group(1) == target, f"{path.name} is written for {named.group(1)}"
    else:
        args += ["--target", target]
    for name, array in inputs.items():
        file = tmp_path / f"in_{name}.npy"
        np.save(file, array)
        args += ["--in", f"{name}={file}"]
    for name in outputs:
        args += ["--out", f"{name}={tmp_path / f'out_{name}.npy'}"]
    report = tmp_path / "report.json"
    args += ["--report", str(report)]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}:\n{proc.stderr}"
    assert proc.stderr == ""
    assert proc.stdout == ""
    assert json.loads(report.read_text())["target"] == target
    return {name: np.load(tmp_path / f"out_{name}.npy") for name in outputs}


def iota(shape):
    """jit-run's default input: 0, 1, 2, ... in row-major order."""
    return np.arange(np.prod(shape), dtype=np.int32).reshape(shape)


def random_int32(rng, shape):
    """Any int32, the extremes included."""
    x = rng.integers(INT32.min, INT32.max, size=shape, endpoint=True, dtype=np.int32)
    x.flat[:2] = INT32.max, INT32.min
    return x


def expect_equal(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(got, want)


def test_every_guide_file_is_tested():
    tested = {name for files in FILES.values() for name in files.values()}
    assert tested == {p.name for p in GUIDE.glob("*.scir")}


# --- "A basic SparseCore kernel": cumsum on the scalar subcores ------------------------


def cumsum_reference(x):
    # int64 sums of 16 int32 values cannot overflow; the cast back wraps like int32.
    return np.cumsum(x.astype(np.int64), axis=1).astype(np.int32)


@pytest.mark.parametrize("target", TARGETS)
def test_cumsum(tmp_path, target):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 64, size=(2, 16), dtype=np.int32)  # the guide's input
    expect_equal(run_kernel(tmp_path, "cumsum", target, {"x": x})["o"], cumsum_reference(x))


@pytest.mark.parametrize("target", TARGETS)
def test_cumsum_wraps_around(tmp_path, target):
    x = random_int32(np.random.default_rng(1), (2, 16))
    want = cumsum_reference(x)
    assert (want != np.cumsum(x.astype(np.int64), axis=1)).any()  # some sums do wrap
    expect_equal(run_kernel(tmp_path, "cumsum", target, {"x": x})["o"], want)


@pytest.mark.parametrize("target", TARGETS)
def test_cumsum_default_input(tmp_path, target):
    want = np.cumsum(iota((2, 16)), axis=1).astype(np.int32)
    assert want[1, 15] == 376  # the header's example
    expect_equal(run_kernel(tmp_path, "cumsum", target, {})["o"], want)


# --- "Pipelining in SparseCore kernels" (sc_add_one) and core_map's per-core split ----


def add_one_reference(x):
    return (x.astype(np.int64) + 1).astype(np.int32)


@pytest.mark.parametrize("kernel", ["add_one", "core_map_add_one"])
@pytest.mark.parametrize("target", TARGETS)
def test_add_one(tmp_path, target, kernel):
    rng = np.random.default_rng(2)
    x = rng.integers(0, 64, size=(4096, 128), dtype=np.int32)  # the guide's input
    expect_equal(run_kernel(tmp_path, kernel, target, {"x": x})["o"], x + 1)


@pytest.mark.parametrize("kernel", ["add_one", "core_map_add_one"])
@pytest.mark.parametrize("target", TARGETS)
def test_add_one_any_int32(tmp_path, target, kernel):
    x = random_int32(np.random.default_rng(3), (4096, 128))
    o = run_kernel(tmp_path, kernel, target, {"x": x})["o"]
    expect_equal(o, add_one_reference(x))
    assert o.flat[0] == INT32.min  # INT32_MAX + 1 wraps


@pytest.mark.parametrize("kernel", ["add_one", "core_map_add_one"])
@pytest.mark.parametrize("target", TARGETS)
def test_add_one_default_input(tmp_path, target, kernel):
    o = run_kernel(tmp_path, kernel, target, {})["o"]
    expect_equal(o, iota((4096, 128)) + 1)


# --- "Gather and scatter": the guide's gather, and the same gather double-buffered ----

ROWS, WIDTH, NUM_INDICES = 4096, 128, 4096  # batch_size, value_dim, num_indices


def random_ids(rng):
    """The guide's indices: uniform in [0, batch_size), so with repeats and misses; the
    first and last row named at least once."""
    ids = rng.integers(0, ROWS, size=NUM_INDICES, dtype=np.int32)
    ids[5], ids[-5] = 0, ROWS - 1
    return ids


@pytest.mark.parametrize("kernel", ["gather", "gather_async"])
@pytest.mark.parametrize("target", TARGETS)
def test_gather(tmp_path, target, kernel):
    rng = np.random.default_rng(4)
    x = np.arange(ROWS * WIDTH, dtype=np.int32).reshape(ROWS, WIDTH)  # the guide's table
    ids = random_ids(rng)
    assert len(np.unique(ids)) < NUM_INDICES  # repeats are part of the test
    o = run_kernel(tmp_path, kernel, target, {"x": x, "ids": ids.reshape(1, -1)})["o"]
    expect_equal(o, np.take(x, ids, axis=0))


@pytest.mark.parametrize("kernel", ["gather", "gather_async"])
@pytest.mark.parametrize("target", TARGETS)
def test_gather_any_rows(tmp_path, target, kernel):
    rng = np.random.default_rng(5)
    x = random_int32(rng, (ROWS, WIDTH))
    ids = random_ids(rng)
    o = run_kernel(tmp_path, kernel, target, {"x": x, "ids": ids.reshape(1, -1)})["o"]
    expect_equal(o, x[ids])


@pytest.mark.parametrize("kernel", ["gather", "gather_async"])
@pytest.mark.parametrize("target", TARGETS)
def test_gather_default_inputs(tmp_path, target, kernel):
    o = run_kernel(tmp_path, kernel, target, {})["o"]
    expect_equal(o, iota((ROWS, WIDTH)))  # ids = iota: the identity gather


def scatter_reference(x, ids, out):
    """o[ids[i]] = x[i] in index order, so a repeated id keeps its last row (the runtime's
    rule within one DMA); rows no id names keep `out`'s value."""
    out = out.copy()
    for i, row in enumerate(ids):
        out[row] = x[i]
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_as_in_the_guide(tmp_path, target):
    # The guide scatters back what its gather read: scatter(data[ids], ids) == data on
    # every row some id names (rows no id names are never written).
    rng = np.random.default_rng(6)
    data = np.arange(ROWS * WIDTH, dtype=np.int32).reshape(ROWS, WIDTH)
    ids = random_ids(rng)
    named = np.unique(ids)
    assert 0.5 * ROWS < len(named) < ROWS
    o = run_kernel(tmp_path, "scatter", target, {"x": data[ids], "ids": ids.reshape(1, -1)})["o"]
    expect_equal(o[named], data[named])


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_permutation(tmp_path, target):
    # Every row named once: the whole output is defined.
    rng = np.random.default_rng(7)
    x = random_int32(rng, (NUM_INDICES, WIDTH))
    ids = rng.permutation(ROWS).astype(np.int32)
    o = run_kernel(tmp_path, "scatter", target, {"x": x, "ids": ids.reshape(1, -1)})["o"]
    want = np.empty_like(x)
    want[ids] = x
    expect_equal(o, want)


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_repeated_id_in_one_window(tmp_path, target):
    # Different rows sent to one id by the same DMA (one window of 128 ids): the later
    # one lands. Repeats only within a window, where the order is defined.
    rng = np.random.default_rng(8)
    x = random_int32(rng, (NUM_INDICES, WIDTH))
    ids = rng.permutation(ROWS).astype(np.int32)
    lost = [ids[10], ids[300], ids[4000]]
    ids[10] = ids[3]  # window 0: ids 3 and 10 name one row; row 10's row wins
    ids[300] = ids[383]  # window 2: 383 comes later and wins
    ids[4000] = ids[4095]  # window 31
    o = run_kernel(tmp_path, "scatter", target, {"x": x, "ids": ids.reshape(1, -1)})["o"]
    want = scatter_reference(x, ids, np.zeros_like(x))
    expect_equal(o[ids[3]], x[10])
    expect_equal(o[ids[383]], x[383])
    named = np.setdiff1d(np.arange(ROWS), lost)
    expect_equal(o[named], want[named])


@pytest.mark.parametrize("target", TARGETS)
def test_scatter_default_inputs(tmp_path, target):
    o = run_kernel(tmp_path, "scatter", target, {})["o"]
    expect_equal(o, iota((ROWS, WIDTH)))  # ids = iota: the identity scatter
