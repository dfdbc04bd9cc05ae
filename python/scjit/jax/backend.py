"""scjit as the CPU backend of Pallas SparseCore kernels.

    with scjit.jax.sparsecore("v7x"):      # or scjit.jax.enable("v7x") for the process
        y = jax.jit(my_function)(x)        # pl.kernel SparseCore kernels run on scjit

Inside, JAX believes it is tracing for the target TPU (an abstract TPU mesh, so
`plsc.get_sparse_core_info()` and `pltpu.get_tpu_info()` answer for that chip)
while it lowers and runs on the CPU; every `pl.kernel` (and `pl.core_map`) on a
SparseCore mesh is lowered, on the CPU, to a call of the XLA FFI target
scjit_launch: the kernel is exported to .scir (scjit.jax.export), compiled by
scjit once per kernel text and target, and launched on XLA's buffers. Other
kernels, and programs outside the switch, are lowered as JAX lowers them.

A kernel that Pallas' SparseCore lowering would reject raises the exception
Pallas raises (NotImplementedError, ValueError, ...) with Pallas' message,
followed by scjit's diagnostic (its code, the user's Python line, notes and
help); the exception is also a scjit.CompileError.
"""

from __future__ import annotations

import builtins
import contextlib
import contextvars
import dataclasses
import threading
from typing import Any, Iterator

import jax
from jax._src import config as jax_config
from jax._src import mesh as mesh_lib
from jax._src.interpreters import mlir
from jax._src.pallas import mpmd
from jax._src.pallas.mosaic import sc_core

import scjit

from . import execute
from .export import kernel_from_params
from .tpu import abstract_mesh

__all__ = ["Options", "disable", "enable", "enabled", "sparsecore"]


@dataclasses.dataclass(frozen=True)
class Options:
    """How kernels run: the target chip, and scjit's launch options (threads:
    0 for the host's cores; checks: "all", "none", "warn", "bounds,sync"; dma:
    None, "eager" or "on_wait"; seed: None for the fixed order)."""

    target: str = "v7x"
    threads: int = 0
    checks: str = "all"
    dma: str | None = None
    seed: int | None = None


_context: contextvars.ContextVar[Options | None] = contextvars.ContextVar("scjit_jax_options", default=None)
_global: Options | None = None
_lock = threading.Lock()
_installed = False
# (kernel text, target, checks) -> compiled kernel: each kernel compiles once.
_kernels: dict[tuple[str, str, str], scjit.Kernel] = {}


def enabled() -> Options | None:
    """The options in force here (the innermost `sparsecore` context, else the
    global switch), or None when SparseCore kernels are not run by scjit."""
    return _context.get() or _global


@contextlib.contextmanager
def sparsecore(target: str = "v7x", *, threads: int = 0, checks: str = "all", dma: str | None = None,
               seed: int | None = None) -> Iterator[Options]:
    """Within the block (this thread or task), SparseCore kernels run on scjit
    as `target` ("v5p", "v6e", "v7x", "v8i"); see the module's doc."""
    options = _make_options(target, threads, checks, dma, seed)
    _install()
    token = _context.set(options)
    try:
        with jax.sharding.use_abstract_mesh(abstract_mesh(target)):
            yield options
    finally:
        _context.reset(token)


def enable(target: str = "v7x", *, threads: int = 0, checks: str = "all", dma: str | None = None,
           seed: int | None = None) -> Options:
    """From now on, in every thread, SparseCore kernels run on scjit as
    `target` (until `disable`). A `sparsecore` block still takes precedence."""
    global _global
    options = _make_options(target, threads, checks, dma, seed)
    _install()
    with _lock:
        _global = options
        jax_config.abstract_mesh_context_manager.set_global(abstract_mesh(target))
    return options


def disable() -> None:
    """Undoes `enable`."""
    global _global
    with _lock:
        _global = None
        jax_config.abstract_mesh_context_manager.set_global(None)


def _make_options(target, threads, checks, dma, seed) -> Options:
    if not any(t["name"] == target for t in scjit.targets()):
        raise scjit.InputError(f"unknown target '{target}'; expected one of "
                               + ", ".join(t["name"] for t in scjit.targets()), code="IO-USAGE")
    if dma not in (None, "eager", "on_wait"):
        raise scjit.InputError(f"dma must be None, 'eager' or 'on_wait', got {dma!r}", code="IO-USAGE")
    return Options(target, threads, checks, dma, seed)


def _install() -> None:
    """Registers the CPU lowering of mpmd_map (once). It defers to JAX's own
    lowering whenever scjit is not enabled or the kernel is not SparseCore's."""
    global _installed
    with _lock:
        if not _installed:
            mlir.register_lowering(mpmd.mpmd_map_p, _mpmd_map_lowering, platform="cpu")
            _installed = True


def _is_sparsecore(params: dict) -> bool:
    meshes = params.get("meshes", ())
    return bool(meshes) and all(isinstance(m, (sc_core.VectorSubcoreMesh, sc_core.ScalarSubcoreMesh))
                                for m in meshes)


def _mpmd_map_lowering(ctx: mlir.LoweringRuleContext, *in_nodes, **params):
    options = enabled()
    if options is None or not _is_sparsecore(params) or params.get("interpret"):
        return mpmd._mpmd_map_lowering(ctx, *in_nodes, **params)
    exported = kernel_from_params(params, ctx.avals_in, target=options.target)
    kernel = _compile(exported.scir, options)
    by_name = {p.name: p for p in exported.params}  # each parameter's operand and result
    operands = [in_nodes[by_name[p.name].operand] for p in kernel.inputs]
    ffi_ctx = ctx.replace(avals_in=[ctx.avals_in[by_name[p.name].operand] for p in kernel.inputs],
                          avals_out=[ctx.avals_out[by_name[p.name].result] for p in kernel.outputs])
    attributes = execute.ffi_attributes(kernel, threads=options.threads, checks=options.checks,
                                        dma=options.dma or "", seed=options.seed)
    rule = jax.ffi.ffi_lowering(execute.FFI_TARGET, operand_output_aliases=execute.io_aliases(kernel))
    results = rule(ffi_ctx, *operands, **attributes)
    out = [None] * len(ctx.avals_out)
    for p, value in zip(kernel.outputs, results):
        out[by_name[p.name].result] = value
    return out


def _compile(text: str, options: Options) -> scjit.Kernel:
    key = (text, options.target, options.checks)
    with _lock:
        kernel = _kernels.get(key)
    if kernel is not None:
        return kernel
    try:
        kernel = scjit.compile(text, target=options.target, checks=options.checks)
    except scjit.CompileError as e:
        raise _as_pallas_error(e) from None
    with _lock:
        _kernels[key] = kernel
    return kernel


def _as_pallas_error(error: scjit.CompileError) -> Exception:
    """The exception Pallas raises for the rule `error` reports (its type and
    message), followed by scjit's diagnostic; also a scjit.CompileError."""
    first = error.diagnostics[0]
    base = getattr(builtins, first.exception, None) if first.exception else None
    if not (isinstance(base, type) and issubclass(base, Exception)):
        return error
    cls = type(base.__name__, (scjit.CompileError, base), {"__module__": "builtins"})
    e = cls(error.message, error.diagnostics)
    e.args = (f"{first.message}\n\n{error}",)
    return e
