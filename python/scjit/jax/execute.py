"""Running scjit kernels inside jax.jit programs on the CPU.

`kernel_call(kernel)` makes a compiled scjit.Kernel a JAX function: inside
`jax.jit` it becomes a call of the XLA FFI target `scjit_launch`
(python/src/ffi_launch.cc), which binds XLA's buffers to the kernel's
parameters without copying them and launches it. It composes with jnp code,
`jax.vmap` (one launch per element of the batch) and input/output aliasing
(an inout parameter's output is its input's buffer when XLA can donate it).

`chips_call(kernel, axis_names)` is the form a kernel with a device mesh takes
inside `jax.shard_map`: each device gathers every device's shard, one of them
launches the kernel on all chips at once, and each keeps its own chip's shard
of the results.
"""

from __future__ import annotations

import threading

import jax
import numpy as np

import scjit
from scjit import _args, _scjit

FFI_TARGET = "scjit_launch"

_lock = threading.Lock()
_registered = False
# Kernels (and SharedLaunch objects) whose address a compiled JAX program holds:
# they live as long as the process, as the programs may (jax caches them).
_kept: dict[int, object] = {}


def _register() -> None:
    global _registered
    with _lock:
        if _registered:
            return
        if not hasattr(_scjit, "ffi_launch_handler"):
            raise scjit.UnsupportedError("this scjit was built without jax: it cannot run kernels inside jax.jit "
                                         "(rebuild it with jax installed in its Python environment)")
        jax.ffi.register_ffi_target(FFI_TARGET, _scjit.ffi_launch_handler(), platform="cpu")
        _registered = True


def ffi_attributes(kernel: scjit.Kernel, *, threads: int = 0, checks: str = "", dma: str = "",
                   seed: int | None = None, time_limit: float = _args.DEFAULT_TIME_LIMIT) -> dict:
    """The attributes of a `scjit_launch` call of `kernel` (it is kept alive).
    The options are checked here, as scjit.Kernel.with_options checks them
    (scjit.InputError, IO-USAGE): the handler would only meet a bad one when
    the program runs. "" is the kernel's checks, and the default dma."""
    options = _args.launch_options(threads=threads, checks=checks, dma=dma or None, seed=seed,
                                   time_limit=time_limit)
    _register()
    address = kernel._compiled.address
    with _lock:
        _kept[address] = kernel
    return dict(kernel=np.int64(address), threads=np.int64(options.get("threads", 0)),
                checks=options.get("checks", ""), dma=options.get("dma", ""), seed=np.int64(options.get("seed", -1)),
                time_limit=np.float64(options.get("time_limit", _args.DEFAULT_TIME_LIMIT)), shared=np.int64(0))


def io_aliases(kernel: scjit.Kernel) -> dict[int, int]:
    """input_output_aliases of a `scjit_launch` call: each inout parameter's
    operand index -> its result index (operands are the in/inout parameters,
    results the out/inout ones, each in parameter order)."""
    aliases = {}
    for operand, p in enumerate(kernel.inputs):
        if p.direction == "inout":
            aliases[operand] = next(i for i, q in enumerate(kernel.outputs) if q.name == p.name)
    return aliases


def kernel_call(kernel: scjit.Kernel, *, threads: int = 0, checks: str = "", dma: str = "", seed: int | None = None,
                time_limit: float = _args.DEFAULT_TIME_LIMIT):
    """A JAX function that runs `kernel`: it takes one array per in/inout
    parameter (in parameter order) and returns the out/inout parameters' arrays
    (a tuple when there are several). Launch options as scjit.Kernel.with_options.
    A failed run-time check (or RT-TIMEOUT past `time_limit` seconds) raises
    jax's runtime error with every finding."""
    attributes = ffi_attributes(kernel, threads=threads, checks=checks, dma=dma, seed=seed, time_limit=time_limit)
    out_types = [jax.ShapeDtypeStruct(p.shape, p.dtype) for p in kernel.outputs]
    call = jax.ffi.ffi_call(FFI_TARGET, out_types, input_output_aliases=io_aliases(kernel),
                            vmap_method="sequential")

    def run(*arrays):
        outs = call(*map(_native_byte_order, arrays), **attributes)
        return outs[0] if len(outs) == 1 else tuple(outs)

    run.__name__ = f"scjit_{kernel.name}"
    return run


def _native_byte_order(array):
    """A numpy array in the other byte order (">i4" on x86) as a native copy,
    with the same values, as scjit.Kernel's launch takes it (JAX refuses such
    arrays); anything else as it is."""
    if isinstance(array, np.ndarray) and not array.dtype.isnative:
        return array.astype(array.dtype.newbyteorder("="))
    return array


def chips_call(kernel: scjit.Kernel, axis_names: tuple, *, threads: int = 0, checks: str = "", dma: str = "",
               seed: int | None = None, time_limit: float = _args.DEFAULT_TIME_LIMIT):
    """Inside `jax.shard_map` over a mesh of axes `axis_names` (major first, all
    manual, `kernel.devices` devices in all): a JAX function that takes this
    device's shard of each in/inout parameter and returns its shard of each
    out/inout one, as kernel_call does on one chip. Every device gathers all the
    shards (chip i's is device i's, i the row-major index over the axes, Pallas'
    logical id) and calls `scjit_launch` with them; the first to come runs the
    launch on every chip, the others take copies of its results (a
    SharedLaunch per call site), so the kernel runs, prints and fails once."""
    attributes = ffi_attributes(kernel, threads=threads, checks=checks, dma=dma, seed=seed, time_limit=time_limit)
    sharing = _scjit.SharedLaunch(kernel.devices)
    with _lock:
        _kept[sharing.address] = sharing
    attributes["shared"] = np.int64(sharing.address)
    out_types = [jax.ShapeDtypeStruct(p.shape, p.dtype) for p in kernel.outputs]
    call = jax.ffi.ffi_call(FFI_TARGET, out_types, input_output_aliases=io_aliases(kernel))

    def run(*shards):
        chips = [jax.lax.all_gather(s, axis_names) for s in shards]
        outs = call(*chips, **attributes)
        me = jax.lax.axis_index(axis_names)
        return [jax.lax.dynamic_index_in_dim(o, me, 0, keepdims=False) for o in outs]

    run.__name__ = f"scjit_{kernel.name}_on_chips"
    return run
