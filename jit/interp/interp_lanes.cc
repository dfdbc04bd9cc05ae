// Cross-lane ops (kernel-ir.md §4.1; sc-semantics.md §3.10-3.14; runtime.md §7.2,
// §7.3, §7.6, §7.10): reductions, cumulative ops, scan_count and the mask
// all-reduces, lane by lane as emit_lanes.cc defines them.
#include <cmath>

#include "jit/interp/program.h"
#include "lowering/analysis/lane_ops.h"
#include "lowering/base/float8.h"

namespace scjit::interp {
namespace {

Bits Mask(ElementType e) {
  int w = ComputeBits(e);
  return w >= 64 ? ~Bits{0} : (Bits{1} << w) - 1;
}

Bits CombineValues(Combine c, Bits a, Bits b, ElementType e) {
  if (IsNarrowFloat(e)) {
    Bits r = CombineValues(c, F32Bits(ToF32(a, e)), F32Bits(ToF32(b, e)), ElementType::kF32);
    return FromF32(std::bit_cast<float>(static_cast<uint32_t>(r)), e);
  }
  if (IsInt4(e)) return NarrowInt4(CombineValues(c, WidenInt4(a, e), WidenInt4(b, e), Int4Compute(e)), e);
  switch (c) {
    case Combine::kSum:
      return Binary(OpKind::kAdd, a, b, e);
    case Combine::kMax:
    case Combine::kMin: {
      if (IsFloat(e)) return Binary(c == Combine::kMax ? OpKind::kMax : OpKind::kMin, a, b, e);
      int w = ComputeBits(e);
      bool less = SignedOrder(e) ? SignExtend(a, w) < SignExtend(b, w) : (a & Mask(e)) < (b & Mask(e));
      return (c == Combine::kMax) != less ? a : b;
    }
    case Combine::kAnd:
      return a & b;
    case Combine::kOr:
      return a | b;
  }
  return 0;
}

Bits Identity(Combine c, ElementType e) {
  int w = ComputeBits(e);
  auto float_bits = [&](double v) {
    return e == ElementType::kF64 ? std::bit_cast<uint64_t>(v) : FromF32(static_cast<float>(v), e);
  };
  switch (c) {
    case Combine::kSum:  // -0.0 + x is x for every x, +0.0 included
      return IsFloat(e) ? float_bits(-0.0) : 0;
    case Combine::kMax:
      if (IsFloat(e)) return float_bits(-INFINITY);
      return SignedOrder(e) ? Bits{1} << (w - 1) : 0;
    case Combine::kMin:
      if (IsFloat(e)) return float_bits(INFINITY);
      return SignedOrder(e) ? Mask(e) >> 1 : Mask(e);
    case Combine::kAnd:
      return Mask(e);
    case Combine::kOr:
      return 0;
  }
  return 0;
}

int32_t Reduce(Exec& x, const Op& op) {
  Val in = x.Get(op.operands[0]);
  ElementType t = in.element(), e = Int4Compute(t);  // 4-bit integers reduce widened
  Combine c = CombineOf(op.kind);
  // Float sums are ordered, left to right from -0.0; the other combines are
  // associative, so the order the emitter's vector code takes does not show.
  Bits acc = Identity(c, e);
  for (int64_t i = 0; i < in.count(); ++i) acc = CombineValues(c, acc, WidenInt4(in.at(i), t), e);
  Val out = Val::Of(op.results[0]->type);
  out.set(0, NarrowInt4(acc, t));
  // Init check: one unwritten element leaves the whole result unwritten.
  if (!in.written()) out.set_shadow(0, AllOnes(out.element()));
  out.Settle(Computed(in.origin));
  x.Set(op.results[0], std::move(out));
  return 0;
}

// Init check of a scan: lane i is unwritten once any lane up to it (of x or
// of the mask) is.
void ScanShadow(const Val& in, const std::optional<Val>& mask, Val* out) {
  bool any = false;
  for (int64_t i = 0; i < in.count(); ++i) {
    any = any || in.shadow_at(i) != 0 || (mask && mask->shadow_at(i) != 0);
    if (any) out->set_shadow(i, AllOnes(out->element()));
  }
  out->Settle(Computed(in.origin != 0 ? in.origin : mask ? mask->origin : 0));
}

// Init check of a lane op whose every lane depends on its whole row (of x,
// and of the mask): an unwritten one leaves every lane of the row unwritten.
void RowShadow(const Val& in, const std::optional<Val>& mask, int64_t n, Val* out) {
  for (int64_t row = 0; row < in.count(); row += n) {
    bool any = false;
    for (int64_t j = row; j < row + n; ++j) any = any || in.shadow_at(j) != 0 || (mask && mask->shadow_at(j) != 0);
    for (int64_t j = row; j < row + n && any; ++j) out->set_shadow(j, AllOnes(out->element()));
  }
  out->Settle(Computed(in.origin != 0 ? in.origin : mask ? mask->origin : 0));
}

// cumsum/cummax/cummin, with or without a mask: lanes before the first
// masked-in lane pass x through, masked-off lanes after it hold the running value.
int32_t Scan(Exec& x, const Op& op) {
  Val in = x.Get(op.operands[0]);
  std::optional<Val> mask;
  if (op.mask) mask = x.Get(*op.mask);
  ElementType t = in.element(), e = Int4Compute(t);
  Combine c = CombineOf(op.kind);
  Bits run = Identity(c, e);
  bool seen = false;
  Val out = Val::Of(op.results[0]->type);
  for (int64_t i = 0; i < in.count(); ++i) {
    Bits xi = WidenInt4(in.at(i), t);
    bool m = !mask || (mask->at(i) & 1) != 0;
    if (m) run = CombineValues(c, run, xi, e);
    seen = seen || m;
    out.set(i, NarrowInt4(seen ? run : xi, t));
  }
  ScanShadow(in, mask, &out);
  x.Set(op.results[0], std::move(out));
  return 0;
}

// scan_count along the minor dimension, with bitwise equality:
//   count[i] = mask[i] ? #{j <= i in i's row : mask[j] and x[j] == x[i]} : 1
//   last[i]  = mask[i] and no j > i in i's row has mask[j] and x[j] == x[i]
int32_t ScanCount(Exec& x, const Op& op) {
  Val in = x.Get(op.operands[0]);
  std::optional<Val> mask;
  if (op.mask) mask = x.Get(*op.mask);
  auto m = [&](int64_t i) { return !mask || (mask->at(i) & 1) != 0; };
  int64_t n = in.type.shape().back();
  Val count = Val::Of(op.results[0]->type), last = Val::Of(op.results[1]->type);
  for (int64_t i = 0; i < in.count(); ++i) {
    int64_t row = i / n * n;
    uint32_t before = 0;
    bool later = false;
    for (int64_t j = row; j < row + n; ++j) {
      bool eq = in.at(j) == in.at(i) && m(j);
      if (eq && j < i) ++before;
      if (eq && j > i) later = true;
    }
    count.set(i, m(i) ? before + 1 : 1);
    last.set(i, m(i) && !later ? 1 : 0);
  }
  RowShadow(in, mask, n, &count);
  RowShadow(in, mask, n, &last);
  x.Set(op.results[0], std::move(count));
  x.Set(op.results[1], std::move(last));
  return 0;
}

// popcount_all / ffs_all: every element holds the mask's count of set lanes, or
// its first set lane (the mask's length when none is).
int32_t MaskReduce(Exec& x, const Op& op) {
  Val m = x.Get(op.operands[0]);
  int64_t n = m.count(), count = 0, first = n;
  for (int64_t i = 0; i < n; ++i) {
    if ((m.at(i) & 1) == 0) continue;
    ++count;
    first = std::min(first, i);
  }
  Val out = Val::Of(op.results[0]->type);
  for (int64_t i = 0; i < out.count(); ++i) {
    out.set(i, static_cast<uint32_t>(op.kind == OpKind::kPopcountAll ? count : first));
    if (!m.written()) out.set_shadow(i, AllOnes(out.element()));
  }
  out.Settle(Computed(m.origin));
  x.Set(op.results[0], std::move(out));
  return 0;
}

}  // namespace

absl::Status PrepareLanes(Builder& b, const Op& op) {
  bool scan = op.info().family == OpFamily::kScan && op.kind != OpKind::kScanCount;
  if (op.info().family == OpFamily::kReduction || scan) {
    ElementType e = op.operands[0].type().element();
    if (IsFloat8(e)) return b.Unsupported(op, Cat(op.name(), " of ", IrName(e)));
  }
  return absl::OkStatus();
}

int32_t ExecLanes(Exec& x, const Op& op) {
  switch (op.info().family) {
    case OpFamily::kReduction:
      return Reduce(x, op);
    case OpFamily::kScan:
      return op.kind == OpKind::kScanCount ? ScanCount(x, op) : Scan(x, op);
    default:
      return MaskReduce(x, op);
  }
}

}  // namespace scjit::interp
