// Elementwise ops (kernel-ir.md §4.1): arithmetic, math, cmp, select, clamp,
// convert and bitcast, element by element (elements.h has their semantics).
#include <cstring>

#include "jit/interp/program.h"

namespace scjit::interp {
namespace {

// The operands' elements at position i (a scalar operand is every position's),
// and their shadows.
struct Operands {
  std::vector<Val> vals;
  Bits at(size_t k, int64_t i) const { return vals[k].type.is_vector() ? vals[k].at(i) : vals[k].at(0); }
  Bits shadow(size_t k, int64_t i) const {
    return vals[k].type.is_vector() ? vals[k].shadow_at(i) : vals[k].shadow_at(0);
  }
  bool written() const {
    for (const Val& v : vals) {
      if (!v.written()) return false;
    }
    return true;
  }
  // The origin of the first operand that has one.
  int32_t origin() const {
    for (const Val& v : vals) {
      if (v.origin != 0) return v.origin;
    }
    return 0;
  }
};

// The init check's rules (runtime.md, "Init check"): an element computed from
// operands is unwritten in the bits `shadow(in, i)` gives; `copies`: the op
// moves its operands' bits without computing (a bitcast), so their origin stays
// a copy's. Without unwritten operands there is nothing to compute.
template <typename Fn, typename ShadowFn>
int32_t Elementwise(Exec& x, const Op& op, Fn&& compute, ShadowFn&& shadow, bool copies = false) {
  Operands in;
  for (const Operand& o : op.operands) in.vals.push_back(x.Get(o));
  Val out = Val::Of(op.results[0]->type);
  for (int64_t i = 0; i < out.count(); ++i) out.set(i, compute(in, i));
  if (!in.written()) {
    for (int64_t i = 0; i < out.count(); ++i) out.set_shadow(i, shadow(in, i));
    out.Settle(copies ? in.origin() : Computed(in.origin()));
  }
  x.Set(op.results[0], std::move(out));
  return 0;
}

// The shadow of an op that computes with every bit of its operands: any bit
// unwritten in an operand's element is one in the result's (OR, bit for bit,
// of operands of one width).
Bits AnyOperand(const Operands& in, int64_t i) {
  Bits s = 0;
  for (size_t k = 0; k < in.vals.size(); ++k) s |= in.shadow(k, i);
  return s;
}

// Values are row-major and the result has the same byte size: numpy's
// x.view(dtype) on a little-endian host. i1 elements are the bytes 0/1; bytes
// read as i1 are `byte != 0` (and unwritten when a bit of the byte is).
// The bytes of a row-major value of `shape` (..., R, C) of w-byte elements
// with its last two dimensions swapped.
std::vector<uint8_t> SwapMinor(const std::vector<uint8_t>& bytes, const Shape& shape, int w) {
  if (bytes.empty()) return bytes;
  int64_t r = shape[shape.size() - 2], c = shape.back();
  std::vector<uint8_t> out(bytes.size());
  size_t k = 0;
  for (size_t base = 0; base < bytes.size(); base += static_cast<size_t>(r * c * w)) {
    for (int64_t j = 0; j < c; ++j) {
      for (int64_t i = 0; i < r; ++i, k += w) std::memcpy(&out[k], &bytes[base + (i * c + j) * w], w);
    }
  }
  return out;
}

// pltpu.bitcast along the second-minor dimension ({dim = -2}): the minor
// bitcast of the transposed value, transposed back (the emitter's EmitRowBitcast).
bool RowBitcast(const Op& op) {
  const Attribute* a = op.FindAttr("dim");
  return a != nullptr && a->value.operand.int_value == -2;
}

int32_t Bitcast(Exec& x, const Op& op) {
  Val in = x.Get(op.operands[0]);
  Val out = Val::Of(op.results[0]->type);
  out.bytes = in.bytes;
  out.shadow = in.shadow;
  if (RowBitcast(op)) {
    Shape swapped = out.type.shape();
    std::swap(swapped[swapped.size() - 1], swapped[swapped.size() - 2]);
    out.bytes = SwapMinor(SwapMinor(in.bytes, in.type.shape(), in.width()), swapped, out.width());
    out.shadow = SwapMinor(SwapMinor(in.shadow, in.type.shape(), in.width()), swapped, out.width());
  }
  if (out.element() == ElementType::kI1) {
    for (uint8_t& byte : out.bytes) byte = byte != 0 ? 1 : 0;
    for (uint8_t& byte : out.shadow) byte = byte != 0 ? 1 : 0;
  }
  out.Settle(in.origin);
  x.Set(op.results[0], std::move(out));
  return 0;
}

}  // namespace

absl::Status PrepareElementwise(Builder& b, const Op& op) {
  if (op.kind == OpKind::kBitcast) {
    const Type in = op.operands[0].type(), out = op.results[0]->type;
    if (IsInt4(in.element()) || IsInt4(out.element())) {
      return b.Unsupported(op, Cat(op.name(), " from ", in.ToString(), " to ", out.ToString(), " (4-bit types)"));
    }
    // (The emitter's limits, which the engines share.)
    if (RowBitcast(op) && (in.element() == ElementType::kI1 || out.element() == ElementType::kI1 ||
                           in.NumElements() * ByteWidth(in.element()) > 512)) {
      return b.Unsupported(op, Cat("bitcast {dim = -2} from ", in.ToString(), " to ", out.ToString(),
                                   " (masks, 4-bit types and values over 512 bytes)"));
    }
    return absl::OkStatus();
  }
  if (op.info().has(kTcOnly)) return b.Unsupported(op, Cat("the TensorCore-only op ", op.name()));
  return absl::OkStatus();
}

int32_t ExecElementwise(Exec& x, const Op& op) {
  ElementType out = op.results[0]->type.element();
  switch (op.kind) {
    case OpKind::kCmp: {
      ElementType e = op.operands[0].type().element();
      return Elementwise(
          x, op, [&](const Operands& a, int64_t i) -> Bits { return Compare(op.predicate, a.at(0, i), a.at(1, i), e) ? 1 : 0; },
          [](const Operands& a, int64_t i) -> Bits { return AnyOperand(a, i) != 0 ? 1 : 0; });
    }
    case OpKind::kSelect: {
      // A written condition picks an operand's bits as they are; an unwritten
      // one leaves unwritten every bit the operands may differ in.
      auto shadow = [](const Operands& a, int64_t i) -> Bits {
        if ((a.shadow(0, i) & 1) != 0) return a.shadow(1, i) | a.shadow(2, i) | (a.at(1, i) ^ a.at(2, i));
        return (a.at(0, i) & 1) ? a.shadow(1, i) : a.shadow(2, i);
      };
      Operands cond;
      cond.vals.push_back(x.Get(op.operands[0]));
      return Elementwise(x, op, [&](const Operands& a, int64_t i) { return (a.at(0, i) & 1) ? a.at(1, i) : a.at(2, i); },
                         shadow, /*copies=*/cond.written());
    }
    case OpKind::kClamp:
      return Elementwise(
          x, op,
          [&](const Operands& a, int64_t i) {
            return Binary(OpKind::kMin, Binary(OpKind::kMax, a.at(1, i), a.at(0, i), out), a.at(2, i), out);
          },
          AnyOperand);
    case OpKind::kFmuladd:  // the product rounded, then the sum (arith.mulf, arith.addf)
      return Elementwise(
          x, op,
          [&](const Operands& a, int64_t i) {
            return Binary(OpKind::kAdd, Binary(OpKind::kMul, a.at(0, i), a.at(1, i), out), a.at(2, i), out);
          },
          AnyOperand);
    case OpKind::kRound:
      if (!op.RoundsToEven()) break;
      return Elementwise(x, op, [&](const Operands& a, int64_t i) { return RoundEven(a.at(0, i), out); }, AnyOperand);
    case OpKind::kConvert: {
      ElementType from = op.operands[0].type().element();
      return Elementwise(
          x, op, [&](const Operands& a, int64_t i) { return Convert(a.at(0, i), from, out); },
          [&](const Operands& a, int64_t i) { return a.shadow(0, i) != 0 ? AllOnes(out) : 0; });
    }
    case OpKind::kBitcast:
      return Bitcast(x, op);
    case OpKind::kAnd:
    case OpKind::kOr: {
      // A written 0 (and) or 1 (or) bit decides the result's bit whatever the
      // other operand's (MemorySanitizer's rule): `valid & (x > t)` is written
      // where `valid` is false.
      bool is_and = op.kind == OpKind::kAnd;
      Bits ones = AllOnes(out);
      return Elementwise(
          x, op, [&](const Operands& a, int64_t i) { return Binary(op.kind, a.at(0, i), a.at(1, i), out); },
          [&](const Operands& a, int64_t i) -> Bits {
            Bits sa = a.shadow(0, i), sb = a.shadow(1, i);
            Bits va = is_and ? a.at(0, i) : ~a.at(0, i) & ones, vb = is_and ? a.at(1, i) : ~a.at(1, i) & ones;
            return (sa & sb) | (va & sb) | (sa & vb);
          });
    }
    default:
      break;
  }
  if (op.operands.size() == 2) {
    return Elementwise(
        x, op, [&](const Operands& a, int64_t i) { return Binary(op.kind, a.at(0, i), a.at(1, i), out); }, AnyOperand);
  }
  return Elementwise(x, op, [&](const Operands& a, int64_t i) { return Unary(op.kind, a.at(0, i), out); }, AnyOperand);
}

}  // namespace scjit::interp
