"""scjit's SparseCore rules against JAX's own lowering (scjit.jax.oracle): Pallas
kernels that break one rule each — the rules of examples/errors/ and others — and
their fixes, on an 8- and a 16-lane target. For each, JAX's lowering (run on the
CPU under an abstract TPU mesh) and scjit's rules must give the same verdict: both
accept the fix, both reject the kernel with the same exception type and message,
and scjit names the rule's code."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc

import scjit
import scjit.jax as sjax
from scjit.jax import oracle

TARGETS = ("v6e", "v7x")


def vector_kernel(body, *, out=(16,), dtype=jnp.int32, scratch=(), **kw):
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1,
                                  num_subcores=1)
    return pl.kernel(body, out_type=jax.ShapeDtypeStruct(out, dtype), mesh=mesh, scratch_types=list(scratch), **kw)


def lanes():
    return plsc.get_sparse_core_info().num_lanes


# Each case: code, a function building (kernel, args) that breaks the rule, and one
# building its fix (both traced under the target's abstract TPU).
def get1():  # a scalar load from HBM
    def body(x_hbm, o_hbm, buf):
        buf[...] = jnp.full(buf.shape, x_hbm[0], jnp.int32)
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), (jnp.zeros(lanes(), jnp.int32),)


def get1_fixed():
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[...] = jnp.full(buf.shape, buf[...][0], jnp.int32)
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), (jnp.zeros(lanes(), jnp.int32),)


def get3():  # a strided load
    def body(x_hbm, o_hbm, buf, out):
        pltpu.sync_copy(x_hbm, buf)
        out[...] = buf[pl.ds(0, lanes(), stride=2)]
        pltpu.sync_copy(out, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((2 * lanes(),), jnp.int32),
                                                        pltpu.VMEM((lanes(),), jnp.int32)]), \
        (jnp.zeros(2 * lanes(), jnp.int32),)


def get3_fixed():
    def body(x_hbm, o_hbm, buf, out):
        pltpu.sync_copy(x_hbm, buf)
        out[...] = plsc.load_gather(buf, [2 * jax.lax.iota(jnp.int32, lanes())])
        pltpu.sync_copy(out, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((2 * lanes(),), jnp.int32),
                                                        pltpu.VMEM((lanes(),), jnp.int32)]), \
        (jnp.zeros(2 * lanes(), jnp.int32),)


def get4():  # a vector load from SMEM
    def body(x_hbm, o_hbm, s, out):
        pltpu.sync_copy(x_hbm, s)
        out[...] = s[...]
        pltpu.sync_copy(out, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.SMEM((lanes(),), jnp.int32),
                                                        pltpu.VMEM((lanes(),), jnp.int32)]), \
        (jnp.zeros(lanes(), jnp.int32),)


def get5():  # a scalar load from VMEM
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[...] = jnp.full(buf.shape, buf[0], jnp.int32)
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), (jnp.zeros(lanes(), jnp.int32),)


def swap1():  # a vector store to HBM
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        o_hbm[...] = buf[...] + 1
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), (jnp.zeros(lanes(), jnp.int32),)


def swap1_fixed():
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[...] = buf[...] + 1
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), (jnp.zeros(lanes(), jnp.int32),)


def swap2():  # a strided store
    def body(x_hbm, o_hbm, buf, big):
        pltpu.sync_copy(x_hbm, buf)
        big[pl.ds(0, lanes(), stride=2)] = buf[...]
        pltpu.sync_copy(big.at[pl.ds(0, lanes())], o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32),
                                                        pltpu.VMEM((2 * lanes(),), jnp.int32)]), \
        (jnp.zeros(lanes(), jnp.int32),)


def swap3():  # a vector store into SMEM
    def body(x_hbm, o_hbm, buf, s):
        pltpu.sync_copy(x_hbm, buf)
        s[...] = buf[...]
        pltpu.sync_copy(s, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32),
                                                        pltpu.SMEM((lanes(),), jnp.int32)]), \
        (jnp.zeros(lanes(), jnp.int32),)


def swap4():  # a scalar store into VMEM
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[0] = jnp.int32(7)
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), (jnp.zeros(lanes(), jnp.int32),)


def shape1():  # a vector of no register shape without the layout passes
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[pl.ds(0, 4)] = buf[pl.ds(0, 4)] + 1
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)],
                         compiler_params=pltpu.CompilerParams(needs_layout_passes=False)), \
        (jnp.zeros(lanes(), jnp.int32),)


def gen1():  # a TensorCore-only primitive
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[...] = jnp.sin(buf[...])
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), dtype=jnp.float32,
                         scratch=[pltpu.VMEM((lanes(),), jnp.float32)]), (jnp.zeros(lanes(), jnp.float32),)


def dma11():  # a gather from HBM into HBM
    def body(x_hbm, i_hbm, o_hbm, idx):
        pltpu.sync_copy(i_hbm, idx)
        pltpu.sync_copy(x_hbm.at[idx], o_hbm)
    return vector_kernel(body, out=(lanes(), 8), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), \
        (jnp.zeros((64, 8), jnp.int32), jnp.zeros(lanes(), jnp.int32))


def dma11_fixed():
    def body(x_hbm, i_hbm, o_hbm, idx, rows):
        pltpu.sync_copy(i_hbm, idx)
        pltpu.sync_copy(x_hbm.at[idx], rows)
        pltpu.sync_copy(rows, o_hbm)
    return vector_kernel(body, out=(lanes(), 8), scratch=[pltpu.VMEM((lanes(),), jnp.int32),
                                                          pltpu.VMEM((lanes(), 8), jnp.int32)]), \
        (jnp.zeros((64, 8), jnp.int32), jnp.zeros(lanes(), jnp.int32))


REJECTED = [("GET-1", get1), ("GET-3", get3), ("GET-4", get4), ("GET-5", get5), ("SWAP-1", swap1),
            ("SWAP-2", swap2), ("SWAP-3", swap3), ("SWAP-4", swap4), ("SHAPE-1", shape1), ("GEN-1", gen1),
            ("DMA-11", dma11)]
ACCEPTED = [get1_fixed, get3_fixed, swap1_fixed, dma11_fixed]


def kernel_eqn(build, target):
    """The mpmd_map equation (params, operand avals) of the kernel `build` makes."""
    with sjax.abstract_tpu(target):
        kernel, args = build()
        jaxpr = jax.make_jaxpr(kernel)(*args).jaxpr
    [eqn] = [e for e in jaxpr.eqns if e.primitive.name == "mpmd_map"]
    return eqn.params, [v.aval for v in eqn.invars]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("code,build", REJECTED, ids=[c for c, _ in REJECTED])
def test_a_broken_rule_is_rejected_alike(code, build, target):
    params, avals = kernel_eqn(build, target)
    jax_says, scjit_says = oracle.compare(params, avals, target)
    assert not jax_says.accepted, f"JAX accepts the {code} kernel"
    assert oracle.agree(jax_says, scjit_says), f"JAX: {jax_says}\nscjit: {scjit_says}"
    exported = sjax.kernel_from_params(params, avals, target=target)
    with pytest.raises(scjit.CompileError) as e:
        scjit.compile(exported.scir, target=target)
    assert e.value.code == code


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("build", ACCEPTED, ids=[b.__name__ for b in ACCEPTED])
def test_the_fix_is_accepted_alike(build, target):
    params, avals = kernel_eqn(build, target)
    jax_says, scjit_says = oracle.compare(params, avals, target)
    assert jax_says.accepted and scjit_says.accepted, f"JAX: {jax_says}\nscjit: {scjit_says}"


# Rules a later JAX added (jax_messages.def's SCJIT_JAX_RULE rows): each kernel
# fails with its code from that release on; before, it is accepted or rejected
# otherwise (16-bit sort keys: by Mosaic's verifier, GEN-3); the verdicts agree
# with the installed JAX's either way.
def scatter_add_into_hbm():  # DMA-23 from JAX 0.12.0 on
    def body(x_hbm, o_hbm, rows):
        pltpu.sync_copy(x_hbm, rows)
        pltpu.sync_copy(rows, o_hbm.at[jnp.arange(lanes())], add=True)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), \
        (jnp.zeros(lanes(), jnp.int32),)


def sort_16_bit_keys():  # SORT-10 from JAX 0.12.1 on
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[...] = jax.lax.sort(buf[...].astype(jnp.int16)).astype(jnp.int32)
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32)]), \
        (jnp.zeros(lanes(), jnp.int32),)


LATER_RULES = [("DMA-23", "0.12.0", scatter_add_into_hbm), ("SORT-10", "0.12.1", sort_16_bit_keys)]


def _release(version):
    return tuple(int(p) for p in version.split(".")[:3])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("code,since,build", LATER_RULES, ids=[c for c, _, _ in LATER_RULES])
def test_a_rule_a_later_jax_added_agrees_with_the_installed_one(code, since, build, target):
    params, avals = kernel_eqn(build, target)
    jax_says, scjit_says = oracle.compare(params, avals, target)
    assert oracle.agree(jax_says, scjit_says), f"JAX: {jax_says}\nscjit: {scjit_says}"
    exported = sjax.kernel_from_params(params, avals, target=target)
    release = sjax.internals.rules_release()
    if _release(release) >= _release(since):
        with pytest.raises(scjit.CompileError) as e:
            scjit.compile(exported.scir, target=target, jax=release)
        assert e.value.code == code
    else:  # accepted, or rejected otherwise, as the installed JAX does (the verdicts agree)
        try:
            scjit.compile(exported.scir, target=target, jax=release)
        except scjit.CompileError as e:
            assert e.code != code


# Ops Pallas lowers on SparseCore from a later release on (sqrt and rsqrt from
# 0.11.0, tanh and log from 0.11.1, log2 and round from 0.11.2, mulhi from 0.12.0,
# fmuladd and polynomial from 0.12.1): GEN-1 before, as the installed JAX's own
# lowering says; where it lowers them, scjit's bytes are numpy's.
def _float_op(fn):
    def build():
        def body(x_hbm, o_hbm, buf):
            pltpu.sync_copy(x_hbm, buf)
            buf[...] = fn(buf[...])
            pltpu.sync_copy(buf, o_hbm)
        return vector_kernel(body, out=(lanes(),), dtype=jnp.float32,
                             scratch=[pltpu.VMEM((lanes(),), jnp.float32)]), \
            (jnp.linspace(0.5, 7.5, lanes(), dtype=jnp.float32),)
    return build


def _mulhi():
    def body(x_hbm, o_hbm, buf):
        pltpu.sync_copy(x_hbm, buf)
        buf[...] = jax.lax.mulhi(buf[...], buf[...] + 12345)
        pltpu.sync_copy(buf, o_hbm)
    return vector_kernel(body, out=(lanes(),), dtype=jnp.uint32, scratch=[pltpu.VMEM((lanes(),), jnp.uint32)]), \
        (jnp.arange(lanes(), dtype=jnp.uint32) * 0x10000001,)


def _poly(x):  # 0.5 x^2 - 2 x + 3 (a kernel closes over scalars only, so not jnp.polyval's array)
    return jax.lax.polynomial(x, [3.0, -2.0, 0.5]) if hasattr(jax.lax, "polynomial") else x


LATER_OPS = [
    ("sqrt", "0.11.0", _float_op(jnp.sqrt), np.sqrt),
    ("tanh", "0.11.1", _float_op(jnp.tanh), np.tanh),
    ("log2", "0.11.2", _float_op(jnp.log2), np.log2),
    ("round", "0.11.2", _float_op(lambda v: jax.lax.round(v * 1.5)), lambda v: np.trunc(v * 1.5 + np.copysign(0.5, v))),
    ("round_even", "0.11.2", _float_op(lambda v: jnp.round(v * 1.5)), lambda v: np.round(v * 1.5)),
    ("mulhi", "0.12.0", _mulhi, lambda v: ((v.astype(np.uint64) * (v + 12345).astype(np.uint64)) >> 32).astype(np.uint32)),
    ("fmuladd", "0.12.1", _float_op(lambda v: jax.lax.fmuladd(v, v, 1.0) if hasattr(jax.lax, "fmuladd") else v),
     lambda v: v * v + np.float32(1.0)),
    ("polynomial", "0.12.1", _float_op(_poly), lambda v: (np.float32(0.5) * v - np.float32(2.0)) * v + np.float32(3.0)),
]


@pytest.mark.parametrize("name,since,build,reference", LATER_OPS, ids=[n for n, *_ in LATER_OPS])
def test_an_op_a_later_jax_lowers_agrees_with_the_installed_one(name, since, build, reference):
    release = sjax.internals.rules_release()
    if name in ("fmuladd", "polynomial") and _release(release) < (0, 12, 0):
        pytest.skip(f"JAX {release} has no lax.{name}")
    target = "v7x"
    params, avals = kernel_eqn(build, target)
    jax_says, scjit_says = oracle.compare(params, avals, target)
    assert oracle.agree(jax_says, scjit_says), f"JAX: {jax_says}\nscjit: {scjit_says}"
    assert jax_says.accepted == (_release(release) >= _release(since)), jax_says
    if not jax_says.accepted:
        assert "Unimplemented primitive in Pallas TPU lowering for sc_vector_subcore" in str(scjit_says)
        return
    with sjax.sparsecore(target):
        kernel, (x,) = build()
        got = np.asarray(jax.jit(kernel)(x))
    np.testing.assert_allclose(got, reference(np.asarray(x)), rtol=1e-6, atol=0)  # the host's libm


# JAX 0.12's push streams (`src_sem` on a local copy): out of VMEM it is accepted,
# into VMEM rejected (DMA-24), as the installed JAX's own lowering says.
def _src_sem_copy(out_of_vmem):
    def build():
        def body(x_hbm, o_hbm, buf, sem, read):
            pltpu.sync_copy(x_hbm, buf)
            src, dst = (buf, o_hbm) if out_of_vmem else (x_hbm, buf)
            pltpu.async_copy(src, dst, sem, src_sem=read).wait()
        return vector_kernel(body, out=(lanes(),), scratch=[pltpu.VMEM((lanes(),), jnp.int32),
                                                            pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA]), \
            (jnp.zeros(lanes(), jnp.int32),)
    return build


@pytest.mark.skipif("src_sem" not in pltpu.async_copy.__code__.co_varnames,
                    reason=f"JAX {jax.__version__}'s async_copy has no src_sem (0.12.0 on)")
@pytest.mark.parametrize("out_of_vmem", [True, False])
def test_a_source_semaphore_on_a_local_copy_agrees_with_the_installed_jax(out_of_vmem):
    params, avals = kernel_eqn(_src_sem_copy(out_of_vmem), "v7x")
    jax_says, scjit_says = oracle.compare(params, avals, "v7x")
    assert oracle.agree(jax_says, scjit_says), f"JAX: {jax_says}\nscjit: {scjit_says}"
    assert jax_says.accepted == out_of_vmem, jax_says
