"""The one seam between scjit.jax and JAX's internals.

scjit.jax reads Pallas' jaxprs and takes the place of Pallas' SparseCore
lowering on the CPU, which needs JAX's private modules (`jax._src...`). Every
import of them, every difference between the JAX releases scjit supports, and
every patch of JAX's own functions is here; the rest of scjit.jax imports names
from this module only.

Differences are detected by feature (what the installed JAX has), not by its
version string. The version is checked once, at import: outside the supported
range `import scjit.jax` raises ImportError naming the range and what is
installed (SCJIT_JAX_ANY_VERSION=1 lets an untested JAX through, at the user's
risk). docs/jax.md, "Versions", lists what changed between the releases.
"""

from __future__ import annotations

import importlib
import os
import re
from collections.abc import Callable
from typing import Any

import jax
import jaxlib

# The JAX releases scjit.jax is tested with, oldest and newest (docs/jax.md).
OLDEST = "0.10.2"
NEWEST = "0.12.1"


def _release(version: str) -> tuple[int, ...]:
    m = re.match(r"(\d+)\.(\d+)\.(\d+)", version)
    return tuple(int(x) for x in m.groups()) if m else (0,)


def check_version(installed: str = jax.__version__, jaxlib_version: str = jaxlib.__version__) -> None:
    """Raises ImportError when `installed` (jax's version) is outside the
    supported range, unless SCJIT_JAX_ANY_VERSION=1."""
    if os.environ.get("SCJIT_JAX_ANY_VERSION") == "1":
        return
    if not _release(OLDEST) <= _release(installed) <= _release(NEWEST):
        raise ImportError(f"scjit.jax supports JAX {OLDEST} to {NEWEST}; this Python has jax {installed} "
                          f"(jaxlib {jaxlib_version}). Install a supported one (pip install 'scjit[jax]', or "
                          f"'jax>={OLDEST},<={NEWEST}'), or set SCJIT_JAX_ANY_VERSION=1 to try this one anyway.")


check_version()

# --- JAX's private modules ------------------------------------------------------------
# (imported after the version check, so that an unsupported JAX fails with its message
# rather than with a missing module)

from jax._src import api_util  # noqa: E402
from jax._src import checkify  # noqa: E402
from jax._src import compiler  # noqa: E402
from jax._src import core as jax_core  # noqa: E402
from jax._src import debugging  # noqa: E402
from jax._src import linear_util as lu  # noqa: E402
from jax._src import mesh as mesh_lib  # noqa: E402
from jax._src import pjit  # noqa: E402
from jax._src import sharding_impls  # noqa: E402
from jax._src import source_info_util  # noqa: E402
from jax._src.interpreters import mlir  # noqa: E402
from jax._src.interpreters import partial_eval as pe  # noqa: E402
from jax._src.lax import control_flow  # noqa: E402
from jax._src.lax import lax  # noqa: E402
from jax._src.lax import parallel  # noqa: E402
from jax._src.lax import slicing  # noqa: E402
from jax._src.pallas import core as pallas_core  # noqa: E402
from jax._src.pallas import mpmd  # noqa: E402
from jax._src.pallas import primitives as pallas_primitives  # noqa: E402
from jax._src.pallas.mosaic import core as tpu_core  # noqa: E402
from jax._src.pallas.mosaic import lowering as tc_lowering  # noqa: E402
from jax._src.pallas.mosaic import primitives as tpu_primitives  # noqa: E402
from jax._src.pallas.mosaic import sc_core  # noqa: E402
from jax._src.pallas.mosaic import sc_primitives  # noqa: E402
from jax._src.state import indexing  # noqa: E402
from jax._src.state import primitives as state_primitives  # noqa: E402
from jax._src.state import types as state_types  # noqa: E402
# The public modules Pallas registers its TPU and SparseCore primitives' rules in.
from jax.experimental.pallas import tpu as _pltpu  # noqa: E402,F401
from jax.experimental.pallas import tpu_sc as _plsc  # noqa: E402,F401


def _first_module(*names: str) -> Any:
    for name in names:
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise ImportError(f"JAX {jax.__version__} has none of {', '.join(names)}")


# The chip queries (get_device_kind, get_tpu_info, ...): JAX 0.11 moved them from
# Pallas to jax._src.tpu_info, leaving Pallas' module a forwarding shim. Patches go
# to the module whose functions call each other.
tpu_info = _first_module("jax._src.tpu_info", "jax._src.pallas.mosaic.tpu_info")

# --- differences between the releases ---------------------------------------------------

# JAX 0.12 folded ClosedJaxpr into Jaxpr: a Jaxpr carries its consts (its
# `constvars` are the inputs with values), and `.jaxpr` is itself.
ClosedJaxpr = getattr(jax_core, "ClosedJaxpr", jax_core.Jaxpr)

# The primitives of a kernel on a mesh: pl.kernel's mpmd_map, and pl.core_map's own
# core_map before JAX 0.11.2 (from then on pl.core_map binds mpmd_map too).
core_map_p = getattr(pallas_core, "core_map_p", None)
KERNEL_PRIMITIVES = tuple(p for p in (mpmd.mpmd_map_p, core_map_p) if p is not None)

# Pallas' own memory space for host memory (pltpu.HOST, before JAX 0.12), and JAX
# core's (pl.HOST from 0.12 on, jax.memory.Space.Host).
PALLAS_HOST_SPACE = getattr(pallas_core.MemorySpace, "HOST", None)
CORE_HOST_SPACE = jax_core.MemorySpace.Host

# plsc.bitcast: its own primitive before JAX 0.12; from then on a wrapper of
# pltpu.bitcast(x, dtype, dim=-1), whose primitive the TensorCore shares.
sc_bitcast_p = getattr(sc_primitives, "bitcast_p", None)

# JAX 0.12's warning that a push stream ignores its destination semaphore (None before).
PushStreamWarning = getattr(sc_core, "SparseCorePushStreamWarning", None)

# plsc.slice_subcore_vmem_from_shared's ref transform (JAX 0.12.0 on; None before).
SharedMemRefSliceTransform = getattr(sc_core, "SharedMemRefSliceTransform", None)

# lax primitives some releases lack (None then): log2 (0.11.2 on; before,
# jnp.log2 is log(x) / log(2)), fmuladd (0.12.0 on), polynomial (0.12.1 on,
# jnp.polyval) with the Horner expansion JAX lowers it by; mulhi is older than
# its SparseCore rule (0.12.0).
log2_p = getattr(lax, "log2_p", None)
mulhi_p = getattr(lax, "mulhi_p", None)
fmuladd_p = getattr(lax, "fmuladd_p", None)
polynomial_p = getattr(lax, "polynomial_p", None)
polynomial_lower = getattr(lax, "polynomial_lower", None)


def input_vars(jaxpr: jax_core.Jaxpr, n_consts: int, n_args: int) -> tuple[list, list] | None:
    """(constant vars, argument vars) of a jaxpr called with n_consts constants
    and then n_args arguments: its constvars and invars; or, from JAX 0.12 on
    (where a jaxpr's constvars are only those with values attached, and an open
    jaxpr's constants are its leading invars), its invars split. None when the
    counts fit neither."""
    if len(jaxpr.constvars) == n_consts and len(jaxpr.invars) == n_args:
        return list(jaxpr.constvars), list(jaxpr.invars)
    if not jaxpr.constvars and len(jaxpr.invars) == n_consts + n_args:
        return list(jaxpr.invars[:n_consts]), list(jaxpr.invars[n_consts:])
    return None


def scan_counts(params: dict) -> tuple[int, int]:
    """(consts, carry): how many of a scan's operands are each. JAX 0.12 gives
    the operands' structure as a flat tree (`ft_in`: consts, carry, xs) where
    earlier releases give the counts."""
    if "num_consts" in params:
        return params["num_consts"], params["num_carry"]
    consts, carry, _ = params["ft_in"].unpack()
    return len(consts), len(carry)


def jax_version() -> str:
    return jax.__version__


def rules_release() -> str:
    """The release whose words scjit's SC rules use for this JAX
    (scjit.compile(jax=...)): the installed one, within the supported range."""
    v = max(_release(OLDEST), min(_release(jax.__version__), _release(NEWEST)))
    return ".".join(map(str, v))


# JAX's functions that, after its lowering rules accept a kernel, serialize the
# Mosaic module for libtpu with jaxlib's own passes (mosaic-serde).
_SERIALIZERS = frozenset({"_lower_mosaic_module_to_asm", "downgrade_lowered_module_asm"})


def failed_in_serialization(error: BaseException) -> bool:
    """True when `error` was raised while jaxlib serialized a lowered Mosaic
    module: a limit of the compiled jaxlib's serializer (JAX 0.10.2's cannot
    serialize a scalar subcore's signal to a vector subcore), not a rule of the
    lowering."""
    tb = error.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name in _SERIALIZERS:
            return True
        tb = tb.tb_next
    return False


# --- patches of JAX's functions ------------------------------------------------------
# Each wraps one JAX function; the wrappers defer to JAX's own behaviour whenever
# scjit.jax is not in use (the callers, backend.py and tracing.py, say when).


def register_cpu_lowering(primitive: jax_core.Primitive, rule: Callable) -> Callable:
    """Registers `rule` as the CPU lowering of `primitive` (uncached: it
    depends on scjit's switch); returns the rule it replaces, which `rule` calls
    for what it does not handle."""
    entry = mlir._platform_specific_lowerings["cpu"].get(primitive) or mlir._lowerings[primitive]
    mlir.register_lowering(primitive, rule, platform="cpu", cacheable=False)
    return entry.rule


def patch_trace_to_jaxpr(wrap: Callable[[Callable], Callable], wrap_cached: Callable[[Callable, Callable], Callable]) -> None:
    """The functions Pallas traces kernel bodies with become wrapped:
    pe.trace_to_jaxpr_dynamic (a lu.WrappedFun and its avals; before JAX 0.12)
    becomes wrap(it), and pe.trace_to_jaxpr (a function, a flat tree of avals
    and a DebugInfo, cached; from JAX 0.12 on) becomes wrap_cached(it,
    pe.trace_to_jaxpr_nocache)."""
    pe.trace_to_jaxpr_dynamic = wrap(pe.trace_to_jaxpr_dynamic)
    if hasattr(pe, "trace_to_jaxpr_nocache") and hasattr(pe, "trace_to_jaxpr"):
        pe.trace_to_jaxpr = wrap_cached(pe.trace_to_jaxpr, pe.trace_to_jaxpr_nocache)


def patch_chip_queries(wrap: Callable[[Callable, Callable], tuple[Callable, Callable]]) -> None:
    """tpu_info.get_device_kind and get_num_device_cores (which Pallas' chip
    queries call) become the pair wrap(get_device_kind, get_num_device_cores)
    returns."""
    tpu_info.get_device_kind, tpu_info.get_num_device_cores = wrap(tpu_info.get_device_kind,
                                                                   tpu_info.get_num_device_cores)


def patch_compile_options(wrap: Callable[[Callable], Callable]) -> None:
    """compiler.get_compile_options, which jax.jit's compiler_options go
    through, becomes wrap(it)."""
    compiler.get_compile_options = wrap(compiler.get_compile_options)


def forget_chip_info() -> None:
    """get_tpu_info caches its answer by trace context, which knows nothing of
    scjit's switch: forget it when the chip the queries answer for may change."""
    tpu_info.get_tpu_info.cache_clear()


class SourceInfoScope:
    """Equations traced within record the traceback of their own binding, even
    inside the lowering of an equation (whose user_context would give them its
    traceback: source_info_util.current() takes a fresh one only when the
    context has none, and user_context cannot clear it)."""

    def __enter__(self) -> None:
        state = source_info_util._source_info_context
        self._saved = state.context
        state.context = source_info_util.SourceInfo(None, self._saved.name_stack)

    def __exit__(self, *exc: Any) -> None:
        source_info_util._source_info_context.context = self._saved


def lowering_rule(primitive: jax_core.Primitive, platform: str | None) -> Any:
    """The lowering rule registered for `primitive` on `platform` (None: for
    any platform), or None."""
    table = mlir._lowerings if platform is None else mlir._platform_specific_lowerings.get(platform, {})
    entry = table.get(primitive)
    return None if entry is None else getattr(entry, "rule", entry)
