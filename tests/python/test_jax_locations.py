"""Lines and names of kernels written in the less direct ways (scjit.jax.tracing):
a kernel built inside a custom primitive's lowering (`mlir.lower_fun`) is found by
export_kernels (under jax.shard_map too, with its device mesh) and reports at its
ops' lines, not at `p.bind(...)`; a kernel called with a `None` operand keeps its
parameters' Python names, in the .scir and in a finding."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc
from jax.extend.core import Primitive
from jax.interpreters import mlir

import scjit.jax

ROWS, COLS = 64, 8
TABLE = np.arange(ROWS * COLS, dtype=np.int32).reshape(ROWS, COLS)
GATHER_FINDING = ("error[RT-BOUNDS]: copy %table_ref[idx(%idx_vmem)] -> %rows_vmem: entry 3 of the index list "
                  "is 64, outside dimension 0 of the source (size 64)")


def at(marker):
    """`file:line:col` of the statement that ends in the comment `# <marker>`."""
    with open(__file__) as f:
        [(line, text)] = [(k + 1, t) for k, t in enumerate(f) if t.rstrip().endswith(f"# {marker}")]
    return f"{__file__}:{line}:{len(text) - len(text.lstrip()) + 1}"


def loc(marker):
    """The .scir `loc(...)` suffix of an op at that statement."""
    file, line, col = at(marker).rsplit(":", 2)
    return f' loc("{file}":{line}:{col})'


def bad_ids():
    ids = np.arange(16, dtype=np.int32)
    ids[3] = ROWS
    return ids


# --- a kernel inside a custom primitive's lowering ----------------------------------------


def gather_impl(table, ids):
    """What the primitive lowers to: a pl.kernel gathering table[ids] (built as it
    is lowered, as such code does)."""
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)

    @pl.kernel(out_type=jax.ShapeDtypeStruct((ids.shape[0], COLS), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM(ids.shape, jnp.int32), pltpu.VMEM((ids.shape[0], COLS), jnp.int32)])
    def gather(table_ref, idx_ref, o_ref, idx_vmem, rows_vmem):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(idx_ref, idx_vmem)
            pltpu.sync_copy(table_ref.at[idx_vmem], rows_vmem)  # op: primitive
            pltpu.sync_copy(rows_vmem, o_ref)

    return gather(table, ids)


def core_map_gather_impl(table, ids):
    """The same gather as a pl.core_map under pl.run_state."""
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)

    def stateful(refs):
        table_ref, idx_ref, o_ref = refs

        def body(idx_vmem, rows_vmem):
            @pl.when(lax.axis_index("subcore") == 0)
            def _():
                pltpu.sync_copy(idx_ref, idx_vmem)
                pltpu.sync_copy(table_ref.at[idx_vmem], rows_vmem)  # op: core_map
                pltpu.sync_copy(rows_vmem, o_ref)

        pl.core_map(mesh)(lambda: pl.run_scoped(body, pltpu.VMEM(ids.shape, jnp.int32),
                                                pltpu.VMEM((ids.shape[0], COLS), jnp.int32)))

    return pl.run_state(stateful)((table, ids, jnp.zeros((ids.shape[0], COLS), jnp.int32)))[2]


def primitive(name, impl):
    p = Primitive(name)
    p.def_impl(impl)
    p.def_abstract_eval(lambda table, ids: jax.core.ShapedArray((ids.shape[0], COLS), jnp.int32))
    mlir.register_lowering(p, mlir.lower_fun(impl, multiple_results=False))
    return p


gather_p = primitive("scjit_test_gather", gather_impl)
core_map_gather_p = primitive("scjit_test_core_map_gather", core_map_gather_impl)
plus_one_p = primitive("scjit_test_plus_one", lambda table, ids: table[ids] + 1)


def gather_rows(table, ids):
    return gather_p.bind(table, ids) * 2  # gather_p.bind


def core_map_gather_rows(table, ids):
    return core_map_gather_p.bind(table, ids) * 2  # core_map_gather_p.bind


def test_export_finds_the_kernel_a_custom_primitive_lowers_to():
    [kernel] = scjit.jax.export_kernels(gather_rows, TABLE, np.arange(16, dtype=np.int32), target="v7x")
    assert kernel.scir.split("\n{\n")[0] == (
        f'target "v7x"\njax "{scjit.jax.internals.rules_release()}"\n\n'
        "kernel @gather(in %table_ref: hbm<64x8xi32>, in %idx_ref: hbm<16xi32>, out %o_ref: hbm<16x8xi32>)\n"
        "    mesh vector(cores = 1, subcores = 16)\n"
        "    scratch(%idx_vmem: vmem<16xi32>, %rows_vmem: vmem<16x8xi32>)")
    assert f"    copy %table_ref[idx(%idx_vmem)] -> %rows_vmem{loc('op: primitive')}\n" in kernel.scir


def test_export_finds_the_core_map_a_custom_primitive_lowers_to():
    [kernel] = scjit.jax.export_kernels(core_map_gather_rows, TABLE, np.arange(16, dtype=np.int32), target="v7x")
    assert "kernel @_lambda_(in %in0: hbm<16xi32>, in %in1: hbm<64x8xi32>, inout %in2: hbm<16x8xi32>)\n" in kernel.scir
    assert f"      copy %in1[idx(%idx_vmem)] -> %rows_vmem{loc('op: core_map')}\n" in kernel.scir


def test_a_custom_primitive_without_a_kernel_binds_none():
    with pytest.raises(scjit.jax.ExportError, match="binds no SparseCore kernel"):
        scjit.jax.export_kernels(lambda t, i: plus_one_p.bind(t, i), TABLE, np.arange(16, dtype=np.int32))


def permute_impl(x):
    """A primitive under jax.shard_map whose kernel sends its block to the next chip
    (JAX's test_collective_permute_1d)."""

    @pl.kernel(out_type=jax.ShapeDtypeStruct(x.shape, x.dtype),
               mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1),
               scratch_types=(pltpu.SemaphoreType.REGULAR, pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA))
    def permute(x_ref, y_ref, ready, send, recv):
        right = lax.rem(lax.axis_index("x") + 1, lax.axis_size("x"))
        pl.semaphore_signal(ready, device_id=right)
        pl.semaphore_wait(ready)
        pltpu.async_remote_copy(x_ref, y_ref, send, recv, device_id=right).wait()

    return permute(x)


permute_p = Primitive("scjit_test_permute")
permute_p.def_abstract_eval(lambda x: x)
mlir.register_lowering(permute_p, mlir.lower_fun(permute_impl, multiple_results=False))


def test_a_custom_primitives_kernel_under_shard_map_has_its_device_mesh():
    """The lowering is traced under the shard_map's axes (lax.axis_index("x"))."""
    if jax.device_count() < 4:
        pytest.skip("needs 4 CPU devices (conftest.py gives 8)")
    mesh = jax.sharding.Mesh(np.array(jax.devices()[:4]), ["x"])
    f = jax.jit(jax.shard_map(permute_p.bind, mesh=mesh, in_specs=jax.P("x"), out_specs=jax.P("x"),
                              check_vma=False))
    x = jnp.arange(4 * 8 * 128, dtype=jnp.int32).reshape(-1, 128)
    [kernel] = scjit.jax.export_kernels(f, x)
    assert kernel.devices == (("x", 4),)
    assert "kernel @permute(in %x_ref: hbm<8x128xi32>, out %y_ref: hbm<8x128xi32>)\n" in kernel.scir
    with scjit.jax.sparsecore("v7x"):
        np.testing.assert_array_equal(f(x), jnp.roll(x, 8, axis=0))


def run_to_finding(fn, *args):
    with scjit.jax.sparsecore("v7x"):
        with pytest.raises((jax.errors.JaxRuntimeError, ValueError)) as e:
            jax.block_until_ready(jax.jit(fn)(*args))
    return str(e.value)


def test_a_finding_in_a_custom_primitives_kernel_is_at_the_op():
    ids = np.arange(16, dtype=np.int32)
    with scjit.jax.sparsecore("v7x"):
        np.testing.assert_array_equal(jax.jit(gather_rows)(TABLE, ids), TABLE[ids] * 2)
    text = run_to_finding(gather_rows, TABLE, bad_ids())
    assert f"{at('op: primitive')}: {GATHER_FINDING}" in text
    assert at("gather_p.bind").rsplit(":", 1)[0] + ":" not in text


def test_a_finding_in_a_custom_primitives_core_map_is_at_the_op():
    text = run_to_finding(core_map_gather_rows, TABLE, bad_ids())
    finding = GATHER_FINDING.replace("%table_ref", "%in1")
    assert f"{at('op: core_map')}: {finding}" in text
    assert at("core_map_gather_p.bind").rsplit(":", 1)[0] + ":" not in text


# --- a None operand --------------------------------------------------------------------------


def optional_gather(table, ids, other=None):
    """Rows `ids` of table, overwritten by those of `other` when it is given (an
    optional operand, None by default)."""
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)

    @pl.kernel(out_type=jax.ShapeDtypeStruct((ids.shape[0], COLS), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM(ids.shape, jnp.int32), pltpu.VMEM((ids.shape[0], COLS), jnp.int32)])
    def kernel(table_ref, idx_ref, other_ref, o_ref, idx_vmem, rows_vmem):
        @pl.when(lax.axis_index("subcore") == 0)
        def _():
            pltpu.sync_copy(idx_ref, idx_vmem)
            pltpu.sync_copy(table_ref.at[idx_vmem], rows_vmem)  # op: optional
            if other_ref is not None:
                pltpu.sync_copy(other_ref.at[idx_vmem], rows_vmem)
            pltpu.sync_copy(rows_vmem, o_ref)

    return kernel(table, ids, other)


def test_a_none_operand_leaves_the_other_names_in_place():
    """Pallas names a body's parameters by binding the flattened operands to its
    signature: one fewer than the parameters, so it gave up (%in0, %scratch0...)."""
    [kernel] = scjit.jax.export_kernels(optional_gather, TABLE, np.arange(16, dtype=np.int32), target="v7x",
                                        locations=False)
    assert [(p.name, p.direction, p.operand, p.result) for p in kernel.params] == [
        ("table_ref", "in", 0, None), ("idx_ref", "in", 1, None), ("o_ref", "out", None, 0)]
    assert kernel.scir.split("\n{\n")[0].splitlines()[3:] == [
        "kernel @kernel(in %table_ref: hbm<64x8xi32>, in %idx_ref: hbm<16xi32>, out %o_ref: hbm<16x8xi32>)",
        "    mesh vector(cores = 1, subcores = 16)",
        "    scratch(%idx_vmem: vmem<16xi32>, %rows_vmem: vmem<16x8xi32>)"]
    # With the operand given, it is %other_ref, between them.
    [kernel] = scjit.jax.export_kernels(optional_gather, TABLE, np.arange(16, dtype=np.int32), TABLE, target="v7x")
    assert [p.name for p in kernel.params] == ["table_ref", "idx_ref", "other_ref", "o_ref"]


def test_a_finding_names_the_parameters_around_a_none_operand():
    ids = np.arange(16, dtype=np.int32)
    with scjit.jax.sparsecore("v7x"):
        np.testing.assert_array_equal(jax.jit(optional_gather)(TABLE, ids), TABLE[ids])
    text = run_to_finding(optional_gather, TABLE, bad_ids())
    assert f"{at('op: optional')}: {GATHER_FINDING}" in text


def test_a_none_operand_before_varargs_scratch_does_not_shift_the_names():
    """Bound to `(x_ref, bias_ref, o_ref, *scratch)`, the flattened operands fit:
    Pallas named the output %bias_ref and the first scratch ref %o_ref."""

    def add_bias(x, bias=None):
        mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1)

        @pl.kernel(out_type=jax.ShapeDtypeStruct((8,), jnp.int32), mesh=mesh,
                   scratch_types=[pltpu.SMEM((8,), jnp.int32), pltpu.SMEM((8,), jnp.int32)])
        def kernel(x_ref, bias_ref, o_ref, *scratch):
            pltpu.sync_copy(x_ref, scratch[0])
            if bias_ref is not None:
                pltpu.sync_copy(bias_ref, scratch[1])
                scratch[0][0] += scratch[1][0]
            pltpu.sync_copy(scratch[0], o_ref)

        return kernel(x, bias)

    x = jax.ShapeDtypeStruct((8,), jnp.int32)
    text = scjit.jax.export(add_bias, x, target="v7x", locations=False)
    assert text.split("\n{\n")[0].splitlines()[3:] == [
        "kernel @kernel(in %x_ref: hbm<8xi32>, out %o_ref: hbm<8xi32>)",
        "    mesh scalar(cores = 1)",
        "    scratch(%scratch0: smem<8xi32>, %scratch1: smem<8xi32>)"]
