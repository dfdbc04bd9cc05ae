// Value ops (kernel-ir.md §4.1): making vector values and taking them apart —
// const, iota, broadcast, extract, insert, slice, concat, reshape, pack, unpack.
#include <cmath>

#include "jit/interp/program.h"
#include "lowering/ir/printer.h"

namespace scjit::interp {
namespace {

int32_t Const(Exec& x, const Op& op) {
  const Type& t = op.results[0]->type;
  const ConstValue& c = op.constant;
  Val v = Val::Of(t);
  for (int64_t i = 0; i < v.count(); ++i) {
    const Operand& e = c.dense_list ? c.elements[static_cast<size_t>(i)] : c.elements[0];
    v.set(i, Literal(e, t.element()));
  }
  x.Set(op.results[0], std::move(v));
  return 0;
}

int32_t Iota(Exec& x, const Op& op) {
  const Type& t = op.results[0]->type;
  Val v = Val::Of(t);
  for (int64_t i = 0; i < v.count(); ++i) {
    Operand n;  // i as a literal of the element type (4-bit integers wrap)
    n.kind = IsFloat(t.element()) ? Operand::Kind::kFloat : Operand::Kind::kInt;
    n.int_value = i;
    n.float_value = static_cast<double>(i);
    v.set(i, Literal(n, t.element()));
  }
  x.Set(op.results[0], std::move(v));
  return 0;
}

// extract and insert: one element at static or dynamic indices (dynamic ones
// bounds-checked at the vector's site).
int32_t Element(Exec& x, const Op& op) {
  bool extract = op.kind == OpKind::kExtract;
  const Operand& vec = extract ? op.operands[0] : op.operands[1];
  const Type& t = vec.value->type;
  int64_t flat = 0, stride = 1;
  for (int d = t.rank() - 1; d >= 0; --d) {
    const Operand& index = vec.index[d].start;
    int64_t i = x.SInt(index);
    if (!index.is_literal()) {
      if (int32_t s = x.CheckIndex(&i, t.shape()[d], SCJIT_BOUNDS_INDEX, d, x.program.SitesOf(op).main); s != 0) {
        return s;
      }
    }
    flat += i * stride;
    stride *= t.shape()[d];
  }
  Val v = x.Get(vec);
  if (extract) {
    Val out = Val::Of(op.results[0]->type);
    out.set(0, v.at(flat));
    out.set_shadow(0, v.shadow_at(flat));
    int32_t origin = v.origin;
    // A get's own lanes name the element the lane read (the emitter's LaneOrigin).
    if (std::optional<int64_t> offset = out.shadow_at(0) != 0 ? LoadLaneOffset(vec.value) : std::nullopt) {
      if (int32_t s = scjit_rt_lane_origin(x.ctx, v.origin, flat + *offset, &origin); s != 0) return s;
    }
    out.Settle(origin);
    x.Set(op.results[0], std::move(out));
  } else {
    Val e = x.Get(op.operands[0]);
    v.set(flat, e.at(0));
    v.set_shadow(flat, e.shadow_at(0));
    v.Settle(e.origin != 0 ? e.origin : v.origin);  // (operand order: the element, then the vector)
    x.Set(op.results[0], std::move(v));
  }
  return 0;
}

// slice: a static sub-block; concat: operands joined along `axis`.
int32_t Shape(Exec& x, const Op& op) {
  const Type& out_t = op.results[0]->type;
  Val out = Val::Of(out_t);
  int w = out.width();
  if (op.kind == OpKind::kSlice) {
    const Operand& in_op = op.operands[0];
    Val in = x.Get(in_op);
    const Type& t = in.type;
    for (int64_t k = 0; k < out.count(); ++k) {
      int64_t rem = k, src = 0, stride = 1;
      for (int d = t.rank() - 1; d >= 0; --d) {
        int64_t lo = d < static_cast<int>(in_op.index.size()) ? in_op.index[d].lo.value_or(0) : 0;
        src += (rem % out_t.shape()[d] + lo) * stride;
        rem /= out_t.shape()[d];
        stride *= t.shape()[d];
      }
      out.set(k, in.at(src));
      out.set_shadow(k, in.shadow_at(src));
    }
    out.Settle(in.origin);
    x.Set(op.results[0], std::move(out));
    return 0;
  }
  const Attribute* a = op.FindAttr("axis");
  int64_t axis = a != nullptr ? a->value.operand.int_value : 0;
  int64_t inner = 1;
  for (int d = static_cast<int>(axis) + 1; d < out_t.rank(); ++d) inner *= out_t.shape()[d];
  int64_t outer = out.count() / (out_t.shape()[axis] * inner);
  int64_t start = 0;
  int32_t origin = 0;
  for (const Operand& o : op.operands) {
    Val in = x.Get(o);
    int64_t len = in.type.shape()[axis];
    if (!in.written() && out.written()) out.shadow.assign(out.bytes.size(), 0);
    for (int64_t i = 0; i < outer; ++i) {
      int64_t to = (i * out_t.shape()[axis] * inner + start * inner) * w;
      std::copy_n(in.bytes.data() + i * len * inner * w, len * inner * w, out.bytes.data() + to);
      if (!in.written()) std::copy_n(in.shadow.data() + i * len * inner * w, len * inner * w, out.shadow.data() + to);
    }
    if (origin == 0) origin = in.origin;
    start += len;
  }
  out.Settle(origin);
  x.Set(op.results[0], std::move(out));
  return 0;
}

// Mosaic's subelement conversions (the emitter's PackConvert): integers count as
// signed, float -> int rounds to nearest even (saturating, NaN -> 0), the rest
// converts as `convert` does.
Bits PackConvert(Bits v, ElementType from, ElementType to) {
  if (IsUnsigned(from)) {
    from = BitWidth(from) == 8 ? ElementType::kI8 : BitWidth(from) == 16 ? ElementType::kI16 : ElementType::kI32;
  }
  if (IsFloat(from) && !IsFloat(to)) {
    v = F32Bits(std::nearbyint(ToF32(v, from)));  // the default rounding: to nearest even
    from = ElementType::kF32;
  }
  return Convert(v, from, to);
}

// pack: [a0, b0, a1, b1, ...] (interleaved) or concat(a, b) (compressed);
// unpack: the inverse, each half converted.
int32_t Pack(Exec& x, const Op& op) {
  bool interleaved = op.FindAttr("format")->value.str == "interleaved";
  if (op.kind == OpKind::kPack) {
    Val a = x.Get(op.operands[0]), b = x.Get(op.operands[1]);
    ElementType from = a.element();
    Val out = Val::Of(op.results[0]->type);
    int64_t n = a.count();
    for (int64_t i = 0; i < 2 * n; ++i) {
      bool second = interleaved ? i % 2 == 1 : i >= n;
      int64_t k = interleaved ? i / 2 : i % n;
      const Val& from_val = second ? b : a;
      out.set(i, PackConvert(from_val.at(k), from, out.element()));
      out.set_shadow(i, from_val.shadow_at(k) != 0 ? AllOnes(out.element()) : 0);  // a conversion
    }
    out.Settle(Computed(a.origin != 0 ? a.origin : b.origin));
    x.Set(op.results[0], std::move(out));
    return 0;
  }
  Val ab = x.Get(op.operands[0]);
  for (int which = 0; which < 2; ++which) {
    Val out = Val::Of(op.results[which]->type);
    int64_t n = out.count();
    for (int64_t i = 0; i < n; ++i) {
      int64_t k = interleaved ? 2 * i + which : which * n + i;
      out.set(i, PackConvert(ab.at(k), ab.element(), out.element()));
      out.set_shadow(i, ab.shadow_at(k) != 0 ? AllOnes(out.element()) : 0);
    }
    out.Settle(Computed(ab.origin));
    x.Set(op.results[which], std::move(out));
  }
  return 0;
}

}  // namespace

absl::Status PrepareValue(Builder& b, const Op& op) {
  if (op.kind == OpKind::kExtract || op.kind == OpKind::kInsert) {
    const Operand& vec = op.kind == OpKind::kExtract ? op.operands[0] : op.operands[1];
    for (const IndexEntry& e : vec.index) {
      if (!e.start.is_literal()) {
        b.SitesOf(op).main = b.Site(op, Print(vec), vec.loc);
        break;
      }
    }
  }
  if (op.kind == OpKind::kPack || op.kind == OpKind::kUnpack) {
    ElementType from = op.operands[0].type().element(), to = op.results[0]->type.element();
    if (IsInt4(from) || IsInt4(to)) return b.Unsupported(op, Cat(op.name(), " of ", IrName(IsInt4(to) ? to : from)));
  }
  return absl::OkStatus();
}

int32_t ExecValue(Exec& x, const Op& op) {
  switch (op.kind) {
    case OpKind::kConst:
      return Const(x, op);
    case OpKind::kIota:
      return Iota(x, op);
    case OpKind::kBroadcast: {
      Val in = x.Get(op.operands[0]);
      Val out = Val::Of(op.results[0]->type);
      for (int64_t i = 0; i < out.count(); ++i) {
        out.set(i, in.at(0));
        out.set_shadow(i, in.shadow_at(0));
      }
      out.Settle(in.origin);
      x.Set(op.results[0], std::move(out));
      return 0;
    }
    case OpKind::kExtract:
    case OpKind::kInsert:
      return Element(x, op);
    case OpKind::kSlice:
    case OpKind::kConcat:
      return Shape(x, op);
    case OpKind::kReshape: {
      Val v = x.Get(op.operands[0]);
      v.type = op.results[0]->type;  // row-major: the same elements
      x.Set(op.results[0], std::move(v));
      return 0;
    }
    case OpKind::kPack:
    case OpKind::kUnpack:
      return Pack(x, op);
    default:
      return 0;
  }
}

}  // namespace scjit::interp
