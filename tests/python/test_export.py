"""scjit.jax.export: Pallas SparseCore kernels traced with JAX, written as .scir, run by
jit-run and compared with numpy.

Each case below is a Pallas kernel: the SparseCore guide's (cumsum on the scalar
subcores, the pipelined add-one, the gather and the scatter), a hand-written double
buffer, and kernels written after those of JAX's own SparseCore tests
(tests/pallas/tpu_sparsecore_pallas_test.py at jax-v0.10.2), one per primitive or idiom
they exercise. Every case is exported for v6e (8 lanes) and v7x (16 lanes), run with
`jit-run --in ... --out ...` on numpy inputs, and its outputs compared with an
independent numpy computation. Further tests check the `loc(...)` of every op, the
parameters `kernel_from_params` reports, and the ExportError of what scjit lacks.

jit-run is $SCJIT_JIT_RUN (CTest sets it), else build/jit-run of this checkout.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import os
import pathlib
import re
import subprocess
from collections.abc import Callable
from typing import Any

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
# The loc("file":LINE:COL) suffix that ends an op's line.
LOC_RE = re.compile(r' loc\("((?:[^"\\]|\\.)*)":(\d+):(\d+)\)$')


@dataclasses.dataclass
class Case:
    """A kernel and its data: `fn(*args)` binds one SparseCore kernel; `want` holds
    the expected value of each out/inout parameter in order (None: not checked);
    `inputs`, when given, are the in/inout parameters' values (else `args`)."""

    fn: Callable[..., Any]
    args: tuple[np.ndarray, ...]
    want: tuple[Any, ...]
    inputs: tuple[np.ndarray, ...] | None = None


CASES: dict[str, Callable[[int], Case]] = {}


def case(fn):
    """Registers a case builder; it takes the lane count and runs where JAX traces
    for the target's chip (meshes ask the chip for their defaults)."""
    CASES[fn.__name__] = fn
    return fn


def export_case(name, target, *, locations=True):
    # Under the switch, not abstract_tpu: a builder also computes its expected
    # values eagerly, which JAX (0.12 on) refuses under an abstract mesh alone.
    with sjax.sparsecore(target):
        c = CASES[name](LANES[target])
    [kernel] = sjax.export_kernels(c.fn, *c.args, target=target, locations=locations)
    return c, kernel


def run_scir(tmp_path, kernel, inputs, target):
    """Runs an ExportedKernel with jit-run on `inputs` (one array per in/inout
    parameter, in order); returns the out/inout parameters' arrays in order."""
    path = tmp_path / f"{kernel.kernel}.scir"
    path.write_text(kernel.scir)
    args = [JIT_RUN, str(path), "--target", target]
    ins = [p for p in kernel.params if p.direction != "out"]
    assert len(ins) == len(inputs), (ins, len(inputs))
    for p, array in zip(ins, inputs):
        f = tmp_path / f"in_{p.name}.npy"
        np.save(f, array)
        args += ["--in", f"{p.name}={f}"]
    outs = [p for p in kernel.params if p.direction != "in"]
    for p in outs:
        args += ["--out", f"{p.name}={tmp_path / f'out_{p.name}.npy'}"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"{' '.join(args)} exited {proc.returncode}:\n{proc.stderr}\n{kernel.scir}"
    return [np.load(tmp_path / f"out_{p.name}.npy") for p in outs]


def expect_equal(got, want, scir):
    want = np.asarray(want)
    if got.dtype.kind == "V":  # ml_dtypes' types are raw bytes in a .npy file
        assert got.dtype.itemsize == want.dtype.itemsize, got.dtype
        got = got.view(want.dtype)
    assert got.shape == want.shape and got.dtype == want.dtype, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_array_equal(got, want, err_msg=scir)


# --- helpers for writing kernels --------------------------------------------------------


def vector_mesh(num_cores=1, num_subcores=None):
    kw = {} if num_subcores is None else {"num_subcores": num_subcores}
    return plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore",
                                  num_cores=num_cores, **kw)


def sds(a):
    return jax.ShapeDtypeStruct(np.shape(a), np.asarray(a).dtype)


def whole_array_kernel(out_type, *, scratch=(), layout_passes=True, grid=(1,),
                       in_specs=None, out_specs=None):
    """A kernel on one SparseCore whose body sees its operands in VMEM: an
    emit_pipeline over `grid` with whole-array blocks by default (the form of JAX's
    SparseCore tests)."""
    params = pltpu.CompilerParams(needs_layout_passes=layout_passes)

    def decorate(body):
        n_out = len(jax.tree.leaves(out_type))

        @pl.kernel(out_type=out_type, mesh=vector_mesh(), compiler_params=params,
                   scratch_types=dict(scratch_refs=tuple(scratch)))
        def kernel(*hbm_refs, scratch_refs):
            n_in = len(hbm_refs) - n_out
            pipeline = pltpu.emit_pipeline(
                lambda *refs: body(*refs, *scratch_refs),
                grid=grid,
                in_specs=[pl.BlockSpec()] * n_in if in_specs is None else in_specs,
                out_specs=[pl.BlockSpec()] * n_out if out_specs is None else out_specs,
            )
            pipeline(*hbm_refs)

        return kernel

    return decorate


def rng(seed=0):
    return np.random.default_rng(seed)


def permutation(n, seed=42):
    return rng(seed).permutation(n).astype(np.int32)


# --- the SparseCore guide ------------------------------------------------------------


@case
def guide_cumsum(nl):
    """"A basic SparseCore kernel": each scalar subcore takes the prefix sum of its
    row in SMEM."""
    x = rng().integers(0, 64, size=(2, nl), dtype=np.int32)

    @pl.kernel(out_type=sds(x), mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=2),
               scratch_types=[pltpu.SMEM((nl,), jnp.int32), pltpu.SemaphoreType.DMA])
    def cumsum(x_ref, o_ref, tmp_ref, sem):
        idx = lax.axis_index("core")
        pltpu.async_copy(x_ref.at[idx], tmp_ref, sem).wait()

        @pl.loop(1, nl)
        def _(i):
            tmp_ref[i] += tmp_ref[i - 1]

        pltpu.async_copy(tmp_ref, o_ref.at[idx], sem).wait()

    return Case(cumsum, (x,), (np.cumsum(x, axis=1, dtype=np.int32),))


@case
def guide_add_one(nl):
    """"Pipelining in SparseCore kernels": emit_pipeline over (8, 128) blocks, the
    grid split over every (core, subcore), the body adding 1 in (1, lanes) pieces."""
    x = rng().integers(0, 64, size=(512, 256), dtype=np.int32)

    def body(in_vmem, out_vmem):
        @pl.loop(0, in_vmem.shape[0])
        def _(c0):
            @pl.loop(0, in_vmem.shape[1], step=nl)
            def _(c1):
                slc = (pl.ds(c0, 1), pl.ds(c1, nl))
                out_vmem.at[*slc][...] = in_vmem.at[*slc][...] + 1

    @pl.kernel(out_type=sds(x), mesh=plsc.VectorSubcoreMesh(core_axis_name="core",
                                                             subcore_axis_name="subcore"))
    def sc_add_one(x_hbm_ref, o_hbm_ref):
        pltpu.emit_pipeline(
            body, grid=(x.shape[0] // 8, x.shape[1] // 128),
            in_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
            out_specs=[pl.BlockSpec((8, 128), lambda i, j: (i, j))],
            core_axis_name=("core", "subcore"),
            dimension_semantics=(pltpu.PARALLEL, pltpu.PARALLEL))(x_hbm_ref, o_hbm_ref)

    return Case(sc_add_one, (x,), (x + 1,))


@case
def guide_gather(nl):
    """"Gather and scatter": index windows pipelined into VMEM, one indirect DMA
    `x_hbm.at[i_vmem.at[0]]` per window."""
    x = np.arange(256 * 128, dtype=np.int32).reshape(256, 128)
    ids = rng(1).integers(0, 256, size=(1, 512), dtype=np.int32)
    window = 64

    @pl.kernel(out_type=jax.ShapeDtypeStruct((512, 128), jnp.int32), mesh=vector_mesh(2))
    def gather(x_hbm, i_hbm, o_hbm):
        def body(i_vmem, o_vmem):
            pltpu.sync_copy(x_hbm.at[i_vmem.at[0]], o_vmem)

        pltpu.emit_pipeline(
            body, grid=(512 // window,),
            in_specs=[pl.BlockSpec((1, window), lambda i: (0, i))],
            out_specs=[pl.BlockSpec((window, 128), lambda i: (i, 0))],
            core_axis_name="subcore", dimension_semantics=(pltpu.PARALLEL,))(i_hbm, o_hbm)

    return Case(gather, (x, ids), (x[ids[0]],))


@case
def guide_scatter(nl):
    """"Gather and scatter": rows and index windows pipelined into VMEM, one
    indirect DMA `o_hbm.at[i_vmem.at[0]]` per window."""
    x = rng(2).integers(0, 1000, size=(512, 128), dtype=np.int32)
    ids = permutation(512, 3).reshape(1, 512)
    window = 64

    @pl.kernel(out_type=jax.ShapeDtypeStruct((512, 128), jnp.int32), mesh=vector_mesh(2))
    def scatter(x_hbm, i_hbm, o_hbm):
        def body(x_vmem, i_vmem):
            pltpu.sync_copy(x_vmem, o_hbm.at[i_vmem.at[0]])

        pltpu.emit_pipeline(
            body, grid=(512 // window,),
            in_specs=[pl.BlockSpec((window, 128), lambda i: (i, 0)),
                      pl.BlockSpec((1, window), lambda i: (0, i))],
            out_specs=[], core_axis_name="subcore",
            dimension_semantics=(pltpu.PARALLEL,))(x_hbm, i_hbm)

    want = np.empty_like(x)
    want[ids[0]] = x
    return Case(scatter, (x, ids), (want,))


@case
def double_buffer(nl):
    """make_async_copy start/wait by hand: three buffers of each side, semaphore
    arrays indexed by core and buffer, copies started ahead (after JAX's
    PipelineTest.test_manual)."""
    steps, nbuf, window = 6, 3, 64
    x = rng(4).integers(-1000, 1000, size=(2 * 16, window * steps), dtype=np.int32)
    mesh = vector_mesh(2)

    @pl.kernel(out_type=sds(x), mesh=mesh,
               scratch_types=[pltpu.VMEM((nbuf, window), jnp.int32),
                              pltpu.VMEM((nbuf, window), jnp.int32),
                              pltpu.SemaphoreType.DMA((2, nbuf)),
                              pltpu.SemaphoreType.DMA((2, nbuf))])
    def add_one(x_hbm, o_hbm, x_vmem, o_vmem, in_sem, out_sem):
        core = lax.axis_index("core")
        row = core * mesh.num_subcores + lax.axis_index("subcore")

        def copy_in(step, buf):
            return pltpu.make_async_copy(x_hbm.at[row, pl.ds(step * window, window)],
                                         x_vmem.at[buf], in_sem.at[core, buf])

        def copy_out(step, buf):
            return pltpu.make_async_copy(o_vmem.at[buf],
                                         o_hbm.at[row, pl.ds(step * window, window)],
                                         out_sem.at[core, buf])

        def step_body(i, carry):
            buf = i % nbuf
            copy_in(i, buf).wait()

            @pl.when(i >= nbuf)
            def _():
                copy_out(i - nbuf, buf).wait()

            @pl.loop(0, window, step=nl)
            def _(c):
                o_vmem.at[buf, pl.ds(c, nl)][...] = x_vmem.at[buf, pl.ds(c, nl)][...] + 1

            copy_out(i, buf).start()

            @pl.when(i + nbuf < steps)
            def _():
                copy_in(i + nbuf, buf).start()

            return carry

        for b in range(nbuf):
            copy_in(b, b).start()
        lax.fori_loop(0, steps, step_body, None)
        for b in range(nbuf):
            copy_out(steps - nbuf + b, b).wait()

    return Case(add_one, (x,), (x + 1,))


# --- vector subcore: values and refs (after JAX's VectorSubcoreTest) ---------------------


def _add_sub(nl, dtype, op):
    x = np.arange(nl, dtype=dtype) * 3 - 7

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        o_ref[...] = op(x_ref[...], 1)

    return Case(kernel, (x,), (np.asarray(op(x, dtype(1))),))


@case
def add_one_i32(nl):
    return _add_sub(nl, np.int32, jnp.add)


@case
def sub_one_f32(nl):
    return _add_sub(nl, np.float32, jnp.subtract)


@case
def add_one_block_specs(nl):
    """A grid of 4 lane-wide blocks, each walked by a pl.loop of pl.ds slices."""
    x = np.arange(4 * 2 * nl, dtype=np.int32)

    @whole_array_kernel(sds(x), grid=(4,), in_specs=[pl.BlockSpec([2 * nl], lambda i: i)],
                        out_specs=[pl.BlockSpec([2 * nl], lambda i: i)])
    def kernel(x_ref, o_ref):
        @pl.loop(0, x_ref.size, step=nl)
        def _(i):
            s = pl.ds(i, nl)
            o_ref[s] = x_ref[s] + 1

    return Case(kernel, (x,), (x + 1,))


def _slicing(nl, dtype, minor_scale):
    """`x_ref[..., slice]` pieces of a wider ref, summed (16-bit types as (2, lanes))."""
    shape = (nl,) if np.dtype(dtype).itemsize == 4 else (4 // np.dtype(dtype).itemsize, nl)
    minor = shape[-1]
    x = (np.arange(np.prod(shape) * minor_scale) % 50).astype(dtype).reshape(*shape[:-1], minor * minor_scale)
    pieces = [slice(k * minor, (k + 1) * minor) for k in range(minor_scale)]

    @whole_array_kernel(jax.ShapeDtypeStruct(shape, dtype))
    def kernel(x_ref, o_ref):
        o_ref[...] = sum(x_ref[..., p] for p in pieces)

    return Case(kernel, (x,), (sum(x[..., p] for p in pieces).astype(dtype),))


@case
def slicing_i32(nl):
    return _slicing(nl, np.int32, 4)


@case
def slicing_f32(nl):
    return _slicing(nl, np.float32, 2)


@case
def slicing_bf16(nl):
    return _slicing(nl, ml_dtypes.bfloat16, 2)


@case
def slicing_i16(nl):
    return _slicing(nl, np.int16, 2)


@case
def slicing_u16(nl):
    return _slicing(nl, np.uint16, 4)


@case
def odd_load_store(nl):
    x = np.arange(100, dtype=np.int32)

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...]

    return Case(kernel, (x,), (x,))


@case
def get_index_fori_carry(nl):
    """lax.fori_loop(1, n, acc + x_ref[i], x_ref[0]): a carried vector."""
    x = np.arange(3 * nl, dtype=np.int32).reshape(3, nl) * 5

    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = lax.fori_loop(1, 3, lambda i, acc: acc + x_ref[i], x_ref[0])

    return Case(kernel, (x,), (x.sum(axis=0, dtype=np.int32),))


@case
def get_multi_index(nl):
    """`o_ref[...] += x_ref.at[i][j]` over every (i, j): views of views."""
    x = np.arange(3 * 4 * nl, dtype=np.int32).reshape(3, 4, nl)

    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32))
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.zeros_like(o_ref)
        for i in range(3):
            for j in range(4):
                o_ref[...] += x_ref.at[i][j]

    return Case(kernel, (x,), (x.sum(axis=(0, 1), dtype=np.int32),))


@case
def swap_index(nl):
    """Rows written in reverse order from a pl.loop."""
    x = np.arange(4 * nl, dtype=np.int32).reshape(4, nl)

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        @pl.loop(0, 4)
        def _(i):
            o_ref[3 - i] = x_ref[i]

    return Case(kernel, (x,), (x[::-1],))


def _scatter_major(x, seed):
    """async_copy(x_ref, o_hbm.at[indices_ref], sem).wait() in a run_scoped of one
    semaphore: a scatter of x's rows."""
    idx = permutation(len(x), seed)

    @whole_array_kernel(sds(x), out_specs=pl.BlockSpec(memory_space=pltpu.HBM))
    def kernel(x_ref, indices_ref, o_hbm_ref):
        @functools.partial(pl.run_scoped, sem=pltpu.SemaphoreType.DMA)
        def _(sem):
            pltpu.async_copy(x_ref, o_hbm_ref.at[indices_ref], sem).wait()

    want = np.empty_like(x)
    want[idx] = x
    return Case(kernel, (x, idx), (want,))


@case
def scatter_major_async(nl):
    return _scatter_major(np.arange(nl * 2 * nl, dtype=np.int32).reshape(nl, 2 * nl), 42)


@case
def scatter_1d_array(nl):
    """sync_copy(x_ref, o_hbm.at[indices_ref[...]]): the index list as a value."""
    x = np.arange(nl, dtype=np.int32) * 7
    idx = permutation(nl)

    @whole_array_kernel(sds(x), out_specs=pl.BlockSpec(memory_space=pltpu.HBM))
    def kernel(x_ref, indices_ref, o_hbm_ref):
        pltpu.sync_copy(x_ref, o_hbm_ref.at[indices_ref[...]])

    want = np.empty_like(x)
    want[idx] = x
    return Case(kernel, (x, idx), (want,))


@case
def scatter_1d_from_transformed_src(nl):
    x = np.arange(2 * nl, dtype=np.int32).reshape(2, nl)
    idx = permutation(nl)

    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32),
                        out_specs=pl.BlockSpec(memory_space=pltpu.HBM))
    def kernel(x_ref, indices_ref, o_hbm_ref):
        pltpu.sync_copy(x_ref.at[1], o_hbm_ref.at[indices_ref[...]])

    want = np.empty_like(x[1])
    want[idx] = x[1]
    return Case(kernel, (x, idx), (want,))


@case
def addupdate_scatter_core_memory_space(nl):
    """plsc.addupdate_scatter into a scratch allocated `@ mesh`."""
    mesh = vector_mesh()

    @pl.kernel(out_type=jax.ShapeDtypeStruct((nl,), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM((nl,), jnp.int32) @ mesh],
               compiler_params=pltpu.CompilerParams(needs_layout_passes=False))
    def kernel(output_ref, scratch):
        scratch[...] = jnp.zeros_like(scratch)
        plsc.addupdate_scatter(scratch, [jnp.arange(nl)], jnp.ones(nl, jnp.int32))
        pltpu.sync_copy(scratch, output_ref)

    return Case(kernel, (), (np.ones(nl, np.int32),))


def _gather_1d(nl, kind):
    x = np.arange(nl, dtype=np.int32) * 3
    idx = permutation(nl)

    @whole_array_kernel(sds(x), in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                          pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        indices = indices_ref if kind == "ref" else indices_ref[...]
        pltpu.sync_copy(x_hbm_ref.at[indices], o_ref)

    return Case(kernel, (x, idx), (x[idx],))


@case
def gather_1d_ref(nl):
    return _gather_1d(nl, "ref")


@case
def gather_1d_array(nl):
    return _gather_1d(nl, "array")


@case
def gather_1d_with_filter(nl):
    """plsc.Indices(indices_ref, ignored_value=4): entries equal to 4 move nothing."""
    x = np.arange(nl, dtype=np.int32)
    idx = permutation(nl)

    @whole_array_kernel(sds(x), in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                          pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        o_ref[...] = lax.broadcast(-100_000, o_ref.shape)
        pltpu.sync_copy(x_hbm_ref.at[plsc.Indices(indices_ref, ignored_value=4)], o_ref)

    want = np.where(idx == 4, -100_000, x[idx]).astype(np.int32)
    return Case(kernel, (x, idx), (want,))


@case
def gather_1d_to_transformed_dst(nl):
    x = np.arange(nl, dtype=np.int32) + 5
    idx = permutation(nl)

    @whole_array_kernel(jax.ShapeDtypeStruct((2, nl), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        o_ref[1] = jnp.zeros((nl,), jnp.int32)
        pltpu.sync_copy(x_hbm_ref.at[indices_ref], o_ref.at[0])

    return Case(kernel, (x, idx), (np.stack([x[idx], np.zeros(nl, np.int32)]),))


@case
def large_gather_1d(nl):
    x = np.arange(1024, dtype=np.int32)
    idx = permutation(1024)

    @whole_array_kernel(sds(x), in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                          pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pltpu.sync_copy(x_hbm_ref.at[indices_ref], o_ref)

    return Case(kernel, (x, idx), (x[idx],))


@case
def gather_1d_with_indexing(nl):
    """x_hbm_ref.at[1, 2].at[indices_ref]: an indexed view, then a gather."""
    x = np.arange(4 * 4 * nl, dtype=np.int32).reshape(4, 4, nl)
    idx = permutation(nl)

    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pltpu.sync_copy(x_hbm_ref.at[1, 2].at[indices_ref], o_ref)

    return Case(kernel, (x, idx), (x[1, 2, idx],))


@case
def gather_2d_with_indexing(nl):
    x = np.arange(4 * 16 * 128, dtype=np.int32).reshape(4, 16, 128)
    idx = permutation(8)

    @whole_array_kernel(jax.ShapeDtypeStruct((8, 128), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pltpu.sync_copy(x_hbm_ref.at[1, pl.ds(8, 8), :].at[indices_ref], o_ref)

    return Case(kernel, (x, idx), (x[1, 8:][idx],))


@case
def gather_1d_with_indexed_ref(nl):
    """The index list a view of the index ref: `indices_ref.at[:8]`."""
    x = np.arange(16, dtype=np.int32) * 2
    idx = permutation(16)

    @whole_array_kernel(jax.ShapeDtypeStruct((8,), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pltpu.sync_copy(x_hbm_ref.at[indices_ref.at[:8]], o_ref)

    return Case(kernel, (x, idx), (x[idx[:8]],))


@case
def gather_1d_with_dynamically_sized_ref(nl):
    """A run-time sized index list and destination: pl.ds(n) with n traced."""
    x = np.arange(16, dtype=np.int32) * 3
    idx = permutation(16)

    @whole_array_kernel(jax.ShapeDtypeStruct((8,), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        n = pl.program_id(0) + indices_ref.size // 2
        pltpu.sync_copy(x_hbm_ref.at[indices_ref.at[pl.ds(n)]], o_ref.at[pl.ds(0, n)])

    return Case(kernel, (x, idx), (x[idx[:8]],))


@case
def gather_1d_with_dynamically_sized_2d_ref(nl):
    x = np.arange(16, dtype=np.int32) * 3
    idx = np.stack([permutation(16, 1), permutation(16, 2)])

    @whole_array_kernel(jax.ShapeDtypeStruct((8,), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pid = pl.program_id(0)
        n = pid + indices_ref.size // 4
        pltpu.sync_copy(x_hbm_ref.at[indices_ref.at[pid, pl.ds(0, n)]], o_ref.at[pl.ds(0, n)])

    return Case(kernel, (x, idx), (x[idx[0, :8]],))


# --- vector subcore: gathers, scatters, masks and packing ---------------------------------

MASKS = {"lt4": lambda x: x < 4, "ge4": lambda x: x >= 4, "even": lambda x: x % 2 == 0}


@case
def load_gather_1d(nl):
    x = np.arange(nl, dtype=np.int32) * 11
    idx = permutation(nl)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, o_ref):
        o_ref[...] = plsc.load_gather(x_ref, [indices_ref[...]])

    return Case(kernel, (x, idx), (x[idx],))


@case
def load_gather_2d(nl):
    x = np.arange(nl * nl, dtype=np.int32).reshape(nl, nl)
    i0, i1 = permutation(nl, 1), permutation(nl, 2)

    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32), layout_passes=False)
    def kernel(x_ref, i0_ref, i1_ref, o_ref):
        o_ref[...] = plsc.load_gather(x_ref, [i0_ref[...], i1_ref[...]])

    return Case(kernel, (x, i0, i1), (x[i0, i1],))


@case
def load_gather_with_indexing(nl):
    """plsc.load_gather of `x_ref.at[i]`, one row at a time."""
    x = np.arange(4 * nl, dtype=np.float32).reshape(4, nl) / 4
    idx = permutation(nl)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, o_ref):
        indices = indices_ref[...]
        for i in range(4):
            o_ref[i] = plsc.load_gather(x_ref.at[i], [indices])

    return Case(kernel, (x, idx), (x[:, idx],))


def _load_gather_masked(nl, mask):
    x = np.arange(nl, dtype=np.int32)
    idx = permutation(nl)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, o_ref):
        gathered = plsc.load_gather(x_ref, [indices_ref[...]], mask=MASKS[mask](x_ref[...]))
        o_ref[...] = jnp.where(MASKS[mask](x_ref[...]), gathered, -1)

    return Case(kernel, (x, idx), (np.where(MASKS[mask](x), x[idx], -1).astype(np.int32),))


@case
def load_gather_masked_lt4(nl):
    return _load_gather_masked(nl, "lt4")


@case
def load_gather_masked_even(nl):
    return _load_gather_masked(nl, "even")


@case
def store_scatter(nl):
    x = np.arange(nl, dtype=np.int32) + 100
    idx = permutation(nl)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, o_ref):
        plsc.store_scatter(o_ref, [indices_ref[...]], x_ref[...])

    want = np.zeros_like(x)
    want[idx] = x
    return Case(kernel, (x, idx), (want,))


def _store_scatter_masked(nl, mask):
    x = np.arange(nl, dtype=np.int32)
    idx = permutation(nl)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, o_ref):
        x = x_ref[...]
        o_ref[...] = jnp.zeros_like(o_ref)
        plsc.store_scatter(o_ref, [indices_ref[...]], x, mask=MASKS[mask](x))

    m = MASKS[mask](x)
    want = np.zeros_like(x)
    want[idx[m]] = x[m]
    return Case(kernel, (x, idx), (want,))


@case
def store_scatter_masked_ge4(nl):
    return _store_scatter_masked(nl, "ge4")


@case
def store_scatter_masked_even(nl):
    return _store_scatter_masked(nl, "even")


@case
def store_scatter_2d(nl):
    """Index vectors for both dimensions, one a jnp.full of the row."""
    x = np.arange(4 * nl, dtype=np.int32).reshape(4, nl)
    idx = permutation(nl)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, o_ref):
        indices = indices_ref[...]
        for i in range(4):
            plsc.store_scatter(o_ref, [jnp.full(indices.shape, i), indices], x_ref[i])

    want = np.zeros_like(x)
    want[:, idx] = x
    return Case(kernel, (x, idx), (want,))


@case
def addupdate_scatter_masked(nl):
    x = np.arange(nl, dtype=np.int32)
    idx = permutation(nl)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, o_ref):
        x = x_ref[...]
        o_ref[...] = jnp.ones_like(o_ref)
        plsc.addupdate_scatter(o_ref, [indices_ref[...]], x, mask=x % 2 == 0)

    m = x % 2 == 0
    want = np.ones_like(x)
    np.add.at(want, idx[m], x[m])
    return Case(kernel, (x, idx), (want,))


def _load_expanded(nl, mask):
    x = np.arange(nl, dtype=np.int32) * 2

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        m = MASKS[mask](x_ref[...] // 2)
        o_ref[...] = jnp.where(m, plsc.load_expanded(x_ref.at[...], mask=m), 7)

    m = MASKS[mask](x // 2)
    want = np.full_like(x, 7)
    want[m] = x[:m.sum()]
    return Case(kernel, (x,), (want,))


@case
def load_expanded_ge4(nl):
    return _load_expanded(nl, "ge4")


@case
def load_expanded_even(nl):
    return _load_expanded(nl, "even")


@case
def store_compressed(nl):
    x = np.arange(nl, dtype=np.int32) + 1

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.zeros_like(o_ref)
        x = x_ref[...]
        plsc.store_compressed(o_ref.at[...], x, mask=x % 2 == 0)

    kept = x[x % 2 == 0]
    want = np.zeros_like(x)
    want[:len(kept)] = kept
    return Case(kernel, (x,), (want,))


@case
def addupdate(nl):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32))
    def kernel(o_ref):
        o_ref[...] = jnp.zeros_like(o_ref)
        for i in range(nl):
            plsc.addupdate(o_ref.at[...], lax.broadcast(i, o_ref.shape))

    return Case(kernel, (), (np.full(nl, sum(range(nl)), np.int32),))


@case
def addupdate_compressed(nl):
    x = np.arange(nl, dtype=np.int32)

    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.zeros_like(o_ref)
        for i in range(nl):
            plsc.addupdate_compressed(o_ref.at[...], lax.broadcast(i, o_ref.shape),
                                      mask=x_ref[...] < 4)

    want = np.zeros(nl, np.int32)
    want[:4] = sum(range(nl))
    return Case(kernel, (x,), (want,))


def _bitcast(nl, new_dtype):
    x = np.arange(nl, dtype=np.int32) * 77777
    new_shape = (nl * 4 // np.dtype(new_dtype).itemsize,)

    @whole_array_kernel(jax.ShapeDtypeStruct(new_shape, new_dtype), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = plsc.bitcast(x_ref[...], o_ref.dtype)

    return Case(kernel, (x,), (x.view(new_dtype),))


@case
def bitcast_i8(nl):
    return _bitcast(nl, np.int8)


@case
def bitcast_i16(nl):
    return _bitcast(nl, np.int16)


@case
def bitcast_f32(nl):
    return _bitcast(nl, np.float32)


@case
def lax_bitcast_view(nl):
    """x.view(uint32) of a float32 vector."""
    x = np.arange(nl, dtype=np.float32) - 3.5

    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.uint32), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...].view(o_ref.dtype)

    return Case(kernel, (x,), (x.view(np.uint32),))


@case
def load_from_bitcast_ref(nl):
    """x_ref.bitcast(uint32)[0]: a view of another element type."""
    x = (np.arange(nl, dtype=np.float32) * 1.25)[None]

    @whole_array_kernel(jax.ShapeDtypeStruct((1, nl), jnp.uint32))
    def kernel(x_ref, o_ref):
        o_ref[0] = x_ref.bitcast(o_ref.dtype)[0]

    return Case(kernel, (x,), (x.view(np.uint32),))


@case
def store_to_bitcast_ref(nl):
    """Storing int16 ones through `o_ref.bitcast(jnp.int16)` of an int32 (1, lanes)."""

    @whole_array_kernel(jax.ShapeDtypeStruct((1, nl), jnp.int32))
    def kernel(o_ref):
        o_i16 = o_ref.bitcast(jnp.int16)
        o_i16[...] = jnp.ones_like(o_i16)

    return Case(kernel, (), (np.full((1, nl), 65537, np.int32),))


def _pack_unpack(nl, fmt, dtype):
    a = np.arange(nl, dtype=dtype)
    b = -a

    @whole_array_kernel((jax.ShapeDtypeStruct((nl,), dtype),) * 2, layout_passes=False)
    def kernel(a_ref, b_ref, oa_ref, ob_ref):
        ab = plsc.pack(a_ref[...], b_ref[...], format=fmt)
        oa_ref[...], ob_ref[...] = plsc.unpack(ab, format=fmt)

    return Case(kernel, (a, b), (a, b))


@case
def pack_unpack_interleaved_f32(nl):
    return _pack_unpack(nl, plsc.PackFormat.INTERLEAVED, np.float32)


@case
def pack_unpack_compressed_i32(nl):
    return _pack_unpack(nl, plsc.PackFormat.COMPRESSED, np.int32)


def _scan_count(x):
    nl = len(x)

    @whole_array_kernel((jax.ShapeDtypeStruct((nl,), jnp.int32),) * 2, layout_passes=False)
    def kernel(x_ref, counts_ref, last_ref):
        counts_ref[...], last = plsc.scan_count(x_ref[...])
        last_ref[...] = last.astype(jnp.int32)

    counts = np.array([(x[:i + 1] == x[i]).sum() for i in range(nl)], np.int32)
    last = np.array([(x[i + 1:] != x[i]).all() for i in range(nl)], np.int32)
    return Case(kernel, (x,), (counts, last))


@case
def scan_count(nl):
    return _scan_count(rng(5).integers(0, 4, size=nl).astype(np.int32))


@case
def population_count(nl):
    x = rng(6).integers(0, 100, size=nl).astype(np.int32)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = plsc.all_reduce_population_count(x_ref[...] < 50)

    return Case(kernel, (x,), (np.full(nl, (x < 50).sum(), np.int32),))


@case
def ffs(nl):
    x = np.zeros(nl, np.int32)
    x[2] = x[5] = 1

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = plsc.all_reduce_ffs(x_ref[...] == 1)

    return Case(kernel, (x,), (np.full(nl, 2, np.int32),))


@case
def iota_plus(nl):
    x = rng(7).integers(0, 100, size=nl).astype(np.int32)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.arange(nl) + x_ref[...]

    return Case(kernel, (x,), (x + np.arange(nl, dtype=np.int32),))


@case
def write_to_transformed_ref(nl):
    x = np.arange(2 * nl, dtype=np.int32)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        for k in range(2):  # one register at a time: needs_layout_passes=False
            o_ref[pl.ds(k * nl, nl)] = jnp.zeros((nl,), jnp.int32)
        plsc.store_compressed(o_ref.at[pl.ds(5, nl)], x_ref[pl.ds(2, nl)],
                              mask=jnp.ones(nl, jnp.bool))

    want = np.zeros_like(x)
    want[5:5 + nl] = x[2:2 + nl]
    return Case(kernel, (x,), (want,))


@case
def load_transformed_ref(nl):
    x = np.arange(2 * nl, dtype=np.int32)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        for k in range(2):
            o_ref[pl.ds(k * nl, nl)] = jnp.zeros((nl,), jnp.int32)
        m = jnp.arange(nl) % 2 == 0
        o_ref[pl.ds(5, nl)] = jnp.where(m, plsc.load_expanded(x_ref.at[pl.ds(2, nl)], mask=m), 0)

    want = np.zeros_like(x)
    want[5:5 + nl:2] = x[2:2 + nl // 2]
    return Case(kernel, (x,), (want,))


@case
def scalar_load_emulated(nl):
    """`x = x_ref[pl.ds(i, lanes)]; x[0]` broadcast: a scalar from a vector."""
    x = np.arange(32, dtype=np.int32) * 3
    i = 9

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.zeros_like(o_ref)
        v = x_ref[pl.ds(i, nl)]
        o_ref[pl.ds(i, nl)] = lax.broadcast(v[0], (nl,))

    want = np.zeros_like(x)
    want[i:i + nl] = x[i]
    return Case(kernel, (x,), (want,))


# --- vector subcore: scalars, scopes, loops, reductions and sorts --------------------------


@case
def fetch_and_add(nl):
    """plsc.fetch_and_add on the neighbour subcore's SMEM, between barriers."""
    n = 16

    @pl.kernel(out_type=(jax.ShapeDtypeStruct((n * nl,), jnp.int32),) * 2, mesh=vector_mesh(),
               scratch_types=dict(old_val_ref=pltpu.VMEM((nl,), jnp.int32),
                                  new_val_ref=pltpu.VMEM((nl,), jnp.int32),
                                  smem_ref=pltpu.SMEM([1], jnp.int32)))
    def kernel(old_hbm, new_hbm, *, old_val_ref, new_val_ref, smem_ref):
        me = lax.axis_index("subcore")
        smem_ref[0] = me
        plsc.subcore_barrier()
        old = plsc.fetch_and_add(smem_ref.at[0], 10, subcore_id=(me + 1) % n)
        plsc.subcore_barrier()
        old_val_ref[...] = lax.broadcast(old, old_val_ref.shape)
        new_val_ref[...] = lax.broadcast(smem_ref[0], new_val_ref.shape)
        pltpu.sync_copy((old_val_ref, new_val_ref),
                        (old_hbm.at[pl.ds(me * nl, nl)], new_hbm.at[pl.ds(me * nl, nl)]))

    old = np.repeat((np.arange(n) + 1) % n, nl).astype(np.int32)
    new = np.repeat(np.arange(n) + 10, nl).astype(np.int32)
    return Case(kernel, (), (old, new))


@case
def run_scoped_copy(nl):
    x = np.arange(nl, dtype=np.int32) - 4

    @whole_array_kernel(sds(x), out_specs=pl.BlockSpec(memory_space=pltpu.HBM))
    def kernel(x_ref, o_hbm_ref):
        pltpu.sync_copy(x_ref, o_hbm_ref)

    return Case(kernel, (x,), (x,))


def _empty_ref(nl, space):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.float32))
    def kernel(y_ref):
        x_ref = jax.empty_ref(jax.ShapeDtypeStruct(y_ref.shape, y_ref.dtype), memory_space=space)
        if space == pltpu.VMEM:
            x_ref[...] = jnp.ones_like(x_ref)
            y_ref[...] = 4 * x_ref[...]
        else:
            x_ref[0] = 1.0
            y_ref[...] = jnp.broadcast_to(4 * x_ref[0], y_ref.shape)

    return Case(kernel, (), (np.full(nl, 4, np.float32),))


@case
def empty_ref_vmem(nl):
    return _empty_ref(nl, pltpu.VMEM)


@case
def empty_ref_smem(nl):
    return _empty_ref(nl, pltpu.SMEM)


@case
def split_concatenate(nl):
    x = np.arange(4 * nl, dtype=np.int32).reshape(4, nl)

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        a, b, c = lax.split(x_ref[...], [1, 2, 1], 0)
        o_ref[...] = lax.concatenate([c, a, b], 0)

    return Case(kernel, (x,), (np.concatenate([x[3:], x[:1], x[1:3]]),))


@case
def scratch_convert(nl):
    x = np.arange(nl, dtype=np.int32) * 3 - 20

    @whole_array_kernel(sds(x), scratch=(pltpu.VMEM([nl], jnp.float32),))
    def kernel(x_ref, o_ref, scratch_ref):
        scratch_ref[...] = x_ref[...].astype(jnp.float32) * 0.5
        o_ref[...] = scratch_ref[...].astype(jnp.int32)

    return Case(kernel, (x,), ((x.astype(np.float32) * 0.5).astype(np.int32),))


def _subcore_parallel(nl, n):
    """Each of n subcores copies its row."""
    x = np.arange(n * nl, dtype=np.int32).reshape(n, nl)

    @pl.kernel(out_type=sds(x), mesh=vector_mesh(num_subcores=n))
    def kernel(x_ref, o_ref):
        s = lax.axis_index("subcore")
        pltpu.sync_copy(x_ref.at[s], o_ref.at[s])

    return Case(kernel, (x,), (x,))


@case
def subcore_parallel(nl):
    return _subcore_parallel(nl, 16)


@case
def tiled_dma_hbm_vmem_shared(nl):
    """VMEM_SHARED scratch filled by subcore 0, each subcore adding one to its row
    in a parallel_loop, barriers between."""
    x = (np.arange(16 * 2 * nl, dtype=np.int32) // 4).reshape(16, 2 * nl)

    @pl.kernel(out_type=sds(x), mesh=vector_mesh(),
               scratch_types=(pltpu.VMEM(x.shape[1:], jnp.int32),
                              pltpu.VMEM_SHARED(x.shape, jnp.int32)))
    def kernel(x_ref, o_ref, row, shared):
        s = lax.axis_index("subcore")

        @pl.when(s == 0)
        def _():
            pltpu.sync_copy(x_ref, shared)

        plsc.subcore_barrier()
        pltpu.sync_copy(shared.at[s], row)

        @plsc.parallel_loop(0, x.shape[1], nl)
        def _(i):
            row[pl.ds(i, nl)] += 1

        pltpu.sync_copy(row, shared.at[s])
        plsc.subcore_barrier()

        @pl.when(s == 0)
        def _():
            pltpu.sync_copy(shared, o_ref)

    return Case(kernel, (x,), (x + 1,))


@case
def smem_vmem_store_literals(nl):
    """`scratch_scalar_ref[0] = 7.0` and jnp.where of an SMEM scalar."""
    x = np.arange(16 * nl, dtype=np.float32).reshape(16, nl)

    @pl.kernel(out_type=sds(x), mesh=vector_mesh(),
               scratch_types=(pltpu.SMEM([1], jnp.float32), pltpu.VMEM([nl], jnp.float32)))
    def kernel(x_ref, o_ref, scalar_ref, vec_ref):
        s = lax.axis_index("subcore")
        scalar_ref[0] = 7.0
        pltpu.sync_copy(x_ref.at[s], vec_ref)
        vec_ref[...] = jnp.where(s < 3, scalar_ref[0], vec_ref[...])
        pltpu.sync_copy(vec_ref, o_ref.at[s])

    want = np.where(np.arange(16)[:, None] < 3, 7.0, x).astype(np.float32)
    return Case(kernel, (x,), (want,))


@case
def core_map_run_state(nl):
    """pl.core_map under run_state (the core_map entry form): scoped scratch, a
    barrier, x + 1."""
    x = np.arange(nl, dtype=np.int32) * 5
    mesh = vector_mesh()

    def stateful(refs):
        x_ref, o_ref = refs

        def with_scratch(scratch_ref):
            pltpu.sync_copy(x_ref, scratch_ref)
            scratch_ref[...] = scratch_ref[...] + 1
            plsc.subcore_barrier()
            pltpu.sync_copy(scratch_ref, o_ref)

        pl.core_map(mesh, compiler_params=pltpu.CompilerParams(needs_layout_passes=False))(
            lambda: pl.run_scoped(with_scratch, pltpu.VMEM(x.shape, x.dtype)))

    def fn(x):
        return pl.run_state(stateful)((x, jnp.empty_like(x)))[1]

    # Parameters: %in0 (x, read only) and %in1 (the output ref, written).
    return Case(fn, (x,), (x + 1,), inputs=(x, np.zeros_like(x)))


@case
def parallel_loop_effects(nl):
    """A parallel_loop of compressed stores inside a pl.loop (after JAX's test of the
    same name); the output shows what was stored."""
    a = rng(8).integers(0, 64, size=nl).astype(np.uint32)
    b = np.arange(nl, dtype=np.uint32) + 100

    @whole_array_kernel(sds(b), layout_passes=False)
    def kernel(a_ref, b_ref, c_ref):
        c_ref[...] = jnp.zeros_like(c_ref)

        @pl.loop(0, 4)
        def outer(i):
            @plsc.parallel_loop(0, nl)
            def body(_):
                x = a_ref[...] >> i.astype(jnp.uint32)
                plsc.store_compressed(c_ref.at[...], b_ref[...], mask=x > jnp.uint32(0))

    c = np.zeros(nl, np.uint32)
    for i in range(4):
        kept = b[(a >> i) > 0]
        c[:len(kept)] = kept
    return Case(kernel, (a, b), (c,))


def _reshape(in_shape, out_shape, dtype):
    x = np.arange(np.prod(in_shape)).astype(dtype).reshape(in_shape)

    @whole_array_kernel(jax.ShapeDtypeStruct(out_shape, dtype))
    def kernel(x_ref, o_ref):
        o_ref[...] = x_ref[...].reshape(out_shape)

    return Case(kernel, (x,), (x.reshape(out_shape),))


@case
def reshape_f32(nl):
    return _reshape((8, 80), (4, 160), np.float32)


@case
def reshape_bf16(nl):
    return _reshape((2, 160), (2, 10, 16), ml_dtypes.bfloat16)


@case
def cumsum_i32(nl):
    x = rng(9).integers(-50, 50, size=nl).astype(np.int32)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.cumsum(x_ref[...])

    return Case(kernel, (x,), (np.cumsum(x, dtype=np.int32),))


@case
def cumsum_f32(nl):
    x = np.arange(nl, dtype=np.float32) / 4

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.cumsum(x_ref[...])

    return Case(kernel, (x,), (np.cumsum(x, dtype=np.float32),))


def _reduction(nl, dtype, op):
    x = rng(10).permutation(np.arange(nl)).astype(dtype)
    if dtype != np.uint32:
        x = x - np.asarray(nl // 2, dtype)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.full(o_ref.shape, op(x_ref[...]))

    return Case(kernel, (x,), (np.full(nl, op(x), dtype),))


@case
def reduce_sum_u32(nl):
    return _reduction(nl, np.uint32, jnp.sum)


@case
def reduce_max_i32(nl):
    return _reduction(nl, np.int32, jnp.max)


@case
def reduce_min_f32(nl):
    return _reduction(nl, np.float32, jnp.min)


@case
def binary_reductions(nl):
    """jnp.all and jnp.any of a mask, as int32."""
    x = np.ones(nl, np.int32)
    x[3] = 0

    @whole_array_kernel((jax.ShapeDtypeStruct((nl,), jnp.int32),) * 2, layout_passes=False)
    def kernel(x_ref, all_ref, any_ref):
        all_ref[...] = jnp.full(all_ref.shape, jnp.all(x_ref[...] != 0)).astype(jnp.int32)
        any_ref[...] = jnp.full(any_ref.shape, jnp.any(x_ref[...] != 0)).astype(jnp.int32)

    return Case(kernel, (x,), (np.zeros(nl, np.int32), np.ones(nl, np.int32)))


@case
def masked_cumsum(nl):
    x = np.arange(nl, dtype=np.int32)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = plsc.cumsum(x_ref[...], mask=(x_ref[...] % 2) == 1)

    return Case(kernel, (x,), (np.cumsum(x * (x % 2), dtype=np.int32),))


@case
def masked_cummax(nl):
    x = rng(11).permutation(nl).astype(np.float32)

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = plsc.cummax(x_ref[...], mask=(x_ref[...] % 2) == 1)

    m = x % 2 == 1
    want = x.copy()
    best = None
    for i in range(nl):
        if m[i]:
            best = x[i] if best is None else max(best, x[i])
        if best is not None:
            want[i] = best
    return Case(kernel, (x,), (want,))


@case
def parallel_loop_with_carry(nl):
    """A parallel_loop carrying a scalar and a vector, over a grid of subcores."""
    chunks, step = 4, 10
    x = np.arange(16 * nl * chunks, dtype=np.int32)

    @whole_array_kernel(sds(x), layout_passes=False, grid=(16,),
                        in_specs=[pl.BlockSpec([nl * chunks], lambda i: (i,))],
                        out_specs=[pl.BlockSpec([nl * chunks], lambda i: (i,))])
    def kernel(x_ref, o_ref):
        @pl.when(pl.program_id(0) < 16)
        def _():
            def body(i, carry):
                incr, total = carry
                incr += step
                o_ref[pl.ds(i, nl)] = x_ref[pl.ds(i, nl)] + incr
                return incr, total + x_ref[pl.ds(i, nl)]

            init = (jnp.zeros([], jnp.int32), jnp.zeros([nl], jnp.int32))
            incr, total = plsc.parallel_loop(0, x_ref.shape[0], nl, carry=init)(body)
            o_ref[pl.ds(0, nl)] = jnp.where(jnp.arange(nl) == 0, incr * 1000, total)

    want = x.reshape(16, chunks, nl) + step * np.arange(1, chunks + 1, dtype=np.int32)[:, None]
    want[:, 0, 0] = 1000 * step * chunks
    want[:, 0, 1:] = x.reshape(16, chunks, nl).sum(1)[:, 1:]
    return Case(kernel, (x,), (want.reshape(-1),))


@case
def multiple_of(nl):
    x = np.arange(2 * nl, dtype=np.int32)

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        @pl.loop(0, 2 * nl, step=nl)
        def _(i):
            i = pl.multiple_of(i, nl)
            o_ref[pl.ds(i, nl)] = x_ref[pl.ds(i, nl)] + 1

    return Case(kernel, (x,), (x + 1,))


@case
def barrier(nl):
    """Each subcore writes its row in a pl.loop of run-time length, then after the
    barrier copies its neighbour's row (and a second barrier before writing it back,
    which JAX's test of the same name leaves to the hardware's timing)."""
    n = 16

    @pl.kernel(out_type=jax.ShapeDtypeStruct((n, nl), jnp.uint32), mesh=vector_mesh(),
               scratch_types=[pltpu.VMEM((n, nl), jnp.uint32)])
    def kernel(o_ref, vmem_ref):
        s = lax.axis_index("subcore")

        @pl.loop(0, 2 * s + 1)
        def _(i):
            vmem_ref[s] = jnp.full(nl, i, dtype=jnp.uint32)
            pltpu.sync_copy(vmem_ref.at[s], o_ref.at[s])

        plsc.subcore_barrier()
        pltpu.sync_copy(o_ref.at[(s + 1) % n], vmem_ref.at[s])
        plsc.subcore_barrier()
        pltpu.sync_copy(vmem_ref.at[s], o_ref.at[s])

    want = np.broadcast_to((2 * np.roll(np.arange(n), -1))[:, None], (n, nl)).astype(np.uint32)
    return Case(kernel, (), (want,))


@case
def gather_add(nl):
    """sync_copy(x_ref.at[s].at[indices], scratch, add=True): a gather-add."""
    x = np.arange(16 * 64 * 32, dtype=np.float32).reshape(16, 64, 32)
    idx = (np.arange(nl) * (64 // nl)).astype(np.int32)

    @pl.kernel(out_type=jax.ShapeDtypeStruct((16, nl, 32), jnp.float32), mesh=vector_mesh(),
               scratch_types=dict(indices_vmem=pltpu.VMEM([nl], jnp.int32),
                                  scratch_ref=pltpu.VMEM([nl, 32], jnp.float32)))
    def kernel(x_ref, indices_ref, o_ref, indices_vmem, scratch_ref):
        s = lax.axis_index("subcore")
        pltpu.sync_copy(indices_ref, indices_vmem)
        pltpu.sync_copy(x_ref.at[s, pl.ds(0, nl)], scratch_ref)
        pltpu.sync_copy(x_ref.at[s].at[indices_vmem], scratch_ref, add=True)
        pltpu.sync_copy(scratch_ref, o_ref.at[s])

    return Case(kernel, (x, idx), (x[:, :nl] + x[:, idx],))


@case
def scatter_add(nl):
    """Every subcore scatter-adds its row into VMEM_SHARED (add=True)."""
    x = np.arange(16 * 32, dtype=np.int32).reshape(16, 32)
    idx = (31 - np.arange(32)).astype(np.int32)

    @pl.kernel(out_type=jax.ShapeDtypeStruct((32,), jnp.int32), mesh=vector_mesh(),
               scratch_types=dict(shared=pltpu.VMEM_SHARED((32,), jnp.int32),
                                  row=pltpu.VMEM((32,), jnp.int32),
                                  ids=pltpu.VMEM([32], jnp.int32)))
    def kernel(x_hbm, ids_hbm, o_ref, *, shared, row, ids):
        s = lax.axis_index("subcore")
        pltpu.sync_copy((ids_hbm, x_hbm.at[s]), (ids, row))

        @pl.when(s == 0)
        def _():
            pltpu.sync_copy(row, shared)

        plsc.subcore_barrier()
        pltpu.sync_copy(row, shared.at[ids], add=True)
        plsc.subcore_barrier()

        @pl.when(s == 0)
        def _():
            pltpu.sync_copy(shared, row)
            pltpu.sync_copy(row, o_ref)

    return Case(kernel, (x, idx), ((x[0] + x.sum(0)[::-1]).astype(np.int32),))


@case
def shared_scratch(nl):
    x = np.arange(16 * 8 * nl, dtype=np.int32).reshape(16, 8, nl)

    @pl.kernel(out_type=sds(x[:1]), mesh=vector_mesh(),
               scratch_types=(pltpu.VMEM_SHARED(x.shape[1:], jnp.int32),
                              pltpu.VMEM_SHARED(x.shape, jnp.int32)))
    def kernel(x_ref, o_ref, one, all_rows):
        s = lax.axis_index("subcore")

        @pl.when(s == 0)
        def _():
            pltpu.sync_copy(x_ref.at[s], all_rows.at[s])
            pltpu.sync_copy(x_ref.at[s], one)
            pltpu.sync_copy(one, o_ref.at[s])

    return Case(kernel, (x,), (x[:1],))


def _unary(nl, op):
    x = np.arange(nl, dtype=np.float32) / 3 - 2

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        o_ref[...] = op(x_ref[...])

    return Case(kernel, (x,), (np.asarray(op(x)),))


@case
def unary_neg(nl):
    return _unary(nl, lambda x: -x)


@case
def unary_abs(nl):
    return _unary(nl, jnp.abs)


@case
def vector_gather(nl):
    """x[indices] of a vector value, a negative index and repeats included."""
    x = np.arange(nl, dtype=np.float32) * 1.5
    idx = rng(12).integers(0, nl, size=nl).astype(np.int32)
    idx[[0, -2]] = 2
    idx[1] = -2

    @whole_array_kernel(sds(x), layout_passes=False)
    def kernel(x_ref, indices_ref, out_ref):
        out_ref[...] = x_ref[...][indices_ref[...]]

    return Case(kernel, (x, idx), (x[idx],))


def _take_along_axis(axis, dtype, seed):
    shape = (2, 8, 64)
    x = np.arange(np.prod(shape)).astype(dtype).reshape(shape)
    idx = rng(seed).integers(0, shape[axis], size=shape).astype(np.int32)

    @whole_array_kernel(sds(x))
    def kernel(x_ref, indices_ref, out_ref):
        out_ref[...] = jnp.take_along_axis(x_ref[...], indices_ref[...], axis=axis,
                                           mode="promise_in_bounds")

    return Case(kernel, (x, idx), (np.take_along_axis(x, idx, axis=axis),))


@case
def take_along_axis_1_i32(nl):
    return _take_along_axis(1, np.int32, 13)


@case
def take_along_axis_0_f32(nl):
    return _take_along_axis(0, np.float32, 22)


def _sort_key_val(nl, keys_dtype, use_mask, descending):
    keys = rng(14).permutation(np.arange(nl) - nl // 2).astype(keys_dtype)
    keys[3] = keys[1]
    values = rng(15).permutation(nl).astype(np.int32)
    mask = rng(16).integers(0, 2, size=nl).astype(np.int32)
    outs = (sds(keys), sds(values)) + ((sds(mask),) if use_mask else ())

    @whole_array_kernel(outs, layout_passes=False)
    def kernel(*refs):
        if use_mask:
            mask_ref, keys_ref, values_ref, ok_ref, ov_ref, om_ref = refs
            m = mask_ref[...].astype(jnp.bool)
        else:
            keys_ref, values_ref, ok_ref, ov_ref = refs
            m = None
        ok_ref[...], ov_ref[...], *rest = plsc.sort_key_val(keys_ref[...], values_ref[...],
                                                             mask=m, descending=descending)
        if use_mask:
            om_ref[...] = rest[0].astype(jnp.int32)

    order_keys = keys.astype(np.int64) * (-1 if descending else 1)
    if use_mask:
        order_keys = np.where(mask == 1, order_keys, order_keys.max() + 1)
    order = np.argsort(order_keys, kind="stable")
    want = (keys[order], values[order])
    if use_mask:
        want += ((np.arange(nl) < mask.sum()).astype(np.int32),)
    args = ((mask,) if use_mask else ()) + (keys, values)
    return Case(kernel, args, want)


@case
def sort_key_val_i32(nl):
    return _sort_key_val(nl, np.int32, False, False)


@case
def sort_key_val_f32_masked_descending(nl):
    return _sort_key_val(nl, np.float32, True, True)


@case
def rev_and_sort_descending(nl):
    keys = rng(17).permutation(nl).astype(np.int32)

    @whole_array_kernel((sds(keys), sds(keys)), layout_passes=False)
    def kernel(x_ref, o1_ref, o2_ref):
        o1_ref[...] = jnp.sort(x_ref[...], descending=True)
        o2_ref[...] = jnp.flip(x_ref[...], axis=-1)

    return Case(kernel, (keys,), (np.sort(keys)[::-1], keys[::-1]))


@case
def lax_sort_with_values(nl):
    keys = rng(18).permutation(nl).astype(np.float32)
    v0 = rng(19).permutation(nl).astype(np.float32)
    v1 = rng(20).permutation(nl).astype(np.int32)

    @whole_array_kernel((sds(keys), sds(v0), sds(v1)), layout_passes=False)
    def kernel(k_ref, v0_ref, v1_ref, ok_ref, o0_ref, o1_ref):
        ok_ref[...], o0_ref[...], o1_ref[...] = lax.sort((k_ref[...], v0_ref[...], v1_ref[...]))

    p = np.argsort(keys)
    return Case(kernel, (keys, v0, v1), (keys[p], v0[p], v1[p]))


@case
def vmem_row_write(nl):
    @pl.kernel(out_type=jax.ShapeDtypeStruct((4, nl), jnp.int32), mesh=vector_mesh(),
               scratch_types=dict(in_s=pltpu.VMEM((nl,), jnp.int32),
                                  out_s=pltpu.VMEM((4, nl), jnp.int32)))
    def kernel(in_ref, out_ref, in_s, out_s):
        pltpu.sync_copy(in_ref, in_s)
        for i in range(4):
            out_s[i, :] = in_s[...] + i
        pltpu.sync_copy(out_s, out_ref)

    x = np.arange(nl, dtype=np.int32)
    return Case(kernel, (x,), (x[None] + np.arange(4, dtype=np.int32)[:, None],))


@case
def large_grid_mul(nl):
    grid = 65
    x = np.arange(nl * grid, dtype=np.float32)

    @whole_array_kernel(sds(x), grid=(grid,), in_specs=[pl.BlockSpec([nl], lambda i: i)],
                        out_specs=[pl.BlockSpec([nl], lambda i: i)])
    def kernel(x_ref, o_ref):
        o_ref[...] = 2.0 * x_ref[...]

    return Case(kernel, (x,), (2 * x,))


@case
def select_ref(nl):
    """pl.select_ref over four HBM refs and over two semaphores of an array."""
    xs = [np.arange(8 * 128, dtype=np.int32).reshape(8, 128) + 1000 * k for k in range(4)]

    @whole_array_kernel(jax.ShapeDtypeStruct((32, 128), jnp.int32),
                        in_specs=[pl.BlockSpec(memory_space=pltpu.HBM)] * 4,
                        out_specs=pl.BlockSpec(memory_space=pltpu.HBM))
    def kernel(*refs):
        *x_refs, y_ref = refs

        def body(sem):
            @pl.loop(0, 4)
            def _(i):
                pltpu.async_copy(pl.select_ref(i, *x_refs), y_ref.at[pl.ds(8 * i, 8)],
                                 pl.select_ref(i % 2, sem.at[0], sem.at[1])).wait()

        pl.run_scoped(body, pltpu.SemaphoreType.DMA(2))

    return Case(kernel, tuple(xs), (np.concatenate(xs),))


def _splat_constant(shape, dtype, value):
    @whole_array_kernel(jax.ShapeDtypeStruct(shape, dtype))
    def kernel(o_ref):
        o_ref[...] = jnp.full(shape, value, dtype=dtype)

    return Case(kernel, (), (np.full(shape, value, dtype),))


@case
def splat_constant_i16(nl):
    return _splat_constant((2, 16), np.int16, 42)


@case
def splat_constant_bf16(nl):
    return _splat_constant((2, 16), ml_dtypes.bfloat16, 42.0)


@case
def splat_constant_i8(nl):
    return _splat_constant((4, 16), np.int8, 42)


@case
def splat_constant_f8e5m2(nl):
    """JAX's test_store_splat_constant9."""
    return _splat_constant((4, 16), ml_dtypes.float8_e5m2, 7.0)


@case
def float8_arithmetic_and_conversions(nl):
    """Each 8-bit float type: x * y + x in f32 rounded after each op (as ml_dtypes'
    scalar ops round), the f32 value of x, and x converted to each other 8-bit type
    through f32 (overflow: inf in e5m2, NaN in the others; a direct cast between two
    8-bit formats is Pallas' EL-2). The inputs cover every bit pattern."""
    types = (ml_dtypes.float8_e5m2, ml_dtypes.float8_e4m3fn, ml_dtypes.float8_e4m3b11fnuz)
    bits = np.arange(256, dtype=np.uint8).reshape(4, 64)
    xs = tuple(bits.view(t) for t in types)
    ys = tuple(np.roll(bits, 7).view(t) for t in types)
    outs = []
    for x, y in zip(xs, ys):
        with np.errstate(invalid="ignore"):  # inf * 0, inf - inf
            prod = (x.astype(np.float32) * y.astype(np.float32)).astype(x.dtype)
            outs.append((prod.astype(np.float32) + x.astype(np.float32)).astype(x.dtype))
        outs.append(x.astype(np.float32))
        outs += [x.astype(np.float32).astype(t) for t in types if t != x.dtype]

    @whole_array_kernel(tuple(sds(o) for o in outs))
    def kernel(*refs):
        x_refs, y_refs, o_refs = refs[:3], refs[3:6], list(refs[6:])
        for x_ref, y_ref in zip(x_refs, y_refs):
            x, y = x_ref[...], y_ref[...]
            o_refs.pop(0)[...] = x * y + x
            o_refs.pop(0)[...] = x.astype(jnp.float32)
            for t in types:
                if t != x.dtype:
                    o_refs.pop(0)[...] = x.astype(jnp.float32).astype(t)

    return Case(kernel, xs + ys, tuple(outs))


@case
def splat_constant_i4(nl):
    return _splat_constant((4, 16), ml_dtypes.int4, -3)


@case
def int4_arithmetic_and_conversions(nl):
    """int4 and uint4: x + y and x * y wrapped to 4 bits, x as int32, x as uint4 (the
    bits), an int32 narrowed to int4 (the low 4 bits), x < y. The inputs are every
    pair of int4 values."""
    i4, u4 = ml_dtypes.int4, ml_dtypes.uint4
    xi = np.repeat(np.arange(-8, 8), 16).reshape(4, 64)
    yi = np.tile(np.arange(-8, 8), 16).reshape(4, 64)

    def wrap(v, t=i4):
        return (((v + 8) % 16) - 8).astype(t) if t == i4 else (v % 16).astype(t)

    x, y = xi.astype(i4), yi.astype(i4)
    outs = (wrap(xi + yi), wrap(xi * yi), xi.astype(np.int32), wrap(xi, u4), wrap(xi * 5 + 3),
            (xi < yi).astype(np.int32))

    @whole_array_kernel(tuple(sds(o) for o in outs))
    def kernel(x_ref, y_ref, add_ref, mul_ref, wide_ref, u_ref, narrow_ref, lt_ref):
        x, y = x_ref[...], y_ref[...]
        add_ref[...] = x + y
        mul_ref[...] = x * y
        wide_ref[...] = x.astype(jnp.int32)
        u_ref[...] = x.astype(jnp.uint4)
        narrow_ref[...] = (x.astype(jnp.int32) * 5 + 3).astype(jnp.int4)
        lt_ref[...] = (x < y).astype(jnp.int32)

    return Case(kernel, (x, y), outs)


# --- scalar subcore (after JAX's ScalarSubcoreTest) -------------------------------------------


def scalar_mesh(num_cores=1):
    return plsc.ScalarSubcoreMesh(axis_name="core", num_cores=num_cores)


@case
def scalar_cond_copy(nl):
    """lax.cond on the last core copies x: a cond with an empty branch."""
    x = np.arange(nl, dtype=np.int32) + 3

    @pl.kernel(out_type=sds(x), mesh=scalar_mesh(2))
    def kernel(x_ref, o_ref):
        lax.cond(lax.axis_index("core") == lax.axis_size("core") - 1,
                 lambda: pltpu.sync_copy(x_ref, o_ref), lambda: None)

    return Case(kernel, (x,), (x,))


@case
def scalar_sliced_copy(nl):
    x = np.arange(2 * nl, dtype=np.int32).reshape(2, nl)

    @pl.kernel(out_type=sds(x), mesh=scalar_mesh(2))
    def kernel(x_ref, o_ref):
        @functools.partial(pl.run_scoped, sems=pltpu.SemaphoreType.DMA(4))
        def _(sems):
            c = lax.axis_index("core")
            pltpu.async_copy(x_ref.at[c], o_ref.at[c], sems.at[c]).wait()

    return Case(kernel, (x,), (x,))


def _scalar_parallel_loop(nl, first, second):
    x = np.arange(nl * nl, dtype=np.int32).reshape(nl, nl)

    def loop(lo, hi, parallel, **kw):
        return plsc.parallel_loop(lo, hi, **kw) if parallel else pl.loop(lo, hi, **kw)

    @pl.kernel(out_type=sds(x), mesh=scalar_mesh(),
               scratch_types=(pltpu.SMEM(x.shape, jnp.int32), pltpu.SemaphoreType.DMA))
    def kernel(x_ref, o_ref, tmp_ref, sem):
        pltpu.async_copy(x_ref, tmp_ref, sem).wait()

        @loop(0, nl, first)
        def _(i):
            @loop(0, nl, second, unroll=nl)
            def _(j):
                tmp_ref[i, j] += 1

        pltpu.async_copy(tmp_ref, o_ref, sem).wait()

    return Case(kernel, (x,), (x + 1,))


@case
def scalar_nested_loops(nl):
    return _scalar_parallel_loop(nl, False, False)


@case
def scalar_nested_parallel_loops(nl):
    return _scalar_parallel_loop(nl, True, True)


@case
def scalar_parallel_loop_with_carry(nl):
    x = np.arange(nl * nl, dtype=np.int32).reshape(nl, nl)

    @pl.kernel(out_type=sds(x), mesh=scalar_mesh(),
               scratch_types=(pltpu.SMEM(x.shape, jnp.int32), pltpu.SemaphoreType.DMA))
    def kernel(x_ref, o_ref, tmp_ref, sem):
        pltpu.async_copy(x_ref, tmp_ref, sem).wait()

        @plsc.parallel_loop(0, nl, carry=jnp.zeros([], jnp.int32))
        def _(i, carry):
            carry += 1

            @plsc.parallel_loop(0, nl, unroll=2)
            def _(j):
                tmp_ref[i, j] += carry

            return carry

        pltpu.async_copy(tmp_ref, o_ref, sem).wait()

    return Case(kernel, (x,), (x + np.arange(1, nl + 1, dtype=np.int32)[:, None],))


@case
def scalar_dma_memory_space(nl):
    x = np.arange(nl, dtype=np.int32) * 9

    @pl.kernel(out_type=sds(x), mesh=scalar_mesh(), scratch_types=(pltpu.SemaphoreType.DMA,))
    def kernel(x_ref, o_hbm_ref, sem):
        pltpu.async_copy(x_ref, o_hbm_ref, sem).wait()

    return Case(kernel, (x,), (x,))


@case
def scalar_switch_while(nl):
    """lax.switch of three branches with results and a lax.while_loop, on scalars."""
    x = np.arange(4, dtype=np.int32) * 5 + 1

    @pl.kernel(out_type=sds(x), mesh=scalar_mesh(),
               scratch_types=(pltpu.SMEM((4,), jnp.int32), pltpu.SemaphoreType.DMA))
    def kernel(x_ref, o_ref, tmp_ref, sem):
        pltpu.async_copy(x_ref, tmp_ref, sem).wait()

        @pl.loop(0, 4)
        def _(i):
            v = tmp_ref[i]
            v = lax.switch(i % 3, [lambda v: v * 2, lambda v: v - 1, lambda v: v + 100], v)
            tmp_ref[i] = lax.while_loop(lambda t: t < 50, lambda t: t * 3, v)

        pltpu.async_copy(tmp_ref, o_ref, sem).wait()

    def ref(i, v):
        v = [v * 2, v - 1, v + 100][i % 3]
        while v < 50:
            v *= 3
        return v

    return Case(kernel, (x,), (np.array([ref(i, v) for i, v in enumerate(x)], np.int32),))


# --- emit_pipeline (after JAX's PipelineTest) ---------------------------------------------------


@case
def pipeline_squeezed_blocks(nl):
    x = np.arange(16 * nl, dtype=np.int32).reshape(16, nl)

    @pl.kernel(out_type=sds(x), mesh=vector_mesh())
    def kernel(x_hbm_ref, o_hbm_ref):
        spec = pl.BlockSpec((pl.Squeezed(), nl), lambda i: (i, 0))

        @functools.partial(pltpu.emit_pipeline, grid=(16,), in_specs=spec, out_specs=spec)
        def pipeline(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1

        pipeline(x_hbm_ref, o_hbm_ref)

    return Case(kernel, (x,), (x + 1,))


@case
def pipeline_gather_with_emit(nl):
    """The guide's gather over a mesh of 2 subcores per core."""
    data = np.arange(32 * 128, dtype=np.int32).reshape(32, 128)
    n = 8 * 4 * 4
    ids = rng(21).integers(0, 32, size=(1, n)).astype(np.int32)

    @pl.kernel(out_type=jax.ShapeDtypeStruct((n, 128), jnp.int32),
               mesh=vector_mesh(num_cores=2, num_subcores=2))
    def kernel(x_hbm, i_hbm, o_hbm):
        def body(i_vmem, o_vmem):
            pltpu.sync_copy(x_hbm.at[i_vmem.at[0]], o_vmem)

        pltpu.emit_pipeline(body, grid=(n // 8,),
                            in_specs=[pl.BlockSpec((1, 8), lambda i: (0, i))],
                            out_specs=[pl.BlockSpec((8, 128), lambda i: (i, 0))],
                            core_axis_name="subcore",
                            dimension_semantics=(pltpu.PARALLEL,))(i_hbm, o_hbm)

    return Case(kernel, (data, ids), (data[ids[0]],))


def _gather_via_indirect(nl, kind):
    """An input block of pl.Indirect rows, its indices a ref or a value."""
    rows, steps = 32, 4
    x = np.arange(rows * nl, dtype=np.int32).reshape(rows, nl)
    ids = np.stack([rng(30 + k).permutation(rows)[:nl] for k in range(steps)]).astype(np.int32)

    @pl.kernel(mesh=vector_mesh(2), out_type=jax.ShapeDtypeStruct((steps, nl, nl), jnp.int32),
               scratch_types=dict(indices_ref=pltpu.VMEM(ids.shape, jnp.int32)))
    def kernel(x_hbm_ref, indices_hbm_ref, o_hbm_ref, *, indices_ref):
        pltpu.sync_copy(indices_hbm_ref, indices_ref)

        @functools.partial(
            pltpu.emit_pipeline, grid=(steps,),
            in_specs=(pl.BlockSpec((pl.Indirect(nl), nl), lambda i: (
                indices_ref.at[i] if kind == "ref" else indices_ref[i], 0)),),
            out_specs=pl.BlockSpec((pl.Squeezed(), nl, nl), lambda i: (i, 0, 0)))
        def pipeline(x_ref, o_ref):
            @pl.loop(0, nl)
            def _(j):
                o_ref[j] = x_ref[j]

        pipeline(x_hbm_ref, o_hbm_ref)

    return Case(kernel, (x, ids), (x[ids],))


@case
def pipeline_gather_via_indirect_ref(nl):
    return _gather_via_indirect(nl, "ref")


@case
def pipeline_gather_via_indirect_array(nl):
    return _gather_via_indirect(nl, "array")


@case
def pipeline_2d_blocks(nl):
    x = np.arange(4 * 8 * 128, dtype=np.int32).reshape(4, 8, 128)

    @pl.kernel(out_type=sds(x), mesh=vector_mesh())
    def kernel(x_hbm_ref, o_hbm_ref):
        spec = pl.BlockSpec((pl.Squeezed(), 8, 128), lambda i: (i, 0, 0))

        @functools.partial(pltpu.emit_pipeline, grid=(4,), in_specs=[spec], out_specs=[spec])
        def pipeline(x_ref, o_ref):
            @pl.loop(0, 8)
            def _(i):
                @pl.loop(0, 128, step=nl)
                def _(j):
                    js = pl.ds(j, nl)
                    o_ref[i, js] = x_ref[i, js] + 1

        pipeline(x_hbm_ref, o_hbm_ref)

    return Case(kernel, (x,), (x + 1,))


@case
def unary_exp(nl):
    x = np.arange(nl, dtype=np.float32) / 8 - 1

    @whole_array_kernel(sds(x))
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.exp(x_ref[...])

    # The host's exp: compare within a few ulps of numpy's.
    return Case(kernel, (x,), (None,))


@case
def explicit_tiling_1d(nl):
    x = np.arange(4 * nl, dtype=np.int32)

    @pl.kernel(out_type=sds(x), mesh=vector_mesh())
    def kernel(x_hbm_ref, o_hbm_ref):
        spec = pl.BlockSpec((nl,), lambda i: (i,))

        @functools.partial(pltpu.emit_pipeline, grid=(4,), in_specs=spec, out_specs=spec,
                           tiling=pltpu.Tiling.SPARSE_CORE)
        def pipeline(x_ref, o_ref):
            o_ref[...] = x_ref[...] + 1

        pipeline(x_hbm_ref, o_hbm_ref)

    return Case(kernel, (x,), (x + 1,))


@case
def pl_kernel_on_ref_operand(nl):
    """A jax.new_ref passed to pl.kernel is updated in place: an inout parameter."""
    x = np.arange(nl, dtype=np.int32) * 4

    @pl.kernel(out_type=(), mesh=vector_mesh(), scratch_types=[pltpu.VMEM((nl,), jnp.int32)])
    def kernel(x_hbm, buf):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(x_hbm, buf)
            buf[...] = buf[...] * 2 + 1
            pltpu.sync_copy(buf, x_hbm)

    def fn(x):
        ref = jax.new_ref(x)
        kernel(ref)
        return jax.freeze(ref)

    return Case(fn, (x,), (x * 2 + 1,))


@case
def pl_kernel_capturing_a_scalar(nl):
    """A scalar the body closes over (after JAX's test_mpmd_capture_scalar): an smem
    parameter of the kernel, read once."""
    x = np.arange(4 * nl, dtype=np.int32).reshape(4, nl)

    def fn(x, i):
        @pl.kernel(out_type=jax.ShapeDtypeStruct((1, nl), jnp.int32),
                   mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1))
        def kernel(x_ref, o_ref):
            pltpu.sync_copy(x_ref.at[i], o_ref.at[0])

        return kernel(x)

    return Case(fn, (x, np.int32(2)), (x[2:3],), inputs=(x, np.array(2, np.int32)))


# --- more variants of JAX's parametrized tests -----------------------------------------------------


def _register(name, build):
    CASES[name] = build


for _dtype in (np.int8, np.uint8, np.float16, np.uint32):
    _register(f"slicing_{np.dtype(_dtype).name}", lambda nl, d=_dtype: _slicing(nl, d, 2))

for _fmt, _dtype in ((plsc.PackFormat.INTERLEAVED, np.int32), (plsc.PackFormat.COMPRESSED, np.float32)):
    _register(f"pack_unpack_{_fmt.value}_{np.dtype(_dtype).name}",
              lambda nl, f=_fmt, d=_dtype: _pack_unpack(nl, f, d))

for _dtype, _op in ((np.int32, jnp.sum), (np.float32, jnp.sum), (np.uint32, jnp.max),
                    (np.float32, jnp.max), (np.uint32, jnp.min), (np.int32, jnp.min)):
    _register(f"reduce_{_op.__name__}_{np.dtype(_dtype).name}",
              lambda nl, d=_dtype, o=_op: _reduction(nl, d, o))

for _keys, _mask, _desc in ((np.uint32, False, True), (np.int32, True, False),
                            (np.float32, False, False), (np.int32, True, True)):
    _register(f"sort_key_val_{np.dtype(_keys).name}{'_masked' if _mask else ''}"
              f"{'_descending' if _desc else ''}",
              lambda nl, k=_keys, m=_mask, d=_desc: _sort_key_val(nl, k, m, d))

_register("take_along_axis_2_f32", lambda nl: _take_along_axis(2, np.float32, 23))
_register("load_gather_masked_ge4", lambda nl: _load_gather_masked(nl, "ge4"))
_register("store_scatter_masked_lt4", lambda nl: _store_scatter_masked(nl, "lt4"))
_register("load_expanded_lt4", lambda nl: _load_expanded(nl, "lt4"))
_register("reshape_bf16_3d_to_2d", lambda nl: _reshape((2, 10, 16), (2, 160), ml_dtypes.bfloat16))
_register("splat_constant_i32", lambda nl: _splat_constant((16,), np.int32, 42))
_register("splat_constant_f32", lambda nl: _splat_constant((16,), np.float32, 42.0))
_register("scalar_parallel_then_sequential", lambda nl: _scalar_parallel_loop(nl, True, False))


@case
def scan_count_f32(nl):
    return _scan_count(rng(24).integers(0, 3, size=nl).astype(np.float32))


def _ffs(nl, bits, want):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32), layout_passes=False)
    def kernel(x_ref, o_ref):
        o_ref[...] = plsc.all_reduce_ffs(x_ref[...] == 1)

    return Case(kernel, (np.asarray(bits, np.int32),), (np.full(nl, want, np.int32),))


_register("ffs_all_zero", lambda nl: _ffs(nl, [0] * nl, nl))
_register("ffs_all_one", lambda nl: _ffs(nl, [1] * nl, 0))


@case
def scatter_major_3d(nl):
    return _scatter_major(np.arange(nl * 2 * nl * 4, dtype=np.int32).reshape(nl, 2 * nl, 4), 7)


@case
def subcore_parallel_2(nl):
    return _subcore_parallel(nl, 2)


@case
def gather_2d_with_col_slice(nl):
    """An index list and a column slice in one indexer, `x.at[indices, pl.ds(128, 1024)]`
    (JAX tests it under TensorCore tiling only)."""
    x = np.arange(nl * 4096, dtype=np.int32).reshape(nl, 4096)
    idx = permutation(nl, 8)

    @whole_array_kernel(jax.ShapeDtypeStruct((nl, 1024), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pltpu.sync_copy(x_hbm_ref.at[indices_ref, pl.ds(128, 1024)], o_ref)

    return Case(kernel, (x, idx), (x[idx, 128:1152],))


@case
def core_map_closing_over_new_refs(nl):
    """pl.core_map closing over jax.new_refs in HBM and SMEM, the SMEM one read for a
    DMA's index (after JAX's test_memory_space_annotations_aliased_input_core_map)."""
    x = np.arange(2 * 8 * 128, dtype=np.float32).reshape(2, 8, 128)

    def fn(x, y):
        mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1)
        x_ref = jax.new_ref(x, memory_space=pltpu.HBM)
        y_ref = jax.new_ref(y, memory_space=pltpu.HBM)
        index_ref = jax.new_ref(jnp.ones([8], jnp.int32), memory_space=pltpu.SMEM)

        @pl.core_map(mesh, scratch_shapes=[pltpu.SemaphoreType.DMA])
        def _(sem):
            pltpu.async_copy(x_ref.at[index_ref[0]], y_ref, sem).wait()

        return jax.freeze(y_ref)

    # Parameters, in the order the body uses them: %in0 the SMEM index list (staged
    # into SMEM), %in1 = x, %in2 = y (written: inout).
    return Case(fn, (x, -x[0]), (x[1],), inputs=(np.ones(8, np.int32), x, -x[0]))


# --- arithmetic, conversions and a cond with results ---------------------------------------------


@case
def integer_arithmetic(nl):
    """Floor division and modulo (jnp's fix-ups around div and rem), both right
    shifts on both signednesses, clamp, min/max, sign, and bool logic."""
    x = rng(25).integers(-1000, 1000, size=nl).astype(np.int32)
    y = rng(26).integers(1, 50, size=nl).astype(np.int32) * np.where(np.arange(nl) % 3 == 0, -1, 1).astype(np.int32)
    outs = (jax.ShapeDtypeStruct((nl,), jnp.int32),) * 4 + (jax.ShapeDtypeStruct((nl,), jnp.uint32),)

    @whole_array_kernel(outs)
    def kernel(x_ref, y_ref, q_ref, r_ref, s_ref, m_ref, u_ref):
        x, y = x_ref[...], y_ref[...]
        q_ref[...] = x // y
        r_ref[...] = x % y
        s_ref[...] = lax.shift_right_logical(x, 3) + (x >> 2) + (x << 1)
        m_ref[...] = (jnp.clip(x, -100, 100) + jnp.maximum(x, y) * jnp.sign(y)
                      + jnp.where((x > 0) & ~(y > 0) | (x == y), 1, 0))
        u = x.astype(jnp.uint32)
        u_ref[...] = lax.shift_right_arithmetic(u, jnp.uint32(4)) ^ (u >> 1)

    u = x.astype(np.uint32)
    want = (
        x // y, x % y,
        ((x.view(np.uint32) >> 3).view(np.int32) + (x >> 2) + (x << 1)).astype(np.int32),
        (np.clip(x, -100, 100) + np.maximum(x, y) * np.sign(y)
         + np.where((x > 0) & ~(y > 0) | (x == y), 1, 0)).astype(np.int32),
        (u.view(np.int32) >> 4).view(np.uint32) ^ (u >> 1),
    )
    return Case(kernel, (x, y), want)


@case
def conversions(nl):
    """float -> int truncates, int -> float, bf16 round trips, bool -> int."""
    x = (np.arange(nl, dtype=np.float32) - nl / 2) * 1.75
    outs = (jax.ShapeDtypeStruct((nl,), jnp.int32), jax.ShapeDtypeStruct((nl,), jnp.float32),
            jax.ShapeDtypeStruct((nl,), jnp.int32))

    @whole_array_kernel(outs)
    def kernel(x_ref, i_ref, f_ref, b_ref):
        x = x_ref[...]
        i_ref[...] = x.astype(jnp.int32)
        f_ref[...] = x.astype(jnp.bfloat16).astype(jnp.float32) + i_ref[...].astype(jnp.float32)
        b_ref[...] = (x > 0).astype(jnp.int32)

    i = x.astype(np.int32)
    f = x.astype(ml_dtypes.bfloat16).astype(np.float32) + i.astype(np.float32)
    return Case(kernel, (x,), (i, f, (x > 0).astype(np.int32)))


@case
def cond_with_results(nl):
    """lax.cond on a subcore's parity with vector results (only the used one kept)."""
    x = np.arange(16 * nl, dtype=np.int32).reshape(16, nl)

    @pl.kernel(out_type=sds(x), mesh=vector_mesh(), scratch_types=[pltpu.VMEM((nl,), jnp.int32)])
    def kernel(x_ref, o_ref, buf):
        s = lax.axis_index("subcore")
        pltpu.sync_copy(x_ref.at[s], buf)
        v = buf[...]
        doubled, unused = lax.cond(s % 2 == 0, lambda: (v * 2, v + 1), lambda: (v - 1, v))
        buf[...] = doubled
        pltpu.sync_copy(buf, o_ref.at[s])

    want = np.where(np.arange(16)[:, None] % 2 == 0, x * 2, x - 1).astype(np.int32)
    return Case(kernel, (x,), (want,))


# --- running the cases ------------------------------------------------------------------


def test_every_case_runs():
    """The parametrized test below covers every registered case."""
    assert len(CASES) >= 5


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel(tmp_path, name, target):
    c, kernel = export_case(name, target)
    outs = run_scir(tmp_path, kernel, c.args if c.inputs is None else c.inputs, target)
    assert len(outs) == len(c.want)
    for got, want in zip(outs, c.want):
        if want is not None:
            expect_equal(got, want, kernel.scir)


def test_exp_within_ulps(tmp_path):
    """exp is the host's (docs/language.md), so the check is a few ulps of numpy's."""
    c, kernel = export_case("unary_exp", "v7x")
    [got] = run_scir(tmp_path, kernel, c.args, "v7x")
    np.testing.assert_array_max_ulp(got, np.exp(c.args[0]), maxulp=4)


# --- parameters, names and kernel_from_params -----------------------------------------------


def test_parameters_and_scratch_take_the_python_names():
    c, kernel = export_case("guide_cumsum", "v7x")
    assert kernel.kernel == "cumsum"
    assert [(p.name, p.direction, p.type, p.operand, p.result) for p in kernel.params] == [
        ("x_ref", "in", "hbm<2x16xi32>", 0, None), ("o_ref", "out", "hbm<2x16xi32>", None, 0)]
    assert kernel.aliases == {}
    header = kernel.scir.split("{")[0]
    assert "kernel @cumsum(in %x_ref: hbm<2x16xi32>, out %o_ref: hbm<2x16xi32>)" in header
    assert "mesh scalar(cores = 2)" in header
    assert "scratch(%tmp_ref: smem<16xi32>, %sem: dma_sem)" in header
    assert kernel.scir.startswith('target "v7x"\n')


def test_layout_passes_false_is_an_attribute():
    _, kernel = export_case("load_gather_1d", "v6e")
    assert "attributes { layout_passes = false }" in kernel.scir
    _, kernel = export_case("add_one_i32", "v6e")
    assert "attributes" not in kernel.scir


def test_kernel_from_params_maps_aliases_to_one_inout_parameter(tmp_path):
    """A discharged kernel (what a lowering rule sees) aliases its Ref operand to a
    result: one inout parameter that binds both."""
    from jax._src.state.discharge import discharge_state

    with sjax.abstract_tpu("v7x"):
        c = CASES["pl_kernel_on_ref_operand"](16)
        closed = discharge_state(jax.make_jaxpr(c.fn)(*c.args))
    [eqn] = [e for e in closed.jaxpr.eqns if e.primitive.name == "mpmd_map"]
    assert dict(eqn.params["input_output_aliases"]) == {0: 0}
    kernel = sjax.kernel_from_params(eqn.params, [v.aval for v in eqn.invars], target="v7x",
                                     name="twice_plus_one", locations=False)
    assert kernel.kernel == "twice_plus_one"
    assert [(p.direction, p.operand, p.result) for p in kernel.params] == [("inout", 0, 0)]
    assert kernel.aliases == {kernel.params[0].name: (0, 0)}
    [got] = run_scir(tmp_path, kernel, c.args, "v7x")
    expect_equal(got, c.want[0], kernel.scir)


def test_kernel_from_params_rejects_other_parameters():
    with pytest.raises(sjax.ExportError, match="not those of an mpmd_map or core_map"):
        sjax.kernel_from_params({"jaxpr": None}, [], target="v7x")
    with pytest.raises(sjax.ExportError, match="unknown target 'v9'"):
        sjax.kernel_from_params({}, [], target="v9")


def test_export_kernels_returns_each_kernel():
    with sjax.abstract_tpu("v7x"):
        a, b = CASES["add_one_i32"](16), CASES["sub_one_f32"](16)

        def both(x, y):
            return a.fn(x), b.fn(y)

        kernels = sjax.export_kernels(both, a.args[0], b.args[0], target="v7x", name="step")
        with pytest.raises(sjax.ExportError, match="binds 2 SparseCore kernels"):
            sjax.export(both, a.args[0], b.args[0], target="v7x")
    assert [k.kernel for k in kernels] == ["step_0", "step_1"]
    assert "add " in kernels[0].scir and "sub " in kernels[1].scir


# --- locations --------------------------------------------------------------------------------


def op_lines(scir):
    """The op lines of a kernel body: not its header, braces or `} else {`."""
    body = scir.split("\n{\n", 1)[1]
    return [line.strip() for line in body.splitlines()
            if line.strip() and not line.strip().endswith("{") and line.strip() != "}"]


@pytest.mark.parametrize("name", ["guide_cumsum", "guide_add_one", "double_buffer",
                                  "scalar_switch_while", "fetch_and_add"])
def test_every_op_has_the_location_of_its_python_line(name):
    _, kernel = export_case(name, "v7x", locations=True)
    source, first = inspect.getsourcelines(CASES[name])
    lines = op_lines(kernel.scir)
    assert lines
    for line in lines:
        m = LOC_RE.search(line)
        assert m, f"no loc on {line!r}"
        assert m.group(1) == __file__
        assert first <= int(m.group(2)) < first + len(source), line
    # Region ops carry theirs after the closing brace (not `} else {`, nor the
    # kernel's own closing brace).
    closers = [l.strip() for l in kernel.scir.splitlines()
               if l.startswith("  ") and l.strip().startswith("}") and not l.endswith("{")]
    assert closers and all(LOC_RE.search(l) for l in closers), closers


def test_locations_name_the_line_and_column_of_the_call():
    _, kernel = export_case("guide_cumsum", "v7x", locations=True)
    source, first = inspect.getsourcelines(CASES["guide_cumsum"])
    at = {}
    for k, text in enumerate(source):
        for needle in ('lax.axis_index("core")', "tmp_ref[i] += tmp_ref[i - 1]"):
            if needle in text:
                at[needle] = (first + k, text.index(needle) + 1)
    [axis] = [l for l in op_lines(kernel.scir) if "axis_index core" in l]
    assert axis.endswith(f' loc("{__file__}":%d:%d)' % at['lax.axis_index("core")'])
    [store] = [l for l in op_lines(kernel.scir) if l.startswith("store ")]
    line = at["tmp_ref[i] += tmp_ref[i - 1]"][0]
    assert LOC_RE.search(store).group(2) == str(line)


def test_locations_can_be_left_out(tmp_path):
    c, kernel = export_case("guide_cumsum", "v7x", locations=False)
    assert "loc(" not in kernel.scir
    [got] = run_scir(tmp_path, kernel, c.args, "v7x")
    expect_equal(got, c.want[0], kernel.scir)


# --- what scjit lacks: ExportError naming the primitive and the line ----------------------------


def raises_at(fn, *args, match, target="v7x"):
    """Exports fn(*args), expecting an ExportError whose message matches and which
    names a line of this file."""
    with pytest.raises(sjax.ExportError, match=match) as info:
        sjax.export(fn, *args, target=target)
    assert info.value.location is not None and info.value.location.file == __file__
    assert str(info.value).startswith(f"{__file__}:{info.value.location.line}: ")
    return info.value


def test_unknown_primitive_is_named_with_its_line():
    with sjax.abstract_tpu("v7x"):
        @pl.kernel(out_type=jax.ShapeDtypeStruct((16,), jnp.float32), mesh=vector_mesh(),
                   scratch_types=[pltpu.VMEM((16,), jnp.float32)])
        def kernel(x_ref, o_ref, buf):
            pltpu.sync_copy(x_ref, buf)
            buf[...] = jnp.sinh(buf[...])
            pltpu.sync_copy(buf, o_ref)

        err = raises_at(kernel, np.zeros(16, np.float32), match="cannot export `sinh`")
    assert err.primitive == "sinh"
    src, first = inspect.getsourcelines(test_unknown_primitive_is_named_with_its_line)
    assert "jnp.sinh" in src[err.location.line - first]


def test_int4_exports_as_i4():
    with sjax.abstract_tpu("v7x"):
        c = CASES["int4_arithmetic_and_conversions"](16)
    [kernel] = sjax.export_kernels(c.fn, *c.args, target="v7x")
    assert "hbm<4x64xi4>" in kernel.scir and "hbm<4x64xu4>" in kernel.scir


def test_several_meshes_are_one_kernel_of_several_parts():
    """An mpmd_map of a vector and a scalar body is one kernel with a part per body
    (language.md, "Kernels of several meshes"), each with the scratch it uses, named
    after both bodies as Pallas names it. (With `name=`, JAX's own lowering fails:
    both bodies get that name, "Function name ... already exists in symbol table".)"""
    from jax._src.pallas import mpmd

    with sjax.abstract_tpu("v7x"):
        x = np.arange(16, dtype=np.int32)
        v_mesh, s_mesh = vector_mesh(2), plsc.ScalarSubcoreMesh(axis_name="core", num_cores=2)

        def vector_fn(x_ref, o_ref, vbuf, sbuf):
            del sbuf
            pltpu.sync_copy(x_ref, vbuf)
            pltpu.sync_copy(vbuf, o_ref)

        def scalar_fn(x_ref, o_ref, vbuf, sbuf):
            del vbuf, o_ref
            pltpu.sync_copy(x_ref, sbuf)

        def fn(x):
            return mpmd.mpmd_map(
                [(v_mesh, vector_fn), (s_mesh, scalar_fn)], out_types=jax.ShapeDtypeStruct.like(x),
                scratch_types=[(pltpu.VMEM @ v_mesh)((16,), jnp.int32), (pltpu.SMEM @ s_mesh)((16,), jnp.int32)])(x)

        text = sjax.export(fn, x, locations=False)
    assert text == f'target "v7x"\njax "{sjax.internals.rules_release()}"\n' + """
kernel @vector_fn_scalar_fn(in %x_ref: hbm<16xi32>, out %o_ref: hbm<16xi32>)
    mesh vector(cores = 2, subcores = 16)
    scratch(%vbuf: vmem<16xi32>)
{
  copy %x_ref -> %vbuf
  copy %vbuf -> %o_ref
}
    mesh scalar(cores = 2)
    scratch(%sbuf: smem<16xi32>)
{
  copy %x_ref -> %sbuf
}
"""


def test_scratch_two_bodies_share_is_an_export_error():
    from jax._src.pallas import mpmd

    with sjax.abstract_tpu("v7x"):
        x = np.arange(16, dtype=np.int32)

        def body(x_ref, o_ref, shared):
            pltpu.sync_copy(x_ref, shared)

        def fn(x):
            return mpmd.mpmd_map(
                [(vector_mesh(2), body), (plsc.ScalarSubcoreMesh(axis_name="core", num_cores=2), body)],
                out_types=jax.ShapeDtypeStruct.like(x),
                scratch_types=[pltpu.VMEM_SHARED((16,), jnp.int32)])(x)

        raises_at(fn, x, match=r"scratch 0 \(vmem_shared<16xi32>\) is used by 2 bodies of the mpmd_map")


def test_a_semaphore_result_is_a_semaphore_parameter():
    """JAX's async kernels pass a DMA semaphore from one kernel to the next: a
    semaphore parameter, whose count outlives the launch."""
    with sjax.abstract_tpu("v7x"):
        mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1)
        make_sem = pl.kernel(lambda sem_ref: None, out_type=pltpu.SemaphoreType.DMA(()), mesh=mesh)
        text = sjax.export(make_sem, locations=False)
    assert "kernel @_lambda_(out %sem_ref: dma_sem)\n    mesh scalar(cores = 1)\n{\n}\n" in text


def test_a_scan_over_arrays_is_an_export_error():
    with sjax.abstract_tpu("v7x"):
        @whole_array_kernel(jax.ShapeDtypeStruct((4, 16), jnp.int32))
        def kernel(x_ref, o_ref):
            o_ref[...] = lax.scan(lambda c, row: (c + row, c), jnp.zeros(16, jnp.int32), x_ref[...])[1]

        raises_at(kernel, np.zeros((4, 16), np.int32), match="cannot export `scan`: a scan over arrays")


def test_run_scoped_with_results_is_an_export_error():
    with sjax.abstract_tpu("v7x"):
        @whole_array_kernel(jax.ShapeDtypeStruct((16,), jnp.int32))
        def kernel(x_ref, o_ref):
            def body(tmp):
                tmp[...] = x_ref[...] + 1
                return tmp[...]

            o_ref[...] = pl.run_scoped(body, pltpu.VMEM((16,), jnp.int32))

        raises_at(kernel, np.zeros(16, np.int32), match="run_scoped that returns values")


def test_a_remote_dma_outside_a_device_mesh_is_pallas_dev_6():
    # Outside jax.shard_map there is no device mesh: a MESH device id of one
    # coordinate is Pallas' DEV-6, from scjit's rules as from JAX's lowering.
    with sjax.abstract_tpu("v7x"):
        @pl.kernel(out_type=jax.ShapeDtypeStruct((16,), jnp.int32), mesh=vector_mesh(),
                   scratch_types=[pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA])
        def kernel(x_ref, o_ref, send, recv):
            pltpu.make_async_remote_copy(x_ref, o_ref, send, recv, device_id=(1,),
                                         device_id_type=pl.DeviceIdType.MESH).start()

        text = sjax.export(kernel, np.zeros(16, np.int32), locations=False)
    assert "  dma_start %x_ref -> %o_ref, %recv src_sem %send {device = [1]}\n" in text
    assert "devices(" not in text
    with pytest.raises(scjit.CompileError) as e:
        scjit.compile(text)
    assert e.value.diagnostics[0].code == "DEV-6"
    assert e.value.diagnostics[0].message == ("Number of device ids must match the number of mesh axes, but got 1 "
                                              "ids for a 0D mesh.")


def test_no_kernel_is_an_export_error():
    with pytest.raises(sjax.ExportError, match="binds no SparseCore kernel"):
        sjax.export(lambda x: x + 1, np.zeros(4, np.int32))


# --- what Pallas rejects, scjit rejects with Pallas' text ------------------------------------------


REJECTED = {
    # name: (kernel body taking (x_ref, indices_ref, o_ref) or fewer, in_specs, out_specs, text)
}


def rejected(name, text):
    def register(build):
        REJECTED[name] = (build, text)
        return build
    return register


@rejected("scalar_load_vmem", "To load a scalar from VMEM")
def _(nl):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32))
    def kernel(x_ref, o_ref):
        o_ref[...] = lax.broadcast(x_ref[0], o_ref.shape)
    return kernel, (np.zeros(nl, np.int32),)


@rejected("scalar_load_hbm", "Get does not support loading from")
def _(nl):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),))
    def kernel(x_ref, o_ref):
        o_ref[...] = lax.broadcast(x_ref[0], o_ref.shape)
    return kernel, (np.zeros(nl, np.int32),)


@rejected("scalar_store_vmem", "Trying to swap a scalar in")
def _(nl):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32))
    def kernel(o_ref):
        o_ref[0] = 1
    return kernel, ()


@rejected("column_write", "Integer indexing of refs that follows a non-trivial slice")
def _(nl):
    @pl.kernel(out_type=jax.ShapeDtypeStruct((nl, 4), jnp.int32), mesh=vector_mesh(),
               scratch_types=[pltpu.VMEM((nl,), jnp.int32), pltpu.VMEM((nl, 4), jnp.int32)])
    def kernel(in_ref, out_ref, in_s, out_s):
        pltpu.sync_copy(in_ref, in_s)
        out_s[:nl, 0] = in_s[...]
        pltpu.sync_copy(out_s, out_ref)
    return kernel, (np.zeros(nl, np.int32),)


def _gather_variant(indices_space=pltpu.VMEM, out_space=None, index_the_destination=False):
    """A gather of 8 rows with its index list or its destination somewhere else."""
    in_specs = (pl.BlockSpec(memory_space=pltpu.HBM), pl.BlockSpec(memory_space=indices_space))
    out_specs = None if out_space is None else pl.BlockSpec(memory_space=out_space)

    @whole_array_kernel(jax.ShapeDtypeStruct((8,), jnp.int32), in_specs=in_specs,
                        out_specs=out_specs)
    def kernel(x_hbm_ref, indices_ref, o_ref):
        dst = o_ref.at[indices_ref] if index_the_destination else o_ref
        pltpu.sync_copy(x_hbm_ref.at[indices_ref], dst)

    return kernel, (np.zeros(8, np.int32), np.zeros(8, np.int32))


rejected("gather_to_hbm", "from HBM to HBM is not supported")(
    lambda nl: _gather_variant(out_space=pltpu.HBM))
rejected("gather_indices_in_hbm", "must be in VMEM, got HBM")(
    lambda nl: _gather_variant(indices_space=pltpu.HBM))
rejected("gather_indexed_destination", "source ref can be indexed")(
    lambda nl: _gather_variant(index_the_destination=True))


@rejected("cumsum_2d", "must be rank 1")
def _(nl):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32))
    def kernel(x_ref, o_ref):
        o_ref[...] = jnp.cumsum(x_ref[...].reshape(4, nl // 4), axis=0).reshape(-1)
    return kernel, (np.zeros(nl, np.int32),)


rejected("gather_nd_indices", "Only 1D indices are supported")(
    lambda nl: _gather_nd_indices())
rejected("gather_transform_after_indexer", "cannot have any transforms following the indexer")(
    lambda nl: _gather_transform_after_indexer())


@rejected("scalar_store_hbm", "Swap does not support storing to HBM")
def _(nl):
    @whole_array_kernel(jax.ShapeDtypeStruct((nl,), jnp.int32),
                        out_specs=pl.BlockSpec(memory_space=pltpu.HBM))
    def kernel(o_ref):
        o_ref[0] = 1
    return kernel, ()


def _gather_nd_indices():
    @whole_array_kernel(jax.ShapeDtypeStruct((1, 32, 1024), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pltpu.sync_copy(x_hbm_ref.at[indices_ref], o_ref)
    return kernel, (jax.ShapeDtypeStruct((16, 1024), jnp.int32),
                    jax.ShapeDtypeStruct((1, 32), jnp.int32))


def _gather_transform_after_indexer():
    @whole_array_kernel(jax.ShapeDtypeStruct((8,), jnp.int32),
                        in_specs=(pl.BlockSpec(memory_space=pltpu.HBM),
                                  pl.BlockSpec(memory_space=pltpu.VMEM)))
    def kernel(x_hbm_ref, indices_ref, o_ref):
        pltpu.sync_copy(x_hbm_ref.at[indices_ref].reshape(o_ref.size), o_ref)
    return kernel, (np.zeros(8, np.int32), np.zeros(8, np.int32))


@pytest.mark.parametrize("name", sorted(REJECTED))
def test_rejected_as_pallas_rejects_it(tmp_path, name):
    """Kernels JAX's tests expect Pallas to reject: they export, and jit-run rejects
    them with Pallas' message (exit 3)."""
    build, text = REJECTED[name]
    with sjax.abstract_tpu("v7x"):
        kernel, args = build(16)
    scir = sjax.export(kernel, *args, target="v7x")
    path = tmp_path / "k.scir"
    path.write_text(scir)
    proc = subprocess.run([JIT_RUN, str(path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 3, proc.stderr + scir
    assert text in proc.stderr, proc.stderr + scir
    # The diagnostic is located at the Pallas line (the ops carry their loc).
    assert proc.stderr.startswith(f"{__file__}:"), proc.stderr


# --- debug_print -------------------------------------------------------------------------------------


def test_debug_print_of_a_ref_a_vector_a_mask_and_scalars(tmp_path):
    nl = 8
    with sjax.abstract_tpu("v6e"):
        @pl.kernel(out_type=jax.ShapeDtypeStruct((nl,), jnp.int32), mesh=vector_mesh(1, 1),
                   scratch_types=[pltpu.VMEM((nl,), jnp.int32)],
                   compiler_params=pltpu.CompilerParams(needs_layout_passes=False))
        def kernel(x_hbm_ref, o_ref, buf):
            pltpu.sync_copy(x_hbm_ref, buf)
            pl.debug_print("Memref", buf)
            v = buf[...] + 100
            pl.debug_print("Vector value", v)
            pl.debug_print("Masks", v < 103)
            pl.debug_print("Single int", 1234552)
            pl.debug_print("No values")
            buf[...] = v
            pltpu.sync_copy(buf, o_ref)

        scir = sjax.export(kernel, np.arange(nl, dtype=np.int32), target="v6e", locations=False)
    path = tmp_path / "k.scir"
    path.write_text(scir)
    proc = subprocess.run([JIT_RUN, str(path), "--in", "x_hbm_ref=iota"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    prefix = "[core 0, subcore 0] "
    assert proc.stderr.splitlines() == [
        prefix + "Memref, data: s32[8]: { 0, 1, 2, 3, 4, 5, 6, 7 }",
        prefix + "Vector value, data: s32[8]: 100, 101, 102, 103, 104, 105, 106, 107",
        prefix + "Masks, data: pred[8]: 1, 1, 1, 0, 0, 0, 0, 0",
        prefix + "Single int, data: s32[1]: 1234552",
        prefix + "No values",
    ]


# --- debug_check -------------------------------------------------------------------------------------


def _checked_kernel():
    """A kernel after JAX's DebugCheckTest.test_vector_debug_check, with a check whose
    condition is computed: subcore 1 of 2 fails it."""
    @pl.kernel(out_type=jax.ShapeDtypeStruct((8,), jnp.int32), mesh=vector_mesh(1, 2))
    def kernel(_):
        pl.debug_check(True, "Check success!")
        pl.debug_check(lax.axis_index("subcore") < 1, "only subcore 0 {}")
    return kernel


def test_debug_check_is_written_only_while_debug_checks_are_enabled(tmp_path):
    with sjax.abstract_tpu("v7x"):
        kernel = _checked_kernel()
        plain = sjax.export(kernel, target="v7x", locations=False)
        with pl.enable_debug_checks(True):
            checked = sjax.export(kernel, target="v7x", locations=False)
    assert "debug_check" not in plain
    where = "(check at _checked_kernel.<locals>.kernel)"
    # The condition is the negation of checkify's "failed" predicate; the message
    # is Pallas' fmt_string, its placeholder kept (as on a TPU), and the place.
    checks = re.findall(r"\n  %(v\d+) = not %v\d+ : i1\n  debug_check %(v\d+), (.*)", checked)
    assert [(ok == cond, msg) for ok, cond, msg in checks] == [
        (True, f'"Check success! {where}"'), (True, f'"only subcore 0 {{}} {where}"')]
    path = tmp_path / "k.scir"
    path.write_text(checked)
    proc = subprocess.run([JIT_RUN, str(path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1, proc.stderr
    assert f"error[RT-CHECK]: debug_check failed: only subcore 0 {{}} {where}" in proc.stderr
    assert "note: in kernel @kernel, subcore (core 0, subcore 1)" in proc.stderr
    assert "Check success!" not in proc.stderr.split("error[RT-CHECK]")[1].split("\n")[0]


def test_a_failed_debug_check_in_jax_is_a_runtime_error_naming_the_function():
    kernel = None
    with sjax.sparsecore("v7x"):
        kernel = _checked_kernel()
        with pl.enable_debug_checks(True), pytest.raises(jax.errors.JaxRuntimeError) as e:
            jax.block_until_ready(kernel())
        np.asarray(kernel())  # without debug checks the kernel runs (and is compiled anew)
    text = str(e.value)
    assert "error[RT-CHECK]: debug_check failed: only subcore 0 {} " \
           "(check at _checked_kernel.<locals>.kernel)" in text
    assert "Check success!" not in text


def test_a_non_debug_check_is_pallas_error():
    from jax.experimental import checkify

    with sjax.abstract_tpu("v7x"):
        @pl.kernel(out_type=jax.ShapeDtypeStruct((8,), jnp.int32), mesh=vector_mesh(1, 1))
        def kernel(_):
            checkify.check(lax.axis_index("subcore") < 1, "not a debug check")

        with pytest.raises(sjax.ExportError) as e:
            sjax.export(kernel, target="v7x")
    assert e.value.primitive == "check"
    assert e.value.reason == ("NotImplementedError: Non-debug checks are not supported by the Mosaic "
                              "backend. Functionalize them via `jax.experimental.checkify`.")


# --- targets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["v5p", "v6e", "v7x", "v8i"])
def test_abstract_tpu_is_the_targets_chip(target):
    assert sjax.target_of_current_context() is None
    with sjax.abstract_tpu(target):
        assert sjax.target_of_current_context() == target
        info = plsc.get_sparse_core_info()
    assert info.num_lanes == (8 if target in ("v5p", "v6e") else 16)
    assert sjax.target_of_current_context() is None


def test_abstract_tpu_knows_jaxs_chips_only():
    with pytest.raises(ValueError, match="unknown target 'v8t'"):
        with sjax.abstract_tpu("v8t"):
            pass


# --- the table ---------------------------------------------------------------------------------------


def test_every_table_entry_says_what_it_becomes():
    for prim, entry in sjax.TABLE.items():
        assert entry.primitive is prim
        assert entry.python and entry.scir, prim


def test_what_pallas_does_not_lower_on_sparsecore_is_an_export_error_with_its_text():
    """x ** 2 binds integer_pow, which Pallas' SparseCore lowering lacks: the export
    fails as Pallas would, rather than running a kernel Pallas rejects."""
    with sjax.abstract_tpu("v7x"):
        @whole_array_kernel(jax.ShapeDtypeStruct((16,), jnp.int32))
        def kernel(x_ref, o_ref):
            o_ref[...] = x_ref[...] ** 2

        err = raises_at(kernel, np.zeros(16, np.int32), match="cannot export `integer_pow`")
    assert ("Unimplemented primitive in Pallas TPU lowering for sc_vector_subcore: integer_pow"
            in str(err))


# --- docs/jax.md --------------------------------------------------------------------------------------

DOC = ROOT / "docs" / "jax.md"


def test_doc_table_is_the_table():
    """docs/jax.md's generated part is `python -m scjit.jax.doc`'s output."""
    from scjit.jax import doc

    if jax.__version__ != doc.JAX_VERSION:
        pytest.skip(f"docs/jax.md's table is JAX {doc.JAX_VERSION}'s")
    assert DOC.read_text() == doc.replace_generated(DOC.read_text()), (
        "docs/jax.md is out of date: run `.venv/bin/python -m scjit.jax.doc --write`")
    for entry in sjax.TABLE.values():
        assert f"| `{entry.name}` | {doc._cell(entry.python)} |" in DOC.read_text()


def fenced(text, tag):
    return re.findall(rf"^```{tag}\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)


def test_doc_example_prints_the_scir_beside_it(capsys):
    """The page's Python example, run, prints exactly its `scir` block (which
    doc_examples_test compiles and runs)."""
    [code] = [c for c in fenced(DOC.read_text(), "python") if "scjit.jax.export(" in c]
    [scir] = fenced(DOC.read_text(), "scir")
    exec(compile(code, str(DOC), "exec"), {})
    assert capsys.readouterr().out == scir.replace('jax "0.12.1"', f'jax "{sjax.internals.rules_release()}"')


def test_doc_example_runs(tmp_path):
    [scir] = fenced(DOC.read_text(), "scir")
    path = tmp_path / "cumsum.scir"
    path.write_text(scir)
    x = rng().integers(-9, 9, size=(2, 16), dtype=np.int32)
    np.save(tmp_path / "x.npy", x)
    proc = subprocess.run([JIT_RUN, str(path), "--in", f"x_ref={tmp_path / 'x.npy'}",
                           "--out", f"o_ref={tmp_path / 'o.npy'}"], capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    expect_equal(np.load(tmp_path / "o.npy"), np.cumsum(x, axis=1, dtype=np.int32), scir)


def test_debug_print_of_refs_on_the_scalar_subcore(tmp_path):
    """pl.debug_print of a VMEM_SHARED scratch and of HBM operands of 16 and 8 bits
    (after JAX's DebugPrintTest.test_scalar_subcore)."""
    nl = 16
    i32 = np.arange(512, dtype=np.int32).reshape(-1, nl)
    i16 = np.arange(512, dtype=np.int16).reshape(-1, 2 * nl)
    i8 = np.arange(512, dtype=np.int8).reshape(-1, 4 * nl)
    with sjax.abstract_tpu("v7x"):
        @pl.kernel(out_type=sds(i32), mesh=plsc.ScalarSubcoreMesh(axis_name="x", num_cores=2),
                   compiler_params=pltpu.CompilerParams(needs_layout_passes=False))
        def kernel(i32_ref, i16_ref, i8_ref, o_ref):
            @functools.partial(pl.run_scoped, tmp_ref=pltpu.VMEM_SHARED(i32.shape, jnp.int32),
                               sem=pltpu.SemaphoreType.DMA)
            def _(tmp_ref, sem):
                @pl.when(lax.axis_index("x") == 0)
                def _():
                    pltpu.async_copy(i32_ref, tmp_ref, sem).wait()
                    pltpu.async_copy(tmp_ref, o_ref, sem).wait()
                    pl.debug_print("s32 array", tmp_ref)
                    pl.debug_print("s16 array", i16_ref)
                    pl.debug_print("s8 array", i8_ref)

        c = sjax.export_kernels(kernel, i32, i16, i8, target="v7x", locations=False)[0]
    [out] = run_scir(tmp_path, c, (i32, i16, i8), "v7x")
    expect_equal(out, i32, c.scir)
    proc = subprocess.run([JIT_RUN, str(tmp_path / f"{c.kernel}.scir"), "--in", "i32_ref=iota",
                           "--in", "i16_ref=iota", "--in", "i8_ref=iota"],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    row = lambda lo, hi: "{ " + ", ".join(map(str, range(lo, hi))) + " }"
    assert "s32 array, data: s32[32,16]: " + row(0, nl) + " " + row(nl, 2 * nl) in proc.stderr
    assert "s16 array, data: s16[16,32]: " + row(0, 2 * nl) + " " + row(2 * nl, 4 * nl) in proc.stderr
    assert "s8 array, data: s8[8,64]: " + row(0, 4 * nl) + " " + row(4 * nl, 8 * nl) in proc.stderr


def test_exported_text_compiles_with_the_scjit_package():
    """The exported text is what scjit.compile takes: the guide's add-one, in process."""
    import scjit

    c, kernel = export_case("guide_add_one", "v6e")
    compiled = scjit.compile(kernel.scir)
    expect_equal(compiled(*c.args), c.want[0], kernel.scir)


def host_ref(shape, dtype):
    """A ref in host memory as every supported JAX spells it (pl.HOST is Pallas'
    own space before JAX 0.12, JAX core's Host from then on; only the second is
    not callable)."""
    return pl.MemoryRef(jax.core.ShapedArray(shape, dtype), pl.HOST)


def test_host_parameters_are_host_refs_and_run_in_jax():
    """A pl.HOST output and a JAX array passed on: DMAs between HOST and HBM on the
    scalar subcore, exported as host<...> parameters and run inside jax.jit."""
    def to_host(x_hbm, o_host, sem):
        pltpu.async_copy(x_hbm, o_host, sem).wait()

    def from_host(x_host, o_hbm, sem):
        pltpu.async_copy(x_host, o_hbm, sem).wait()

    def kernels():
        mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1)
        sem = [pltpu.SemaphoreType.DMA]
        return (pl.kernel(to_host, out_type=host_ref((16,), jnp.int32), mesh=mesh,
                          scratch_types=sem),
                pl.kernel(from_host, out_type=jax.ShapeDtypeStruct((16,), jnp.int32), mesh=mesh,
                          scratch_types=sem))

    with sjax.abstract_tpu("v7x"):
        put, _ = kernels()
        scir = sjax.export(put, np.zeros(16, np.int32), target="v7x", locations=False)
    assert "kernel @to_host(in %x_hbm: hbm<16xi32>, out %o_host: host<16xi32>)" in scir
    assert "  dma_start %x_hbm -> %o_host, %sem\n" in scir
    with sjax.sparsecore("v7x"):
        put, get = kernels()
        x = jnp.arange(16, dtype=jnp.int32)
        np.testing.assert_array_equal(jax.jit(lambda x: get(put(x)) + 1)(x), np.arange(16) + 1)


def test_host_scratch_is_an_export_error():
    with sjax.abstract_tpu("v7x"):
        kernel = pl.kernel(lambda x_ref, o_ref, scratch: None,
                           out_type=jax.ShapeDtypeStruct((16,), jnp.int32), mesh=vector_mesh(),
                           scratch_types=[host_ref((16,), jnp.int32)])
        raises_at(kernel, np.zeros(16, np.int32),
                  match="scratch 0: memory space host: host memory is the caller's")


@pytest.mark.parametrize("space", [pltpu.MemorySpace.CMEM], ids=str)
def test_memory_spaces_scjit_lacks_are_export_errors(space):
    with sjax.abstract_tpu("v7x"):
        kernel = pl.kernel(lambda x_ref, o_ref, scratch: None,
                           out_type=jax.ShapeDtypeStruct((16,), jnp.int32), mesh=vector_mesh(),
                           scratch_types=[space((16,), jnp.int32)])
        raises_at(kernel, np.zeros(16, np.int32), match=f"scratch 0: memory space {space}")
