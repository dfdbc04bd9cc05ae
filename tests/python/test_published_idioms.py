"""Idioms of SparseCore kernels published outside JAX (serving, training and
embedding libraries), which a TPU runs correctly and scjit must too, with no
finding: a MoE ragged gather whose row count is a scalar DMA'd into lane 0 of a
vector buffer; a first-iteration read that a select discards; a window read over
never-written padding of which lane 0 is kept; a VMEM_SHARED buffer written in
part and copied whole to HBM; a top-k appending its winners with compressed
stores at a running offset; packed bf16 and int8 rows gathered and scattered as
32-bit words through `ref.bitcast(jnp.int32)`; DMAs of run-time length 0.

Each runs through scjit.jax inside jax.jit and, exported to .scir, through
jit-run, on v6e (8 lanes) and v7x (16 lanes), checked against numpy. Beside each
is a bug twin in which an unwritten lane decides something (an index, a branch,
a DMA's size): its RT-INIT finding names the use and where the unwritten value
was read, at the kernel's Python lines. An accumulator never zeroed is a
warning (scjit.RunWarning), and an error under checks="strict".

jit-run is $SCJIT_JIT_RUN (CTest sets it), else build/jit-run of this checkout.
"""

from __future__ import annotations

import dataclasses
import os
import pathlib
import re
import subprocess
import warnings
from collections.abc import Callable

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc

import scjit
import scjit.jax as sjax

ROOT = pathlib.Path(__file__).resolve().parents[2]
JIT_RUN = os.environ.get("SCJIT_JIT_RUN", str(ROOT / "build" / "jit-run"))
TARGETS = ("v6e", "v7x")
LANES = {"v6e": 8, "v7x": 16}


def at(marker):
    """`file:line:col` of the statement that ends in the comment `# <marker>`."""
    with open(__file__) as f:
        [(line, text)] = [(k + 1, t) for k, t in enumerate(f) if t.rstrip().endswith(f"# {marker}")]
    return f"{__file__}:{line}:{len(text) - len(text.lstrip()) + 1}"


def line_of(marker):
    return at(marker).rsplit(":", 1)[0]


def rng(seed):
    return np.random.default_rng(seed)


def mesh():
    return plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)


def sds(shape, dtype):
    return jax.ShapeDtypeStruct(shape, dtype)


@dataclasses.dataclass
class Idiom:
    """A kernel on its inputs: `fn(*args)` binds one SparseCore kernel, `check`
    compares its outputs (a tuple, in out-parameter order) with numpy's."""

    fn: Callable
    args: tuple
    check: Callable[[tuple], None]


IDIOMS: dict[str, Callable[..., Idiom]] = {}


def idiom(fn):
    IDIOMS[fn.__name__] = fn
    return fn


def outputs(result):
    return tuple(np.asarray(r) for r in (result if isinstance(result, (tuple, list)) else (result,)))


# --- MoE ragged gather: a row count DMA'd into lane 0 -----------------------------------

EXPERTS = 2


@idiom
def moe_ragged_gather(nl, bug=False):
    """Expert e (a subcore) gathers counts[e] token rows by its id list; the
    count is one scalar copied into lane 0 of an nl-lane buffer and read as
    lane 0 of the vector (the bug reads lane 1)."""
    cap, tokens = 2 * nl, 4 * nl
    x = rng(1).integers(-1000, 1000, size=(tokens, nl), dtype=np.int32)
    ids = np.stack([rng(2 + e).permutation(tokens)[:cap] for e in range(EXPERTS)]).astype(np.int32)
    counts = np.array([nl + 3, 5], dtype=np.int32)

    @pl.kernel(out_type=sds((EXPERTS, cap, nl), jnp.int32), mesh=mesh(),
               scratch_types=[pltpu.VMEM((nl,), jnp.int32), pltpu.VMEM((cap,), jnp.int32),
                              pltpu.VMEM((cap, nl), jnp.int32)])
    def gather(x_hbm, ids_hbm, counts_hbm, o_hbm, n_vmem, ids_vmem, rows):
        e = lax.axis_index("subcore")

        @pl.when(e < EXPERTS)
        def _():
            pltpu.sync_copy(counts_hbm.at[pl.ds(e, 1)], n_vmem.at[pl.ds(0, 1)])
            n = n_vmem[...][1 if bug else 0]  # op: moe count
            pltpu.sync_copy(ids_hbm.at[e], ids_vmem)
            pltpu.sync_copy(x_hbm.at[ids_vmem.at[pl.ds(0, n)]], rows.at[pl.ds(0, n)])  # op: moe gather
            pltpu.sync_copy(rows, o_hbm.at[e])  # rows past n were never written: the caller slices them off

    def check(outs):
        [o] = outs
        for e in range(EXPERTS):
            np.testing.assert_array_equal(o[e, :counts[e]], x[ids[e, :counts[e]]])

    return Idiom(gather, (x, ids, counts), check)


# --- A first-iteration read that a select discards ------------------------------------------


@idiom
def delta_rows(nl, bug=False):
    """Each row minus the previous row's last element (0 for the first row): the
    first iteration reads the never-written carry buffer and a select discards
    it. The bug's select keeps it."""
    rows = 4
    x = rng(5).integers(-100, 100, size=(rows, nl), dtype=np.int32)

    @pl.kernel(out_type=sds((rows, nl), jnp.int32), mesh=mesh(),
               scratch_types=[pltpu.VMEM((rows, nl), jnp.int32), pltpu.VMEM((rows, nl), jnp.int32),
                              pltpu.VMEM((nl,), jnp.int32)])
    def delta(x_hbm, o_hbm, x_vmem, o_vmem, last):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(x_hbm, x_vmem)

            @pl.loop(0, rows)
            def _(i):
                first = (i < 0) if bug else (i == 0)
                prev = jnp.where(first, 0, last[...][nl - 1])  # op: delta prev
                o_vmem[i] = x_vmem[i] - prev
                last[...] = x_vmem[i]

            pltpu.sync_copy(o_vmem, o_hbm)

    def check(outs):
        [o] = outs
        prev = np.concatenate([[0], x[:-1, -1]]).astype(np.int32)
        np.testing.assert_array_equal(o, x - prev[:, None])

    return Idiom(delta, (x,), check)


# --- A window over never-written padding, lane 0 kept ----------------------------------------


@idiom
def lane0_windows(nl, bug=False):
    """k values copied into a buffer of 2*nl; an nl-lane window read at each of
    them, lane 0 kept. The bug branches on lane 1 of the last window, which lies
    in the never-written padding."""
    k = nl // 2 + 1
    x = rng(6).integers(1, 100, size=(k,), dtype=np.int32)

    @pl.kernel(out_type=sds((nl,), jnp.int32), mesh=mesh(),
               scratch_types=[pltpu.VMEM((2 * nl,), jnp.int32), pltpu.VMEM((nl,), jnp.int32)])
    def windows(x_hbm, o_hbm, buf, o_vmem):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(x_hbm, buf.at[pl.ds(0, k)])
            lanes = lax.iota(jnp.int32, nl)
            acc = jnp.zeros((nl,), jnp.int32)
            for j in range(k):
                v = buf[pl.ds(j, nl)]  # op: window read
                acc = jnp.where(lanes == j, v[0], acc)
            o_vmem[...] = acc
            if bug:
                @pl.when(buf[pl.ds(k - 1, nl)][1] > 0)  # op: window branch
                def _():
                    o_vmem[...] = acc + 1

            pltpu.sync_copy(o_vmem, o_hbm)

    def check(outs):
        [o] = outs
        np.testing.assert_array_equal(o, np.concatenate([x, np.zeros(nl - k, np.int32)]))

    return Idiom(windows, (x,), check)


# --- A VMEM_SHARED buffer written in part, copied whole to HBM -----------------------------


@idiom
def shared_part_to_hbm(nl, bug=False):
    """Subcore 0 fills the first half of a VMEM_SHARED buffer, and the whole
    buffer goes to HBM (as the same copy from VMEM does); the caller keeps the
    first half. The bug indexes the table with the second half's first word."""
    x = rng(7).integers(0, 2 * nl, size=(nl,), dtype=np.int32)

    @pl.kernel(out_type=sds((2 * nl,), jnp.int32), mesh=mesh(),
               scratch_types=[pltpu.VMEM_SHARED((2 * nl,), jnp.int32), pltpu.VMEM((2 * nl,), jnp.int32)])
    def shared(x_hbm, o_hbm, sh, v):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(x_hbm, sh.at[pl.ds(0, nl)])
            pltpu.sync_copy(sh, o_hbm)
            if bug:
                pltpu.sync_copy(sh, v)
                i = v[pl.ds(nl, nl)][0]  # op: shared read
                pltpu.sync_copy(x_hbm.at[pl.ds(i, 1)], o_hbm.at[pl.ds(0, 1)])  # op: shared index

    def check(outs):
        [o] = outs
        np.testing.assert_array_equal(o[:nl], x)

    return Idiom(shared, (x,), check)


# --- A top-k appending winners with compressed stores ------------------------------------------

WINNERS = (1, 2, 1, 3)  # per row: 7 in all, fewer than 8 lanes


@idiom
def topk_append(nl, bug=False):
    """The values above a threshold, in order, appended at a running offset with
    store_compressed into a buffer of nl (the algorithm keeps n + popcount(m) <=
    nl, so the window's end passes the buffer's). The bug branches on the first
    lane past the winners."""
    rows, threshold = len(WINNERS), 100
    x = rng(8).integers(0, threshold, size=(rows, nl), dtype=np.int32)
    for r, w in enumerate(WINNERS):
        x[r, rng(9 + r).permutation(nl)[:w]] = rng(20 + r).integers(threshold + 1, 1000, size=w)

    @pl.kernel(out_type=(sds((nl,), jnp.int32), sds((nl,), jnp.int32)), mesh=mesh(),
               scratch_types=[pltpu.VMEM((rows, nl), jnp.int32), pltpu.VMEM((nl,), jnp.int32),
                              pltpu.VMEM((nl,), jnp.int32)])
    def topk(x_hbm, o_hbm, n_hbm, x_vmem, win, n_vmem):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(x_hbm, x_vmem)

            def step(r, n):
                v = x_vmem[r]
                m = v > threshold
                plsc.store_compressed(win.at[pl.ds(n, nl)], v, mask=m)
                return n + jnp.sum(m.astype(jnp.int32))

            n = lax.fori_loop(0, rows, step, jnp.int32(0))
            n_vmem[...] = jnp.full((nl,), n, jnp.int32)
            if bug:
                lanes = lax.iota(jnp.int32, nl)
                nxt = jnp.sum(jnp.where(lanes == n, win[...], 0))  # op: topk past

                @pl.when(nxt > threshold)  # op: topk branch
                def _():
                    n_vmem[...] = jnp.full((nl,), n + 1, jnp.int32)

            pltpu.sync_copy(win, o_hbm)  # lanes past n were never written
            pltpu.sync_copy(n_vmem, n_hbm)

    def check(outs):
        o, n = outs
        want = x[x > threshold]
        np.testing.assert_array_equal(n, np.full(nl, len(want), np.int32))
        np.testing.assert_array_equal(o[:len(want)], want)

    return Idiom(topk, (x,), check)


# --- Packed bf16 and int8 rows gathered and scattered as words -------------------------------


def words_of(narrow, k):
    """Rows of `narrow` (r*k + j pieces) as 32-bit words, piece j in bits 32/k*j."""
    bits = 32 // k
    u = narrow.view(np.uint16 if k == 2 else np.uint8).astype(np.uint32)
    words = np.zeros((u.shape[0] // k, u.shape[1]), np.uint32)
    for j in range(k):
        words |= u[j::k] << np.uint32(bits * j)
    return words.view(np.int32)


@idiom
def packed_row_gather(nl, bug=False):
    """Rows of a bf16 and an int8 table gathered by row index as 32-bit words
    (`ref.bitcast(jnp.int32).at[idx]`), then a bf16 table's rows scattered back.
    The bug's index list is written in part."""
    rows = 2 * nl
    t16 = (rng(10).standard_normal((2 * rows, nl)) * 8).astype(ml_dtypes.bfloat16)
    t8 = rng(11).integers(-128, 128, size=(4 * rows, nl), dtype=np.int8)
    ids = rng(12).permutation(rows)[:nl].astype(np.int32)
    words = rng(13).integers(-2**31, 2**31, size=(nl, nl), dtype=np.int64).astype(np.int32)
    dst16 = np.zeros((2 * rows, nl), ml_dtypes.bfloat16)

    @pl.kernel(out_type=(sds((nl, nl), jnp.int32), sds((nl, nl), jnp.int32), sds((2 * rows, nl), jnp.bfloat16)),
               mesh=mesh(),
               scratch_types=[pltpu.VMEM((nl,), jnp.int32), pltpu.VMEM((nl, nl), jnp.int32),
                              pltpu.VMEM((nl, nl), jnp.int32)])
    def packed(t16_hbm, t8_hbm, ids_hbm, w_hbm, d_in, o16_hbm, o8_hbm, d_hbm, ids_vmem, buf, wbuf):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            half = nl // 2 if bug else nl
            pltpu.sync_copy(ids_hbm.at[pl.ds(0, half)], ids_vmem.at[pl.ds(0, half)])
            pltpu.sync_copy(t16_hbm.bitcast(jnp.int32).at[ids_vmem], buf)  # op: packed gather
            pltpu.sync_copy(buf, o16_hbm)
            pltpu.sync_copy(t8_hbm.bitcast(jnp.int32).at[ids_vmem], buf)
            pltpu.sync_copy(buf, o8_hbm)
            pltpu.sync_copy(d_in, d_hbm)
            pltpu.sync_copy(w_hbm, wbuf)
            pltpu.sync_copy(wbuf, d_hbm.bitcast(jnp.int32).at[ids_vmem])

    def check(outs):
        o16, o8, d = outs
        np.testing.assert_array_equal(o16, words_of(t16, 2)[ids])
        np.testing.assert_array_equal(o8, words_of(t8, 4)[ids])
        want = words_of(dst16, 2).copy()
        want[ids] = words
        np.testing.assert_array_equal(words_of(np.asarray(d), 2), want)

    return Idiom(packed, (t16, t8, ids, words, dst16), check)


# --- DMAs of run-time length 0 ------------------------------------------------------------------


@idiom
def empty_dmas(nl, bug=False, n=0):
    """Two DMAs of n rows on one semaphore (a sync_copy of a tuple), n read from
    lane 0 of a vector buffer: with n = 0 both are empty, and each is done at
    its wait. The bug reads n from a lane nothing wrote."""
    a = rng(14).integers(0, 100, size=(nl, nl), dtype=np.int32)
    b = rng(15).integers(0, 100, size=(nl, nl), dtype=np.int32)
    count = np.array([n], np.int32)

    @pl.kernel(out_type=(sds((nl, nl), jnp.int32), sds((nl, nl), jnp.int32)), mesh=mesh(),
               scratch_types=[pltpu.VMEM((nl,), jnp.int32), pltpu.VMEM((nl, nl), jnp.int32),
                              pltpu.VMEM((nl, nl), jnp.int32)])
    def pairs(a_hbm, b_hbm, n_hbm, oa_hbm, ob_hbm, n_vmem, a_vmem, b_vmem):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(n_hbm, n_vmem.at[pl.ds(0, 1)])
            k = n_vmem[...][2 if bug else 0]  # op: empty count
            pltpu.sync_copy((a_hbm.at[pl.ds(0, k)], b_hbm.at[pl.ds(0, k)]),  # op: empty copy
                            (a_vmem.at[pl.ds(0, k)], b_vmem.at[pl.ds(0, k)]))
            pltpu.sync_copy(a_vmem, oa_hbm)
            pltpu.sync_copy(b_vmem, ob_hbm)

    def check(outs):
        oa, ob = outs
        np.testing.assert_array_equal(oa[:n], a[:n])
        np.testing.assert_array_equal(ob[:n], b[:n])

    return Idiom(pairs, (a, b, count), check)


@idiom
def nonempty_dmas(nl, bug=False):
    return empty_dmas(nl, bug, n=3)


# --- Running them --------------------------------------------------------------------------------


def build(name, target, **kw):
    with sjax.abstract_tpu(target):
        return IDIOMS[name](LANES[target], **kw)


def run_jax(c, target, checks="all"):
    with sjax.sparsecore(target, checks=checks):
        return outputs(jax.jit(c.fn)(*c.args))


def export(c, target):
    with sjax.abstract_tpu(target):
        [kernel] = sjax.export_kernels(c.fn, *c.args, target=target)
    return kernel


def run_jit_run(tmp_path, c, target, *args):
    """The exported kernel run by jit-run on c.args; (exit code, stderr, outputs)."""
    kernel = export(c, target)
    path = tmp_path / f"{kernel.kernel}.scir"
    path.write_text(kernel.scir)
    cmd = [JIT_RUN, str(path), "--target", target, *args]
    ins = [p for p in kernel.params if p.direction != "out"]
    for p, array in zip(ins, c.args):
        f = tmp_path / f"in_{p.name}.npy"
        np.save(f, array)
        cmd += ["--in", f"{p.name}={f}"]
    outs = [p for p in kernel.params if p.direction != "in"]
    for p in outs:
        cmd += ["--out", f"{p.name}={tmp_path / f'out_{p.name}.npy'}"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    got = ()
    if proc.returncode == 0:
        got = tuple(np.load(tmp_path / f"out_{p.name}.npy") for p in outs)
        got = tuple(g.view(ml_dtypes.bfloat16) if g.dtype.kind == "V" else g for g in got)
    return proc.returncode, proc.stderr, got


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(IDIOMS))
def test_idiom_runs_without_a_finding(name, target, tmp_path):
    c = build(name, target)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning would be a finding too (JAX 0.12's own aside)
        if sjax.internals.PushStreamWarning is not None:
            warnings.simplefilter("ignore", sjax.internals.PushStreamWarning)
        c.check(run_jax(c, target))
    code, err, got = run_jit_run(tmp_path, c, target)
    assert code == 0 and err == "", err
    c.check(got)


# The bug twins: the marker of the use, and the finding after "error[RT-INIT]: ",
# in which {name} stands for an exported value's name (%v4) and {marker} for the
# location of the statement that ends in `# op: marker`.
TWINS = {
    "moe_ragged_gather": (
        "moe gather",
        "the slice size of view %ids_vmem[ds(0, {name})] is unwritten: {name} was read from %n_vmem[1] at "
        "{moe count}, which nothing has written"),
    "lane0_windows": (
        "window branch",
        "the condition of if is unwritten: {name} was computed from %buf[{last}], read at {window branch}, "
        "which nothing had written"),
    "shared_part_to_hbm": (
        "shared index",
        "the slice start of copy %x_hbm[ds({name}, 1)] -> %o_hbm[0:1] is unwritten: {name} was read from "
        "%v[{nl}] at {shared read}, which nothing has written"),
    "topk_append": (
        "topk branch",
        "the condition of if is unwritten: {name} was computed from %win[{winners}], read at {topk past}, "
        "which nothing had written"),
    "packed_row_gather": (
        "packed gather",
        "the index list of copy {name}[idx(%ids_vmem)] -> %buf is unwritten: its entry %ids_vmem[{half}] holds "
        "bytes nothing has written"),
    "empty_dmas": (
        "empty copy",
        "the slice size of dma_start %a_hbm[ds(0, {name})] -> %a_vmem[ds(0, {name})] is unwritten: {name} was read "
        "from %n_vmem[2] at {empty count}, which nothing has written"),
}


def finding(text):
    """The finding's location and first line, as both ways of running print it."""
    where, rest = text.split(": error[RT-INIT]: ", 1)
    return where.rsplit(" ", 1)[-1], rest.split("\n", 1)[0]


def expected(name, nl):
    """The twin's use (its file:line) and a regex of its message."""
    marker, template = TWINS[name]
    numbers = {"last": str(nl // 2 + 1), "nl": str(nl), "winners": str(sum(WINNERS)), "half": str(nl // 2)}
    pattern = ""
    for k, piece in enumerate(re.split(r"\{([^}]*)\}", template)):
        if k % 2 == 0:
            pattern += re.escape(piece)
        elif piece == "name":
            pattern += r"%v\d+"
        elif piece in numbers:
            pattern += numbers[piece]
        else:  # the statement's line; the column is that of the expression read in it
            pattern += re.escape(line_of("op: " + piece)) + r":\d+"
    return line_of("op: " + marker), pattern


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(TWINS))
def test_bug_twin_finding_names_use_and_origin(name, target, tmp_path):
    c = build(name, target, bug=True)
    where, pattern = expected(name, LANES[target])
    with pytest.raises(jax.errors.JaxRuntimeError) as e:
        run_jax(c, target)
    code, err, _ = run_jit_run(tmp_path, c, target)
    assert code == 1, err
    for text in (str(e.value), err):
        got_where, message = finding(text)
        assert got_where.rsplit(":", 1)[0] == where, text
        assert re.fullmatch(pattern, message), (pattern, message)


# --- Values computed from unwritten bytes that reach an output ---------------------------------


def accumulate(nl):
    """Row sums into an accumulator that nothing zeroed."""
    x = rng(16).integers(0, 100, size=(4, nl), dtype=np.int32)

    @pl.kernel(out_type=sds((nl,), jnp.int32), mesh=mesh(),
               scratch_types=[pltpu.VMEM((4, nl), jnp.int32), pltpu.VMEM((nl,), jnp.int32)])
    def summed(x_ref, o_ref, x_vmem, acc):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(x_ref, x_vmem)
            for r in range(4):
                acc[...] += x_vmem[r]  # op: never zeroed
            pltpu.sync_copy(acc, o_ref)

    return Idiom(summed, (x,), lambda outs: None)


# idiom -> (the output and its first element, how many, the buffer element read,
# its marker). A lane taken from a load names its own element (%last[nl - 1]).
COMPUTED = {
    "accumulate": ("%o_ref", "%o_ref[0]", "{nl}", "%acc[0]", "never zeroed"),
    "delta_rows": ("%o_hbm", "%o_hbm[0, 0]", "{nl}", "%last[{last}]", "delta prev"),
}


def computed_case(name, target):
    with sjax.abstract_tpu(target):
        return accumulate(LANES[target]) if name == "accumulate" else delta_rows(LANES[target], bug=True)


def computed_warning(name, nl):
    out, first, count, element, marker = COMPUTED[name]
    element = element.format(last=nl - 1)
    return (f"{out} holds {count.format(nl=nl)} elements computed from {element}, read here, which nothing had "
            f"written (the first is {first})"), line_of("op: " + marker)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(COMPUTED))
def test_computed_values_in_an_output_are_a_warning(name, target, tmp_path):
    c = computed_case(name, target)
    message, line = computed_warning(name, LANES[target])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run_jax(c, target)
    [w] = [w for w in caught if issubclass(w.category, scjit.RunWarning)]
    assert w.message.code == "RT-INIT" and w.message.message == message
    assert f"{w.message.file}:{w.message.line}" == line
    code, err, _ = run_jit_run(tmp_path, c, target)
    assert code == 0 and f"warning[RT-INIT]: {message}" in err, err
    assert f"{line}:" in err


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(COMPUTED))
def test_computed_values_in_an_output_are_an_error_when_strict(name, target, tmp_path):
    c = computed_case(name, target)
    message, line = computed_warning(name, LANES[target])
    with pytest.raises(jax.errors.JaxRuntimeError, match=re.escape(f"error[RT-INIT]: {message}")):
        run_jax(c, target, checks="strict")
    code, err, _ = run_jit_run(tmp_path, c, target, "--check", "strict")
    assert code == 1 and f"error[RT-INIT]: {message}" in err, err


def test_a_warning_filter_can_make_the_warning_an_error():
    c = computed_case("accumulate", "v7x")
    with warnings.catch_warnings():
        warnings.simplefilter("error", scjit.RunWarning)
        with pytest.raises(jax.errors.JaxRuntimeError, match="RunWarning: .*warning\\[RT-INIT\\]"):
            run_jax(c, "v7x")


def test_the_kernel_api_warns_too():
    c = computed_case("accumulate", "v7x")
    kernel = scjit.compile(export(c, "v7x").scir)
    with pytest.warns(scjit.RunWarning, match="computed from %acc\\[0\\]"):
        kernel(c.args[0])
