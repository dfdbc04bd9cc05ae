"""Kernels that talk to other chips, under jax.shard_map on CPU devices
(scjit.jax.backend, execute.chips_call, python/src/shared_launch.h): Pallas'
device-id forms, one launch for all the devices of a program, a launch per call,
failures reported once, and kernels that do not talk to other chips still run
per device. conftest.py gives the process 8 CPU devices."""

import math

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax import lax
from jax.experimental import mesh_utils
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc

import scjit
import scjit.jax

SHAPE = (8, 128)


@pytest.fixture(autouse=True)
def on_scjit():
    if jax.device_count() < 8:
        pytest.skip("needs 8 CPU devices (XLA_FLAGS=--xla_force_host_platform_device_count=8)")
    with scjit.jax.sparsecore("v7x", check_rules=True):
        yield


def permute_kernel(shift, device_id=lambda me, to: to, id_type=pl.DeviceIdType.MESH, out_of_mesh=False):
    """TD test_collective_permute_1d: every chip signals the chip `shift` away
    on axis x, waits for its own signal, and copies its block there."""

    @pl.kernel(out_type=jax.ShapeDtypeStruct(SHAPE, jnp.int32),
               mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1),
               scratch_types=(pltpu.SemaphoreType.REGULAR, pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA))
    def kernel(x_ref, y_ref, ready_sem, send_sem, recv_sem):
        me = lax.axis_index("x")
        n = lax.axis_size("x")
        to = n if out_of_mesh else lax.rem(me + shift + n, n)
        pl.semaphore_signal(ready_sem, device_id=device_id(me, to), device_id_type=id_type)
        pl.semaphore_wait(ready_sem)
        pltpu.async_remote_copy(x_ref, y_ref, send_sem, recv_sem, device_id=device_id(me, to),
                                device_id_type=id_type).wait()

    return kernel


def on_mesh(kernel, n):
    mesh = jax.sharding.Mesh(mesh_utils.create_device_mesh((n,), jax.devices()[:n]), ["x"])
    return jax.jit(jax.shard_map(kernel, mesh=mesh, in_specs=jax.P("x"), out_specs=jax.P("x"), check_vma=False))


def blocks(n):
    return jnp.arange(n * math.prod(SHAPE), dtype=jnp.int32).reshape(-1, SHAPE[1])


def rolled(x, shift):
    """x's blocks of 8 rows, each moved `shift` chips along the ring."""
    return jnp.roll(x, shift * SHAPE[0], axis=0)


@pytest.mark.parametrize("n", [2, 4, 8])
@pytest.mark.parametrize("shift", [1, -1])
def test_collective_permute_1d(n, shift):
    x = blocks(n)
    np.testing.assert_array_equal(on_mesh(permute_kernel(shift), n)(x), rolled(x, shift))


@pytest.mark.parametrize("form", ["logical", "dict", "tuple"])
def test_every_device_id_form(form):
    ids = {"logical": (lambda me, to: to, pl.DeviceIdType.LOGICAL),
           "dict": (lambda me, to: {"x": to}, pl.DeviceIdType.MESH),
           "tuple": (lambda me, to: (to,), pl.DeviceIdType.MESH)}[form]
    x = blocks(4)
    np.testing.assert_array_equal(on_mesh(permute_kernel(1, *ids), 4)(x), rolled(x, 1))


def test_collective_permute_2d():
    @pl.kernel(out_type=jax.ShapeDtypeStruct(SHAPE, jnp.int32),
               mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1),
               scratch_types=(pltpu.SemaphoreType.REGULAR, pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA))
    def kernel(x_ref, y_ref, ready_sem, send_sem, recv_sem):
        x, y = lax.axis_index("x"), lax.axis_index("y")
        right = lax.rem(x + 1, lax.axis_size("x"))
        pl.semaphore_signal(ready_sem, device_id=(y, right))
        pl.semaphore_wait(ready_sem)
        pltpu.async_remote_copy(x_ref, y_ref, send_sem, recv_sem, device_id=(y, right)).wait()

    mesh = jax.sharding.Mesh(mesh_utils.create_device_mesh((2, 4), jax.devices()), ["y", "x"])
    f = jax.jit(jax.shard_map(kernel, mesh=mesh, in_specs=jax.P(("y", "x")), out_specs=jax.P(("y", "x")),
                              check_vma=False))
    x = blocks(8)
    expected = np.concatenate([rolled(x[:32], 1), rolled(x[32:], 1)])
    np.testing.assert_array_equal(f(x), expected)
    text = scjit.jax.export(f, x)
    assert "    devices(y = 2, x = 4)\n" in text
    assert "sem_signal %ready_sem, 1 {device = [" in text  # a tuple device_id: mesh coordinates


def test_the_kernel_runs_once_for_all_devices(capfd):
    @pl.kernel(out_type=jax.ShapeDtypeStruct(SHAPE, jnp.int32),
               mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1),
               scratch_types=(pltpu.SemaphoreType.REGULAR,))
    def kernel(x_ref, y_ref, sem):
        me = lax.axis_index("x")
        pl.debug_print("chip", me)
        pltpu.sync_copy(x_ref, y_ref)

    x = blocks(4)
    f = on_mesh(kernel, 4)
    np.testing.assert_array_equal(f(x), x)
    text = scjit.jax.export(f, x)
    assert "    devices(x = 4)\n" in text
    lines = [line for line in capfd.readouterr().err.splitlines() if "chip" in line]
    # One launch of four chips: each chip prints once (four devices each running
    # the launch would print sixteen lines).
    assert lines == [f"[device {c}, core 0, subcore 0] chip, data: s32[1]: {c}" for c in range(4)]


def test_each_call_is_its_own_launch():
    kernel = permute_kernel(1)

    def program(x):
        twice = kernel(kernel(x))
        return twice, lax.fori_loop(0, 3, lambda i, v: kernel(v), x)

    mesh = jax.sharding.Mesh(mesh_utils.create_device_mesh((4,), jax.devices()[:4]), ["x"])
    f = jax.jit(jax.shard_map(program, mesh=mesh, in_specs=jax.P("x"), out_specs=jax.P("x"), check_vma=False))
    x = blocks(4)
    for _ in range(2):  # a second execution of the program starts afresh
        twice, thrice = f(x)
        np.testing.assert_array_equal(twice, rolled(x, 2))
        np.testing.assert_array_equal(thrice, rolled(x, 3))


def test_a_failure_is_reported_and_the_next_run_is_clean():
    x = blocks(4)
    with pytest.raises(jax.errors.JaxRuntimeError) as e:
        on_mesh(permute_kernel(1, out_of_mesh=True), 4)(x).block_until_ready()
    message = str(e.value)
    assert "error[RT-BOUNDS]" in message
    assert "coordinate 4 on device axis 'x' is outside its 4 devices (devices(x = 4))" in message
    assert "note: in kernel @kernel, 4 scalar subcores: devices 0–3 core 0" in message
    np.testing.assert_array_equal(on_mesh(permute_kernel(1), 4)(x), rolled(x, 1))


def test_a_deadlock_across_chips_names_the_chip():
    @pl.kernel(out_type=jax.ShapeDtypeStruct(SHAPE, jnp.int32),
               mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1),
               scratch_types=(pltpu.SemaphoreType.REGULAR,))
    def kernel(x_ref, y_ref, sem):
        me = lax.axis_index("x")

        @pl.when(me != 0)  # chip 0 waits for a signal nobody sends
        def _():
            pl.semaphore_signal(sem, device_id=me)

        pl.semaphore_wait(sem)
        pltpu.sync_copy(x_ref, y_ref)

    with pytest.raises(jax.errors.JaxRuntimeError) as e:
        on_mesh(kernel, 2)(blocks(2)).block_until_ready()
    message = str(e.value)
    assert "error[RT-DEADLOCK]" in message
    assert "scalar subcore (device 0, core 0)" in message


def test_a_kernel_that_talks_to_no_other_chip_runs_per_device():
    lanes = plsc.get_sparse_core_info().num_lanes
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)

    @pl.kernel(out_type=jax.ShapeDtypeStruct((16, lanes), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM((lanes,), jnp.int32)])
    def kernel(x_ref, o_ref, buf):
        s = lax.axis_index("subcore")
        pltpu.sync_copy(x_ref.at[s], buf)
        buf[...] = buf[...] + 1
        pltpu.sync_copy(buf, o_ref.at[s])

    x = jnp.arange(4 * 16 * lanes, dtype=jnp.int32).reshape(-1, lanes)
    f = on_mesh(kernel, 4)
    np.testing.assert_array_equal(f(x), x + 1)
    assert "devices(" not in scjit.jax.export(f, x)


def test_every_mesh_axis_must_be_manual():
    mesh = jax.sharding.Mesh(mesh_utils.create_device_mesh((2, 4), jax.devices()), ["y", "x"])
    f = jax.jit(jax.shard_map(permute_kernel(1, lambda me, to: {"x": to}), mesh=mesh, in_specs=jax.P("x"),
                              out_specs=jax.P("x"), axis_names={"x"}, check_vma=False))
    with pytest.raises(scjit.jax.ExportError) as e:
        f(blocks(4))
    assert e.value.reason == ("a kernel that talks to other chips under a jax.shard_map whose axis 'y' is not "
                              "manual: scjit runs such a kernel with every mesh axis manual (shard_map over all of "
                              "them)")
