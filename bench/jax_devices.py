"""What a kernel on several chips costs when JAX calls it under jax.shard_map.

On N CPU devices (--xla_force_host_platform_device_count), the ring permute of
tests/pallas/tpu_sparsecore_pallas_distributed_test.py (test_collective_permute_1d:
each chip copies its (8, 128) int32 block to its right-hand neighbour) is timed,
in one process run, two ways:

- jax.jit(jax.shard_map(pl.kernel)) under scjit.jax.sparsecore: XLA's dispatch to
  every device, each device's all-gather of the shards, and the one launch of all
  the chips that the first device to arrive runs (python/src/shared_launch.h);
- the same kernel exported to .scir (scjit.jax.export) and launched directly through
  scjit.Kernel with the whole mesh's input.

Prints each median time per call and their ratio, for each device count.

    PYTHONPATH=build/python .venv/bin/python bench/jax_devices.py [--devices 2 8] [--repeat 7] [--calls 200]
"""

import argparse
import os
import statistics
import time

# Before JAX starts: the CPU devices that stand for chips.
os.environ["XLA_FLAGS"] = (os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=8").strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from jax.experimental import pallas as pl  # noqa: E402
from jax.experimental.pallas import tpu as pltpu  # noqa: E402
from jax.experimental.pallas import tpu_sc as plsc  # noqa: E402

import scjit  # noqa: E402
import scjit.jax  # noqa: E402

SHAPE = (8, 128)


def ring_permute():
    """The kernel (its mesh asks for the chip's SparseCore, so it is made under
    scjit.jax's switch)."""

    @pl.kernel(out_type=jax.ShapeDtypeStruct(SHAPE, jnp.int32),
               mesh=plsc.ScalarSubcoreMesh(axis_name="core", num_cores=1),
               scratch_types=(pltpu.SemaphoreType.REGULAR, pltpu.SemaphoreType.DMA, pltpu.SemaphoreType.DMA))
    def kernel(x_ref, y_ref, ready_sem, send_sem, recv_sem):
        me = lax.axis_index("x")
        n = lax.axis_size("x")
        right = lax.rem(me + 1, n)
        pl.semaphore_signal(ready_sem, device_id=right)
        pl.semaphore_wait(ready_sem)
        pltpu.async_remote_copy(x_ref, y_ref, send_sem, recv_sem, device_id=right).wait()

    return kernel


def median_microseconds(call, repeat: int, calls: int) -> float:
    call()  # compile, warm up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            call()
        times.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--devices", type=int, nargs="+", default=[2, 8])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--calls", type=int, default=200)
    args = parser.parse_args()
    print(f"{'devices':>7}  {'shard_map us':>12}  {'Kernel us':>10}  {'ratio':>6}")
    for n in args.devices:
        if n > jax.device_count():
            raise SystemExit(f"jax_devices: {n} devices asked, the process has {jax.device_count()}")
        mesh = jax.sharding.Mesh(np.array(jax.devices()[:n]), ["x"])
        x = jnp.arange(n * SHAPE[0] * SHAPE[1], dtype=jnp.int32).reshape(n * SHAPE[0], SHAPE[1])
        expected = np.roll(np.asarray(x), SHAPE[0], axis=0)
        with scjit.jax.sparsecore("v7x"):
            f = jax.shard_map(ring_permute(), mesh=mesh, in_specs=jax.P("x"), out_specs=jax.P("x"),
                              check_vma=False)
            jitted = jax.jit(f)
            np.testing.assert_array_equal(jitted(x), expected)
            jax_us = median_microseconds(lambda: jitted(x).block_until_ready(), args.repeat, args.calls)
        kernel = scjit.compile(scjit.jax.export(f, x), target="v7x")
        blocks = np.asarray(x).reshape(n, *SHAPE)
        np.testing.assert_array_equal(kernel(blocks).reshape(n * SHAPE[0], SHAPE[1]), expected)
        kernel_us = median_microseconds(lambda: kernel(blocks), args.repeat, args.calls)
        print(f"{n:>7}  {jax_us:>12.1f}  {kernel_us:>10.1f}  {jax_us / kernel_us:>6.2f}")


if __name__ == "__main__":
    main()
