"""What calling a kernel from jax.jit costs beyond the same launch from C++.

Runs, in one process run, Google Benchmark's BM_TinyLaunch (bench/kernels_bench.cc:
bench/kernels/tiny_add_one.scir launched through the C++ API) and the same kernel
called from a jitted JAX function on the CPU, twice: as the compiled `.scir`
(scjit.jax.kernel_call) and as the Pallas kernel it transcribes (pl.kernel under
scjit.jax.sparsecore). Prints each median time per call, the difference from C++
and the ratio. The target (issue #12): at most 50 us more than C++.

    PYTHONPATH=build/python .venv/bin/python bench/jax_overhead.py [--repeat 7] [--calls 2000]
"""

import argparse
import json
import pathlib
import statistics
import subprocess
import time

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc

import scjit
import scjit.jax

ROOT = pathlib.Path(__file__).resolve().parents[1]


def cpp_microseconds(bench: pathlib.Path) -> float:
    out = subprocess.run([str(bench), "--benchmark_filter=^BM_TinyLaunch/", "--benchmark_format=json",
                          "--benchmark_repetitions=5", "--benchmark_report_aggregates_only=true"],
                         capture_output=True, text=True, check=True).stdout
    rows = json.loads(out)["benchmarks"]
    median = next(r for r in rows if r.get("aggregate_name") == "median")
    return median["real_time"]  # microseconds (the benchmark's unit)


def jax_microseconds(fn, x, repeat: int, calls: int) -> float:
    jax.block_until_ready(fn(x))  # compile
    medians = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(calls):
            jax.block_until_ready(fn(x))
        medians.append((time.perf_counter() - start) / calls * 1e6)
    return statistics.median(medians)


def pallas_tiny_add_one():
    mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1,
                                  num_subcores=1)

    @pl.kernel(out_type=jax.ShapeDtypeStruct((16,), jnp.int32), mesh=mesh,
               scratch_types=[pltpu.VMEM((16,), jnp.int32)])
    def kernel(x_ref, o_ref, buf):
        pltpu.sync_copy(x_ref, buf)
        buf[...] = buf[...] + 1
        pltpu.sync_copy(buf, o_ref)

    return kernel


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--bench", default=str(ROOT / "build" / "bench" / "scjit_bench"))
    args = parser.parse_args()

    x = jnp.full((16,), 41, jnp.int32)
    kernel = scjit.compile(ROOT / "bench" / "kernels" / "tiny_add_one.scir")
    via_scir = jax.jit(scjit.jax.kernel_call(kernel, threads=1))
    with scjit.jax.sparsecore("v7x", threads=1):
        via_pallas = jax.jit(pallas_tiny_add_one())
        assert int(via_pallas(x)[15]) == 42
        pallas_us = jax_microseconds(via_pallas, x, args.repeat, args.calls)
    assert int(via_scir(x)[15]) == 42
    scir_us = jax_microseconds(via_scir, x, args.repeat, args.calls)
    cpp_us = cpp_microseconds(pathlib.Path(args.bench))

    print(f"{'path':<44}{'us/call':>10}{'- C++ us':>10}{'/ C++':>8}")
    print(f"{'C++ Kernel::Launch (BM_TinyLaunch)':<44}{cpp_us:>10.2f}{0:>10.2f}{1:>8.2f}")
    for name, us in (("jax.jit(scjit.jax.kernel_call(kernel))", scir_us),
                     ("jax.jit(pl.kernel) under scjit.jax", pallas_us)):
        print(f"{name:<44}{us:>10.2f}{us - cpp_us:>10.2f}{us / cpp_us:>8.2f}")
    worst = max(scir_us, pallas_us) - cpp_us
    print(f"jax.jit costs {worst:.1f} us more than C++ per call (target: at most 50 us): "
          f"{'met' if worst <= 50 else 'NOT met'}")


if __name__ == "__main__":
    main()
