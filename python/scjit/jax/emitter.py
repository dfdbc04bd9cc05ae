"""Writing `.scir` from a jaxpr: names, types, bindings and the op lines.

An `Emitter` walks one kernel's jaxpr, equation by equation, and asks the table of
`primitives.py` to translate each one; the translation functions use the helpers here
to name values, spell types and operands, and write op lines and regions. Every jaxpr
variable is bound to a `Val` (an SSA value or a literal) or a `Ref` (a kernel
parameter, scratch, allocation or view).
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Iterable, Sequence
from typing import Any

import jax.numpy as jnp
import numpy as np

from . import internals
from .errors import ExportError, Location
from .internals import indexing, jax_core, pallas_core, sc_core, source_info_util, state_types, tc_lowering, tpu_core

# --- types -----------------------------------------------------------------------

# numpy dtype name -> .scir element type. Any other (the 64-bit types, which JAX
# makes only with x64 enabled) is an ExportError.
ELEMENT_TYPES = {
    "bool": "i1",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "uint8": "u8",
    "uint16": "u16",
    "uint32": "u32",
    "bfloat16": "bf16",
    "float16": "f16",
    "float32": "f32",
    "float8_e5m2": "f8e5m2",
    "float8_e4m3fn": "f8e4m3fn",
    "float8_e4m3b11fnuz": "f8e4m3b11fnuz",
    "int4": "i4",
    "uint4": "u4",
}

_SPACES = {
    tpu_core.MemorySpace.HBM: "hbm",
    tpu_core.MemorySpace.VMEM: "vmem",
    tpu_core.MemorySpace.VMEM_SHARED: "vmem_shared",
    tpu_core.MemorySpace.SMEM: "smem",
    pallas_core.MemorySpace.ANY: "hbm",
    internals.CORE_HOST_SPACE: "host",
}
if internals.PALLAS_HOST_SPACE is not None:
    _SPACES[internals.PALLAS_HOST_SPACE] = "host"


def element_type(dtype: Any, what: str = "a value") -> str:
    name = np.dtype(dtype).name
    if name not in ELEMENT_TYPES:
        raise ExportError(f"{what} has dtype {name}, which scjit does not have "
                          f"(it has {', '.join(sorted(set(ELEMENT_TYPES) - {'bool'}))} "
                          "and bool values)")
    return ELEMENT_TYPES[name]


def value_type(aval: Any) -> str:
    """The .scir type of a value: `i32` for a scalar, `vector<16xi32>` otherwise."""
    elt = element_type(aval.dtype)
    if not aval.shape:
        return elt
    return f"vector<{'x'.join(map(str, aval.shape))}x{elt}>"


def is_semaphore_dtype(dtype: Any) -> bool:
    return isinstance(dtype, type) and issubclass(dtype, pallas_core.semaphore_dtype) or (
        hasattr(dtype, "type") and isinstance(dtype.type, type)
        and issubclass(dtype.type, pallas_core.semaphore_dtype))


def _semaphore_kind(dtype: Any) -> str:
    t = dtype.type if hasattr(dtype, "type") else dtype
    if issubclass(t, tpu_core.dma_semaphore):
        return "dma_sem"
    if issubclass(t, pallas_core.barrier_semaphore):
        raise ExportError("a barrier semaphore (pltpu.get_barrier_semaphore): scjit "
                          "has no barrier semaphores; use plsc.subcore_barrier()")
    if issubclass(t, pallas_core.semaphore):
        return "sem"
    raise ExportError(f"a semaphore of type {t.__name__}, which scjit does not have")


def memory_space(space: Any, default: str = "hbm") -> str:
    """The .scir space of a Pallas memory space (None: the mesh's default, HBM)."""
    if isinstance(space, pallas_core.CoreMemorySpace):
        space = space.memory_space
    if space is None:
        return default
    if space in _SPACES:
        return _SPACES[space]
    raise ExportError(f"memory space {space}: scjit has HBM, HOST, VMEM, VMEM_SHARED, SMEM "
                      "and semaphores")


def _target_subcores(target: str) -> int:
    """The vector subcores of each SparseCore of `target` (scjit's target table)."""
    from .. import targets
    return next(t["subcores"] for t in targets() if t["name"] == target)


@dataclasses.dataclass(frozen=True)
class RefType:
    """A .scir ref type: a memory space (or `dma_sem`/`sem`), a shape whose
    run-time sizes are None, and an element type."""

    space: str
    shape: tuple[int | None, ...]
    elt: str = ""

    @property
    def is_semaphore(self) -> bool:
        return self.space in ("dma_sem", "sem")

    def __str__(self) -> str:
        dims = "x".join("?" if d is None else str(d) for d in self.shape)
        if self.is_semaphore:
            return f"{self.space}<{dims}>" if self.shape else self.space
        return f"{self.space}<{dims}x{self.elt}>" if self.shape else f"{self.space}<{self.elt}>"

    def with_shape(self, shape: Sequence[int | None]) -> RefType:
        return dataclasses.replace(self, shape=tuple(shape))


def ref_type(aval: Any, default_space: str = "hbm") -> RefType:
    """The RefType of a JAX AbstractRef (or a ShapedArray with a memory space)."""
    inner = aval.inner_aval if isinstance(aval, state_types.AbstractRef) else aval
    if is_semaphore_dtype(inner.dtype):
        return RefType(_semaphore_kind(inner.dtype), tuple(inner.shape))
    space = getattr(aval, "memory_space", None)
    if space is None and not isinstance(aval, state_types.AbstractRef):
        space = getattr(inner, "memory_space", None)
    if isinstance(space, jax_core.MemorySpace):  # JAX's own Device/Host spaces
        if space == jax_core.MemorySpace.Any:
            raise ExportError(f"memory space {space}: scjit has HBM, HOST, VMEM, VMEM_SHARED, "
                              "SMEM and semaphores")
        if space != jax_core.MemorySpace.Host:
            space = None  # Device: the mesh's default
    if space == tpu_core.MemorySpace.SEMAPHORE:
        raise ExportError(f"a {np.dtype(inner.dtype).name} ref in semaphore memory")
    s = memory_space(space, default_space)
    elt = element_type(inner.dtype, f"a {s} ref")
    if elt == "i1":
        raise ExportError("a ref of bool: scjit's memory holds no booleans (i1 is a value "
                          "type only); store them as int32")
    return RefType(s, tuple(inner.shape), elt)


# --- literals --------------------------------------------------------------------


def literal_text(value: Any, dtype: Any) -> str:
    """A scalar constant as a .scir literal of `dtype`."""
    dt = np.dtype(dtype)
    v = np.asarray(value).astype(dt) if np.asarray(value).dtype != dt else np.asarray(value)
    if dt == np.bool_:
        return "true" if bool(v) else "false"
    if jnp.issubdtype(dt, jnp.integer):  # numpy's integers and ml_dtypes' int4, uint4
        return str(int(v))
    f = float(v)
    if math.isnan(f):
        return "nan"
    if math.isinf(f):
        return "inf" if f > 0 else "-inf"
    return repr(f)


# --- bindings --------------------------------------------------------------------


@dataclasses.dataclass
class Val:
    """A scalar or vector value: an SSA name or a literal, with its JAX aval."""

    text: str
    aval: Any
    literal: bool = False
    splat_of: Val | None = None  # a vector made by broadcasting this scalar
    bool_of: Val | None = None   # an integer made by converting this i1

    @property
    def type(self) -> str:
        return value_type(self.aval)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.aval.shape)


@dataclasses.dataclass
class Ref:
    """A ref: a parameter, scratch, allocation or view, by name and type."""

    text: str
    type: RefType


@dataclasses.dataclass(frozen=True)
class ScMesh:
    """A SparseCore mesh as the kernel header writes it: the kind, the mesh axes
    (Pallas' name -> "core" or "subcore") and the sizes."""

    vector: bool
    axes: dict
    cores: int
    subcores: int
    core_type: Any


def sc_mesh(mesh: Any, where: Location | None = None) -> ScMesh:
    """A Pallas SparseCore mesh as .scir describes it (ExportError for any other)."""
    if isinstance(mesh, sc_core.VectorSubcoreMesh):
        return ScMesh(True, {mesh.core_axis_name: "core", mesh.subcore_axis_name: "subcore"}, mesh.num_cores,
                      mesh.num_subcores, mesh.core_type)
    if isinstance(mesh, sc_core.ScalarSubcoreMesh):
        return ScMesh(False, {mesh.axis_name: "core"}, mesh.num_cores, 1, mesh.core_type)
    # Any other mesh Pallas would lower for SparseCore: it goes by the core type.
    core_type = getattr(mesh, "core_type", None)
    names, shape = tuple(getattr(mesh, "axis_names", ())), dict(getattr(mesh, "shape", {}))
    if core_type == tpu_core.CoreType.SC_SCALAR_SUBCORE and len(names) == 1:
        return ScMesh(False, {names[0]: "core"}, int(shape[names[0]]), 1, core_type)
    if core_type == tpu_core.CoreType.SC_VECTOR_SUBCORE and len(names) == 2:
        return ScMesh(True, {names[0]: "core", names[1]: "subcore"}, int(shape[names[0]]), int(shape[names[1]]),
                      core_type)
    raise ExportError(f"a kernel on {type(mesh).__name__}: scjit runs SparseCore "
                      "kernels (plsc.ScalarSubcoreMesh, plsc.VectorSubcoreMesh)",
                      location=where)


# --- the emitter -----------------------------------------------------------------

def sanitize_name(name: str | None) -> str | None:
    """A Python argument name as a .scir name, or None when it has none of its own:
    `x_ref` stays, `scratch_args['buf']` is `buf`, `refs[0]` (a position in *args)
    is None."""
    if not name:
        return None
    tokens = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|[0-9]+", name)
    if not tokens or tokens[-1].isdigit():
        return None
    return tokens[-1]


def location_of(eqn: Any) -> Location | None:
    """The user's Python line that bound `eqn`: the innermost frame outside JAX."""
    traceback = eqn.source_info.traceback if eqn.source_info else None
    frame = source_info_util.user_frame(traceback)
    if frame is None:
        return None
    return Location(frame.file_name, frame.start_line, max(frame.start_column, 0) + 1)


def subjaxprs(params: dict) -> Iterable[jax_core.Jaxpr]:
    for v in params.values():
        for x in (v if isinstance(v, (tuple, list)) else (v,)):
            if isinstance(x, internals.ClosedJaxpr):
                yield x.jaxpr
            elif isinstance(x, jax_core.Jaxpr):
                yield x


def _effectful(eqn: Any, cache: dict) -> bool:
    """Whether an equation must be kept for what it does besides its results. Not
    every primitive reports its body's effects on the equation (parallel_loop's are
    empty, and so then are those of a loop around it), so bodies are searched;
    `cache` maps id(jaxpr) to (jaxpr, whether it has effects)."""
    if eqn.effects or not eqn.outvars:
        return True
    for sub in subjaxprs(eqn.params):
        if id(sub) not in cache:
            cache[id(sub)] = (sub, bool(sub.effects) or any(_effectful(e, cache) for e in sub.eqns))
        if cache[id(sub)][1]:
            return True
    return False


def live_eqns(jaxpr: jax_core.Jaxpr, needed_outs: Sequence[bool] | None, cache: dict):
    """The equations of `jaxpr` worth translating, the set of live variables and
    each variable's uses ((equation, operand position), or (None, -1) for an output
    of the jaxpr): an equation is kept when it has effects or defines a variable
    something kept uses; `needed_outs` says which of the jaxpr's outputs are used."""
    live: set[jax_core.Var] = set()
    uses: dict[jax_core.Var, list] = {}
    outs = jaxpr.outvars
    for v, needed in zip(outs, needed_outs if needed_outs is not None else [True] * len(outs)):
        if needed and isinstance(v, jax_core.Var):
            live.add(v)
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if _effectful(eqn, cache) or any(v in live for v in eqn.outvars if isinstance(v, jax_core.Var)):
            kept.append(eqn)
            for k, v in enumerate(eqn.invars):
                if isinstance(v, jax_core.Var):
                    live.add(v)
                    uses.setdefault(v, []).append((eqn, k))
    for v in outs:
        if isinstance(v, jax_core.Var):
            uses.setdefault(v, []).append((None, -1))
    kept.reverse()
    return kept, live, uses


class Emitter:
    """Writes the body of one .scir kernel from jaxpr equations."""

    def __init__(self, table: dict, *, mesh_axes: dict[Any, str], kernel_type: Any,
                 target: str, locations: bool = True, device_axes: dict[Any, str] | None = None):
        self.table = table
        self.kernel_type = kernel_type  # Pallas' CoreType of the mesh
        self.mesh_axes = mesh_axes  # the Python axis names -> "core" / "subcore"
        # The axes of the device mesh the kernel runs under (jax.shard_map's),
        # major first: Python name -> .scir name. uses_devices: the body names
        # one of them or another chip, so the kernel gets a `devices` clause.
        self.device_axes = device_axes or {}
        self.uses_devices = False
        self.target = target
        self.locations = locations
        self.lines: list[str] = []
        self.depth = 1
        self.env: dict[jax_core.Var, Any] = {}
        self.used_names: set[str] = set()
        self.counter = 0
        self.loc: Location | None = None
        self.primitive: str | None = None
        self.live: set[jax_core.Var] = set()
        self.uses: dict[jax_core.Var, list] = {}
        self.effect_cache: dict[int, tuple[Any, bool]] = {}
        self.extra_scratch: list[Ref] = []  # allocations made in the body (jax.empty_ref)
        self._no_sem: Ref | None = None

    # --- errors and names ----------------------------------------------------------

    def error(self, reason: str) -> ExportError:
        """An ExportError about the equation being translated."""
        return ExportError(reason, primitive=self.primitive, location=self.loc)

    def unique(self, name: str) -> str:
        base, k = name, 1
        while name in self.used_names:
            name = f"{base}.{k}"
            k += 1
        self.used_names.add(name)
        return f"%{name}"

    def fresh(self, prefix: str = "v") -> str:
        while True:
            name = f"{prefix}{self.counter}"
            self.counter += 1
            if name not in self.used_names:
                self.used_names.add(name)
                return f"%{name}"

    # --- bindings ------------------------------------------------------------------

    def bind(self, var: Any, binding: Any) -> None:
        if isinstance(var, jax_core.Var) and not isinstance(var, jax_core.DropVar):
            self.env[var] = binding

    def lookup(self, atom: Any) -> Any:
        """The binding of a jaxpr atom; a Literal or Python number becomes a literal
        Val."""
        if isinstance(atom, jax_core.Literal):
            return Val(literal_text(atom.val, atom.aval.dtype), atom.aval, literal=True)
        if isinstance(atom, jax_core.Var):
            if atom not in self.env:
                raise self.error(f"internal: variable {atom} used before it is defined")
            return self.env[atom]
        if isinstance(atom, (bool, int, float, np.generic)):  # a static index in a tree
            dtype = {int: np.int32, float: np.float32}.get(type(atom), np.asarray(atom).dtype)
            return Val(literal_text(atom, dtype), jax_core.ShapedArray((), dtype), literal=True)
        raise self.error(f"internal: unexpected operand {atom!r}")

    def value(self, atom: Any) -> Val:
        b = self.lookup(atom)
        if not isinstance(b, Val):
            raise self.error(f"a ref ({b.text}) where a value is expected")
        return b

    def ref(self, atom: Any) -> Ref:
        b = self.lookup(atom)
        if not isinstance(b, Ref):
            raise self.error(f"a value ({b.text}) where a ref is expected")
        return b

    def is_live(self, var: Any) -> bool:
        return isinstance(var, jax_core.Var) and not isinstance(var, jax_core.DropVar) and (
            var in self.live)

    # --- writing -------------------------------------------------------------------

    def _suffix(self) -> str:
        return self.loc.scir() if self.locations and self.loc is not None else ""

    def line(self, text: str) -> None:
        """Writes one op (with its location)."""
        self.lines.append("  " * self.depth + text + self._suffix())

    def open(self, header: str) -> Location | None:
        """Writes the first line of a region op (`for ... {`) and enters the region;
        returns the location `close` writes."""
        self.lines.append("  " * self.depth + header)
        self.depth += 1
        return self.loc

    def middle(self, text: str) -> None:
        """`} else {` or `} body {`: leaves one region and enters the next."""
        self.lines.append("  " * (self.depth - 1) + text)

    def close(self, loc: Location | None) -> None:
        self.depth -= 1
        saved, self.loc = self.loc, loc
        self.lines.append("  " * self.depth + "}" + self._suffix())
        self.loc = saved

    def define(self, var: Any, rhs: str, aval: Any = None, **extra) -> Val:
        """`%vN = rhs` for the value `var` (its aval unless given); binds it."""
        aval = aval if aval is not None else var.aval
        name = self.fresh()
        self.line(f"{name} = {rhs}")
        val = Val(name, aval, **extra)
        self.bind(var, val)
        return val

    def new_value(self, rhs: str, aval: Any, **extra) -> Val:
        """A value no jaxpr variable names (a broadcast, a constant...)."""
        name = self.fresh()
        self.line(f"{name} = {rhs}")
        return Val(name, aval, **extra)

    # --- values --------------------------------------------------------------------

    def materialize(self, val: Val) -> Val:
        """A literal as a `const` value (for the ops that take no literal)."""
        if not val.literal:
            return val
        return self.new_value(f"const {val.text} : {val.type}", val.aval)

    def splat(self, val: Val, shape: Sequence[int]) -> Val:
        """A scalar value or literal broadcast to a vector of `shape`."""
        aval = jax_core.ShapedArray(tuple(shape), val.aval.dtype)
        if val.literal:
            return self.new_value(f"const dense<{val.text}> : {value_type(aval)}", aval, splat_of=val)
        return self.new_value(f"broadcast {val.text} : {value_type(aval)}", aval, splat_of=val)

    def elementwise_operand(self, atom: Any, shape: Sequence[int]) -> str:
        """An operand of an elementwise op whose result has `shape`: a literal is
        written as is (the parser broadcasts it), a scalar value is broadcast."""
        val = self.value(atom)
        if val.literal or tuple(val.shape) == tuple(shape):
            return val.text
        if val.shape:
            raise self.error(f"an operand of shape {val.shape} for a result of shape "
                             f"{tuple(shape)}")
        return self.splat(val, shape).text

    def const_array(self, array: Any) -> Val:
        """A numpy constant (a closed-over value of a jaxpr) as a literal or `const`."""
        array = np.asarray(array)
        aval = jax_core.ShapedArray(array.shape, array.dtype)
        if not array.shape:
            return Val(literal_text(array, array.dtype), aval, literal=True)
        flat = array.reshape(-1)
        if (flat == flat[0]).all():
            body = literal_text(flat[0], array.dtype)
        else:
            body = "[" + ", ".join(literal_text(x, array.dtype) for x in flat) + "]"
        return self.new_value(f"const dense<{body}> : {value_type(aval)}", aval)

    # --- refs and indexers -----------------------------------------------------------

    def index_entry(self, idx: Any, dim: int | None, *, allow_indirect: bool) -> tuple[str, list]:
        """One indexer entry as .scir text, and its contribution to the view's shape
        (`[]` for a dropped dimension, `[n]` or `[None]` for a kept one)."""
        if isinstance(idx, indexing.Slice):
            start = self.lookup(idx.start) if not isinstance(idx.start, int) else None
            size = idx.size
            stride = idx.stride if isinstance(idx.stride, int) else None
            if stride is None:
                raise self.error("a slice with a run-time stride")
            if isinstance(size, jax_core.Var):
                size_text, out = self.value(size).text, [None]
            else:
                size = int(size.val) if isinstance(size, jax_core.Literal) else int(size)
                size_text, out = str(size), [size]
            if stride != 1:
                start_text = str(idx.start) if start is None else start.text
                return f"ds({start_text}, {size_text}, stride = {stride})", out
            if start is None or start.literal:
                s0 = int(idx.start) if start is None else int(start.text)
                if out[0] is not None:
                    if s0 == 0 and size == dim:
                        return ":", out
                    return f"{s0}:{s0 + size}", out
                return f"ds({s0}, {size_text})", out
            return f"ds({start.text}, {size_text})", out
        if isinstance(idx, sc_core.Indices):
            text, shape = self.index_entry(idx.values, dim, allow_indirect=allow_indirect)
            if not text.startswith("idx("):
                raise self.error("plsc.Indices of a scalar index")
            if idx.ignored_value is not None:
                text = text[:-1] + f", ignore = {int(idx.ignored_value)})"
            return text, shape
        if isinstance(idx, state_types.TransformedRef):
            if not allow_indirect:
                raise self.error("a ref of indices where only a DMA can take one")
            view = self.view_of(idx.ref, idx.transforms)
            return f"idx({view.text})", [view.type.shape[0] if view.type.shape else None]
        if isinstance(idx, (int, np.integer)):
            return str(int(idx)), []
        b = self.lookup(idx)
        if isinstance(b, Ref):
            if not allow_indirect:
                raise self.error("a ref of indices where only a DMA can take one")
            return f"idx({b.text})", [b.type.shape[0] if b.type.shape else None]
        if b.shape:
            if not allow_indirect:
                raise self.error(
                    "indexing a ref with an array of indices: on SparseCore only DMAs "
                    "gather rows (pltpu.async_copy(x.at[indices], ...)); use "
                    "plsc.load_gather for values")
            if len(b.shape) != 1:
                raise self.error(f"an index array of shape {b.shape}: indirect DMAs take 1-D "
                                 "index lists")
            return f"idx({self.materialize(b).text})", [b.shape[0]]
        return b.text, []

    def indexer(self, ref: Ref, ind: indexing.NDIndexer, *,
                allow_indirect: bool = False) -> tuple[str, RefType]:
        """`[e0, e1, ...]` for an NDIndexer on `ref` ("" when it selects all of it) and
        the indexed view's type."""
        shape = ref.type.shape
        if len(ind.indices) != len(shape):
            raise self.error(f"an indexer of {len(ind.indices)} entries on {ref.type}")
        entries, out_shape = [], []
        for idx, dim in zip(ind.indices, shape):
            text, kept = self.index_entry(idx, dim, allow_indirect=allow_indirect)
            entries.append(text)
            out_shape.extend(kept)
        if all(e == ":" for e in entries):
            return "", ref.type
        while len(entries) > 1 and entries[-1] == ":":
            entries.pop()
        return f"[{', '.join(entries)}]", ref.type.with_shape(out_shape)

    def view_of(self, base: Any, transforms: Sequence[Any] = ()) -> Ref:
        """The ref `base` (a jaxpr ref, a TransformedRef, or the refs of
        `pl.select_ref`) seen through `transforms` (`x.at[i]`, `.bitcast`,
        `.reshape`), one view op per transform."""
        transforms = list(transforms)
        if isinstance(base, state_types.TransformedRef):
            transforms = list(base.transforms) + transforms
            base = base.ref
        if isinstance(base, (tuple, list)):
            if not transforms or not isinstance(transforms[0], state_types.SelectTransform):
                raise self.error("internal: several refs without a pl.select_ref")
            ref = self.select_ref([self.view_of(b) for b in base], transforms.pop(0))
        else:
            ref = self.ref(base)
        for t in transforms:
            ref = self.apply_transform(ref, t)
        return ref

    def select_ref(self, refs: Sequence[Ref], select: state_types.SelectTransform) -> Ref:
        """`select_ref %i, %r0, %r1, ...`: pl.select_ref's choice among refs."""
        idx = select.idx
        idx_text = str(int(idx)) if isinstance(idx, (int, np.integer)) else self.value(idx).text
        t = refs[0].type
        name = self.fresh()
        self.line(f"{name} = select_ref {idx_text}, {', '.join(r.text for r in refs)} : {t}")
        return Ref(name, t)

    def apply_transform(self, ref: Ref, t: Any) -> Ref:
        """One view op: `view` for an indexer (an index list included: the SC rules
        say what may follow it), `view_bitcast`, `view_reshape`."""
        if isinstance(t, indexing.NDIndexer):
            text, rtype = self.indexer(ref, t, allow_indirect=True)
            if not text:
                return ref
            op = "view"
        elif isinstance(t, state_types.BitcastTransform):
            elt = element_type(t.dtype, "a bitcast ref")
            old_bits, new_bits = _bits(ref.type.elt), np.dtype(t.dtype).itemsize * 8
            shape = list(ref.type.shape)
            if old_bits != new_bits:
                if len(shape) < 2 or shape[-2] is None:
                    raise self.error(f"a bitcast of a {ref.type} ref to {np.dtype(t.dtype).name}: "
                                     "scjit rescales the second-minor dimension, which this "
                                     "ref does not have")
                shape[-2] = shape[-2] * old_bits // new_bits
            text, rtype, op = "", RefType(ref.type.space, tuple(shape), elt), "view_bitcast"
        elif isinstance(t, state_types.ReshapeTransform):
            text, rtype, op = "", ref.type.with_shape(tuple(t.shape)), "view_reshape"
        elif (internals.SharedMemRefSliceTransform is not None
              and isinstance(t, internals.SharedMemRefSliceTransform)):
            # Each of the chip's vector subcores sees its part of the minor
            # dimension (JAX refused a dimension they do not divide already).
            *outer, minor = ref.type.shape
            shape = (*outer, None if minor is None else minor // _target_subcores(self.target))
            text, rtype, op = "", RefType("vmem", shape, ref.type.elt), "view_subcore_slice"
        else:
            raise self.error(f"a ref transform {type(t).__name__}, which scjit's views do not "
                             "have (it has indexing, bitcast, reshape, select_ref and "
                             "slice_subcore_vmem_from_shared)")
        name = self.fresh()
        self.line(f"{name} = {op} {ref.text}{text} : {rtype}")
        return Ref(name, rtype)

    def ref_operand(self, base: Any, transforms: Sequence[Any] = (), *,
                    allow_indirect: bool = False, always_index: bool = False) -> tuple[str, RefType]:
        """A ref operand of get/swap/DMA ops: the ref with every transform but the last
        indexer as views, and the last indexer written in place (`%x[%i, :]`);
        `always_index` writes a whole-ref indexer too (`%x[:, :]`)."""
        transforms = list(transforms)
        if isinstance(base, state_types.TransformedRef):
            transforms = list(base.transforms) + transforms
            base = base.ref
        last = transforms.pop() if transforms and isinstance(transforms[-1], indexing.NDIndexer) else None
        ref = self.view_of(base, transforms)
        text, rtype = ("", ref.type) if last is None else self.indexer(ref, last, allow_indirect=allow_indirect)
        if not text and always_index:
            text = "[" + ", ".join(":" for _ in ref.type.shape) + "]" if ref.type.shape else "[...]"
        return ref.text + text, rtype

    def no_sem(self) -> Ref:
        """The DMA semaphore of the copies started with `sem=None` (JAX 0.12 on):
        one scratch `dma_sem` of the kernel, credited and waited as a named one."""
        if self._no_sem is None:
            self._no_sem = Ref(self.unique("no_sem"), RefType("dma_sem", ()))
            self.extra_scratch.append(self._no_sem)
        return self._no_sem

    # --- translating jaxprs ----------------------------------------------------------

    def translate_eqns(self, eqns: Sequence[Any]) -> None:
        for eqn in eqns:
            self.translate_eqn(eqn)

    def translate_eqn(self, eqn: Any) -> None:
        saved = self.loc, self.primitive
        self.loc = location_of(eqn) or self.loc
        self.primitive = eqn.primitive.name
        rule = self.table.get(eqn.primitive)
        if rule is None:
            raise self.error(self.missing(eqn.primitive))
        rule.translate(self, eqn)
        self.loc, self.primitive = saved

    def missing(self, primitive: jax_core.Primitive) -> str:
        """Why a primitive outside the table cannot be exported: Pallas does not
        lower it on this subcore either, or scjit lacks it."""
        kind = self.kernel_type
        if primitive not in tc_lowering.lowering_rules.get(kind, {}):
            return ("Pallas' SparseCore lowering has no rule for it either: "
                    "NotImplementedError: Unimplemented primitive in Pallas TPU lowering "
                    f"for {kind.value}: {primitive.name}")
        return ("Pallas lowers it on SparseCore, but scjit has no translation for it "
                "(docs/jax.md lists the primitives scjit.jax translates)")

    def translate_jaxpr(self, jaxpr: jax_core.Jaxpr, args: Sequence[Any],
                        consts: Sequence[Any] = (), needed_outs: Sequence[bool] | None = None,
                        ) -> list[Any]:
        """Translates a jaxpr inline with its invars bound to `args` and its constvars
        to `consts` (bindings); returns the bindings of its outputs."""
        inputs = internals.input_vars(jaxpr, len(consts), len(args))
        if inputs is None:
            raise self.error("internal: a jaxpr called with the wrong number of operands")
        for v, b in zip(inputs[0] + inputs[1], list(consts) + list(args)):
            self.bind(v, b)
        eqns, live, uses = live_eqns(jaxpr, needed_outs, self.effect_cache)
        self.live |= live
        for v, u in uses.items():
            self.uses.setdefault(v, []).extend(u)
        self.translate_eqns(eqns)
        needed = needed_outs if needed_outs is not None else [True] * len(jaxpr.outvars)
        outs = [self.lookup(v) if n else None for v, n in zip(jaxpr.outvars, needed)]
        return outs

    def closed_consts(self, closed: internals.ClosedJaxpr) -> list[Any]:
        return [self.const_array(c) for c in closed.consts]


def _bits(elt: str) -> int:
    return {"i1": 1, "i8": 8, "u8": 8, "i16": 16, "u16": 16, "bf16": 16, "f16": 16}.get(elt, 32)
