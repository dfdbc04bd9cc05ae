"""How kernel bodies are traced, so that an exported kernel keeps its lines and names.

JAX loses two things the exporter needs when it traces a Pallas kernel's body:

- **Lines.** JAX lowers each equation of a program inside
  `source_info_util.user_context(eqn.source_info.traceback)` (mlir.jaxpr_subcomp),
  and every equation traced meanwhile records that traceback instead of its own. A
  kernel that a custom primitive's lowering builds
  (`mlir.register_lowering(p, mlir.lower_fun(impl))`) is traced so: each of its ops
  would be at the line of `p.bind(...)`.
- **Names.** Pallas names a body's parameters by binding the flattened operands to
  the body's signature (`api_util.debug_info("mpmd_map", body, flat_avals, {})`,
  jax/_src/pallas/mpmd.py): a `None` operand (a pytree without leaves), an operand
  that is a pytree of several arrays, or scratch given as a dict shifts the names
  onto the wrong parameters, or loses them all (`args[0]`, ...).

`install()` wraps `pe.trace_to_jaxpr_dynamic`, which Pallas calls to trace a body:
while scjit traces (`exporting()`) or runs kernels (the `sparsecore` switch), a body
is traced with each equation's own traceback, and named by binding its unflattened
operands (as `jax.jit` names its arguments). Anything else is traced as JAX does.

`lowered_function` and `trace_lowering` let the exporter look inside a custom
primitive whose lowering is `mlir.lower_fun(fun)`, where a jaxpr hides the kernel.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import jax

from . import internals
from .internals import api_util, jax_core, lu, mlir, pe

# The `traced_for` of Pallas' traces of a kernel body: pl.kernel's (mpmd_map) and
# pl.core_map's.
_KERNEL_BODIES = ("mpmd_map", "pallas_core_map")

_exporting: contextvars.ContextVar[bool] = contextvars.ContextVar("scjit_exporting", default=False)
_lock = threading.Lock()
_installed = False


def install() -> None:
    """Once: makes Pallas' traces of kernel bodies keep lines and names (above)."""
    global _installed
    with _lock:
        if _installed:
            return
        internals.patch_trace_to_jaxpr(_kernel_body_tracer, _cached_kernel_body_tracer)
        _installed = True


@contextlib.contextmanager
def exporting() -> Iterator[None]:
    """Within the block (this thread or task), kernel bodies are traced as the
    exporter needs them, as under the switch."""
    install()
    token = _exporting.set(True)
    try:
        yield
    finally:
        _exporting.reset(token)


def _active() -> bool:
    """Whether scjit.jax exports or runs kernels here (else JAX's own tracing)."""
    from .backend import enabled  # noqa: PLC0415 - backend imports this module
    return _exporting.get() or enabled() is not None


def _kernel_body_tracer(trace: Callable) -> Callable:
    """`trace` (pe.trace_to_jaxpr_dynamic), tracing a kernel body with its own
    tracebacks and its operands' names while scjit.jax is active; any other
    function as JAX does."""

    @functools.wraps(trace)
    def wrapper(fun: lu.WrappedFun, in_avals: Sequence[Any], *args: Any, **kwargs: Any):
        info = getattr(fun, "debug_info", None)
        if getattr(info, "traced_for", None) not in _KERNEL_BODIES or not _active():
            return trace(fun, in_avals, *args, **kwargs)
        with internals.SourceInfoScope():
            return trace(_named_by_operands(fun, in_avals), in_avals, *args, **kwargs)

    return wrapper


def _cached_kernel_body_tracer(trace: Callable, trace_nocache: Callable) -> Callable:
    """`trace` (JAX 0.12's cached pe.trace_to_jaxpr), tracing a kernel body anew
    (`trace_nocache`: a cached jaxpr may hold the tracebacks of another context)
    with its own tracebacks while scjit.jax is active. JAX 0.12 names a body's
    parameters from its unflattened operands itself."""

    @functools.wraps(trace)
    def wrapper(fun: Callable, in_avals: Any, debug_info: Any, *args: Any, **kwargs: Any):
        if getattr(debug_info, "traced_for", None) not in _KERNEL_BODIES or not _active():
            return trace(fun, in_avals, debug_info, *args, **kwargs)
        with internals.SourceInfoScope():
            return trace_nocache(fun, in_avals, debug_info, *args, **kwargs)

    return wrapper


def _named_by_operands(fun: lu.WrappedFun, in_avals: Sequence[Any]) -> lu.WrappedFun:
    """`fun` (a body flattened by api_util.flatten_fun) with its arguments named
    as jax.jit names them: the unflattened operands bound to the body's
    signature, each leaf by its pytree path (`x_ref`, `refs[0]`, `buf`). A None
    operand has no leaf, so names no argument. Unchanged when the operands' tree
    is not found."""
    tree = _in_tree(fun, len(in_avals))
    if tree is None:
        return fun
    unflat = tree.unflatten(list(in_avals))
    if not (isinstance(unflat, tuple) and len(unflat) == 2 and isinstance(unflat[1], dict)):
        return fun
    args, kwargs = unflat
    names = api_util.debug_info(fun.debug_info.traced_for, fun.f, tuple(args), kwargs).arg_names
    if names is None or len(names) != len(in_avals):
        return fun
    return fun.replace_debug_info(fun.debug_info._replace(arg_names=tuple(names)))


def _in_tree(fun: lu.WrappedFun, n: int) -> Any:
    """The tree of (args, kwargs) that api_util.flatten_fun unflattens the `n`
    operands with: the static argument of its transformation."""
    for _, static in fun.transforms:
        for arg in static:
            if isinstance(arg, jax.tree_util.PyTreeDef) and arg.num_leaves == n:
                return arg
    return None


# --- kernels inside custom primitives -------------------------------------------------

# The code of every lowering rule `mlir.lower_fun` makes (a closure over `fun`).
_LOWER_FUN_CODE = mlir.lower_fun(lambda: ()).__code__
# The lowering a TPU would use first, then any platform's, then the CPU's (where
# scjit runs kernels).
_PLATFORMS = ("tpu", None, "cpu")


def lowered_function(primitive: jax_core.Primitive) -> Callable | None:
    """The function the lowering of `primitive` traces, when code outside JAX
    registered it as `mlir.register_lowering(p, mlir.lower_fun(fun, ...))`; else
    None. (JAX's own primitives lowered so hold no kernels.)"""
    rule = _lowering_rule(primitive)
    if getattr(rule, "__code__", None) is not _LOWER_FUN_CODE:
        return None
    cells = dict(zip(rule.__code__.co_freevars, rule.__closure__ or ()))
    fun = cells["fun"].cell_contents if "fun" in cells else None
    if fun is None or _module_of(fun).split(".")[0] in ("jax", "jaxlib"):
        return None
    return fun


def _lowering_rule(primitive: jax_core.Primitive) -> Any:
    for platform in _PLATFORMS:
        rule = internals.lowering_rule(primitive, platform)
        if rule is not None:
            return rule
    return None


def _module_of(fun: Any) -> str:
    while isinstance(fun, functools.partial):
        fun = fun.func
    return getattr(fun, "__module__", None) or ""


def trace_lowering(fun: Callable, eqn: Any, devices: Sequence[tuple[Any, int]]) -> jax_core.Jaxpr:
    """The jaxpr `mlir.lower_fun(fun)` traces when it lowers `eqn` (its operands'
    avals, its parameters as keyword arguments), under the axes of the device
    mesh around it (`lax.axis_index` of a jax.shard_map's axis)."""
    avals = [v.aval for v in eqn.invars]
    params = dict(eqn.params)

    def flat(*args):
        return jax.tree_util.tree_leaves(fun(*args, **params))

    wrapped = lu.wrap_init(flat, debug_info=api_util.debug_info("lower_fun", fun, avals, {}))
    with jax_core.extend_axis_env_nd(tuple(devices)):
        jaxpr, _, _ = pe.trace_to_jaxpr_dynamic(wrapped, avals)
    return jaxpr
