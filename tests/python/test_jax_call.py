"""scjit kernels inside jax.jit programs on the CPU (scjit.jax.execute): the XLA
FFI target scjit_launch, mixed with jnp code, under vmap, with inout aliasing,
bf16, debug_print, and a failed check as jax's runtime error."""

import math
import pathlib

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import scjit
from scjit.jax.execute import kernel_call

ROOT = pathlib.Path(__file__).resolve().parents[2]

# acc += x * 2 (inout), o = x - 1, on one subcore, bf16.
INOUT = """kernel @axpy(in %x: hbm<64xbf16>, inout %acc: hbm<64xbf16>, out %o: hbm<64xbf16>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%a: vmem<64xbf16>, %b: vmem<64xbf16>)
{
  copy %x -> %a
  copy %acc -> %b
  %v = get %a : vector<64xbf16>
  %w = get %b : vector<64xbf16>
  %two = mul %v, 2 : vector<64xbf16>
  %sum = add %w, %two : vector<64xbf16>
  %less = sub %v, 1 : vector<64xbf16>
  store %b, %sum
  store %a, %less
  copy %b -> %acc
  copy %a -> %o
  debug_print "acc[0..]" %b
}
"""


def test_a_kernel_in_a_jitted_program_with_jnp_code():
    f = kernel_call(scjit.compile(ROOT / "examples" / "add_one_manual.scir"))
    x = np.random.default_rng(1).integers(-100, 100, (32, 1024), dtype=np.int32)
    y = jax.jit(lambda x: jnp.sum(f(x * 2) + 3, axis=1))(x)
    np.testing.assert_array_equal(y, np.sum(x * 2 + 4, axis=1))


def test_vmap_runs_one_launch_per_element():
    f = kernel_call(scjit.compile(ROOT / "examples" / "add_one_manual.scir"))
    xs = np.arange(3 * 32 * 1024, dtype=np.int32).reshape(3, 32, 1024)
    np.testing.assert_array_equal(jax.jit(jax.vmap(f))(xs), xs + 1)


def test_inout_is_aliased_and_bf16_kept(capfd):
    f = kernel_call(scjit.compile(INOUT))
    x = (np.arange(64) / 8).astype(ml_dtypes.bfloat16)
    acc = np.ones(64, ml_dtypes.bfloat16)
    new_acc, o = jax.jit(f, donate_argnums=1)(x, jnp.asarray(acc))
    np.testing.assert_array_equal(new_acc, (1 + 2 * x.astype(np.float32)).astype(ml_dtypes.bfloat16))
    np.testing.assert_array_equal(o, (x.astype(np.float32) - 1).astype(ml_dtypes.bfloat16))
    np.testing.assert_array_equal(acc, np.ones(64, ml_dtypes.bfloat16))  # not donated: untouched
    # Without donation XLA copies the operand; the result is the same.
    new_acc2, _ = jax.jit(f)(x, acc)
    np.testing.assert_array_equal(new_acc2, new_acc)
    assert capfd.readouterr().err.count("[core 0, subcore 0] acc[0..], data: bf16[64]: { 1, 1.25, 1.5, ") == 2


def test_a_failed_check_is_a_runtime_error_with_the_findings():
    f = kernel_call(scjit.compile(ROOT / "examples" / "gather_indirect.scir"))
    ids = np.zeros((1, 4096), np.int32)
    ids[0, 3] = 4096
    with pytest.raises(jax.errors.JaxRuntimeError) as e:
        jax.block_until_ready(jax.jit(f)(np.zeros((4096, 128), np.int32), ids))
    text = str(e.value)
    assert "examples/gather_indirect.scir:39:5: error[RT-BOUNDS]: copy %x[idx(%row_ids)] -> %o_vmem: entry 3 of " \
           "the index list is 4096, outside dimension 0 of the source (size 4096)" in text
    assert "note: in kernel @gather_indirect, 2 subcores: core 0 subcore 0, core 1 subcore 0" in text


def test_launch_options_reach_the_launch():
    k = scjit.compile(ROOT / "examples" / "gather_indirect.scir")
    ids = np.zeros((1, 4096), np.int32)
    ids[0, 3] = 4096
    # As warnings the launch goes on (the out-of-range entry is clamped).
    out = jax.jit(kernel_call(k, checks="warn", threads=1, dma="eager", seed=5))(np.zeros((4096, 128), np.int32), ids)
    assert out.shape == (4096, 128)


def test_a_launch_past_its_time_limit_is_a_runtime_error_with_rt_timeout():
    k = scjit.compile(ROOT / "tests" / "bugs" / "timeout_infinite_loop.scir")
    with pytest.raises(jax.errors.JaxRuntimeError) as e:
        jax.block_until_ready(jax.jit(kernel_call(k, time_limit=0.05))(np.zeros(16, np.int32)))
    assert "error[RT-TIMEOUT]: kernel @timeout_infinite_loop ran longer than 0.05 s and was stopped" in str(e.value)


def test_bad_launch_options_are_usage_errors_before_the_program_runs():
    k = scjit.compile(ROOT / "examples" / "add_one_manual.scir")
    for options in (dict(time_limit=math.nan), dict(threads=-1), dict(seed=-5), dict(dma="bogus")):
        with pytest.raises(scjit.InputError) as e:
            kernel_call(k, **options)
        assert e.value.code == "IO-USAGE"
    with pytest.raises(TypeError) as e:
        kernel_call(k, threads="x")
    assert isinstance(e.value, scjit.InputError) and e.value.code == "IO-USAGE"


def test_numpy_arrays_in_the_other_byte_order_are_read_by_their_values():
    f = kernel_call(scjit.compile(ROOT / "examples" / "add_one_manual.scir"))
    x = np.arange(32 * 1024, dtype=">i4").reshape(32, 1024)
    out = np.asarray(f(x))
    assert out.dtype == np.dtype("=i4")
    assert out.tobytes() == (np.arange(32 * 1024, dtype=np.int32).reshape(32, 1024) + 1).tobytes()
