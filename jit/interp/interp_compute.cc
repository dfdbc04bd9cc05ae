// Elementwise ops (kernel-ir.md §4.1): arithmetic, math, cmp, select, clamp,
// convert and bitcast, element by element (elements.h has their semantics).
#include "jit/interp/program.h"

namespace scjit::interp {
namespace {

// The operands' elements at position i (a scalar operand is every position's).
struct Operands {
  std::vector<Val> vals;
  Bits at(size_t k, int64_t i) const { return vals[k].type.is_vector() ? vals[k].at(i) : vals[k].at(0); }
};

template <typename Fn>
int32_t Elementwise(Exec& x, const Op& op, Fn&& compute) {
  Operands in;
  for (const Operand& o : op.operands) in.vals.push_back(x.Get(o));
  Val out = Val::Of(op.results[0]->type);
  for (int64_t i = 0; i < out.count(); ++i) out.set(i, compute(in, i));
  x.Set(op.results[0], std::move(out));
  return 0;
}

// Values are row-major and the result has the same byte size: numpy's
// x.view(dtype) on a little-endian host. i1 elements are the bytes 0/1; bytes
// read as i1 are `byte != 0`.
int32_t Bitcast(Exec& x, const Op& op) {
  Val in = x.Get(op.operands[0]);
  Val out = Val::Of(op.results[0]->type);
  out.bytes = in.bytes;
  if (out.element() == ElementType::kI1) {
    for (uint8_t& byte : out.bytes) byte = byte != 0 ? 1 : 0;
  }
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
      return Elementwise(x, op, [&](const Operands& a, int64_t i) -> Bits {
        return Compare(op.predicate, a.at(0, i), a.at(1, i), e) ? 1 : 0;
      });
    }
    case OpKind::kSelect:
      return Elementwise(x, op, [&](const Operands& a, int64_t i) { return (a.at(0, i) & 1) ? a.at(1, i) : a.at(2, i); });
    case OpKind::kClamp:
      return Elementwise(x, op, [&](const Operands& a, int64_t i) {
        return Binary(OpKind::kMin, Binary(OpKind::kMax, a.at(1, i), a.at(0, i), out), a.at(2, i), out);
      });
    case OpKind::kConvert: {
      ElementType from = op.operands[0].type().element();
      return Elementwise(x, op, [&](const Operands& a, int64_t i) { return Convert(a.at(0, i), from, out); });
    }
    case OpKind::kBitcast:
      return Bitcast(x, op);
    default:
      break;
  }
  if (op.operands.size() == 2) {
    return Elementwise(x, op, [&](const Operands& a, int64_t i) { return Binary(op.kind, a.at(0, i), a.at(1, i), out); });
  }
  return Elementwise(x, op, [&](const Operands& a, int64_t i) { return Unary(op.kind, a.at(0, i), out); });
}

}  // namespace scjit::interp
