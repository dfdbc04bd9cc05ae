"""The 4-bit integers i4/u4 (JAX's int4/uint4) against ml_dtypes: kernels compiled
with scjit.compile take and give ml_dtypes arrays (one element per byte, the value in
the low nibble), .npy files through jit-run, and a Pallas kernel over jnp.int4 inside
jax.jit, whose XLA buffers hold the elements packed two to a byte."""

import os
import pathlib
import subprocess

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax.experimental import pallas as pl
from jax.experimental.pallas import tpu as pltpu
from jax.experimental.pallas import tpu_sc as plsc

import scjit
import scjit.jax

ROOT = pathlib.Path(__file__).resolve().parents[2]
JIT_RUN = os.environ.get("SCJIT_JIT_RUN", str(ROOT / "build" / "jit-run"))

I4, U4 = np.dtype(ml_dtypes.int4), np.dtype(ml_dtypes.uint4)

# HBM -> VMEM, to i32, + k, back to i4, VMEM -> HBM; and the same sum in 4 bits, x * y
# in 4 bits, x as u4, and x < y.
KERNEL = """kernel @k(in %x: hbm<4x64xi4>, in %y: hbm<4x64xi4>, out %o: hbm<4x64xi4>, out %s: hbm<4x64xi4>,
          out %p: hbm<4x64xi4>, out %u: hbm<4x64xu4>, out %lt: hbm<4x64xi32>)
    mesh vector(cores = 1, subcores = 4)
    scratch(%a: vmem<64xi4>, %b: vmem<64xi4>, %c: vmem<64xi4>, %d: vmem<64xi4>, %e: vmem<64xu4>, %f: vmem<64xi32>)
{
  %r = axis_index subcore : i32
  copy %x[%r] -> %a
  copy %y[%r] -> %b
  %v = get %a : vector<64xi4>
  %w = get %b : vector<64xi4>
  %vi = convert %v : vector<64xi32>
  %sum = add %vi, 5 : vector<64xi32>
  %back = convert %sum : vector<64xi4>
  store %c, %back
  copy %c -> %o[%r]
  %five = const dense<5> : vector<64xi4>
  %s4 = add %v, %five : vector<64xi4>
  store %d, %s4
  copy %d -> %s[%r]
  %p4 = mul %v, %w : vector<64xi4>
  store %d, %p4
  copy %d -> %p[%r]
  %q = convert %v : vector<64xu4>
  store %e, %q
  copy %e -> %u[%r]
  %m = cmp lt %v, %w : vector<64xi1>
  %mi = convert %m : vector<64xi32>
  store %f, %mi
  copy %f -> %lt[%r]
}
"""


def inputs():
    """Every pair of int4 values (16 * 16 = 256 = 4 rows of 64)."""
    x = np.repeat(np.arange(-8, 8), 16).reshape(4, 64)
    y = np.tile(np.arange(-8, 8), 16).reshape(4, 64)
    return x.astype(I4), y.astype(I4)


def wrap4(v):
    """int values wrapped to int4, as ml_dtypes' int4 holds them."""
    return (((np.asarray(v, np.int64) + 8) % 16) - 8).astype(I4)


def expected(x, y):
    xi, yi = x.astype(np.int32), y.astype(np.int32)
    return dict(o=wrap4(xi + 5), s=wrap4(xi + 5), p=wrap4(xi * yi), u=(xi % 16).astype(U4),
                lt=(xi < yi).astype(np.int32))


def test_arrays_in_and_out_byte_for_byte():
    k = scjit.compile(KERNEL)
    assert [p.dtype for p in k.params][:3] == [I4, I4, I4] and k.params[5].dtype == U4
    x, y = inputs()
    outs = k(x, y)
    want = expected(x, y)
    for p, got in zip(k.outputs, outs):
        assert got.dtype == want[p.name].dtype, p.name
        # Byte for byte: one element per byte, the value in the low nibble.
        np.testing.assert_array_equal(got.view(np.uint8), want[p.name].view(np.uint8), err_msg=p.name)


def test_npy_files_through_jit_run(tmp_path):
    """numpy saves int4 as raw bytes ('|V1'): jit-run reads them as the parameter's
    type and writes its int4 outputs the same way."""
    path = tmp_path / "k.scir"
    path.write_text(KERNEL)
    x, y = inputs()
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    args = [JIT_RUN, str(path), "--in", f"x={tmp_path / 'x.npy'}", "--in", f"y={tmp_path / 'y.npy'}"]
    for name in ("o", "u"):
        args += ["--out", f"{name}={tmp_path / (name + '.npy')}"]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    want = expected(x, y)
    for name in ("o", "u"):
        got = np.load(tmp_path / f"{name}.npy")
        assert got.dtype.kind == "V" and got.dtype.itemsize == 1
        np.testing.assert_array_equal(got.view(want[name].dtype), want[name])


def test_a_pallas_kernel_over_int4_inside_jax_jit():
    """XLA packs int4 two to a byte: scjit.jax unpacks the operand and packs the
    result, so the jitted program sees what jnp computes."""
    with scjit.jax.sparsecore("v7x"):
        lanes = plsc.get_sparse_core_info().num_lanes
        n = 4 * lanes  # one int4 register
        mesh = plsc.VectorSubcoreMesh(core_axis_name="core", subcore_axis_name="subcore", num_cores=1)

        @pl.kernel(out_type=jax.ShapeDtypeStruct((16, n), jnp.int4), mesh=mesh,
                   scratch_types=[pltpu.VMEM((n,), jnp.int4)])
        def kernel(x_ref, o_ref, buf):
            s = jax.lax.axis_index("subcore")
            pltpu.sync_copy(x_ref.at[s], buf)
            buf[...] = (buf[...].astype(jnp.int32) * 3 + 1).astype(jnp.int4)
            pltpu.sync_copy(buf, o_ref.at[s])

        x = (np.arange(16 * n) % 16 - 8).reshape(16, n).astype(I4)
        got = jax.jit(lambda x: kernel(x))(x)
        want = wrap4(x.astype(np.int32) * 3 + 1)
        assert got.dtype == jnp.int4
        np.testing.assert_array_equal(np.asarray(got).view(np.uint8), want.view(np.uint8))
        # Mixed with jnp code on int4 arrays (XLA's own packed buffers on both sides).
        got2 = jax.jit(lambda x: kernel(x + jnp.int4(1)) + jnp.int4(2))(x)
        want2 = wrap4(wrap4(x.astype(np.int32) + 1).astype(np.int32) * 3 + 1 + 2)
        np.testing.assert_array_equal(np.asarray(got2).astype(np.int32), want2.astype(np.int32))
