"""The kernels of JAX's SparseCore guide (docs/pallas/tpu/sparsecore.md in JAX's
repository), written with Pallas as the guide writes them, running on this CPU
inside ordinary jax.jit programs: scjit.jax is the SparseCore backend.

    .venv/bin/python examples/jax/guide_on_cpu.py [--target v6e|v7x]

Each result is checked against jax.numpy, as the guide checks it.
"""

import argparse

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc

import scjit.jax


def main(target: str) -> None:
    sc_info = pltpu.get_tpu_info().sparse_core
    print(f"SparseCore of {target}: {sc_info}")
    scalar_mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=sc_info.num_cores)
    vector_mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore")

    # A basic kernel: each scalar subcore takes the running sum of its row in SMEM.
    @jax.jit
    def cumsum(x):
        @pl.kernel(out_type=x, mesh=scalar_mesh,
                   scratch_types=[pltpu.SMEM((x.shape[1],), x.dtype), pltpu.SemaphoreType.DMA])
        def kernel(x_ref, o_ref, tmp_ref, sem):
            row = jax.lax.axis_index("core")
            pltpu.async_copy(x_ref.at[row], tmp_ref, sem).wait()

            @pl.loop(1, x.shape[1])
            def _(i):
                tmp_ref[i] += tmp_ref[i - 1]

            pltpu.async_copy(tmp_ref, o_ref.at[row], sem).wait()

        return kernel(x)

    x = jax.random.randint(jax.random.key(0), (sc_info.num_cores, sc_info.num_lanes), 0, 64, jnp.int32)
    np.testing.assert_array_equal(cumsum(x), jnp.cumsum(x, axis=1))
    print("cumsum on the scalar subcores: ok")

    # Pipelining: emit_pipeline streams (8, 128) blocks through every vector subcore.
    lanes = sc_info.num_lanes

    @jax.jit
    def add_one(x):
        @pl.kernel(out_type=x, mesh=vector_mesh)
        def kernel(x_hbm, o_hbm):
            def body(in_vmem, out_vmem):
                @pl.loop(0, in_vmem.shape[0])
                def _(r):
                    @pl.loop(0, in_vmem.shape[1], step=lanes)
                    def _(c):
                        window = (pl.ds(r, 1), pl.ds(c, lanes))
                        out_vmem.at[*window][...] = in_vmem.at[*window][...] + 1

            pltpu.emit_pipeline(
                body, grid=(x.shape[0] // 8, x.shape[1] // 128),
                in_specs=[pl.BlockSpec((8, 128), index_map=lambda i, j: (i, j))],
                out_specs=[pl.BlockSpec((8, 128), index_map=lambda i, j: (i, j))],
                core_axis_name=("core", "subcore"),
                dimension_semantics=(pltpu.PARALLEL, pltpu.PARALLEL))(x_hbm, o_hbm)

        return kernel(x)

    x = jax.random.randint(jax.random.key(0), (1024, 128), 0, 64, jnp.int32)
    np.testing.assert_array_equal(add_one(x), x + 1)
    both = jax.jit(lambda x: (add_one(x), x + 1))(x)  # a SparseCore and a jnp computation
    np.testing.assert_array_equal(both[0], both[1])
    print("pipelined add-one on every vector subcore, beside jnp code: ok")

    # Gather and scatter: rows of a table by indices that stream through VMEM.
    rows, width, window = 1024, 128, 128
    num_indices = window * sc_info.num_cores * sc_info.num_subcores
    table = jnp.arange(rows * width).reshape(rows, width).astype(jnp.int32)
    indices = jax.random.randint(jax.random.key(1), (num_indices,), 0, rows, jnp.int32)

    @jax.jit
    def gather(table, indices):
        @pl.kernel(out_type=jax.ShapeDtypeStruct((num_indices, width), table.dtype), mesh=vector_mesh)
        def kernel(x_hbm, i_hbm, o_hbm):
            def body(i_vmem, o_vmem):
                pltpu.sync_copy(x_hbm.at[i_vmem.at[0]], o_vmem)

            pltpu.emit_pipeline(
                body, grid=(num_indices // window,),
                in_specs=[pl.BlockSpec((1, window), index_map=lambda i: (0, i))],
                out_specs=[pl.BlockSpec((window, width), index_map=lambda i: (i, 0))],
                core_axis_name="subcore", dimension_semantics=(pltpu.PARALLEL,))(i_hbm, o_hbm)

        return kernel(table, indices.reshape(1, num_indices))

    np.testing.assert_array_equal(gather(table, indices), jnp.take(table, indices, axis=0))
    print("gather by indirect DMA: ok")

    @jax.jit
    def scatter(values, indices):
        @pl.kernel(out_type=jax.ShapeDtypeStruct((rows, width), values.dtype), mesh=vector_mesh)
        def kernel(x_hbm, i_hbm, o_hbm):
            def body(x_vmem, i_vmem):
                pltpu.sync_copy(x_vmem, o_hbm.at[i_vmem.at[0]])

            pltpu.emit_pipeline(
                body, grid=(num_indices // window,),
                in_specs=[pl.BlockSpec((window, width), index_map=lambda i: (i, 0)),
                          pl.BlockSpec((1, window), index_map=lambda i: (0, i))],
                out_specs=[], core_axis_name="subcore", dimension_semantics=(pltpu.PARALLEL,))(x_hbm, i_hbm)

        return kernel(values, indices.reshape(1, num_indices))

    written = np.unique(np.asarray(indices))
    out = scatter(gather(table, indices), indices)
    np.testing.assert_array_equal(np.asarray(out)[written], np.asarray(table)[written])
    print("scatter by indirect DMA: ok")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--target", default="v7x", choices=("v5p", "v6e", "v7x", "v8i"))
    target = parser.parse_args().target
    with scjit.jax.sparsecore(target):
        main(target)
