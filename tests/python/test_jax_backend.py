"""scjit.jax as the CPU backend of Pallas SparseCore kernels (python/scjit/jax/backend.py):
the switch (context manager and global), kernels mixed with jnp code, vmap,
input/output aliasing, the chip queries, errors as JAX raises them on a TPU, run-time
findings, the compile cache, and the rules oracle."""

import contextlib
import inspect
import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc

import scjit
import scjit.jax
from scjit.jax import backend, oracle


def add_one_kernel(rows=16):
    """x + 1, each vector subcore of core 0 taking one row."""
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)
    lanes = plsc.get_sparse_core_info().num_lanes

    @pl.kernel(out_type=jax.ShapeDtypeStruct((rows, lanes), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM((lanes,), jnp.int32)])
    def kernel(x_ref, o_ref, buf):
        s = jax.lax.axis_index("subcore")
        pltpu.sync_copy(x_ref.at[s], buf)
        buf[...] = buf[...] + 1
        pltpu.sync_copy(buf, o_ref.at[s])

    return kernel


@pytest.mark.parametrize("target,lanes", [("v6e", 8), ("v7x", 16)])
def test_a_kernel_runs_in_a_jitted_program(target, lanes):
    with scjit.jax.sparsecore(target) as options:
        assert options.target == target and scjit.jax.enabled() == options
        assert plsc.get_sparse_core_info().num_lanes == lanes
        kernel = add_one_kernel()
        x = np.arange(16 * lanes, dtype=np.int32).reshape(16, lanes)
        y = jax.jit(lambda x: kernel(x * 3) - jnp.ones_like(x))(x)
        np.testing.assert_array_equal(y, x * 3)
    assert scjit.jax.enabled() is None


def test_the_global_switch():
    scjit.jax.enable("v6e", threads=1)
    try:
        assert scjit.jax.enabled().threads == 1
        assert pltpu.get_tpu_info().sparse_core.num_lanes == 8
        with scjit.jax.sparsecore("v7x"):  # a block takes precedence
            assert pltpu.get_tpu_info().sparse_core.num_lanes == 16
        x = np.arange(128, dtype=np.int32).reshape(16, 8)
        np.testing.assert_array_equal(jax.jit(add_one_kernel())(x), x + 1)
    finally:
        scjit.jax.disable()
    assert scjit.jax.enabled() is None


def test_outside_the_switch_jax_behaves_as_without_scjit():
    with scjit.jax.sparsecore("v7x"):
        kernel = add_one_kernel()
    with pytest.raises(ValueError, match="Only interpret mode is supported on CPU backend"):
        jax.jit(kernel)(np.zeros((16, 16), np.int32))


def test_vmap_of_a_kernel_where_jax_allows_it():
    """JAX batches an mpmd_map over a batch of one only before 0.12 (on a TPU
    too), and from then on over any batch, by a loop of kernels."""
    with scjit.jax.sparsecore("v7x"):
        kernel = add_one_kernel()
        xs = np.arange(16 * 16, dtype=np.int32).reshape(1, 16, 16)
        np.testing.assert_array_equal(jax.jit(jax.vmap(kernel))(xs), xs + 1)
        three = np.arange(3 * 16 * 16, dtype=np.int32).reshape(3, 16, 16)
        if jax.__version__.startswith("0.10."):
            refusal = "mpmd_map only supports batching with a batch dimension of 1"
        elif jax.__version__.startswith("0.11."):  # a loop of kernels, but run_scoped does not batch
            refusal = "Batching rule for 'run_scoped' not implemented"
        else:
            refusal = None
        if refusal is None:
            np.testing.assert_array_equal(jax.jit(jax.vmap(kernel))(three), three + 1)
        else:
            with pytest.raises(NotImplementedError, match=refusal):
                jax.jit(jax.vmap(kernel))(three)


def test_a_ref_given_to_a_kernel_is_updated_in_place():
    """A jax.Ref passed to pl.kernel is an input aliased to an output: what the
    kernel does not write keeps its value."""
    with scjit.jax.sparsecore("v7x"):
        mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1)

        @pl.kernel(mesh=mesh, scratch_types=[pltpu.SMEM((8,), jnp.int32)])
        def double_first(x_ref, tmp):
            pltpu.sync_copy(x_ref, tmp)
            tmp[0] = tmp[0] * 2
            pltpu.sync_copy(tmp.at[pl.ds(0, 1)], x_ref.at[pl.ds(0, 1)])  # only x[0] is written

        @jax.jit
        def f(x):
            x_ref = jax.new_ref(x)
            double_first(x_ref)
            return x_ref[...] + 10

        x = np.arange(1, 9, dtype=np.int32)
        np.testing.assert_array_equal(f(x), [12, 12, 13, 14, 15, 16, 17, 18])
        np.testing.assert_array_equal(x, np.arange(1, 9))  # the caller's array is not written


def test_a_rejected_kernel_raises_what_jax_raises_on_a_tpu():
    with scjit.jax.sparsecore("v7x"):
        mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)

        @pl.kernel(out_type=jax.ShapeDtypeStruct((16,), jnp.int32), mesh=mesh)
        def kernel(x_ref, o_ref):
            pltpu.sync_copy(x_ref, o_ref)
            o_ref[0] = x_ref[0]  # a scalar load from HBM

        with pytest.raises(NotImplementedError) as e:
            jax.jit(kernel)(np.zeros(16, np.int32))
    err = e.value
    assert isinstance(err, scjit.CompileError)
    assert (err.code, err.file) == ("GET-1", __file__)
    assert err.diagnostics[0].source_line.strip() == "o_ref[0] = x_ref[0]  # a scalar load from HBM"
    text = str(err)
    first, rest = text.split("\n\n", 1)
    assert first == ("Get does not support loading from HBM. Copy the data to a core-local memory space, e.g. VMEM, "
                     "via `pltpu.async_copy`.")
    assert rest.startswith(f"{__file__}:")
    assert "error[GET-1]: NotImplementedError:" in rest
    assert "o_ref[0] = x_ref[0]  # a scalar load from HBM" in rest


def test_a_failed_check_is_jax_runtime_error():
    with scjit.jax.sparsecore("v7x"):
        mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)
        lanes = plsc.get_sparse_core_info().num_lanes

        @pl.kernel(out_type=jax.ShapeDtypeStruct((lanes, 8), jnp.int32), mesh=mesh,
                   scratch_types=[pltpu.VMEM((lanes,), jnp.int32), pltpu.VMEM((lanes, 8), jnp.int32)])
        def gather(table_ref, idx_ref, o_ref, idx_vmem, rows_vmem):
            @pl.when(jax.lax.axis_index("subcore") == 0)
            def _():
                pltpu.sync_copy(idx_ref, idx_vmem)
                pltpu.sync_copy(table_ref.at[idx_vmem], rows_vmem)
                pltpu.sync_copy(rows_vmem, o_ref)

        table = np.arange(64 * 8, dtype=np.int32).reshape(64, 8)
        idx = np.arange(lanes, dtype=np.int32)
        np.testing.assert_array_equal(jax.jit(gather)(table, idx), table[idx])
        idx[3] = 64
        # JAX raises an XLA error status as JaxRuntimeError, or, on its C++ fast
        # path of an executable that ran before, as ValueError.
        with pytest.raises((jax.errors.JaxRuntimeError, ValueError)) as e:
            jax.block_until_ready(jax.jit(gather)(table, idx))
    assert "error[RT-BOUNDS]" in str(e.value)
    assert "entry 3 of the index list is 64, outside dimension 0 of the source (size 64)" in str(e.value)
    assert f"{__file__}:" in str(e.value)


def test_tpu_compiler_options_are_accepted_only_under_scjit():
    x = np.arange(16 * 8, dtype=np.int32).reshape(16, 8)
    options = {"xla_sc_assert_level": "all-loads-stores", "xla_tpu_enable_sc_log_recorder": "true"}
    with scjit.jax.sparsecore("v6e"):
        kernel = add_one_kernel()
        np.testing.assert_array_equal(jax.jit(kernel, compiler_options=options)(x), x + 1)
    # Outside the switch the program is XLA:CPU's, which knows no such option.
    with pytest.raises(jax.errors.JaxRuntimeError, match="No such compile option: 'xla_sc_assert_level'"):
        jax.jit(lambda x: x + 1, compiler_options=options)(x)


def test_each_kernel_compiles_once():
    with scjit.jax.sparsecore("v7x"):
        kernel = add_one_kernel()
        x = np.zeros((16, 16), np.int32)
        jax.jit(kernel)(x)
        compiled = len(backend._kernels)
        jax.jit(lambda x: kernel(x) + 1)(x)  # another program, the same kernel
        jax.jit(kernel)(x + 1)
        assert len(backend._kernels) == compiled


def test_check_rules_raises_on_a_disagreement(monkeypatch):
    with scjit.jax.sparsecore("v7x", check_rules=True):
        kernel = add_one_kernel()
        x = np.zeros((16, 16), np.int32)
        np.testing.assert_array_equal(jax.jit(kernel)(x), x + 1)  # JAX agrees
        monkeypatch.setattr(oracle, "scjit_verdict", lambda *a: oracle.Verdict(False, "ValueError", "made up"))
        with pytest.raises(scjit.jax.RulesDisagreementError) as e:
            jax.jit(lambda x: kernel(x) * 2)(x)
    assert "JAX:   accepted" in str(e.value)
    assert "scjit: ValueError: made up" in str(e.value)


def test_unknown_targets_are_refused():
    with pytest.raises(scjit.InputError, match="unknown target 'v9'"):
        with scjit.jax.sparsecore("v9"):
            pass


def spin_kernel(steps):
    """Each vector subcore of core 0 turns its row v into v * 3 + 1, `steps` times."""
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)
    lanes = plsc.get_sparse_core_info().num_lanes

    @pl.kernel(out_type=jax.ShapeDtypeStruct((16, lanes), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM((lanes,), jnp.int32)])
    def spin(x_ref, o_ref, buf):
        s = jax.lax.axis_index("subcore")
        pltpu.sync_copy(x_ref.at[s], buf)
        buf[...] = lax.fori_loop(0, steps, lambda i, v: v * 3 + 1, buf[...])
        pltpu.sync_copy(buf, o_ref.at[s])

    return spin


def test_a_launch_past_the_time_limit_fails_with_rt_timeout():
    x = np.zeros((16, 16), np.int32)
    for switch in (scjit.jax.sparsecore, scjit.jax.enable):
        with contextlib.ExitStack() as stack:
            if switch is scjit.jax.enable:
                stack.callback(scjit.jax.disable)
                assert switch("v7x", time_limit=0.05).time_limit == 0.05
            else:
                stack.enter_context(switch("v7x", time_limit=0.05))
            # As every failed run-time check under jax.jit: JAX's runtime error
            # (a ValueError on its fast path), whose text is the finding.
            with pytest.raises((jax.errors.JaxRuntimeError, ValueError)) as e:
                jax.block_until_ready(jax.jit(spin_kernel(2**30))(x))
        assert "error[RT-TIMEOUT]: kernel @spin ran longer than 0.05 s and was stopped" in str(e.value)
    # float("inf") is no limit, as 0.
    with scjit.jax.sparsecore("v7x", time_limit=math.inf) as options:
        assert options.time_limit == 0
        expected = np.zeros(16, np.uint32)
        for _ in range(1000):
            expected = expected * 3 + 1
        np.testing.assert_array_equal(jax.jit(spin_kernel(1000))(x), np.tile(expected.view(np.int32), (16, 1)))


@pytest.mark.parametrize("options,message", [
    (dict(time_limit=-1), "time_limit must be a number of seconds, 0 or more (0 or float('inf'): no limit), got -1"),
    (dict(time_limit=math.nan), "time_limit must be a number of seconds, 0 or more (0 or float('inf'): no limit), "
                                "got nan"),
    (dict(threads=-1), "threads must be an int from 0 (the host's cores) to 1024, got -1"),
    (dict(seed=-1), "seed must be an int from 0 to 2**64 - 1, or None (the fixed order), got -1"),
    (dict(dma="bogus"), "dma must be 'eager', 'on_wait' or None (on_wait when checked), got 'bogus'"),
])
def test_bad_options_are_usage_errors_where_given(options, message):
    for switch in (scjit.jax.sparsecore, scjit.jax.enable):
        with pytest.raises(scjit.InputError) as e:
            with switch("v7x", **options):
                pass
        assert e.value.code == "IO-USAGE" and str(e.value) == message
    assert scjit.jax.enabled() is None


@pytest.mark.parametrize("options,name", [(dict(time_limit="1"), "time_limit"), (dict(threads="1"), "threads"),
                                          (dict(checks=5), "checks"), (dict(check_rules="yes"), "check_rules"),
                                          (dict(seed=1.5), "seed"), (dict(), "target")])
def test_options_of_the_wrong_type_are_type_errors(options, name):
    target = 7 if name == "target" else "v7x"
    with pytest.raises(TypeError) as e:  # an InputError too
        with scjit.jax.sparsecore(target, **options):
            pass
    assert isinstance(e.value, scjit.InputError) and e.value.code == "IO-USAGE"
    assert str(e.value).startswith(f"{name} must be ")


# --- kernels of several meshes (mpmd_map) -----------------------------------------------------


def test_mpmd_print(capfd):
    """JAX's DebugPrintTest.test_mpmd_print: a vector-subcore body and a scalar-subcore
    body in one mpmd_map, each printing; both run in one launch."""
    from jax._src.pallas import mpmd

    with scjit.jax.sparsecore("v7x"):
        sc_info = plsc.get_sparse_core_info()
        v_mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore",
                                        num_cores=sc_info.num_cores)
        s_mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=sc_info.num_cores)
        x = jnp.arange(sc_info.num_lanes, dtype=jnp.int32)

        def vector_subcore_fn(x_hbm_ref, out_hbm_ref):
            del x_hbm_ref, out_hbm_ref
            pl.debug_print("From TEC")

        def scalar_subcore_fn(x_hbm_ref, out_hbm_ref):
            del x_hbm_ref, out_hbm_ref
            pl.debug_print("From SCS")

        def kernel(x):
            return mpmd.mpmd_map([(v_mesh, vector_subcore_fn), (s_mesh, scalar_subcore_fn)],
                                 out_types=jax.ShapeDtypeStruct.like(x))(x)

        compiled_kernel = jax.jit(kernel, compiler_options={"xla_tpu_enable_sc_log_recorder": "true",
                                                            "xla_tpu_enable_tile_log_recorder": "true"})
        jax.block_until_ready(compiled_kernel(x))
    err = capfd.readouterr().err
    assert "From TEC" in err and "From SCS" in err
    assert err.count("From TEC") == 2 * 16 and err.count("From SCS") == 2
    assert "[core 1, subcore 15] From TEC\n" in err and "[core 1, scalar subcore] From SCS\n" in err


def test_a_vector_body_and_a_scalar_body_write_their_rows():
    """pl.kernel with a list of bodies and meshes: the vector subcores add 1 to one row
    each, the scalar subcore of each core adds 100 to the last row of its core's block."""
    with scjit.jax.sparsecore("v7x"):
        v_mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=2)
        s_mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=2)

        def vector_fn(x_ref, o_ref, vbuf, sbuf):
            del sbuf
            row = lax.axis_index("core") * 17 + lax.axis_index("subcore")
            pltpu.sync_copy(x_ref.at[row], vbuf)
            vbuf[...] = vbuf[...] + 1
            pltpu.sync_copy(vbuf, o_ref.at[row])

        def scalar_fn(x_ref, o_ref, vbuf, sbuf):
            del vbuf
            row = lax.axis_index("core") * 17 + 16
            pltpu.sync_copy(x_ref.at[row], sbuf)

            @pl.loop(0, 16)
            def _(i):
                sbuf[i] = sbuf[i] + 100

            pltpu.sync_copy(sbuf, o_ref.at[row])

        kernel = pl.kernel([vector_fn, scalar_fn], out_type=jax.ShapeDtypeStruct((34, 16), jnp.int32),
                           mesh=[v_mesh, s_mesh],
                           scratch_types=[(pltpu.VMEM @ v_mesh)((16,), jnp.int32),
                                          (pltpu.SMEM @ s_mesh)((16,), jnp.int32)])
        x = np.arange(34 * 16, dtype=np.int32).reshape(34, 16) * 3
        y = jax.jit(kernel)(x)
    want = x + np.where(np.arange(34) % 17 == 16, 100, 1)[:, None]
    np.testing.assert_array_equal(y, want)


def _handoff(subcore):
    """An mpmd_map whose scalar body signals a semaphore of the vector mesh
    (`SemaphoreType.REGULAR(()) @ mesh`, as JAX's DistributedMpmdTest does), with
    `subcore` in its device_id or not; vector subcore 0 of each core waits for it
    and writes x + 1 to its core's row."""
    from jax._src.pallas import mpmd

    lanes = plsc.get_sparse_core_info().num_lanes
    v_mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=2,
                                    num_subcores=1)
    s_mesh = plsc.ScalarSubcoreMesh(axis_name="core", num_cores=2)

    def vector_fn(x_ref, o_ref, buf, to_tec):
        c = jax.lax.axis_index("core")
        pl.semaphore_wait(to_tec, 1)
        pltpu.sync_copy(x_ref.at[c], buf)
        buf[...] = buf[...] + 1
        pltpu.sync_copy(buf, o_ref.at[c])

    def scalar_fn(x_ref, o_ref, buf, to_tec):
        pl.semaphore_signal(to_tec, device_id={"subcore": 0} if subcore else None)

    def fn(x):
        return mpmd.mpmd_map([(v_mesh, vector_fn), (s_mesh, scalar_fn)], out_types=jax.ShapeDtypeStruct.like(x),
                             scratch_types=[(pltpu.VMEM @ v_mesh)((lanes,), jnp.int32),
                                            pltpu.SemaphoreType.REGULAR(()) @ v_mesh])(x)

    return fn


def test_a_body_signals_a_semaphore_of_another_mesh():
    """The mesh's part declares the semaphore, the other part names it `@vector`
    (docs/language.md, "Another part's semaphores"), and the kernel runs."""
    with scjit.jax.sparsecore("v7x"):
        x = np.arange(32, dtype=np.int32).reshape(2, 16)
        np.testing.assert_array_equal(jax.jit(_handoff(subcore=True))(x), x + 1)
        text = scjit.jax.export(_handoff(subcore=True), x, locations=False)
    assert "    mesh vector(cores = 2, subcores = 1)\n    scratch(%buf: vmem<16xi32>, %to_tec: sem)\n" in text
    assert "    mesh scalar(cores = 2)\n    scratch(%to_tec: sem @vector)\n{\n  sem_signal %to_tec, 1 {subcore = 0}\n" in text


def test_signals_of_another_mesh_against_jax():
    """Without a subcore, Pallas' own check rejects the signal (DEV-2) and so do
    scjit's rules. With one, Pallas' rules accept it, but jaxlib 0.10.2's serializer
    (mosaic-serde) cannot serialize it ("subcore_id linearization", the reason JAX's
    MPMD tests that do it skip themselves before a libtpu of 2026-05-15): the
    oracle does not compare such kernels. Later jaxlibs serialize it, and the
    verdicts agree. scjit runs it (the test above)."""
    with scjit.jax.sparsecore("v7x"):
        x = np.arange(32, dtype=np.int32).reshape(2, 16)
        closed = jax.make_jaxpr(_handoff(subcore=False))(x)
        eqn = closed.jaxpr.eqns[0]
        jax_says, scjit_says = oracle.compare(eqn.params, [v.aval for v in eqn.invars], "v7x")
        assert oracle.agree(jax_says, scjit_says)
        assert (scjit_says.exception, scjit_says.message) == (
            "ValueError", "When addressing sc_vector_subcore from sc_scalar_subcore and specifying axes=set() the "
                          "following axes are missing from the mesh: {'subcore'}. My own grid names are ('core',).")
        closed = jax.make_jaxpr(_handoff(subcore=True))(x)
        eqn = closed.jaxpr.eqns[0]
        params, avals = eqn.params, [v.aval for v in eqn.invars]
        assert oracle.scjit_verdict(params, avals, "v7x").accepted
        verdicts = oracle.compare(params, avals, "v7x")
        if jax.__version__.startswith("0.10."):
            assert oracle.jax_verdict(params, avals, "v7x") is None
            assert verdicts is None
        else:
            assert verdicts is not None and oracle.agree(*verdicts), verdicts


# --- JAX 0.12's push streams: src_sem, wait_read(), sem=None --------------------------------

needs_push_streams = pytest.mark.skipif(
    "src_sem" not in pltpu.async_copy.__code__.co_varnames,
    reason=f"JAX {jax.__version__}'s async_copy has no src_sem (0.12.0 on)")


def push_stream_kernel(*, with_src_sem: bool, sem_none: bool):
    """Copies x into o through a VMEM buffer, reusing the buffer after the push
    stream out of it has read it (wait_read) and before its write is awaited."""
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1,
                                  num_subcores=1)
    lanes = plsc.get_sparse_core_info().num_lanes

    @pl.kernel(out_type=jax.ShapeDtypeStruct((2, lanes), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM((lanes,), jnp.int32), pltpu.SemaphoreType.DMA,
                              pltpu.SemaphoreType.DMA])
    def kernel(x_ref, o_ref, buf, sem, read):
        pltpu.sync_copy(x_ref.at[0], buf)
        first = pltpu.async_copy(buf, o_ref.at[0], None if sem_none else sem,
                                 src_sem=read if with_src_sem else None)
        if with_src_sem:
            first.wait_read()                 # buf has been read: it may be reused
            pltpu.sync_copy(x_ref.at[1], buf)
            first.wait_write()
        else:
            first.wait()
            pltpu.sync_copy(x_ref.at[1], buf)
        pltpu.sync_copy(buf, o_ref.at[1])

    return kernel


@needs_push_streams
@pytest.mark.parametrize("with_src_sem,sem_none", [(True, False), (True, True), (False, True)])
def test_a_push_stream_runs_as_on_a_tpu(with_src_sem, sem_none):
    with scjit.jax.sparsecore("v7x", checks="all"):
        kernel = push_stream_kernel(with_src_sem=with_src_sem, sem_none=sem_none)
        x = np.arange(32, dtype=np.int32).reshape(2, 16)
        np.testing.assert_array_equal(jax.jit(kernel)(x), x)
        scir = scjit.jax.export(kernel, x)
    if sem_none:
        assert "%no_sem: dma_sem" in scir
    if with_src_sem:
        assert "src_sem %read" in scir


# --- JAX 0.12's plsc.slice_subcore_vmem_from_shared ----------------------------------------

needs_subcore_slices = pytest.mark.skipif(
    not hasattr(plsc, "slice_subcore_vmem_from_shared"),
    reason=f"JAX {jax.__version__} has no plsc.slice_subcore_vmem_from_shared (0.12.0 on)")


@needs_subcore_slices
@pytest.mark.parametrize("target", ["v6e", "v7x"])
def test_each_subcore_works_in_its_slice_of_vmem_shared(target):
    """Each subcore copies its 8 columns of x into its slice of a shared table, adds
    its number plus one there with gathers and scatters, and subcore 0 copies the
    table out after a barrier: o = x + column // 8 + 1."""
    with scjit.jax.sparsecore(target, checks="all"):
        info = plsc.get_sparse_core_info()
        lanes, subcores = info.num_lanes, info.num_subcores
        cols = 8 * subcores
        mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)

        @pl.kernel(out_type=jax.ShapeDtypeStruct((8, cols), jnp.int32), mesh=mesh,
                   scratch_types=[pltpu.VMEM_SHARED((8, cols), jnp.int32)])
        def kernel(x_ref, o_ref, shared):
            s = lax.axis_index("subcore")
            mine = plsc.slice_subcore_vmem_from_shared(shared)
            pltpu.sync_copy(x_ref.at[:, pl.ds(s * 8, 8)], mine)
            lane = lax.iota(jnp.int32, lanes)
            for first in range(0, 8, lanes // 8):
                rows, col = first + lane // 8, lane % 8
                v = plsc.load_gather(mine, [rows, col])
                plsc.store_scatter(mine, [rows, col], v + s + 1)
            plsc.subcore_barrier()

            @pl.when(s == 0)
            def _():
                pltpu.sync_copy(shared, o_ref)

        x = np.arange(8 * cols, dtype=np.int32).reshape(8, cols) * 7
        np.testing.assert_array_equal(jax.jit(kernel)(x), x + np.arange(cols) // 8 + 1)
        scir = scjit.jax.export(kernel, x, target=target)
    assert f"view_subcore_slice %shared : vmem<8x8xi32>" in scir


@pytest.mark.skipif(not hasattr(plsc, "slice_subcore_vmem_from_shared"),
                    reason=f"JAX {jax.__version__}'s pltpu.bitcast is TensorCore-only (SparseCore from 0.12.0)")
def test_pltpu_bitcast_packs_rows_and_plsc_bitcast_the_minor_dimension():
    """pltpu.bitcast's default dim=-2 packs rows: word (0, b) of a (1, 16) int32 result
    holds the bfloat16s (0, b) (low half) and (1, b); dim=-1 is plsc.bitcast's."""
    with scjit.jax.sparsecore("v7x", checks="all"):
        mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1,
                                      num_subcores=1)

        @pl.kernel(out_type=(jax.ShapeDtypeStruct((1, 16), jnp.int32), jax.ShapeDtypeStruct((32,), jnp.int16)),
                   mesh=mesh, scratch_types=[pltpu.VMEM((2, 16), jnp.bfloat16), pltpu.VMEM((1, 16), jnp.int32),
                                             pltpu.VMEM((16,), jnp.int32), pltpu.VMEM((32,), jnp.int16)])
        def kernel(x_ref, y_ref, rows_ref, minor_ref, xv, rows, yv, minor):
            pltpu.sync_copy(x_ref, xv)
            rows[...] = pltpu.bitcast(xv[...], jnp.int32)
            pltpu.sync_copy(rows, rows_ref)
            pltpu.sync_copy(y_ref, yv)
            minor[...] = pltpu.bitcast(yv[...], jnp.int16, dim=-1)
            pltpu.sync_copy(minor, minor_ref)

        x = (np.arange(32, dtype=np.float32) - 7.5).astype(jnp.bfloat16).reshape(2, 16)
        y = np.arange(16, dtype=np.int32) * 65537 + 3
        rows, minor = jax.jit(kernel)(x, y)
        bits = np.asarray(x).view(np.uint16).astype(np.uint32)
        np.testing.assert_array_equal(np.asarray(rows).view(np.uint32), (bits[0] | bits[1] << 16)[None, :])
        np.testing.assert_array_equal(minor, y.view(np.int16))
        scir = scjit.jax.export(kernel, x, y)
    assert "{dim = -2} : vector<1x16xi32>" in scir


@needs_push_streams
def test_a_push_stream_with_a_destination_semaphore_warns_as_jax_does():
    """JAX 0.12 lowers a copy out of VMEM as a push stream, which ignores its
    destination semaphore, and says so (SparseCorePushStreamWarning) at the
    kernel's line; `sem=None` says nothing."""
    import warnings

    from scjit.jax import internals

    with scjit.jax.sparsecore("v7x"):
        x = np.arange(32, dtype=np.int32).reshape(2, 16)
        with pytest.warns(internals.PushStreamWarning,
                          match=r"^Destination semaphore is ignored for push streams \(VMEM to HBM") as record:
            jax.jit(push_stream_kernel(with_src_sem=False, sem_none=False))(x)
        assert {w.filename for w in record} == {__file__}
        # The kernel's sync_copy out of VMEM warns; its async_copy with sem=None does not.
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always", internals.PushStreamWarning)
            np.testing.assert_array_equal(jax.jit(push_stream_kernel(with_src_sem=True, sem_none=True))(x), x)
        source, first = inspect.getsourcelines(push_stream_kernel)
        line_of = {key: first + next(i for i, l in enumerate(source) if key in l)
                   for key in ("first = pltpu.async_copy", "pltpu.sync_copy(buf, o_ref.at[1])")}
        assert {w.lineno for w in record} == {line_of["pltpu.sync_copy(buf, o_ref.at[1])"]}


@needs_push_streams
def test_a_source_semaphore_on_a_copy_into_vmem_is_rejected_as_jax_does():
    with scjit.jax.sparsecore("v7x"):
        mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1,
                                      num_subcores=1)

        @pl.kernel(out_type=jax.ShapeDtypeStruct((16,), jnp.int32), mesh=mesh,
                   scratch_types=[pltpu.VMEM((16,), jnp.int32), pltpu.SemaphoreType.DMA,
                                  pltpu.SemaphoreType.DMA])
        def kernel(x_ref, o_ref, buf, sem, read):
            pltpu.async_copy(x_ref, buf, sem, src_sem=read).wait_write()
            pltpu.sync_copy(buf, o_ref)

        with pytest.raises(ValueError) as e:
            jax.jit(kernel)(np.zeros(16, np.int32))
    assert e.value.code == "DMA-24"
    assert str(e.value).startswith("Source semaphore (`src_sem`) on a local copy is only supported for push streams")
