"""THE table: each jaxpr primitive scjit.jax.export translates, and how.

`TABLE` maps a JAX `Primitive` to an `Entry`: the primitive's name, the Python call
that binds it, the .scir op(s) it becomes, a one-line note, and the function that
writes those ops. One entry per primitive; a primitive missing here is an
`ExportError` naming it. docs/jax.md's table is generated from this one
(`python -m scjit.jax.doc`), and a test keeps the two equal.

Several primitives share a name (Pallas SparseCore's `gather`, `scatter`, `swap`,
`load` and `bitcast` and JAX's own), so the table is keyed by the primitive object
and shows where each comes from.
"""

from __future__ import annotations

import dataclasses
import functools
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from . import internals
from .emitter import (Emitter, Ref, Val, element_type, literal_text, location_of, ref_type,
                      sanitize_name, sc_mesh, value_type)
from .internals import (checkify, control_flow, debugging, jax_core, lax, pallas_core, pallas_primitives, parallel,
                        pjit, sc_primitives, slicing, source_info_util, state_primitives, tpu_primitives)


@dataclasses.dataclass(frozen=True)
class Entry:
    """One row of the table."""

    primitive: jax_core.Primitive
    python: str    # the Python call(s) that bind it
    scir: str      # the .scir op(s) it becomes
    note: str      # one line
    translate: Callable[[Emitter, Any], None]

    @property
    def name(self) -> str:
        return self.primitive.name


TABLE: dict[jax_core.Primitive, Entry] = {}


def rule(primitive: jax_core.Primitive | None, python: str, scir: str, note: str = ""):
    """Registers the decorated function as `primitive`'s translation (nothing
    when the installed JAX lacks the primitive: None)."""

    def register(fn: Callable[[Emitter, Any], None]):
        if primitive is None:
            return fn
        if primitive in TABLE:
            raise AssertionError(f"{primitive} is in the table twice")
        TABLE[primitive] = Entry(primitive, python, scir, note, fn)
        return fn

    return register


# --- helpers ------------------------------------------------------------------------


def _out(eqn: Any) -> Any:
    [v] = eqn.outvars
    return v


def _operands(ctx: Emitter, atoms: Sequence[Any], shape: Sequence[int]) -> list[str]:
    """Elementwise operands for a result of `shape`; an op whose operands are all
    literals gets its first one as a `const`."""
    vals = [ctx.value(a) for a in atoms]
    if all(v.literal for v in vals):
        first = ctx.materialize(vals[0])
        if tuple(shape):
            first = ctx.splat(vals[0], shape)
        return [first.text] + [v.text for v in vals[1:]]
    return [ctx.elementwise_operand(a, shape) for a in atoms]


def _elementwise(ctx: Emitter, eqn: Any, op: str) -> None:
    out = _out(eqn)
    ops = _operands(ctx, eqn.invars, out.aval.shape)
    ctx.define(out, f"{op} {', '.join(ops)} : {value_type(out.aval)}")


def _no_accuracy(ctx: Emitter, eqn: Any) -> None:
    if eqn.params.get("accuracy") is not None:
        raise ctx.error(f"accuracy={eqn.params['accuracy']}: scjit computes "
                        "transcendentals at the host's accuracy and takes no request")


def _alias(ctx: Emitter, eqn: Any) -> None:
    for v, a in zip(eqn.outvars, eqn.invars):
        ctx.bind(v, ctx.lookup(a))


def _is_signed(dtype: Any) -> bool:
    return jnp.issubdtype(np.dtype(dtype), jnp.signedinteger)  # int4 too


# --- elementwise arithmetic ------------------------------------------------------------

_TC = "TensorCore only: scjit rejects it as Pallas does (GEN-1)"

# Elementwise ops: a scalar operand of a vector op is broadcast (`broadcast`), a
# literal is written in place (the parser splats it).
_ELEMENTWISE = [
    (lax.add_p, "add", "x + y, lax.add", ""),
    (lax.sub_p, "sub", "x - y, lax.sub", ""),
    (lax.mul_p, "mul", "x * y, lax.mul", ""),
    (lax.div_p, "div", "x / y, x // y's quotient, lax.div", "integers truncate toward zero"),
    (lax.rem_p, "rem", "lax.rem, x % y's remainder", "the dividend's sign"),
    (lax.max_p, "max", "jnp.maximum, lax.max", ""),
    (lax.min_p, "min", "jnp.minimum, lax.min", ""),
    (lax.and_p, "and", "x & y, jnp.logical_and", ""),
    (lax.or_p, "or", "x | y, jnp.logical_or", ""),
    (lax.xor_p, "xor", "x ^ y", ""),
    (lax.shift_left_p, "shl", "x << y", ""),
    (lax.neg_p, "neg", "-x", ""),
    (lax.abs_p, "abs", "jnp.abs", ""),
    (lax.sign_p, "sign", "jnp.sign", ""),
    (lax.not_p, "not", "~x, jnp.logical_not", ""),
    (lax.clamp_p, "clamp", "lax.clamp, jnp.clip", "operands lo, x, hi"),
    (lax.pow_p, "pow", "x ** y (a float y), lax.pow", _TC),
    (lax.floor_p, "floor", "jnp.floor", _TC),
    (lax.ceil_p, "ceil", "jnp.ceil", _TC),
    (lax.population_count_p, "population_count", "lax.population_count", _TC),
    (lax.clz_p, "clz", "lax.clz", _TC),
]

for _p, _op, _py, _note in _ELEMENTWISE:
    rule(_p, _py, _op, _note)(lambda ctx, eqn, op=_op: _elementwise(ctx, eqn, op))

_LATER = "JAX {} on (GEN-1 before)"

rule(internals.mulhi_p, "lax.mulhi", "mulhi", _LATER.format("0.12.0") + "; i32 and u32 (EL-14)")(
    lambda ctx, eqn: _elementwise(ctx, eqn, "mulhi"))
rule(internals.fmuladd_p, "lax.fmuladd", "fmuladd", _LATER.format("0.12.1") + "; the product is rounded")(
    lambda ctx, eqn: _elementwise(ctx, eqn, "fmuladd"))


@rule(lax.round_p, "lax.round (halves away from zero), jnp.round (to even)", "round",
      "vector subcore only, " + _LATER.format("0.11.2"))
def _round(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    [x] = _operands(ctx, eqn.invars, out.aval.shape)
    even = int(eqn.params["rounding_method"]) == int(lax.RoundingMethod.TO_NEAREST_EVEN)
    attrs = ' {rounding_method = "to_nearest_even"}' if even else ""
    ctx.define(out, f"round {x}{attrs} : {value_type(out.aval)}")


@rule(internals.polynomial_p, "lax.polynomial, jnp.polyval", "fmuladd (floats), mul and add",
      "JAX 0.12.1 on: Horner's rule, as Pallas lowers it")
def _polynomial(ctx: Emitter, eqn: Any) -> None:
    avals = [jax.ShapeDtypeStruct(v.aval.shape, v.aval.dtype) for v in eqn.invars]
    lower = functools.partial(internals.polynomial_lower, unroll=eqn.params.get("unroll"))
    _inline(ctx, eqn, jax.make_jaxpr(lower)(*avals))

# Transcendentals: the host computes them (not bit-identical to a TPU).
_TRANSCENDENTAL = [
    (lax.exp_p, "exp", "jnp.exp", ""),
    (lax.sqrt_p, "sqrt", "jnp.sqrt", "scjit: vector subcore only"),
    (lax.rsqrt_p, "rsqrt", "lax.rsqrt", "scjit: vector subcore only"),
    (lax.tanh_p, "tanh", "jnp.tanh", "scjit: vector subcore only"),
    (lax.log_p, "log", "jnp.log", "scjit: vector subcore only"),
    (internals.log2_p, "log2", "jnp.log2", "vector subcore only, JAX 0.11.2 on"),
    (lax.logistic_p, "logistic", "jax.nn.sigmoid", _TC),
    (lax.exp2_p, "exp2", "jnp.exp2", _TC),
    (lax.log1p_p, "log1p", "jnp.log1p", _TC),
    (lax.sin_p, "sin", "jnp.sin", _TC),
    (lax.cos_p, "cos", "jnp.cos", _TC),
    (lax.tan_p, "tan", "jnp.tan", _TC),
]


def _transcendental(ctx: Emitter, eqn: Any, op: str) -> None:
    _no_accuracy(ctx, eqn)
    _elementwise(ctx, eqn, op)


for _p, _op, _py, _note in _TRANSCENDENTAL:
    rule(_p, _py, _op, "; ".join(filter(None, [_note, "accuracy= is an ExportError"])))(
        lambda ctx, eqn, op=_op: _transcendental(ctx, eqn, op))


@rule(lax.shift_right_arithmetic_p, "x >> y on signed integers, "
      "lax.shift_right_arithmetic", "shr",
      "on an unsigned type: bitcast to signed, shr, bitcast back")
def _shift_right_arithmetic(ctx: Emitter, eqn: Any) -> None:
    _shift_right(ctx, eqn, signed=True)


@rule(lax.shift_right_logical_p, "x >> y on unsigned integers, lax.shift_right_logical",
      "shr", "on a signed type: bitcast to unsigned, shr, bitcast back")
def _shift_right_logical(ctx: Emitter, eqn: Any) -> None:
    _shift_right(ctx, eqn, signed=False)


def _shift_right(ctx: Emitter, eqn: Any, *, signed: bool) -> None:
    out = _out(eqn)
    dtype = np.dtype(out.aval.dtype)
    if _is_signed(dtype) == signed:
        _elementwise(ctx, eqn, "shr")
        return
    # .scir's shr is arithmetic on i* and logical on u*: reinterpret the bits.
    other = np.dtype(f"{'int' if signed else 'uint'}{dtype.itemsize * 8}")
    aval = out.aval.update(dtype=other)
    ops = [ctx.materialize(ctx.value(a)) for a in eqn.invars]
    ops = [ctx.splat(v, out.aval.shape) if v.shape != out.aval.shape else v for v in ops]
    cast = [ctx.new_value(f"bitcast {v.text} : {value_type(aval)}", aval) for v in ops]
    shifted = ctx.new_value(f"shr {cast[0].text}, {cast[1].text} : {value_type(aval)}", aval)
    ctx.define(out, f"bitcast {shifted.text} : {value_type(out.aval)}")


_COMPARE = [
    (lax.eq_p, "eq", "x == y"),
    (lax.ne_p, "ne", "x != y"),
    (lax.lt_p, "lt", "x < y"),
    (lax.le_p, "le", "x <= y"),
    (lax.gt_p, "gt", "x > y"),
    (lax.ge_p, "ge", "x >= y"),
]


def _compare(ctx: Emitter, eqn: Any, pred: str) -> None:
    out = _out(eqn)
    ops = _operands(ctx, eqn.invars, out.aval.shape)
    ctx.define(out, f"cmp {pred} {', '.join(ops)} : {value_type(out.aval)}")


for _p, _pred, _py in _COMPARE:
    rule(_p, _py, f"cmp {_pred}", "the result is i1")(
        lambda ctx, eqn, pred=_pred: _compare(ctx, eqn, pred))


@rule(lax.select_n_p, "jnp.where, lax.select, lax.select_n", "select",
      "a literal predicate picks its case; an integer predicate is a chain of cmp eq")
def _select_n(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    pred, cases = ctx.value(eqn.invars[0]), eqn.invars[1:]
    if pred.literal:
        k = 1 if pred.text == "true" else 0 if pred.text == "false" else int(pred.text)
        ctx.bind(out, ctx.lookup(cases[k]))
        return
    if len(cases) == 1:
        ctx.bind(out, ctx.lookup(cases[0]))
        return
    t = value_type(out.aval)
    texts = _operands(ctx, cases, out.aval.shape)
    if np.dtype(pred.aval.dtype) == np.bool_:
        ctx.define(out, f"select {pred.text}, {texts[1]}, {texts[0]} : {t}")
        return
    mask_aval = pred.aval.update(dtype=np.bool_)
    result = texts[-1]
    for k in range(len(cases) - 2, -1, -1):
        m = ctx.new_value(f"cmp eq {pred.text}, {k} : {value_type(mask_aval)}", mask_aval)
        if k == 0:
            ctx.define(out, f"select {m.text}, {texts[k]}, {result} : {t}")
        else:
            result = ctx.new_value(f"select {m.text}, {texts[k]}, {result} : {t}", out.aval).text


@rule(lax.convert_element_type_p, "x.astype(dtype), lax.convert_element_type", "convert",
      "to the same dtype: nothing; of a literal: a literal of the new dtype")
def _convert(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.value(eqn.invars[0])
    new = np.dtype(eqn.params["new_dtype"])
    element_type(new)
    if np.dtype(x.aval.dtype) == new:
        ctx.bind(out, Val(x.text, out.aval, x.literal, x.splat_of, x.bool_of))
        return
    atom = eqn.invars[0]
    if isinstance(atom, jax_core.Literal):
        ctx.bind(out, Val(literal_text(np.asarray(atom.val).astype(new), new), out.aval,
                          literal=True))
        return
    x = ctx.materialize(x)
    if np.dtype(x.aval.dtype) == np.bool_ and _only_cond_index(ctx, out):
        # lax.cond(pred, ...) converts its predicate to an index; `if` takes the i1.
        ctx.bind(out, Val("", out.aval, bool_of=x))
        return
    bool_of = x if np.dtype(x.aval.dtype) == np.bool_ else None
    ctx.define(out, f"convert {x.text} : {value_type(out.aval)}", bool_of=bool_of)


def _only_cond_index(ctx: Emitter, var: Any) -> bool:
    uses = ctx.uses.get(var, [])
    return bool(uses) and all(e.primitive is control_flow.cond_p and k == 0
                              and len(e.params["branches"]) == 2 for e, k in uses)


@rule(lax.bitcast_convert_type_p, "lax.bitcast_convert_type, x.view(dtype)", "bitcast",
      "between types of one width only (a width change adds a dimension in lax)")
def _bitcast_convert(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    if np.dtype(x.aval.dtype).itemsize != np.dtype(out.aval.dtype).itemsize:
        raise ctx.error("lax.bitcast_convert_type between widths (it adds or removes a "
                        "dimension); use plsc.bitcast, which rescales the minor one")
    ctx.define(out, f"bitcast {x.text} : {value_type(out.aval)}")


@rule(internals.sc_bitcast_p, "plsc.bitcast", "bitcast",
      "the minor dimension rescales by the width ratio (before JAX 0.12; then pltpu.bitcast's)")
def _sc_bitcast(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    ctx.define(out, f"bitcast {x.text} : {value_type(out.aval)}")


@rule(tpu_primitives.bitcast_p, "pltpu.bitcast(x, dtype, dim=...)", "bitcast",
      "dim=-1 (the minor dimension) as plsc.bitcast; dim=-2 (the default) is `bitcast {dim = -2}`, which "
      "SparseCore lowers from JAX 0.12 on (GEN-1 before)")
def _tpu_bitcast(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    rank = len(eqn.invars[0].aval.shape)
    dim = eqn.params.get("dim")
    if dim is None:  # before JAX 0.12: always the second-minor dimension
        dim = rank - 2
    if dim not in (rank - 1, rank - 2):  # (pltpu.bitcast refuses the others itself)
        raise ctx.error(f"pltpu.bitcast along dimension {dim} of a {rank}-D value")
    attrs = " {dim = -2}" if dim == rank - 2 else ""
    ctx.define(out, f"bitcast {x.text}{attrs} : {value_type(out.aval)}")


# --- shapes ---------------------------------------------------------------------------


@rule(lax.iota_p, "jnp.arange(n), lax.iota", "iota", "1-D only")
def _iota(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    if len(out.aval.shape) != 1:
        raise ctx.error(f"an iota of shape {out.aval.shape}: scjit's iota is 1-D (on "
                        "SparseCore, of the lane count)")
    ctx.define(out, f"iota : {value_type(out.aval)}")


def _reshape_to(ctx: Emitter, x: Val, out: Any) -> None:
    """Binds `out` to `x` reshaped (scalars and (1, ..., 1) vectors convert)."""
    shape = tuple(out.aval.shape)
    if x.shape == shape:
        ctx.bind(out, Val(x.text, out.aval, x.literal, x.splat_of, x.bool_of))
    elif not shape:
        if x.splat_of is not None:
            ctx.bind(out, x.splat_of)
        else:
            ctx.define(out, f"extract {x.text}[{', '.join('0' for _ in x.shape)}] : "
                       f"{value_type(out.aval)}")
    elif not x.shape:
        ctx.bind(out, ctx.splat(x, shape))
    else:
        x = ctx.materialize(x)
        ctx.define(out, f"reshape {x.text} : {value_type(out.aval)}", splat_of=x.splat_of)


@rule(lax.reshape_p, "x.reshape(...), lax.reshape", "reshape",
      "to a scalar: extract; from a scalar: broadcast")
def _reshape(ctx: Emitter, eqn: Any) -> None:
    if eqn.params.get("dimensions") is not None:
        raise ctx.error("lax.reshape with dimensions= (a transpose first)")
    _reshape_to(ctx, ctx.value(eqn.invars[0]), _out(eqn))


@rule(lax.squeeze_p, "jnp.squeeze, lax.squeeze, x[0] of a vector", "reshape",
      "to a scalar: extract (a splat's scalar itself)")
def _squeeze(ctx: Emitter, eqn: Any) -> None:
    _reshape_to(ctx, ctx.value(eqn.invars[0]), _out(eqn))


@rule(lax.broadcast_in_dim_p, "jnp.full, jnp.broadcast_to, lax.broadcast", "broadcast",
      "a scalar: broadcast (a literal: const dense); a vector: reshape, then concat "
      "copies along each broadcast dimension")
def _broadcast_in_dim(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.value(eqn.invars[0])
    shape = tuple(eqn.params["shape"])
    if x.shape == shape:
        ctx.bind(out, x)
        return
    if not x.shape or x.splat_of is not None:
        ctx.bind(out, ctx.splat(x if not x.shape else x.splat_of, shape))
        return
    mid = [1] * len(shape)
    for i, d in enumerate(eqn.params["broadcast_dimensions"]):
        mid[d] = x.shape[i]
    cur = x
    if tuple(mid) != x.shape:
        aval = x.aval.update(shape=tuple(mid))
        cur = ctx.new_value(f"reshape {x.text} : {value_type(aval)}", aval)
    for axis, n in enumerate(shape):
        if cur.shape[axis] != n:
            new_shape = list(cur.shape)
            new_shape[axis] = n
            aval = x.aval.update(shape=tuple(new_shape))
            cur = ctx.new_value(f"concat {', '.join([cur.text] * n)} {{axis = {axis}}} : "
                                f"{value_type(aval)}", aval)
    ctx.bind(out, Val(cur.text, out.aval))


@rule(slicing.slice_p, "x[a:b] of a vector, lax.slice", "slice", "stride 1 only")
def _slice(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    strides = eqn.params["strides"]
    if strides is not None and any(s != 1 for s in strides):
        raise ctx.error(f"a strided slice {strides} of a value")
    ranges = [":" if (a == 0 and b == n) else f"{a}:{b}" for a, b, n in
              zip(eqn.params["start_indices"], eqn.params["limit_indices"], x.shape)]
    ctx.define(out, f"slice {x.text}[{', '.join(ranges)}] : {value_type(out.aval)}")


@rule(lax.split_p, "lax.split, jnp.split", "slice", "one slice per piece")
def _split(ctx: Emitter, eqn: Any) -> None:
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    axis, start = eqn.params["axis"], 0
    for out, size in zip(eqn.outvars, eqn.params["sizes"]):
        ranges = [":"] * len(x.shape)
        ranges[axis] = f"{start}:{start + size}"
        start += size
        if ctx.is_live(out):
            ctx.define(out, f"slice {x.text}[{', '.join(ranges)}] : {value_type(out.aval)}")


@rule(lax.concatenate_p, "jnp.concatenate, lax.concatenate", "concat", "")
def _concatenate(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    xs = [ctx.materialize(ctx.value(a)) for a in eqn.invars]
    if len(xs) == 1:
        ctx.bind(out, xs[0])
        return
    ctx.define(out, f"concat {', '.join(x.text for x in xs)} {{axis = "
               f"{eqn.params['dimension']}}} : {value_type(out.aval)}")


@rule(lax.stack_p, "jnp.stack", "reshape, concat", "each operand gains the new axis")
def _stack(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    axis = eqn.params["axis"]
    parts = []
    for a in eqn.invars:
        x = ctx.value(a)
        shape = list(x.shape)
        shape.insert(axis, 1)
        aval = x.aval.update(shape=tuple(shape))
        parts.append(ctx.splat(x, shape) if not x.shape else
                     ctx.new_value(f"reshape {ctx.materialize(x).text} : {value_type(aval)}", aval))
    if len(parts) == 1:
        ctx.bind(out, Val(parts[0].text, out.aval))
        return
    ctx.define(out, f"concat {', '.join(p.text for p in parts)} {{axis = {axis}}} : "
               f"{value_type(out.aval)}")


@rule(lax.unstack_p, "iterating over a vector's leading axis", "slice, reshape",
      "one slice per element")
def _unstack(ctx: Emitter, eqn: Any) -> None:
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    axis = eqn.params["axis"]
    for k, out in enumerate(eqn.outvars):
        if not ctx.is_live(out):
            continue
        ranges = [":"] * len(x.shape)
        ranges[axis] = f"{k}:{k + 1}"
        shape = list(x.shape)
        shape[axis] = 1
        aval = x.aval.update(shape=tuple(shape))
        piece = ctx.new_value(f"slice {x.text}[{', '.join(ranges)}] : {value_type(aval)}", aval)
        _reshape_to(ctx, piece, out)


@rule(slicing.gather_p, "jnp.take_along_axis, x[indices] of a vector", "reshape, gather",
      "the take_along_axis-like gathers Pallas lowers (indices modulo the axis size)")
def _gather(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    idx = ctx.value(eqn.invars[1])
    p = eqn.params
    dn = p["dimension_numbers"]
    rank = len(out.aval.shape)
    if not (len(x.shape) == rank and idx.shape[:-1] == out.aval.shape and idx.shape[-1] == 1
            and tuple(p["slice_sizes"]) == (1,) * rank
            and p["mode"] in (slicing.GatherScatterMode.FILL_OR_DROP,
                              slicing.GatherScatterMode.PROMISE_IN_BOUNDS)
            and not dn.offset_dims and dn.collapsed_slice_dims == dn.start_index_map
            and dn.operand_batching_dims == dn.start_indices_batching_dims
            and len(dn.collapsed_slice_dims) == 1
            and len(dn.operand_batching_dims) == rank - 1):
        raise ctx.error("a gather that is not take_along_axis-like (Pallas lowers only "
                        "those on SparseCore)")
    (axis,) = dn.collapsed_slice_dims
    iaval = idx.aval.update(shape=out.aval.shape)
    flat = ctx.new_value(f"reshape {ctx.materialize(idx).text} : {value_type(iaval)}", iaval)
    ctx.define(out, f"gather {x.text}, {flat.text} {{axis = {axis}}} : {value_type(out.aval)}")


@rule(lax.rev_p, "jnp.flip, lax.rev", "rev", "one op per reversed dimension")
def _rev(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    for d in eqn.params["dimensions"]:
        x = ctx.new_value(f"rev {x.text} {{axis = {d}}} : {value_type(out.aval)}", out.aval)
    ctx.bind(out, x)


@rule(lax.transpose_p, "x.T, lax.transpose", "transpose", _TC)
def _transpose(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    perm = ", ".join(map(str, eqn.params["permutation"]))
    ctx.define(out, f"transpose {x.text} {{permutation = [{perm}]}} : {value_type(out.aval)}")


# --- reductions, scans, sorts, packing ----------------------------------------------------

_REDUCE = [
    (lax.reduce_sum_p, "reduce_sum", "jnp.sum"),
    (lax.reduce_max_p, "reduce_max", "jnp.max"),
    (lax.reduce_min_p, "reduce_min", "jnp.min"),
    (lax.reduce_and_p, "reduce_and", "jnp.all"),
    (lax.reduce_or_p, "reduce_or", "jnp.any"),
]


def _reduce(ctx: Emitter, eqn: Any, op: str) -> None:
    out = _out(eqn)
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    if tuple(eqn.params["axes"]) != tuple(range(len(x.shape))):
        raise ctx.error(f"a reduction over axes {eqn.params['axes']} of a {x.shape} value: "
                        "scjit reduces a whole vector to a scalar")
    ctx.define(out, f"{op} {x.text} : {value_type(out.aval)}")


for _p, _op, _py in _REDUCE:
    rule(_p, _py, _op, "over every axis only")(lambda ctx, eqn, op=_op: _reduce(ctx, eqn, op))


@rule(control_flow.loops.cumsum_p, "jnp.cumsum, lax.cumsum", "cumsum", "reverse=True is an ExportError")
def _cumsum(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    if eqn.params["reverse"]:
        raise ctx.error("a reversed cumsum: scjit's cumsum runs forward (Pallas: not "
                        "supported on SparseCore either)")
    x = ctx.materialize(ctx.value(eqn.invars[0]))
    if eqn.params["axis"] != 0:
        raise ctx.error(f"a cumsum along axis {eqn.params['axis']}")
    ctx.define(out, f"cumsum {x.text} : {value_type(out.aval)}")


_MASKED_SCAN = [
    (sc_primitives.masked_cumsum_p, "cumsum", "plsc.cumsum"),
    (sc_primitives.masked_cummax_p, "cummax", "plsc.cummax"),
    (sc_primitives.masked_cummin_p, "cummin", "plsc.cummin"),
]


def _masked_scan(ctx: Emitter, eqn: Any, op: str) -> None:
    out = _out(eqn)
    x, m = (ctx.materialize(ctx.value(a)) for a in eqn.invars)
    ctx.define(out, f"{op} {x.text} mask {m.text} : {value_type(out.aval)}")


for _p, _op, _py in _MASKED_SCAN:
    rule(_p, _py, f"{_op} ... mask", "the mask is always written (all-true without one)")(
        lambda ctx, eqn, op=_op: _masked_scan(ctx, eqn, op))


@rule(sc_primitives.scan_count_p, "plsc.scan_count", "scan_count ... mask", "")
def _scan_count(ctx: Emitter, eqn: Any) -> None:
    x, m = (ctx.materialize(ctx.value(a)) for a in eqn.invars)
    counts, last = eqn.outvars
    names = [ctx.fresh(), ctx.fresh()]
    ctx.line(f"{names[0]}, {names[1]} = scan_count {x.text} mask {m.text} : "
             f"{value_type(counts.aval)}, {value_type(last.aval)}")
    ctx.bind(counts, Val(names[0], counts.aval))
    ctx.bind(last, Val(names[1], last.aval))


def _multi(ctx: Emitter, eqn: Any, rhs: str) -> None:
    """`%a, %b = rhs : ta, tb` for every result of eqn."""
    names = [ctx.fresh() for _ in eqn.outvars]
    types = ", ".join(value_type(v.aval) for v in eqn.outvars)
    ctx.line(f"{', '.join(names)} = {rhs} : {types}")
    for n, v in zip(names, eqn.outvars):
        ctx.bind(v, Val(n, v.aval))


@rule(sc_primitives.masked_sort_p, "plsc.sort_key_val", "sort_key_val", "")
def _sort_key_val(ctx: Emitter, eqn: Any) -> None:
    keys, vals, *mask = (ctx.materialize(ctx.value(a)) for a in eqn.invars)
    rhs = f"sort_key_val {keys.text}, {vals.text}"
    if mask:
        rhs += f" mask {mask[0].text}"
    if eqn.params["descending"]:
        rhs += " {descending = true}"
    _multi(ctx, eqn, rhs)


@rule(lax.sort_p, "jnp.sort, lax.sort", "sort", "one key (num_keys=1)")
def _sort(ctx: Emitter, eqn: Any) -> None:
    if eqn.params["num_keys"] != 1:
        raise ctx.error(f"a sort with num_keys={eqn.params['num_keys']}: scjit sorts on "
                        "the first operand (Pallas on SparseCore too)")
    xs = [ctx.materialize(ctx.value(a)) for a in eqn.invars]
    _multi(ctx, eqn, f"sort {', '.join(x.text for x in xs)}")


@rule(sc_primitives.pack_p, "plsc.pack", "pack", "the format as an attribute")
def _pack(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    a, b = (ctx.materialize(ctx.value(x)) for x in eqn.invars)
    fmt = eqn.params["format"].value
    ctx.define(out, f'pack {a.text}, {b.text} {{format = "{fmt}"}} : {value_type(out.aval)}')


@rule(sc_primitives.unpack_p, "plsc.unpack", "unpack", "the format as an attribute")
def _unpack(ctx: Emitter, eqn: Any) -> None:
    ab = ctx.materialize(ctx.value(eqn.invars[0]))
    fmt = eqn.params["format"].value
    _multi(ctx, eqn, f'unpack {ab.text} {{format = "{fmt}"}}')


@rule(sc_primitives.all_reduce_population_count_p, "plsc.all_reduce_population_count",
      "popcount_all", "")
def _popcount_all(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    m = ctx.materialize(ctx.value(eqn.invars[0]))
    ctx.define(out, f"popcount_all {m.text} {{reduce = {eqn.params['reduce']}}} : "
               f"{value_type(out.aval)}")


@rule(sc_primitives.all_reduce_ffs_p, "plsc.all_reduce_ffs", "ffs_all", "")
def _ffs_all(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    m = ctx.materialize(ctx.value(eqn.invars[0]))
    ctx.define(out, f"ffs_all {m.text} {{reduce = {eqn.params['reduce']}}} : "
               f"{value_type(out.aval)}")


# --- the mesh and the grid ------------------------------------------------------------------


def _axis(ctx: Emitter, name: Any) -> str:
    """The .scir name of a core, subcore or device axis (the mesh of the
    jax.shard_map the kernel runs under)."""
    if name in ctx.mesh_axes:
        return ctx.mesh_axes[name]
    if name in ctx.device_axes:
        ctx.uses_devices = True
        return ctx.device_axes[name]
    axes = [*ctx.mesh_axes, *ctx.device_axes]
    raise ctx.error(f"axis {name!r} is not an axis of the kernel's mesh or of the device mesh it "
                    f"runs under ({', '.join(map(repr, axes))})")


@rule(parallel.axis_index_p, 'lax.axis_index("core"), lax.axis_index("subcore")',
      "axis_index", "a tuple of axes is the row-major index over them")
def _axis_index(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    names = eqn.params["axis_name"]
    names = names if isinstance(names, tuple) else (names,)
    result = None
    for name in names:
        axis = _axis(ctx, name)
        idx = ctx.new_value(f"axis_index {axis} : i32", out.aval)
        if result is None:
            result = idx
        else:
            size = ctx.new_value(f"axis_size {axis} : i32", out.aval)
            scaled = ctx.new_value(f"mul {result.text}, {size.text} : i32", out.aval)
            result = ctx.new_value(f"add {scaled.text}, {idx.text} : i32", out.aval)
    ctx.bind(out, result)


@rule(pallas_primitives.program_id_p, "pl.program_id", "program_id",
      "outside a pipeline axis 0 is the core, axis 1 the subcore")
def _program_id(ctx: Emitter, eqn: Any) -> None:
    ctx.define(_out(eqn), f"program_id {eqn.params['axis']} : i32")


@rule(pallas_primitives.num_programs_p, "pl.num_programs", "num_programs", "")
def _num_programs(ctx: Emitter, eqn: Any) -> None:
    ctx.define(_out(eqn), f"num_programs {eqn.params['axis']} : i32")


# --- identities and calls ---------------------------------------------------------------------

_IDENTITY = [
    (pallas_primitives.multiple_of_p, "pl.multiple_of", "a hint"),
    (jax_core.stage_p, "(JAX's staging marker)", "Pallas lowers it to its operand"),
    (pjit.reshard_p, "jax.reshard", "no sharding inside a kernel"),
]

for _p, _py, _why in _IDENTITY:
    rule(_p, _py, "(nothing)", f"the operand itself: {_why}")(_alias)

_NO_EFFECT = [
    (tpu_primitives.touch_p, "pltpu.touch", "a scheduling dependency"),
    (tpu_primitives.trace_value_p, "pltpu.trace_value", "a profiler annotation"),
    (pallas_primitives.delay_p, "pltpu.delay", "a sleep, which changes no result"),
]

for _p, _py, _why in _NO_EFFECT:
    rule(_p, _py, "(nothing)", f"dropped: {_why}")(lambda ctx, eqn: None)


def _inline(ctx: Emitter, eqn: Any, closed: Any) -> None:
    if isinstance(closed, internals.ClosedJaxpr):
        jaxpr, consts = closed.jaxpr, ctx.closed_consts(closed)
    else:
        jaxpr, consts = closed, []
    args = [ctx.lookup(a) for a in eqn.invars]
    needed = [ctx.is_live(v) for v in eqn.outvars]
    outs = ctx.translate_jaxpr(jaxpr, args, consts, needed)
    for v, b in zip(eqn.outvars, outs):
        if b is not None:
            ctx.bind(v, b)


rule(pjit.jit_p, "jax.jit-wrapped helpers (jnp.where, jnp.cumsum, ...)", "(inlined)",
     "its jaxpr is translated in place")(lambda ctx, eqn: _inline(ctx, eqn, eqn.params["jaxpr"]))


# --- memory ---------------------------------------------------------------------------------


def _transforms(eqn: Any, flat: Sequence[Any], key: str = "tree") -> list[Any]:
    return list(eqn.params[key].unflatten(flat))


@rule(state_primitives.get_p, "x = ref[...], ref[i, pl.ds(j, 16)]", "get",
      "the last indexer in place, earlier transforms as views")
def _get(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    text, _ = ctx.ref_operand(eqn.invars[0], _transforms(eqn, eqn.invars[1:]))
    ctx.define(out, f"get {text} : {value_type(out.aval)}")


@rule(state_primitives.swap_p, "ref[...] = x", "store, swap",
      "store when the old value is unused")
def _swap(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    text, _ = ctx.ref_operand(eqn.invars[0], _transforms(eqn, eqn.invars[2:]))
    x = ctx.value(eqn.invars[1])
    if ctx.is_live(out):
        ctx.define(out, f"swap {text}, {ctx.materialize(x).text} : {value_type(out.aval)}")
    else:
        ctx.line(f"store {text}, {x.text if not x.shape else ctx.materialize(x).text}")


@rule(sc_primitives.load_p, "plsc.load_expanded", "load_expanded",
      "get when there is no mask")
def _sc_load(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    flat = eqn.invars[1:]
    mask = None
    if eqn.params["has_mask"]:
        flat, mask = flat[:-1], ctx.materialize(ctx.value(flat[-1]))
    text, _ = ctx.ref_operand(eqn.invars[0], _transforms(eqn, flat))
    if mask is None:
        ctx.define(out, f"get {text} : {value_type(out.aval)}")
    else:
        ctx.define(out, f"load_expanded {text} mask {mask.text} : {value_type(out.aval)}")


@rule(sc_primitives.swap_p, "plsc.store_compressed, plsc.addupdate, "
      "plsc.addupdate_compressed", "store_compressed, addupdate, addupdate_compressed",
      "by its mask and add flags")
def _sc_swap(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    flat = eqn.invars[2:]
    mask = None
    if eqn.params["has_mask"]:
        flat, mask = flat[:-1], ctx.materialize(ctx.value(flat[-1]))
    text, _ = ctx.ref_operand(eqn.invars[0], _transforms(eqn, flat))
    x = ctx.materialize(ctx.value(eqn.invars[1]))
    add = eqn.params["add"]
    if ctx.is_live(out):
        raise ctx.error("the result of a compressed store or addupdate (Pallas gives no "
                        "defined value)")
    if mask is None:
        ctx.line(f"addupdate {text}, {x.text}" if add else f"store {text}, {x.text}")
    else:
        op = "addupdate_compressed" if add else "store_compressed"
        ctx.line(f"{op} {text}, {x.text} mask {mask.text}")


@rule(sc_primitives.gather_p, "plsc.load_gather", "load_gather", "")
def _load_gather(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    ref, transforms, indices, mask = eqn.params["tree"].unflatten(eqn.invars)
    text, _ = ctx.ref_operand(ref, transforms, always_index=True)
    idx = ", ".join(ctx.materialize(ctx.value(i)).text for i in indices)
    rhs = f"load_gather {text} [{idx}]"
    if mask is not None:
        rhs += f" mask {ctx.materialize(ctx.value(mask)).text}"
    ctx.define(out, f"{rhs} : {value_type(out.aval)}")


@rule(sc_primitives.scatter_p, "plsc.store_scatter, plsc.addupdate_scatter",
      "store_scatter, addupdate_scatter", "")
def _scatter(ctx: Emitter, eqn: Any) -> None:
    ref, transforms, indices, x, mask = eqn.params["tree"].unflatten(eqn.invars)
    text, _ = ctx.ref_operand(ref, transforms, always_index=True)
    idx = ", ".join(ctx.materialize(ctx.value(i)).text for i in indices)
    op = "addupdate_scatter" if eqn.params["add"] else "store_scatter"
    line = f"{op} {text} [{idx}], {ctx.materialize(ctx.value(x)).text}"
    if mask is not None:
        line += f" mask {ctx.materialize(ctx.value(mask)).text}"
    ctx.line(line)


@rule(sc_primitives.fetch_and_add_p, "plsc.fetch_and_add", "fetch_and_add", "")
def _fetch_and_add(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    ref, value, *indices, subcore = eqn.invars
    r = ctx.ref(ref)
    idx = ", ".join(ctx.value(i).text for i in indices)
    text = f"{r.text}[{idx}]" if indices else r.text
    ctx.define(out, f"fetch_and_add {text}, {ctx.value(value).text} "
               f"{{subcore = {ctx.value(subcore).text}}} : i32")


# --- DMAs and semaphores -------------------------------------------------------------------------


def _dma_operands(ctx: Emitter, src: Any, dst: Any, sem: Any, *, warn: bool = False) -> str:
    """`src -> dst, sem`; `warn`: a copy JAX 0.12 may warn about (_warn_push_stream)."""
    s = ctx.ref_operand(src, allow_indirect=True)
    d = ctx.ref_operand(dst, allow_indirect=True)
    if warn:
        _warn_push_stream(ctx, s, d)
    m = ctx.no_sem().text if sem is None else ctx.ref_operand(sem)[0]
    return f"{s[0]} -> {d[0]}, {m}"


def _warn_push_stream(ctx: Emitter, src: tuple[str, Any], dst: tuple[str, Any]) -> None:
    """JAX 0.12's SparseCorePushStreamWarning, as its lowering gives it: a local,
    direct copy out of the vector subcore's VMEM (0.12.0: also VMEM_SHARED to SMEM,
    on either subcore) given a destination semaphore, which push streams ignore."""
    (s_text, s), (d_text, d) = src, dst  # ctx.ref_operand's, once per operand
    if internals.PushStreamWarning is None:
        return
    if "idx(" in s_text or "idx(" in d_text:
        return
    first = internals.rules_release() == "0.12.0"
    push = ctx.kernel_type == internals.tpu_core.CoreType.SC_VECTOR_SUBCORE and s.space == "vmem" and d.space != "vmem"
    push = push or (first and s.space == "vmem_shared" and d.space == "smem")
    if push:
        kinds = "VMEM to HBM, VMEM_SHARED or SMEM" + (", or VMEM_SHARED to SMEM" if first else "")
        message = (f"Destination semaphore is ignored for push streams ({kinds}) on SparseCore; pass `sem=None` "
                   "to `async_copy` to suppress this warning.")
        # At the kernel's line (JAX's own points at its lowering), once per line
        # under Python's default filter (this module's registry, as warnings.warn's).
        if ctx.loc is not None:
            warnings.warn_explicit(message, internals.PushStreamWarning, ctx.loc.file, ctx.loc.line,
                                   registry=globals().setdefault("__warningregistry__", {}))
        else:
            warnings.warn(message, internals.PushStreamWarning)


@rule(tpu_primitives.dma_start_p, "pltpu.async_copy, pltpu.make_async_copy(...).start(), pltpu.async_remote_copy",
      "dma_start", "x.at[indices] in the first dimension is idx(...): a gather or scatter; "
      "a remote copy is `dma_start %src -> %dst, %recv src_sem %send {device = ...}`, a push stream's "
      "source semaphore (JAX 0.12) `src_sem %read`; `sem=None` is one scratch dma_sem")
def _dma_start(ctx: Emitter, eqn: Any) -> None:
    src, dst, sem, src_sem, device_id = eqn.params["tree"].unflatten(eqn.invars)
    line = f"dma_start {_dma_operands(ctx, src, dst, sem, warn=device_id is None and sem is not None)}"
    if src_sem is not None:  # a remote copy's send semaphore, or a push stream's source one
        line += f" src_sem {ctx.ref_operand(src_sem)[0]}"
    if eqn.params["add"]:
        line += " add"
    attrs = _device_attrs(ctx, device_id, eqn.params.get("device_id_type"), None)
    if eqn.params["priority"]:
        attrs.append(f"priority = {eqn.params['priority']}")
    if attrs:
        line += f" {{{', '.join(attrs)}}}"
    ctx.line(line)


@rule(tpu_primitives.dma_wait_p, "descriptor.wait(), .wait_send(), .wait_recv(), .wait_read(), .wait_write()",
      "dma_wait", "the copy's own source, destination and semaphore; .wait_send() and .wait_read() name its "
      "source semaphore, .wait_recv() and .wait_write() its destination one (.wait() is both)")
def _dma_wait(ctx: Emitter, eqn: Any) -> None:
    src, dst, sem, _, _ = eqn.params["tree"].unflatten(eqn.invars)
    if eqn.params.get("insert_dummy_device") or eqn.params.get("is_wait_send"):
        # .wait_send() / .wait_read(): Pallas swaps the source and the destination
        # (and the semaphores) to wait on the source semaphore; .scir names the copy
        # as its dma_start does.
        src, dst = dst, src
    # A wait is local whatever device the copy named: it waits on this
    # subcore's semaphore for the bytes of the copy's shape.
    ctx.line(f"dma_wait {_dma_operands(ctx, src, dst, sem)}")


def _sem_operand(ctx: Emitter, ref: Any, transforms: Any) -> str:
    text, rtype = ctx.ref_operand(ref, list(transforms or ()))
    return text


def _device_attrs(ctx: Emitter, device_id: Any, id_type: Any, core_index: Any,
                  target_axes: dict | None = None) -> list[str]:
    """The attributes naming the target of a remote signal or copy, in Pallas'
    forms: a dict of axes -> `{x = %i, core = %c}` (an axis not named keeps this
    chip's coordinate), a LOGICAL id -> `{device = %d}`, MESH coordinates (a
    scalar or a tuple) -> `{device = [%y, %x]}`. `target_axes`: the core axes of
    the semaphore's mesh when it is another part's (Pallas resolves a dict's
    core axes against the destination's mesh)."""
    attrs = []
    if isinstance(device_id, dict):
        for key, v in device_id.items():
            names = key if isinstance(key, tuple) else (key,)
            if len(names) != 1:
                raise ctx.error(f"a device_id key naming several axes ({key!r}): scjit takes one "
                                "axis per key")
            name = names[0]
            axis = target_axes[name] if target_axes and name in target_axes else _axis(ctx, name)
            attrs.append(f"{axis} = {ctx.value(v).text}")
    elif device_id is not None:
        ctx.uses_devices = True
        logical = getattr(id_type, "name", None) == "LOGICAL"
        leaves = device_id if isinstance(device_id, (tuple, list)) else (device_id,)
        texts = [ctx.value(v).text for v in leaves]
        attrs.append(f"device = {texts[0]}" if logical and len(texts) == 1 else f"device = [{', '.join(texts)}]")
    if core_index is not None:
        attrs.append(f"core = {ctx.value(core_index).text}")
    return attrs


@rule(pallas_primitives.semaphore_signal_p, "pl.semaphore_signal", "sem_signal",
      "device_id=d (LOGICAL) is {device = %d}, a MESH tuple {device = [%y, %x]}, a dict "
      "{x = ..., core = ..., subcore = ...}")
def _semaphore_signal(ctx: Emitter, eqn: Any) -> None:
    ref, transforms, inc, device_id, core_index = eqn.params["args_tree"].unflatten(eqn.invars)
    sem = _sem_operand(ctx, ref, transforms)
    space = getattr(ref.aval, "memory_space", None)
    target_axes = None
    if isinstance(space, pallas_core.CoreMemorySpace):  # a semaphore of a mesh (`@ scs_mesh`)
        target_axes = sc_mesh(space.mesh, ctx.loc).axes
    attrs = _device_attrs(ctx, device_id, eqn.params.get("device_id_type"), core_index, target_axes)
    suffix = f" {{{', '.join(attrs)}}}" if attrs else ""
    ctx.line(f"sem_signal {sem}, {ctx.value(inc).text}{suffix}")


@rule(pallas_primitives.semaphore_wait_p, "pl.semaphore_wait", "sem_wait",
      "decrement=False is written {decrement = false}")
def _semaphore_wait(ctx: Emitter, eqn: Any) -> None:
    ref, transforms, value, decrement = eqn.params["args_tree"].unflatten(eqn.invars)
    sem = _sem_operand(ctx, ref, transforms)
    dec = decrement.val if isinstance(decrement, jax_core.Literal) else decrement
    suffix = "" if bool(dec) else " {decrement = false}"
    ctx.line(f"sem_wait {sem}, {ctx.value(value).text}{suffix}")


@rule(pallas_primitives.semaphore_read_p, "pl.semaphore_read", "sem_read", "")
def _semaphore_read(ctx: Emitter, eqn: Any) -> None:
    ref, transforms = eqn.params["args_tree"].unflatten(eqn.invars)
    sem = _sem_operand(ctx, ref, transforms)
    ctx.define(_out(eqn), f"sem_read {sem} : i32")


@rule(sc_primitives.barrier_p, "plsc.subcore_barrier", "barrier", "")
def _barrier(ctx: Emitter, eqn: Any) -> None:
    ctx.line("barrier")


def _string(s: str) -> str:
    out = s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    if any(ord(c) < 32 for c in out):
        raise ValueError(s)
    return f'"{out}"'


@rule(debugging.debug_print_p, "pl.debug_print", "debug_print",
      "one value or ref at most (Pallas on SparseCore too)")
def _debug_print(ctx: Emitter, eqn: Any) -> None:
    try:
        fmt = _string(eqn.params["fmt"])
    except ValueError:
        raise ctx.error("a format with control characters other than newline") from None
    if len(eqn.invars) > 1:
        raise ctx.error("pl.debug_print of several values: Pallas on SparseCore prints "
                        "one (and so does scjit)")
    line = f"debug_print {fmt}"
    if eqn.invars:
        b = ctx.lookup(eqn.invars[0])
        line += f" {b.text if isinstance(b, Ref) else ctx.materialize(b).text}"
    if eqn.params.get("ordered"):
        line += " {ordered = true}"
    ctx.line(line)


@rule(checkify.check_p, "pl.debug_check", "not, debug_check",
      "written only while jax_pallas_enable_debug_checks is on, as Pallas lowers it; "
      "the message ends with \"check at\" the calling function, as a TPU reports it")
def _debug_check(ctx: Emitter, eqn: Any) -> None:
    if not eqn.params["debug"]:
        raise ctx.error("NotImplementedError: Non-debug checks are not supported by the Mosaic "
                        "backend. Functionalize them via `jax.experimental.checkify`.")
    if not pallas_core.debug_checks_enabled():
        return
    # As lowering.py's _check_lowering_rule: the error's predicate says the check
    # failed, its exception holds the message (fmt_string, its arguments unused).
    error = eqn.params["err_tree"].unflatten(eqn.invars)
    [failed] = error._pred.values()
    [exception_tree] = error._metadata.values()
    [payload] = error._payload.values()
    exception = exception_tree.unflatten(payload)
    # A TPU names the check's MLIR location: the primitive, then the function.
    frame = source_info_util.user_frame(eqn.source_info.traceback)
    where = f" (check at {frame.function_name})" if frame is not None else ""
    try:
        message = _string(exception.fmt_string + where)
    except ValueError:
        raise ctx.error("a message with control characters other than newline") from None
    if isinstance(failed, jax_core.Literal):
        ok = "false" if bool(failed.val) else "true"
    else:
        ok = ctx.new_value(f"not {ctx.value(failed).text} : i1", failed.aval).text
    ctx.line(f"debug_check {ok}, {message}")


# --- control flow and scopes ------------------------------------------------------------------------


def _yield(ctx: Emitter, outs: Sequence[Any], types: Sequence[str]) -> None:
    if not outs:
        return
    texts = []
    for b, t in zip(outs, types):
        if isinstance(b, Ref):
            raise ctx.error(f"a ref ({b.text}) returned from a region: scjit's loops and ifs "
                            "carry values only")
        texts.append(b.text)  # a scalar literal may stand for a value
    ctx.line(f"yield {', '.join(texts)}")


def _carries(ctx: Emitter, inits: Sequence[Any], avals: Sequence[Any]) -> tuple[list[Val], str]:
    """Names the carried values: their bindings inside the region and the
    `iter(...) : types` text."""
    inner, parts = [], []
    for b, aval in zip(inits, avals):
        if isinstance(b, Ref):
            raise ctx.error(f"a ref ({b.text}) carried by a loop: scjit carries values only")
        name = ctx.fresh("c")
        inner.append(Val(name, aval))
        parts.append(f"{name} = {b.text}")
    if not inner:
        return inner, ""
    types = ", ".join(value_type(a) for a in avals)
    return inner, f" iter({', '.join(parts)}) : {types}"


def _results(ctx: Emitter, outvars: Sequence[Any]) -> tuple[list[str], str]:
    names = [ctx.fresh() for _ in outvars]
    return names, (f"{', '.join(names)} = " if names else "")


def _bind_results(ctx: Emitter, outvars: Sequence[Any], names: Sequence[str]) -> None:
    for v, n in zip(outvars, names):
        ctx.bind(v, Val(n, v.aval))


def _unroll(unroll: Any) -> str:
    if unroll is True:
        return " {unroll = 0}"
    if unroll in (False, None, 1):
        return ""
    return f" {{unroll = {int(unroll)}}}"


def _counter(jaxpr: jax_core.Jaxpr, carry_in: Any, carry_out: Any) -> bool:
    """Whether `carry_out` is `carry_in + 1` (a loop counter)."""
    for eqn in jaxpr.eqns:
        if eqn.outvars and eqn.outvars[0] is carry_out:
            if eqn.primitive is not lax.add_p:
                return False
            a, b = eqn.invars
            one = lambda x: isinstance(x, jax_core.Literal) and np.asarray(x.val) == 1
            return (a is carry_in and one(b)) or (b is carry_in and one(a))
    return False


def _int32_scalar(aval: Any) -> bool:
    return not aval.shape and np.dtype(aval.dtype) == np.int32


@rule(control_flow.scan_p, "pl.loop, lax.fori_loop with static bounds", "for",
      "a carried counter (fori_loop's) becomes the induction variable; scans over "
      "arrays and reverse scans are ExportErrors")
def _scan(ctx: Emitter, eqn: Any) -> None:
    p = eqn.params
    closed, length = p["jaxpr"], p["length"]
    nconsts, ncarry = internals.scan_counts(p)
    jaxpr = closed.jaxpr
    if p["reverse"]:
        raise ctx.error("a reverse scan")
    if len(eqn.invars) != nconsts + ncarry or len(eqn.outvars) != ncarry:
        raise ctx.error("a scan over arrays (xs or ys): scjit's loops carry values, "
                        "not array slices")
    consts = [ctx.lookup(a) for a in eqn.invars[:nconsts]]
    inits = [ctx.lookup(a) for a in eqn.invars[nconsts:]]
    carry_vars = jaxpr.invars[nconsts:]
    counted = (ncarry >= 1 and _int32_scalar(carry_vars[0].aval)
               and isinstance(inits[0], Val)
               and _counter(jaxpr, carry_vars[0], jaxpr.outvars[0]))
    i32 = jax_core.ShapedArray((), np.int32)
    if counted:
        lo = inits[0]
        if lo.literal:
            hi = str(int(lo.text) + length)
        else:
            hi = ctx.new_value(f"add {lo.text}, {length} : i32", i32).text
        rest_inits, rest_vars, rest_outs = inits[1:], carry_vars[1:], eqn.outvars[1:]
    else:
        lo, hi = Val("0", i32, literal=True), str(length)
        rest_inits, rest_vars, rest_outs = inits, carry_vars, eqn.outvars
    inner, iter_text = _carries(ctx, rest_inits, [v.aval for v in rest_vars])
    names, lhs = _results(ctx, rest_outs)
    iv = ctx.fresh("i")
    loc = ctx.open(f"{lhs}for {iv} = {lo.text} to {hi} step 1{_unroll(p['unroll'])}"
                   f"{iter_text} {{")
    args = ([Val(iv, i32)] if counted else []) + inner
    needed = ([False] if counted else []) + [True] * len(inner)
    outs = ctx.translate_jaxpr(jaxpr, consts + args, ctx.closed_consts(closed), needed)
    _yield(ctx, outs[1:] if counted else outs, [value_type(v.aval) for v in rest_vars])
    ctx.close(loc)
    _bind_results(ctx, rest_outs, names)
    if counted and ctx.is_live(eqn.outvars[0]):
        final = str(int(lo.text) + length) if lo.literal else hi
        ctx.bind(eqn.outvars[0], Val(final, i32, literal=lo.literal))


@rule(control_flow.while_p, "lax.while_loop, lax.fori_loop and pl.loop with run-time "
      "bounds", "while, for", "`i < n` with i += 1 and n unchanged (fori_loop's form) "
      "becomes a for")
def _while(ctx: Emitter, eqn: Any) -> None:
    p = eqn.params
    cond, body = p["cond_jaxpr"], p["body_jaxpr"]
    cn, bn = p["cond_nconsts"], p["body_nconsts"]
    if cond.consts or body.consts:
        raise ctx.error("internal: a while loop with closed-over constants")
    cconsts = [ctx.lookup(a) for a in eqn.invars[:cn]]
    bconsts = [ctx.lookup(a) for a in eqn.invars[cn:cn + bn]]
    inits = [ctx.lookup(a) for a in eqn.invars[cn + bn:]]
    if _fori_while(ctx, eqn, cond.jaxpr, body.jaxpr, cn, bn, bconsts, inits):
        return
    avals = [v.aval for v in body.jaxpr.invars[bn:]]
    inner, iter_text = _carries(ctx, inits, avals)
    names, lhs = _results(ctx, eqn.outvars)
    loc = ctx.open(f"{lhs}while{iter_text} cond {{")
    [c] = ctx.translate_jaxpr(cond.jaxpr, cconsts + inner)
    ctx.line(f"condition {c.text}")
    ctx.middle("} body {")
    outs = ctx.translate_jaxpr(body.jaxpr, bconsts + inner)
    _yield(ctx, outs, [value_type(a) for a in avals])
    ctx.close(loc)
    _bind_results(ctx, eqn.outvars, names)


def _fori_while(ctx: Emitter, eqn: Any, cond: Any, body: Any, cn: int, bn: int,
                bconsts: list, inits: list) -> bool:
    """Writes a `for` for a while loop of fori_loop's form; False if it is not."""
    if cn or len(inits) < 2 or len(cond.eqns) != 1:
        return False
    [c] = cond.eqns
    if not (c.primitive is lax.lt_p and c.invars[0] is cond.invars[0]
            and c.invars[1] is cond.invars[1] and cond.outvars[0] is c.outvars[0]):
        return False
    i_in, n_in = body.invars[bn], body.invars[bn + 1]
    if not (_int32_scalar(i_in.aval) and _int32_scalar(n_in.aval)
            and body.outvars[1] is n_in and _counter(body, i_in, body.outvars[0])
            and all(isinstance(b, Val) for b in inits[:2])):
        return False
    lo, hi = inits[0], inits[1]
    i32 = jax_core.ShapedArray((), np.int32)
    rest_vars, rest_outs = body.invars[bn + 2:], eqn.outvars[2:]
    inner, iter_text = _carries(ctx, inits[2:], [v.aval for v in rest_vars])
    names, lhs = _results(ctx, rest_outs)
    iv = ctx.fresh("i")
    loc = ctx.open(f"{lhs}for {iv} = {lo.text} to {hi.text} step 1{iter_text} {{")
    outs = ctx.translate_jaxpr(body, bconsts + [Val(iv, i32), hi] + inner, [],
                               [False, False] + [True] * len(inner))
    _yield(ctx, outs[2:], [value_type(v.aval) for v in rest_vars])
    ctx.close(loc)
    _bind_results(ctx, rest_outs, names)
    if ctx.is_live(eqn.outvars[0]):  # the counter ends at max(lo, hi)
        ctx.define(eqn.outvars[0], f"max {lo.text}, {hi.text} : i32")
    ctx.bind(eqn.outvars[1], hi)
    return True


@rule(sc_primitives.parallel_loop_p, "plsc.parallel_loop", "parallel_for", "")
def _parallel_loop(ctx: Emitter, eqn: Any) -> None:
    lower, upper, step, consts, carries = eqn.params["tree"].unflatten(eqn.invars)
    jaxpr = eqn.params["jaxpr"]
    bounds = [ctx.value(x).text for x in (lower, upper, step)]
    inputs = internals.input_vars(jaxpr, len(consts), 1 + len(carries))
    if inputs is None:
        raise ctx.error("internal: a parallel_loop body whose inputs are not its operands")
    carry_vars = inputs[1][1:]
    inner, iter_text = _carries(ctx, [ctx.lookup(c) for c in carries], [v.aval for v in carry_vars])
    names, lhs = _results(ctx, eqn.outvars)
    iv = ctx.fresh("i")
    i32 = jax_core.ShapedArray((), np.int32)
    loc = ctx.open(f"{lhs}parallel_for {iv} = {bounds[0]} to {bounds[1]} step {bounds[2]}"
                   f"{_unroll(eqn.params['unroll'])}{iter_text} {{")
    outs = ctx.translate_jaxpr(jaxpr, [Val(iv, i32)] + inner,
                               [ctx.lookup(c) for c in consts])
    _yield(ctx, outs, [value_type(v.aval) for v in carry_vars])
    ctx.close(loc)
    _bind_results(ctx, eqn.outvars, names)


@rule(control_flow.cond_p, "pl.when, lax.cond, lax.switch", "if",
      "live results only; a switch is a chain of ifs on cmp eq")
def _cond(ctx: Emitter, eqn: Any) -> None:
    index = ctx.value(eqn.invars[0])
    branches = eqn.params["branches"]
    operands = [ctx.lookup(a) for a in eqn.invars[1:]]
    live = [ctx.is_live(v) for v in eqn.outvars]
    outvars = [v for v, l in zip(eqn.outvars, live) if l]
    if index.literal:
        k = 1 if index.text == "true" else 0 if index.text == "false" else int(index.text)
        closed = branches[k]
        outs = ctx.translate_jaxpr(closed.jaxpr, operands, ctx.closed_consts(closed), live)
        for v, b in zip(eqn.outvars, outs):
            if b is not None:
                ctx.bind(v, b)
        return
    if not outvars and all(not b.jaxpr.eqns for b in branches):
        return
    _if_chain(ctx, index, list(enumerate(branches)), operands, live, outvars,
              two=len(branches) == 2)


def _if_chain(ctx: Emitter, index: Val, branches: list, operands: list, live: list,
              outvars: list, *, two: bool) -> list[str]:
    """Writes the `if` of a cond: lax.cond's two branches as `if index != 0`, a
    switch's as `if index == k` for its first remaining branch, the rest in the
    `else`. Returns the names of its results."""
    types = [value_type(v.aval) for v in outvars]
    names, lhs = _results(ctx, outvars)
    lhs_types = f" : {', '.join(types)}" if types else ""
    i1 = jax_core.ShapedArray((), np.bool_)
    if two:
        (_, first), rest = branches[1], branches[:1]
        cond = index.bool_of.text if index.bool_of is not None else ctx.new_value(
            f"cmp ne {index.text}, 0 : i1", i1).text
    else:
        (k, first), rest = branches[0], branches[1:]
        cond = ctx.new_value(f"cmp eq {index.text}, {k} : i1", i1).text
    loc = ctx.open(f"{lhs}if {cond}{lhs_types} {{")
    _branch(ctx, first, operands, live, types)
    if not (len(rest) == 1 and not rest[0][1].jaxpr.eqns and not outvars):
        ctx.middle("} else {")
        if len(rest) == 1:
            _branch(ctx, rest[0][1], operands, live, types)
        else:
            inner = _if_chain(ctx, index, rest, operands, live, outvars, two=False)
            _yield(ctx, [Val(n, v.aval) for n, v in zip(inner, outvars)], types)
    ctx.close(loc)
    _bind_results(ctx, outvars, names)
    return names


def _branch(ctx: Emitter, closed: Any, operands: list, live: list, types: list) -> None:
    outs = ctx.translate_jaxpr(closed.jaxpr, operands, ctx.closed_consts(closed), live)
    _yield(ctx, [b for b in outs if b is not None], types)


@rule(pallas_primitives.run_scoped_p, "pl.run_scoped, pltpu.sync_copy", "scoped, alloc, copy",
      "a scope that only starts and waits one copy on its own semaphore is a copy")
def _run_scoped(ctx: Emitter, eqn: Any) -> None:
    jaxpr = eqn.params["jaxpr"]
    if any(eqn.params.get("ref_transforms") or ()):
        raise ctx.error("pl.run_scoped of transformed refs")
    if eqn.outvars:
        raise ctx.error("pl.run_scoped that returns values: scjit's scopes return "
                        "nothing (store the value in a ref allocated outside)")
    consts = [ctx.lookup(a) for a in eqn.invars]
    for v, b in zip(jaxpr.constvars, consts):
        ctx.bind(v, b)
    if _sync_copy(ctx, jaxpr):
        return
    axes = eqn.params.get("collective_axes") or ()
    loc = ctx.open("scoped {")
    allocs = []
    names = (jaxpr.debug_info.arg_names if jaxpr.debug_info is not None else None) or ()
    for k, v in enumerate(jaxpr.invars):
        rtype = ref_type(v.aval)
        if axes and not (rtype.space == "vmem_shared" and
                         all(ctx.mesh_axes.get(a) == "subcore" for a in axes)):
            raise ctx.error(f"pl.run_scoped(collective_axes={axes}) of a {rtype}: scjit "
                            "shares only vmem_shared allocations, among one core's subcores")
        hint = sanitize_name(names[k]) if k < len(names) else None
        name = ctx.unique(hint) if hint else ctx.fresh("ref")
        ctx.line(f"{name} = alloc {rtype}")
        allocs.append(Ref(name, rtype))
    ctx.translate_jaxpr(jaxpr, allocs, consts)
    ctx.close(loc)


def _same_atoms(a: Sequence[Any], b: Sequence[Any]) -> bool:
    def same(x, y):
        if isinstance(x, jax_core.Literal) and isinstance(y, jax_core.Literal):
            return np.array_equal(np.asarray(x.val), np.asarray(y.val))
        return x is y
    return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))


def _sync_copy(ctx: Emitter, jaxpr: Any) -> bool:
    """Writes `copy src -> dst` for the scope `pltpu.sync_copy` makes (one DMA
    semaphore, one start and its wait); False for any other scope."""
    if len(jaxpr.invars) != 1 or len(jaxpr.eqns) != 2:
        return False
    start, wait = jaxpr.eqns
    if not (start.primitive is tpu_primitives.dma_start_p
            and wait.primitive is tpu_primitives.dma_wait_p
            and start.params["tree"] == wait.params["tree"]
            and _same_atoms(start.invars, wait.invars)
            and not start.params["priority"]):
        return False
    _, _, sem, src_sem, device_id = start.params["tree"].unflatten(start.invars)
    if sem is not jaxpr.invars[0] or src_sem is not None or device_id is not None:
        return False
    src, dst, _, _, _ = start.params["tree"].unflatten(start.invars)
    saved = ctx.loc, ctx.primitive
    ctx.loc, ctx.primitive = location_of(start) or ctx.loc, "dma_start"
    s = ctx.ref_operand(src, allow_indirect=True)
    d = ctx.ref_operand(dst, allow_indirect=True)
    _warn_push_stream(ctx, s, d)  # (sync_copy's copy has a semaphore)
    ctx.line(f"copy {s[0]} -> {d[0]}" + (" add" if start.params["add"] else ""))
    ctx.loc, ctx.primitive = saved
    return True


@rule(jax_core.empty_ref_p, "jax.empty_ref inside a kernel", "scratch",
      "a scratch ref of the kernel: allocated for the launch, uninitialized as in Pallas")
def _empty_ref(ctx: Emitter, eqn: Any) -> None:
    out = _out(eqn)
    rtype = ref_type(out.aval)
    ref = Ref(ctx.unique(f"empty{len(ctx.extra_scratch)}"), rtype)
    ctx.extra_scratch.append(ref)
    ctx.bind(out, ref)
