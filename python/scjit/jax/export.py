"""Pallas SparseCore kernels as `.scir`.

    import scjit.jax
    text = scjit.jax.export(kernel, x, ids, target="v7x")   # the .scir of kernel(x, ids)

`export` traces `fn(*args)` with JAX (on any host: `abstract_tpu` stands in for the
chip) and writes the one SparseCore kernel it binds (`pl.kernel`, `mpmd_map` or
`pl.core_map`) as a `.scir` file (an `mpmd_map` of several meshes as a kernel of
several parts); `export_kernels` returns every kernel it binds;
`kernel_from_params` translates one kernel from its equation's parameters (what a JAX
lowering rule sees). Each primitive is translated by its row of `primitives.TABLE`;
what scjit lacks raises `ExportError` naming the primitive and the user's line.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

import jax

from . import internals, primitives, tracing
from .emitter import Emitter, element_type, Ref, RefType, ScMesh, ref_type, sanitize_name, sc_mesh, subjaxprs
from .errors import ExportError, Location
from .internals import jax_core, pallas_core, state_types
from .tpu import abstract_tpu

# The targets a .scir file may name (`target "..."`); abstract_tpu knows those JAX
# knows, for tracing.
SCIR_TARGETS = ("v5p", "v6e", "v7x", "v8i", "v8t")


@dataclasses.dataclass(frozen=True)
class Param:
    """One parameter of an exported kernel.

    Attributes:
      name: its .scir name, without the `%`.
      direction: "in", "out" or "inout".
      type: its .scir type, e.g. "hbm<16x16xi32>".
      operand: the position of the primitive's operand it binds (in/inout), or None.
      result: the position of the primitive's result it binds (out, and inout of an
        aliased pair), or None.
    """

    name: str
    direction: str
    type: str
    operand: int | None
    result: int | None


@dataclasses.dataclass(frozen=True)
class ExportedKernel:
    """One SparseCore kernel as .scir.

    Attributes:
      scir: the text of a .scir file holding the kernel (and its `target` line).
      kernel: the kernel's name, without the `@`.
      target: the target the file names.
      params: the kernel's parameters, in order.
      aliases: for each `inout` parameter of an input_output_aliases pair, its name ->
        (operand position, result position).
      devices: the device mesh the kernel runs on, ((axis name, size), ...) major
        first, when it talks to other chips (its `devices` clause); () when it runs
        on one chip. A launch then binds every parameter with a leading device axis
        of the mesh's size (the shards of all chips, in logical order).
    """

    scir: str
    kernel: str
    target: str
    params: tuple[Param, ...]
    aliases: dict[str, tuple[int, int]]
    devices: tuple[tuple[Any, int], ...] = ()


def export(fn: Callable[..., Any], *args: Any, target: str = "v7x", name: str | None = None,
           locations: bool = True, **kwargs: Any) -> str:
    """The .scir text of the SparseCore kernel `fn(*args, **kwargs)` binds.

    `args` are arrays or `jax.ShapeDtypeStruct`s; `fn` is traced (never run) as if on
    `target`'s chip. `name` names the kernel (default: the Pallas kernel's name).
    `locations=False` leaves out each op's `loc(...)`. Raises ExportError when `fn`
    binds no SparseCore kernel or several, or uses what scjit lacks."""
    kernels = export_kernels(fn, *args, target=target, name=name, locations=locations,
                             **kwargs)
    if len(kernels) != 1:
        names = ", ".join(k.kernel for k in kernels)
        raise ExportError(f"{_fn_name(fn)} binds {len(kernels)} SparseCore kernels ({names}); "
                          "export_kernels returns each")
    return kernels[0].scir


def export_kernels(fn: Callable[..., Any], *args: Any, target: str = "v7x",
                   name: str | None = None, locations: bool = True,
                   **kwargs: Any) -> list[ExportedKernel]:
    """Every SparseCore kernel `fn(*args, **kwargs)` binds, in the order it binds
    them, each as its own .scir file. `name` names them (numbered when there are
    several). Raises ExportError when there is none."""
    eqns = _traced_kernel_eqns(fn, target, args, kwargs)
    if not eqns:
        raise ExportError(f"{_fn_name(fn)} binds no SparseCore kernel (pl.kernel with a "
                          "ScalarSubcoreMesh or VectorSubcoreMesh, mpmd_map or pl.core_map)")
    kernels = []
    for k, (eqn, devices) in enumerate(eqns):
        kname = name if name is None or len(eqns) == 1 else f"{name}_{k}"
        kernels.append(kernel_from_params(eqn.params, [v.aval for v in eqn.invars],
                                          target=target, name=kname, locations=locations,
                                          devices=devices))
    return _unique_kernel_names(kernels)


def _traced_kernel_eqns(fn: Callable[..., Any], target: str, args: Sequence[Any],
                        kwargs: dict) -> list[tuple[Any, tuple[tuple[Any, int], ...]]]:
    """The kernel equations of fn's jaxpr (as _kernel_eqns), traced as if on
    `target`'s chip: under an abstract one-chip mesh, or, for a program whose
    jax.shard_map names a mesh of real devices (which that abstract mesh
    contradicts: ValueError), under scjit.jax's switch, which makes the CPU
    devices answer for the chip. The custom primitives' lowerings that
    _kernel_eqns traces are traced there too."""
    with tracing.exporting():
        chip: Callable[[], Any] = functools.partial(abstract_tpu, target)
        try:
            with chip():
                closed = jax.make_jaxpr(fn)(*args, **kwargs)
        except ValueError:
            from .backend import sparsecore  # noqa: PLC0415 - backend imports this module
            chip = functools.partial(sparsecore, target)
            with chip():
                closed = jax.make_jaxpr(fn)(*args, **kwargs)
        with chip():
            return list(_kernel_eqns(closed.jaxpr, ()))


def kernel_from_params(params: dict, in_avals: Sequence[Any], *, target: str,
                       name: str | None = None, locations: bool = True,
                       devices: Sequence[tuple[Any, int]] = ()) -> ExportedKernel:
    """Translates one kernel from the parameters of its `mpmd_map` or `core_map`
    equation; `in_avals` are the avals of the equation's operands. `devices` is
    the device mesh the kernel runs under (a jax.shard_map's: (axis name, size)
    pairs, major first): a kernel that names its axes or other chips gets it as
    its `devices` clause."""
    if target not in SCIR_TARGETS:
        raise ExportError(f"unknown target {target!r}; scjit has {', '.join(SCIR_TARGETS)}")
    device_axes = _device_axes(devices)
    if "jaxprs" in params:
        return _mpmd_kernel(params, in_avals, target=target, name=name, locations=locations,
                            devices=device_axes)
    if "jaxpr" in params and "mesh" in params:
        return _core_map_kernel(params, in_avals, target=target, name=name,
                                locations=locations, devices=device_axes)
    raise ExportError("these parameters are not those of an mpmd_map or core_map "
                      "equation")


# --- the two kernel forms -------------------------------------------------------------


def _mpmd_kernel(params: dict, in_avals: Sequence[Any], *, target: str, name: str | None,
                 locations: bool, devices: _DeviceAxes) -> ExportedKernel:
    """An mpmd_map of one or more (mesh, body) pairs: one .scir kernel with a part
    per body (docs/language.md §5), the parameters shared."""
    jaxprs, meshes = params["jaxprs"], params["meshes"]
    where = _kernel_location(jaxprs[0])
    if params.get("external_meshes"):
        raise ExportError("a kernel with refs of a mesh none of its bodies runs on "
                          "(external_meshes)", primitive="mpmd_map", location=where)
    n_in, n_out = len(in_avals), len(params["out_avals"])
    for jaxpr in jaxprs:
        if jaxpr.constvars:
            raise ExportError("internal: an mpmd_map jaxpr with constvars", location=where)
        if len(jaxpr.invars) < n_in + n_out:
            raise ExportError("internal: an mpmd_map jaxpr with fewer refs than operands and "
                              "results", location=where)
    first = _emitter(sc_mesh(meshes[0], where), target, locations, devices)
    sig = _signature(first, jaxprs, in_avals, n_out, params["input_output_aliases"], where)
    several = len(jaxprs) > 1
    owners = _semaphore_owners(jaxprs[0], meshes, n_in + n_out) if several else {}
    if several:
        _check_unshared_scratch(jaxprs, n_in + n_out, where, owners)
    sem_names = _shared_semaphore_names(first, jaxprs[0], n_in + n_out, owners)
    parts = []
    for k, (jaxpr, mesh) in enumerate(zip(jaxprs, meshes)):
        at = _kernel_location(jaxpr) or where
        part_mesh = sc_mesh(mesh, at)
        emitter = first if k == 0 else _emitter(part_mesh, target, locations, devices)
        emitter.used_names.update(p.name for p in sig.params)
        emitter.used_names.update(sem_names.values())
        bindings = {var: sig.refs[i] for i, var in enumerate(jaxpr.invars[:n_in + n_out])}
        for i, var in enumerate(jaxpr.invars[:n_in]):
            if _is_scalar_value(var.aval):  # a captured scalar: staged in SMEM, read once
                ref = sig.refs[i]
                bindings[var] = emitter.new_value(f"get {ref.text}[] : {ref.type.elt}", var.aval)
        scratch_vars = jaxpr.invars[n_in + n_out:]
        scratch, others = _part_scratch(emitter, scratch_vars, _arg_names(jaxpr)[n_in + n_out:], at,
                                        _used_vars(jaxpr) if several else None, k, owners, sem_names, meshes)
        bindings.update(scratch)
        emitter.translate_jaxpr(jaxpr, [bindings.get(v) for v in jaxpr.invars], [], [])
        scratch += [(None, r) for r in emitter.extra_scratch]
        parts.append(_Part(part_mesh, scratch, emitter, others))
    # Pallas names a kernel of several bodies after all of them.
    kname = _kernel_name(name or params.get("name") or "_".join(_func_name(j) for j in jaxprs))
    on_chips = devices.used_by(p.emitter for p in parts)
    text = _file(target, kname, sig.decls, parts, params.get("compiler_params"), on_chips)
    return ExportedKernel(text, kname, target, tuple(sig.params), sig.aliases, on_chips.axes if on_chips else ())


@dataclasses.dataclass
class _Signature:
    """An mpmd_map's parameters: each as a Param and a declaration, the Ref of each
    operand and result position, and the aliased pairs."""

    params: list
    decls: list
    refs: dict
    aliases: dict


def _signature(emitter: Emitter, jaxprs: Sequence[Any], in_avals: Sequence[Any], n_out: int,
               io_aliases: Any, where: Location | None) -> _Signature:
    """The signature of an mpmd_map whose first body is jaxprs[0]."""
    jaxpr = jaxprs[0]
    n_in, invars = len(in_avals), jaxpr.invars
    written = set().union(*(_written_inputs(j) for j in jaxprs))
    aliases = {int(i): int(o) for i, o in dict(io_aliases).items()}
    out_of = {o: i for i, o in aliases.items()}
    arg_names = _arg_names(jaxpr)
    sig = _Signature([], [], {}, {})
    for i in range(n_in):
        rtype = _param_type(invars[i].aval, where, f"operand {i}")
        if i in aliases:
            direction, result = "inout", aliases[i]
            other = _param_type(invars[n_in + result].aval, where, f"result {result}")
            if other != rtype:
                raise ExportError(f"operand {i} ({rtype}) is aliased to result {result} of "
                                  f"another type ({other})", location=where)
        elif isinstance(in_avals[i], state_types.AbstractRef):
            # A Ref operand: updated in place, when a body writes it (as
            # pl.core_map's closed-over refs, which it binds so from JAX 0.11.2 on).
            direction, result = ("inout" if i in written else "in"), None
        else:
            direction, result = "in", None
        pname = emitter.unique(arg_names[i] or f"in{i}")
        sig.refs[i] = Ref(pname, rtype)
        if result is not None:
            sig.refs[n_in + result] = sig.refs[i]
            sig.aliases[pname[1:]] = (i, result)
        sig.params.append(Param(pname[1:], direction, str(rtype), i, result))
        sig.decls.append(f"{direction} {pname}: {rtype}")
    for j in range(n_out):
        if j in out_of:
            continue
        rtype = _param_type(invars[n_in + j].aval, where, f"result {j}")
        pname = emitter.unique(arg_names[n_in + j] or f"out{j}")
        sig.refs[n_in + j] = Ref(pname, rtype)
        sig.params.append(Param(pname[1:], "out", str(rtype), None, j))
        sig.decls.append(f"out {pname}: {rtype}")
    return sig


def _written_inputs(jaxpr: Any) -> set[int]:
    """The positions of the inputs of `jaxpr` its equations write or accumulate into."""
    positions = set()
    for eff in jaxpr.effects:
        if isinstance(eff, (state_types.WriteEffect, state_types.AccumEffect)):
            positions.add(eff.input if isinstance(eff.input, int) else jaxpr.invars.index(eff.input))
    return positions


def _used_vars(jaxpr: Any) -> set:
    """The variables the equations of `jaxpr` read (inner jaxprs are closed: what
    they use reaches them as operands of an equation here)."""
    return {v for eqn in jaxpr.eqns for v in eqn.invars if isinstance(v, jax_core.Var)}


def _semaphore_owners(jaxpr: Any, meshes: Sequence[Any], first_scratch: int) -> dict[int, int]:
    """The scratch semaphores of a mesh (`pltpu.SemaphoreType.REGULAR(()) @ mesh`),
    which every body may signal: scratch position -> the part on that mesh."""
    owners = {}
    for k, var in enumerate(jaxpr.invars[first_scratch:]):
        space = getattr(var.aval, "memory_space", None)
        if isinstance(space, pallas_core.CoreMemorySpace) and ref_type(var.aval).is_semaphore:
            for part, mesh in enumerate(meshes):
                if mesh == space.mesh:
                    owners[k] = part
    return owners


def _shared_semaphore_names(first: Emitter, jaxpr: Any, first_scratch: int,
                            owners: dict[int, int]) -> dict[int, str]:
    """One .scir name per semaphore of a mesh, the same in every part (taken in
    the first part's emitter, which names the parameters)."""
    arg_names = _arg_names(jaxpr)[first_scratch:]
    return {k: first.unique((arg_names[k] if k < len(arg_names) else None) or f"scratch{k}")[1:] for k in owners}


def _part_scratch(emitter: Emitter, invars: Sequence[Any], names: Sequence[str | None], where: Location | None,
                  used: set | None, part: int, owners: dict[int, int], sem_names: dict[int, str],
                  meshes: Sequence[Any]) -> tuple[list[tuple[Any, Ref]], dict[str, str]]:
    """The scratch of one part (with `used`: only what its body uses), and the
    suffix (`@scalar`) of each semaphore of another part's mesh it signals. A
    semaphore of a mesh is declared in that mesh's part whether or not its body
    uses it, so that the other parts can name it."""
    out, others = [], {}
    for k, var in enumerate(invars):
        owner = owners.get(k)
        if used is not None and var not in used and owner != part:
            continue
        if owner is None:
            out += _scratch(emitter, [var], [(names[k] if k < len(names) else None) or f"scratch{k}"], where)
            continue
        ref = Ref(f"%{sem_names[k]}", ref_type(var.aval))
        if owner != part:
            others[ref.text] = " @vector" if sc_mesh(meshes[owner], where).vector else " @scalar"
        out.append((var, ref))
    return out, others


def _check_unshared_scratch(jaxprs: Sequence[Any], first_scratch: int,
                            where: Location | None, owners: dict[int, int]) -> None:
    """Each part of a .scir kernel has scratch of its own, except semaphores of a
    mesh (`owners`): a scratch ref that several bodies of an mpmd_map use (HBM or
    VMEM_SHARED, which Pallas lets them share, or a semaphore of no mesh) has no
    .scir form yet."""
    users: dict[int, int] = {}
    for jaxpr in jaxprs:
        used = _used_vars(jaxpr)
        for k, var in enumerate(jaxpr.invars[first_scratch:]):
            if var in used:
                users[k] = users.get(k, 0) + 1
    for k, n in sorted(users.items()):
        if n == 1 or k in owners:
            continue
        rtype = ref_type(jaxprs[0].invars[first_scratch + k].aval)
        if rtype.is_semaphore:
            raise ExportError(f"scratch {k} ({rtype}) is used by {n} bodies of the mpmd_map: a "
                              "semaphore several bodies use belongs to one mesh (`SemaphoreType.REGULAR(()) "
                              "@ mesh`), whose part the others name with `@vector` or `@scalar`",
                              primitive="mpmd_map", location=where)
        raise ExportError(f"scratch {k} ({rtype}) is used by {n} bodies of the mpmd_map; each "
                          "part of a .scir kernel has scratch of its own, so bodies cannot share "
                          "scratch memory yet: pass an HBM operand instead",
                          primitive="mpmd_map", location=where)


def _core_map_kernel(params: dict, in_avals: Sequence[Any], *, target: str,
                     name: str | None, locations: bool, devices: _DeviceAxes) -> ExportedKernel:
    jaxpr = params["jaxpr"]
    where = _kernel_location(jaxpr, params.get("debug_info"))
    mesh = sc_mesh(params["mesh"], where)
    emitter = _emitter(mesh, target, locations, devices)
    if len(in_avals) != len(jaxpr.constvars):
        raise ExportError("internal: core_map operands and constvars differ", location=where)
    written = {eff.input for eff in jaxpr.effects
               if isinstance(eff, state_types.WriteEffect)}
    params_out, decls, bindings = [], [], {}
    for i, (var, aval) in enumerate(zip(jaxpr.constvars, in_avals)):
        if not isinstance(aval, state_types.AbstractRef):
            raise ExportError(f"pl.core_map closes over a value ({aval}); scjit kernels take "
                              "refs: pass it in a ref", primitive="core_map", location=where)
        rtype = _param_type(var.aval, where, f"operand {i}")
        direction = "inout" if var in written else "in"
        pname = emitter.unique(f"in{i}")
        bindings[var] = Ref(pname, rtype)
        params_out.append(Param(pname[1:], direction, str(rtype), i, None))
        decls.append(f"{direction} {pname}: {rtype}")
    scratch = _scratch(emitter, jaxpr.invars, _arg_names(jaxpr), where)
    emitter.translate_jaxpr(jaxpr, [r for _, r in scratch],
                            [bindings[v] for v in jaxpr.constvars], [])
    scratch += [(None, r) for r in emitter.extra_scratch]
    kname = _kernel_name(name or params.get("name") or "core_map")
    on_chips = devices.used_by([emitter])
    text = _file(target, kname, decls, [_Part(mesh, scratch, emitter)], params.get("compiler_params"), on_chips)
    return ExportedKernel(text, kname, target, tuple(params_out), {}, on_chips.axes if on_chips else ())


# --- pieces ------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _DeviceAxes:
    """The device mesh a kernel runs under: its axes (Python name, size) major
    first, and each axis' .scir name."""

    axes: tuple[tuple[Any, int], ...]
    scir_names: dict

    def used_by(self, emitters) -> _DeviceAxes | None:
        """This mesh when it has axes and a part names one or another chip, else None."""
        return self if self.axes and any(e.uses_devices for e in emitters) else None

    def clause(self) -> str:
        return "devices(" + ", ".join(f"{self.scir_names[n]} = {size}" for n, size in self.axes) + ")"


def _device_axes(devices: Sequence[tuple[Any, int]]) -> _DeviceAxes:
    """A .scir name for each device axis: the Python name when it is an
    identifier other than core and subcore, else dev0, dev1, ... by position."""
    axes = tuple((name, int(size)) for name, size in devices)
    names: dict = {}
    for k, (name, _) in enumerate(axes):
        text = name if isinstance(name, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) else None
        if text in (None, "core", "subcore", "device") or text in names.values():
            text = f"dev{k}"
        names[name] = text
    return _DeviceAxes(axes, names)


def _emitter(mesh: ScMesh, target: str, locations: bool, devices: _DeviceAxes) -> Emitter:
    # A mesh axis of the kernel hides a device axis of the same name, as in Pallas.
    device_axes = {n: t for n, t in devices.scir_names.items() if n not in mesh.axes}
    return Emitter(primitives.TABLE, mesh_axes=mesh.axes, kernel_type=mesh.core_type, target=target,
                   locations=locations, device_axes=device_axes)


def _mesh_text(mesh: ScMesh) -> str:
    if mesh.vector:
        return f"mesh vector(cores = {mesh.cores}, subcores = {mesh.subcores})"
    return f"mesh scalar(cores = {mesh.cores})"


def _is_scalar_value(aval: Any) -> bool:
    """A kernel operand that is a value, not a ref: a scalar the body closes over
    (pl.kernel passes it as an operand), which Pallas gives the kernel in SMEM."""
    return not isinstance(aval, state_types.AbstractRef) and not getattr(aval, "shape", None) and \
        hasattr(aval, "dtype")


def _param_type(aval: Any, where: Location | None, what: str) -> RefType:
    if _is_scalar_value(aval):
        return RefType("smem", (), element_type(aval.dtype, what))
    try:
        rtype = ref_type(aval)
    except ExportError as e:
        raise ExportError(f"{what}: {e.reason}", location=where) from None
    return rtype  # semaphores too: a parameter's semaphore outlives the launch


def _scratch(emitter: Emitter, invars: Sequence[Any], names: Sequence[str | None],
             where: Location | None, used: set | None = None) -> list[tuple[Any, Ref]]:
    """The scratch refs of one part (with `used`: only those its body uses)."""
    out = []
    for k, var in enumerate(invars):
        if used is not None and var not in used:
            continue
        try:
            rtype = ref_type(var.aval)
        except ExportError as e:
            raise ExportError(f"scratch {k}: {e.reason}", location=where) from None
        if rtype.space == "host":
            raise ExportError(f"scratch {k}: memory space host: host memory is the caller's, so a "
                              "kernel's scratch cannot be there (.scir's IR-KERNEL)", location=where)
        name = emitter.unique((names[k] if k < len(names) else None) or f"scratch{k}")
        out.append((var, Ref(name, rtype)))
    return out


def _layout_passes(compiler_params: Any) -> bool:
    if compiler_params is None:
        return True
    if isinstance(compiler_params, dict):
        compiler_params = compiler_params.get("mosaic_tpu") or compiler_params.get("mosaic")
    value = getattr(compiler_params, "needs_layout_passes", None)
    return True if value is None else bool(value)


@dataclasses.dataclass(frozen=True)
class _Part:
    """One part of an exported kernel: its mesh, scratch and translated body."""

    mesh: ScMesh
    scratch: list
    emitter: Emitter
    others: dict = dataclasses.field(default_factory=dict)  # scratch name -> " @scalar" (another part's)


def _file(target: str, kname: str, decls: list[str], parts: Sequence[_Part],
          compiler_params: Any, devices: _DeviceAxes | None) -> str:
    # The file names the JAX release it was traced with: jit-run checks it with
    # that release's SC rules.
    lines = [f'target "{target}"', f'jax "{internals.rules_release()}"', "",
             f"kernel @{kname}({', '.join(decls)})"]
    for k, part in enumerate(parts):
        lines.append(f"    {_mesh_text(part.mesh)}")
        if k == 0 and devices is not None:
            lines.append(f"    {devices.clause()}")
        if part.scratch:
            decls = [f"{r.text}: {r.type}{part.others.get(r.text, '')}" for _, r in part.scratch]
            lines.append(f"    scratch({', '.join(decls)})")
        if k == 0 and not _layout_passes(compiler_params):
            lines.append("    attributes { layout_passes = false }")
        lines.append("{")
        lines.extend(part.emitter.lines)
        lines.append("}")
    return "\n".join(lines) + "\n"


def _arg_names(jaxpr: Any) -> list[str | None]:
    info = jaxpr.debug_info
    names = list(info.arg_names) if info is not None and info.arg_names else []
    names = [sanitize_name(n) for n in names]
    names += [None] * (len(jaxpr.invars) - len(names))
    return names


def _func_name(jaxpr: Any) -> str:
    info = jaxpr.debug_info
    if info is not None and info.func_src_info:
        return info.func_src_info.split(" ")[0]
    return "kernel"


def _kernel_name(name: str) -> str:
    text = re.sub(r"[^A-Za-z0-9_.]", "_", str(name))
    return text if re.match(r"[A-Za-z_]", text) else f"k_{text}"


def _kernel_location(jaxpr: Any, debug_info: Any = None) -> Location | None:
    info = debug_info or jaxpr.debug_info
    src = getattr(info, "func_src_info", None) or ""
    m = re.search(r" at (.*):(\d+)$", src)
    return Location(m.group(1), int(m.group(2)), 1) if m else None


def _fn_name(fn: Any) -> str:
    return getattr(fn, "__name__", None) or type(fn).__name__


def _kernel_eqns(jaxpr: jax_core.Jaxpr, devices: tuple[tuple[Any, int], ...]):
    """Each kernel equation in `jaxpr`, with the device mesh it runs under (that
    of the innermost jax.shard_map around it, or ()). A custom primitive whose
    lowering is `mlir.lower_fun(fun)` holds no jaxpr: the kernels are those of
    the jaxpr its lowering traces."""
    for eqn in jaxpr.eqns:
        if eqn.primitive in internals.KERNEL_PRIMITIVES:
            yield eqn, devices
            continue
        lowered = tracing.lowered_function(eqn.primitive)
        if lowered is not None:
            yield from _kernel_eqns(tracing.trace_lowering(lowered, eqn, devices), devices)
            continue
        inner = devices
        if eqn.primitive.name == "shard_map" and "mesh" in eqn.params:
            inner = device_mesh(eqn.params["mesh"])
        for sub in subjaxprs(eqn.params):
            yield from _kernel_eqns(sub, inner)


def device_mesh(mesh: Any) -> tuple[tuple[Any, int], ...]:
    """A jax Mesh (or AbstractMesh) as a kernel's device mesh: (axis name, size)
    pairs in the mesh's order, which is Pallas' (logical ids are row-major)."""
    return tuple((name, int(size)) for name, size in mesh.shape.items())


def _unique_kernel_names(kernels: list[ExportedKernel]) -> list[ExportedKernel]:
    seen: dict[str, int] = {}
    out = []
    for k in kernels:
        n = seen.get(k.kernel, 0)
        seen[k.kernel] = n + 1
        if n:
            new = f"{k.kernel}_{n}"
            k = dataclasses.replace(k, kernel=new, scir=k.scir.replace(
                f"kernel @{k.kernel}(", f"kernel @{new}(", 1))
        out.append(k)
    return out
