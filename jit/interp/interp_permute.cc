// Permutations of vector values (kernel-ir.md §4.1; sc-semantics.md §3.13,
// §3.16; runtime.md §7.5, §7.11): sort, sort_key_val, rev and the value gather.
//
// A sort gives every lane an unsigned "order": from the top bit down, the
// masked-out flag, the key mapped to an unsigned order and the lane's own index
// (emit_permute.cc, SortOrder). Orders are distinct, so sorting them ascending
// is the emitter's bitonic network, stable in both directions.
#include <algorithm>
#include <bit>
#include <cmath>
#include <numeric>

#include "jit/interp/program.h"

namespace scjit::interp {
namespace {

Bits Ones(int bits) { return bits >= 64 ? ~Bits{0} : (Bits{1} << bits) - 1; }

// The keys' bits (`n` wide) mapped to integers whose unsigned ascending order is
// the sort's: floats numerically, -0 == +0, NaN after everything in both
// directions; signed integers in two's complement order when `signed_order`.
Bits SortOrder(Bits key, ElementType e, int n, bool signed_order, bool descending) {
  Bits sign = Bits{1} << (n - 1);
  Bits u = key & Ones(n);
  bool nan = false;
  if (IsFloat(e)) {
    double value = e == ElementType::kF64 ? std::bit_cast<double>(key) : ToF32(key, e);
    nan = std::isnan(value);
    if (value == 0) u = 0;
    u ^= ((u & sign) != 0 ? Ones(n) : sign);
  } else if (signed_order) {
    u ^= sign;
  }
  if (descending) u = ~u & Ones(n);
  if (nan) u = Ones(n);
  return u;
}

struct SortShape {
  int key_bits = 0, index_bits = 0;
  bool key_val = false, masked = false;
};

SortShape ShapeOf(const Op& op) {
  SortShape s;
  const Type& t = op.operands[0].value->type;
  s.key_val = op.kind == OpKind::kSortKeyVal;
  s.key_bits = IsInt4(t.element()) ? 8 : BitWidth(t.element());
  s.index_bits = std::countr_zero(static_cast<uint64_t>(t.NumElements()));
  s.masked = s.key_val && op.mask.has_value();
  return s;
}

int32_t Sort(Exec& x, const Op& op) {
  SortShape shape = ShapeOf(op);
  Val keys = x.Get(op.operands[0]);
  ElementType e = keys.element();
  int64_t lanes = keys.count();
  const Attribute* desc = op.FindAttr("descending");
  bool descending = shape.key_val && desc != nullptr && desc->value.operand.int_value != 0;
  bool is_signed = Info(e).kind == ElementKind::kSigned;
  // lax.sort compares integers as unsigned, like the hardware, before JAX
  // 0.12.1 (which flips i32 keys' sign bits): checked mode warns once a signed
  // key is negative.
  bool signed_order = is_signed && (shape.key_val || x.program.options.signed_sort_keys);
  if (is_signed && !signed_order && (x.ctx->checks & SCJIT_CHECK_SORT_SIGN) != 0) {
    bool negative = false;  // (of the written keys: the poison of a padding lane is no user's key)
    for (int64_t i = 0; i < lanes; ++i) {
      negative = negative || (keys.shadow_at(i) == 0 && SignExtend(WidenInt4(keys.at(i), e), shape.key_bits) < 0);
    }
    if (negative) {
      if (int32_t s = scjit_rt_warning(x.ctx, x.program.SitesOf(op).main, SCJIT_WARN_SORT_SIGN); s != 0) return s;
    }
  }
  std::optional<Val> mask;
  if (shape.masked) mask = x.Get(*op.mask);
  Bits out_flag = Bits{1} << (shape.key_bits + shape.index_bits);
  std::vector<Bits> order(static_cast<size_t>(lanes));
  for (int64_t i = 0; i < lanes; ++i) {
    Bits key = SortOrder(WidenInt4(keys.at(i), e), e, shape.key_bits, signed_order, descending);
    order[i] = (key << shape.index_bits) | static_cast<Bits>(i);
    if (mask && (mask->at(i) & 1) == 0) order[i] = out_flag | static_cast<Bits>(i);
  }
  std::vector<int64_t> perm(static_cast<size_t>(lanes));
  std::iota(perm.begin(), perm.end(), 0);
  std::sort(perm.begin(), perm.end(), [&](int64_t a, int64_t b) { return order[a] < order[b]; });
  // Init check: an unwritten key the sort orders (a masked-in one, or any
  // with an unwritten mask) leaves the order, so every result, unwritten;
  // else each lane's bits move with it.
  bool unordered = false;
  int32_t origin = 0;
  for (int64_t i = 0; i < lanes; ++i) {
    bool mask_unwritten = mask && mask->shadow_at(i) != 0;
    bool on = !mask || (mask->at(i) & 1) != 0 || mask_unwritten;
    unordered = unordered || mask_unwritten || (on && keys.shadow_at(i) != 0);
  }
  for (size_t k = 0; k < op.operands.size() && origin == 0; ++k) origin = x.Get(op.operands[k]).origin;
  if (origin == 0 && mask) origin = mask->origin;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    Val in = x.Get(op.operands[k]);
    Val out = Val::Of(op.results[k]->type);
    for (int64_t i = 0; i < lanes; ++i) {
      out.set(i, in.at(perm[i]));
      out.set_shadow(i, unordered ? AllOnes(out.element()) : in.shadow_at(perm[i]));
    }
    out.Settle(unordered ? Computed(origin) : in.origin);
    x.Set(op.results[k], std::move(out));
  }
  if (shape.masked) {  // masked-in lanes come first
    Val out = Val::Of(op.results[2]->type);
    for (int64_t i = 0; i < lanes; ++i) {
      out.set(i, (order[perm[i]] & out_flag) == 0 ? 1 : 0);
      if (unordered) out.set_shadow(i, 1);
    }
    out.Settle(Computed(origin));
    x.Set(op.results[2], std::move(out));
  }
  return 0;
}

// Integer index `v` (element type `e`) modulo m, into [0, m), also for
// negative indices (runtime.md §7.11).
int64_t IndexModulo(Bits v, ElementType e, int64_t m) {
  bool is_signed = Info(e).kind == ElementKind::kSigned;
  int bits = std::max(32, ComputeBits(e));
  int64_t w = is_signed ? SignExtend(v, ComputeBits(e)) : static_cast<int64_t>(v & Ones(ComputeBits(e)));
  if (std::has_single_bit(static_cast<uint64_t>(m))) return static_cast<int64_t>(static_cast<Bits>(w) & (m - 1));
  if (is_signed) {
    int64_t r = w % m;
    return r < 0 ? r + m : r;
  }
  return static_cast<int64_t>((static_cast<Bits>(w) & Ones(bits)) % static_cast<Bits>(m));
}

// rev and gather along `axis`: out[o, i, n] = x[o, src(o, i, n), n], rev's src
// = M-1-i and gather's src = idx[o, i, n] mod M, M the axis' size in x.
int32_t Gather(Exec& x, const Op& op) {
  Val in = x.Get(op.operands[0]);
  const Type& out_t = op.results[0]->type;
  const Attribute* a = op.FindAttr("axis");
  int64_t axis = a != nullptr ? a->value.operand.int_value : 0;
  bool rev = op.kind == OpKind::kRev;
  int64_t m = in.type.shape()[axis], to_axis = out_t.shape()[axis];
  int64_t in_inner = 1, to_inner = 1;
  for (int d = static_cast<int>(axis) + 1; d < out_t.rank(); ++d) {
    in_inner *= in.type.shape()[d];
    to_inner *= out_t.shape()[d];
  }
  std::optional<Val> idx;
  if (!rev) idx = x.Get(op.operands[1]);
  Val out = Val::Of(out_t);
  for (int64_t k = 0; k < out.count(); ++k) {
    int64_t inner = k % to_inner, row = k / to_inner, outer = row / to_axis;
    int64_t j = rev ? m - 1 - row % to_axis : IndexModulo(idx->at(k), idx->element(), m);
    int64_t src = (outer * m + j) * in_inner + inner;
    out.set(k, in.at(src));
    // Init check: the element moves with its bits; an unwritten index leaves it unwritten.
    out.set_shadow(k, in.shadow_at(src) | (idx && idx->shadow_at(k) != 0 ? AllOnes(out.element()) : 0));
  }
  bool computed = idx && !idx->written();
  int32_t origin = in.origin != 0 ? in.origin : idx ? idx->origin : 0;
  out.Settle(computed ? Computed(origin) : origin);
  x.Set(op.results[0], std::move(out));
  return 0;
}

}  // namespace

absl::Status PreparePermute(Builder& b, const Op& op) {
  switch (op.kind) {
    case OpKind::kSort:
    case OpKind::kSortKeyVal: {
      const Type& t = op.operands[0].value->type;
      int64_t lanes = t.NumElements();
      if (t.rank() != 1 || !std::has_single_bit(static_cast<uint64_t>(lanes))) {
        return b.Unsupported(op, Cat("sorting ", t.ToString(), " (sorts take (L,) vectors, L a power of two)"));
      }
      for (const Operand& o : op.operands) {
        if (o.value->type.NumElements() != lanes) {
          return b.Unsupported(op, Cat("sorting operands of different lengths (", o.value->type.ToString(), ")"));
        }
      }
      if (const Attribute* a = op.FindAttr("num_keys"); a != nullptr && a->value.operand.int_value != 1) {
        return b.Unsupported(op, "sorts with more than one key");
      }
      SortShape s = ShapeOf(op);
      if (s.key_bits + s.index_bits + (s.masked ? 1 : 0) > 64) {
        return b.Unsupported(op, Cat("sorting ", IrName(t.element()), " keys"));
      }
      if (!s.key_val && Info(t.element()).kind == ElementKind::kSigned) {
        b.SitesOf(op).main = b.Site(op, std::string(IrName(t.element())));
      }
      return absl::OkStatus();
    }
    case OpKind::kRev:
    case OpKind::kGather: {
      const Type& xt = op.operands[0].value->type;
      const Type& out = op.results[0]->type;
      const Attribute* a = op.FindAttr("axis");
      int64_t axis = a != nullptr ? a->value.operand.int_value : 0;
      for (int d = 0; d < out.rank(); ++d) {
        if (out.rank() != xt.rank() || (d != axis && out.shape()[d] != xt.shape()[d])) {
          return b.Unsupported(op, Cat("gathering ", out.ToString(), " from ", xt.ToString(),
                                       " (the indices must have the value's shape but along the axis)"));
        }
      }
      return absl::OkStatus();
    }
    default:
      return b.Unsupported(op, op.name());
  }
}

int32_t ExecPermute(Exec& x, const Op& op) {
  return op.kind == OpKind::kSort || op.kind == OpKind::kSortKeyVal ? Sort(x, op) : Gather(x, op);
}

}  // namespace scjit::interp
