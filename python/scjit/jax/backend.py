"""scjit as the CPU backend of Pallas SparseCore kernels.

    with scjit.jax.sparsecore("v7x"):      # or scjit.jax.enable("v7x") for the process
        y = jax.jit(my_function)(x)        # pl.kernel SparseCore kernels run on scjit

Inside, Pallas' chip queries (`plsc.get_sparse_core_info()`,
`pltpu.get_tpu_info()`) answer for the target TPU while JAX lowers and runs on
the CPU (concrete meshes, shard_map and vmap work as usual); every `pl.kernel`
(and `pl.core_map`) on a SparseCore mesh is lowered, on the CPU, to a call of
the XLA FFI target
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

import scjit
from scjit import _args

from . import execute, internals, oracle, tracing
from .internals import jax_core, mlir, mpmd, sharding_impls, tpu_core, tpu_info
from .errors import ExportError
from .export import device_mesh, kernel_from_params
from .tpu import DEVICE_KINDS

__all__ = ["Options", "disable", "enable", "enabled", "sparsecore"]


@dataclasses.dataclass(frozen=True)
class Options:
    """How kernels run: the target chip, and scjit's launch options (threads:
    0 for the host's cores; checks: "all", "none", "warn", "strict",
    "bounds,sync" (docs/runtime.md); dma:
    None, "eager" or "on_wait"; seed: None for the fixed order; time_limit:
    seconds a launch may run, 0 for none, RT-TIMEOUT past it). check_rules:
    lower every kernel through JAX's own SparseCore lowering too and raise
    scjit.jax.RulesDisagreementError when it judges the kernel otherwise than
    scjit's rules (slow; scjit.jax.oracle)."""

    target: str = "v7x"
    threads: int = 0
    checks: str = "all"
    dma: str | None = None
    seed: int | None = None
    check_rules: bool = False
    time_limit: float = _args.DEFAULT_TIME_LIMIT  # seconds (600); float("inf") is made 0: none


_context: contextvars.ContextVar[Options | None] = contextvars.ContextVar("scjit_jax_options", default=None)
_global: Options | None = None
_lock = threading.Lock()
# The options in force, as part of jax.jit's cache key: a function jitted under
# one set of options is traced, lowered and compiled anew under another (each
# lowering bakes its options into the program).
_jit_key = jax.make_user_context(None)
_jax_rule = None  # JAX's own lowering of mpmd_map on the CPU, which scjit's defers to
# (kernel text, target, checks) -> compiled kernel: each kernel compiles once.
_kernels: dict[tuple[str, str, str], scjit.Kernel] = {}


def enabled() -> Options | None:
    """The options in force here (the innermost `sparsecore` context, else the
    global switch), or None when SparseCore kernels are not run by scjit."""
    return _context.get() or _global


@contextlib.contextmanager
def sparsecore(target: str = "v7x", *, threads: int = 0, checks: str = "all", dma: str | None = None,
               seed: int | None = None, check_rules: bool = False,
               time_limit: float = _args.DEFAULT_TIME_LIMIT) -> Iterator[Options]:
    """Within the block (this thread or task), SparseCore kernels run on scjit
    as `target` ("v5p", "v6e", "v7x", "v8i"); see the module's doc and Options.
    Raises scjit.InputError (IO-USAGE) for a bad option."""
    options = _make_options(target, threads, checks, dma, seed, check_rules, time_limit)
    _install()
    token = _context.set(options)
    _chip_changed()
    try:
        with _jit_key(options):
            yield options
    finally:
        _context.reset(token)
        _chip_changed()


def enable(target: str = "v7x", *, threads: int = 0, checks: str = "all", dma: str | None = None,
           seed: int | None = None, check_rules: bool = False,
           time_limit: float = _args.DEFAULT_TIME_LIMIT) -> Options:
    """From now on, in every thread, SparseCore kernels run on scjit as
    `target` (until `disable`). A `sparsecore` block still takes precedence."""
    global _global
    options = _make_options(target, threads, checks, dma, seed, check_rules, time_limit)
    _install()
    with _lock:
        _global = options
    _jit_key.set_global(options)
    _chip_changed()
    return options


def disable() -> None:
    """Undoes `enable`."""
    global _global
    with _lock:
        _global = None
    _jit_key.set_global(None)
    _chip_changed()


def _make_options(target, threads, checks, dma, seed, check_rules, time_limit) -> Options:
    """The Options, each checked as scjit.Kernel.with_options checks it (scjit's
    InputError, IO-USAGE), so that a mistake fails here rather than inside
    jax.jit's lowering or the launch."""
    if _args.string("target", target) not in DEVICE_KINDS:
        raise scjit.InputError(f"unknown target '{target}'; JAX 0.10.2 knows " + ", ".join(DEVICE_KINDS),
                               code="IO-USAGE")
    launch = _args.launch_options(threads=threads, checks=checks, dma=dma, seed=seed, time_limit=time_limit)
    return Options(target, check_rules=_args.flag("check_rules", check_rules), **launch)


def _install() -> None:
    """Once: registers the CPU lowering of mpmd_map, and makes Pallas' chip
    queries answer for the target. Both defer to JAX's own behaviour whenever
    scjit is not enabled (and the lowering, when the kernel is not SparseCore's);
    the lowering is not cached, as it depends on the switch."""
    global _jax_rule
    with _lock:
        if _jax_rule is not None:
            return
        _jax_rule = internals.register_cpu_lowering(mpmd.mpmd_map_p, _mpmd_map_lowering)
        tracing.install()  # kernels traced while lowering keep their lines
        internals.patch_chip_queries(_chip_queries)
        internals.patch_compile_options(_without_sparsecore_options)


def _chip_queries(device_kind, device_cores):
    """JAX's get_device_kind and get_num_device_cores, answering for the
    target's chip while scjit is enabled and the device is not a TPU."""

    def target_chip() -> str | None:
        # The target's device kind while scjit is on and the device (or an
        # abstract mesh) is not a TPU; else None.
        options, kind = enabled(), device_kind()
        if options is None or tpu_info.chip_version_from_device_kind(kind) is not None:
            return None
        return DEVICE_KINDS[options.target]

    def get_device_kind() -> str:
        return target_chip() or device_kind()

    def get_num_device_cores() -> int:
        return device_cores() if target_chip() is None else 1

    return get_device_kind, get_num_device_cores


_TPU_OPTION_PREFIXES = ("xla_sc_", "xla_tpu_")


def _without_sparsecore_options(get_compile_options):
    """`jax.jit(f, compiler_options={"xla_sc_...": ..., "xla_tpu_...": ...})` sets
    options of the TPU's compilers, which XLA:CPU rejects as unknown. While scjit
    is enabled the program stands for a TPU one, so XLA:CPU never sees them:
    xla_sc_assert_level (the TPU's bounds checker) asks for what scjit's checks
    (checks="all", the default) always do, xla_tpu_enable_sc_log_recorder for
    the debug_print output scjit always writes; the others tune the TPU."""

    def wrapper(*args, **kwargs):
        overrides = kwargs.get("env_options_overrides")
        if overrides and enabled() is not None:
            kwargs["env_options_overrides"] = {
                name: value for name, value in overrides.items() if not name.startswith(_TPU_OPTION_PREFIXES)}
        return get_compile_options(*args, **kwargs)

    return wrapper


def _chip_changed() -> None:
    internals.forget_chip_info()


def _is_sparsecore(params: dict) -> bool:
    # As Pallas decides: by the meshes' core type.
    sparsecore = (tpu_core.CoreType.SC_SCALAR_SUBCORE, tpu_core.CoreType.SC_VECTOR_SUBCORE)
    meshes = params.get("meshes", ())
    return bool(meshes) and all(getattr(m, "core_type", None) in sparsecore for m in meshes)


def _mpmd_map_lowering(ctx: mlir.LoweringRuleContext, *in_nodes, **params):
    options = enabled()
    if options is None or not _is_sparsecore(params) or params.get("interpret"):
        return _jax_rule(ctx, *in_nodes, **params)
    devices = _device_mesh(ctx)
    if options.check_rules:
        _check_rules(params, ctx.avals_in, options.target, devices)
    exported = kernel_from_params(params, ctx.avals_in, target=options.target, devices=devices)
    kernel = _compile(exported.scir, options)
    by_name = {p.name: p for p in exported.params}  # each parameter's operand and result
    operands = [in_nodes[by_name[p.name].operand] for p in kernel.inputs]
    ffi_ctx = ctx.replace(avals_in=[ctx.avals_in[by_name[p.name].operand] for p in kernel.inputs],
                          avals_out=[ctx.avals_out[by_name[p.name].result] for p in kernel.outputs])
    launch = dict(threads=options.threads, checks=options.checks, dma=options.dma or "", seed=options.seed,
                  time_limit=options.time_limit)
    if exported.devices:
        # Every chip in one launch: see execute.chips_call.
        _check_all_manual(ctx, exported)
        axes = tuple(name for name, _ in exported.devices)
        with jax_core.extend_axis_env_nd(exported.devices):
            results = mlir.lower_fun(execute.chips_call(kernel, axes, **launch), multiple_results=True)(
                ffi_ctx, *operands)
    else:
        attributes = execute.ffi_attributes(kernel, **launch)
        rule = jax.ffi.ffi_lowering(execute.FFI_TARGET, operand_output_aliases=execute.io_aliases(kernel))
        results = rule(ffi_ctx, *operands, **attributes)
    out = [None] * len(ctx.avals_out)
    for p, value in zip(kernel.outputs, results):
        out[by_name[p.name].result] = value
    return out


def _device_mesh(ctx: mlir.LoweringRuleContext) -> tuple:
    """The device mesh a kernel is lowered under: that of the jax.shard_map
    around it, as Pallas takes it for device ids (all its axes), or ()."""
    context = ctx.module_context.axis_context
    if not isinstance(context, sharding_impls.SPMDAxisContext):
        return ()
    return device_mesh(context.mesh)


def _check_all_manual(ctx: mlir.LoweringRuleContext, exported: Any) -> None:
    """A kernel that talks to other chips needs every device's shard: a
    shard_map with some axes left to the partitioner (auto) is not run so."""
    context = ctx.module_context.axis_context
    auto = [name for name, _ in exported.devices if name not in context.manual_axes]
    if auto:
        names = ", ".join(map(repr, auto))
        which = f"axis {names} is" if len(auto) == 1 else f"axes {names} are"
        raise ExportError(f"a kernel that talks to other chips under a jax.shard_map whose {which} not manual: "
                          "scjit runs such a kernel with every mesh axis manual (shard_map over all of them)",
                          primitive="mpmd_map")


def _check_rules(params: dict, in_avals, target: str, devices: tuple) -> None:
    verdicts = oracle.compare(params, in_avals, target, devices)
    if verdicts is not None and not oracle.agree(*verdicts):
        info = params["jaxprs"][0].debug_info
        where = info.func_src_info if info is not None and info.func_src_info else str(params.get("name"))
        raise oracle.RulesDisagreementError(*verdicts, where)


def _compile(text: str, options: Options) -> scjit.Kernel:
    key = (text, options.target, options.checks)
    with _lock:
        kernel = _kernels.get(key)
    if kernel is not None:
        return kernel
    try:
        kernel = scjit.compile(text, target=options.target, checks=options.checks, jax=internals.rules_release())
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
