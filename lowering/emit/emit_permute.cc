// Permutation value ops (kernel-ir.md §4.1; sc-semantics.md §3.13, §3.16;
// runtime.md §7.5, §7.11): sort, sort_key_val, rev and the value gather.
//
// Sorts are a bitonic network over the L lanes (shufflevector, one compare,
// selects), never a loop: every lane gets an unsigned "order" integer that holds,
// from the top bit down, the masked-out flag, the key mapped to an unsigned order
// and the lane's own index. Orders are distinct, so the network needs no tie
// rule, and stability in both directions comes from the index bits; keys and
// values follow the same selects. rev is a shuffle; gather reads a stack copy of
// its value with LLVM's masked.gather, chunk by chunk for large values.
#include <bit>

#include "lowering/emit/emitter.h"
#include "llvm/IR/Constants.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

// Lane i's partner in each step of the bitonic network over `lanes` lanes (a
// power of two), and whether lane i keeps the larger order of the two.
struct NetworkStep {
  std::vector<int> partner;
  std::vector<bool> keeps_max;
};

std::vector<NetworkStep> BitonicSteps(int64_t lanes) {
  std::vector<NetworkStep> steps;
  for (int64_t k = 2; k <= lanes; k *= 2) {      // sorted runs of k/2 merge into runs of k
    for (int64_t j = k / 2; j >= 1; j /= 2) {   // compare lanes j apart
      NetworkStep s;
      for (int64_t i = 0; i < lanes; ++i) {
        int64_t p = i ^ j;
        bool ascending = (i & k) == 0;
        s.partner.push_back(static_cast<int>(p));
        s.keeps_max.push_back((i < p) != ascending);
      }
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

// Row-major element `k` of a shape split around one axis as (outer, i, inner).
struct AxisSplit {
  int64_t axis_size = 1;  // the axis' size in the shape being indexed
  int64_t inner = 1;      // elements after the axis
};

AxisSplit SplitAt(const Type& t, int64_t axis) {
  AxisSplit s;
  s.axis_size = t.shape()[axis];
  for (int d = static_cast<int>(axis) + 1; d < t.rank(); ++d) s.inner *= t.shape()[d];
  return s;
}

int64_t AxisAttr(const Op& op) {
  const Attribute* a = op.FindAttr("axis");
  return a != nullptr ? a->value.operand.int_value : 0;
}

}  // namespace

absl::Status Emitter::EmitPermuteOp(const Op& op) {
  switch (op.kind) {
    case OpKind::kSort:
    case OpKind::kSortKeyVal:
      return EmitSort(op);
    case OpKind::kRev:
    case OpKind::kGather:
      return EmitGather(op);
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

// The keys (L lanes of element type `e`) mapped to integers of their width whose
// unsigned ascending order is the order the op sorts them in:
//   floats: numeric, -0 == +0, NaN after everything in both directions (numpy's
//           sort, and argsort(-key) for descending: runtime.md §7.5 is silent);
//   signed: two's complement order (sort_key_val's i32), else unsigned bits.
llvm::Value* Emitter::SortOrder(llvm::Value* keys, ElementType e, bool signed_order, bool descending) {
  auto* vty = llvm::cast<llvm::FixedVectorType>(keys->getType());
  unsigned n = vty->getScalarSizeInBits();
  auto* ity = llvm::FixedVectorType::get(b_.getIntNTy(n), vty->getNumElements());
  auto splat = [&](const llvm::APInt& v) { return llvm::ConstantInt::get(ity, v); };
  llvm::Value* sign = splat(llvm::APInt::getSignMask(n));
  llvm::Value* u = b_.CreateBitCast(keys, ity);
  // The keys' values, for the compares (8-bit floats are i8 patterns; like every
  // float format here they are sign-magnitude, so the bit order below holds).
  llvm::Value* values = ToF32(keys, e);
  if (IsFloat(e)) {
    // Zeros lose their sign; then negatives (sign set) flip every bit and
    // positives only the sign, which orders the bits like the numbers.
    llvm::Value* zero = b_.CreateFCmpOEQ(values, llvm::Constant::getNullValue(values->getType()));
    u = b_.CreateSelect(zero, llvm::Constant::getNullValue(ity), u);
    u = b_.CreateXor(u, b_.CreateOr(b_.CreateAShr(u, static_cast<uint64_t>(n - 1)), sign));
  } else if (signed_order) {
    u = b_.CreateXor(u, sign);
  }
  if (descending) u = b_.CreateNot(u);
  if (IsFloat(e)) u = b_.CreateSelect(b_.CreateFCmpUNO(values, values), splat(llvm::APInt::getAllOnes(n)), u);
  return u;
}

// sort (lax.sort) and sort_key_val (plsc.sort_key_val) of (L,) vectors.
absl::Status Emitter::EmitSort(const Op& op) {
  const auto& ops = op.operands;
  const Type& t = ops[0].value->type;
  ElementType e = t.element();
  int64_t lanes = t.NumElements();
  bool key_val = op.kind == OpKind::kSortKeyVal;
  if (t.rank() != 1 || !std::has_single_bit(static_cast<uint64_t>(lanes))) {
    return Unsupported(kernel_, op, Cat("sorting ", t.ToString(), " (sorts take (L,) vectors, L a power of two)"));
  }
  for (const Operand& o : ops) {
    if (o.value->type.NumElements() != lanes) {
      return Unsupported(kernel_, op, Cat("sorting operands of different lengths (", o.value->type.ToString(), ")"));
    }
  }
  if (const Attribute* a = op.FindAttr("num_keys"); a != nullptr && a->value.operand.int_value != 1) {
    return Unsupported(kernel_, op, "sorts with more than one key");
  }
  const Attribute* desc = op.FindAttr("descending");
  bool descending = key_val && desc != nullptr && desc->value.operand.int_value != 0;
  // 4-bit keys order by their 8-bit widening (the same order); the payload moves as it is.
  llvm::Value* keys = WidenInt4(ValueOf(ops[0]), e);
  unsigned key_bits = keys->getType()->getScalarSizeInBits();
  unsigned index_bits = static_cast<unsigned>(std::countr_zero(static_cast<uint64_t>(lanes)));
  bool masked = key_val && op.mask.has_value();
  unsigned used = key_bits + index_bits + (masked ? 1 : 0);
  if (used > 64) return Unsupported(kernel_, op, Cat("sorting ", IrName(e), " keys"));

  // lax.sort compares integers as unsigned, like the hardware (runtime.md §7.5),
  // before JAX 0.12.1: checked mode warns once a signed key is negative (one
  // compare, one branch).
  bool is_signed = Info(e).kind == ElementKind::kSigned;
  bool signed_order = is_signed && (key_val || options_.signed_sort_keys);
  if (is_signed && !signed_order) {
    // (Of the written keys: the poison of a padding lane is no user's key.)
    llvm::Value* neg = b_.CreateICmpSLT(keys, llvm::Constant::getNullValue(keys->getType()));
    if (HasShadow(ops[0])) {
      llvm::Value* s = ShadowOf(ops[0]);
      neg = b_.CreateAnd(neg, b_.CreateICmpEQ(s, llvm::Constant::getNullValue(s->getType())));
    }
    llvm::Value* negative = b_.CreateOrReduce(neg);
    llvm::Value* on = b_.CreateICmpNE(b_.CreateAnd(Ctx(CtxField::kChecks), I32(SCJIT_CHECK_SORT_SIGN)),
                                      I32(0));
    llvm::BasicBlock* warn = llvm::BasicBlock::Create(ctx_, "sort_sign", fn_);
    llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "sorted_sign", fn_);
    b_.CreateCondBr(b_.CreateAnd(negative, on), warn, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
    b_.SetInsertPoint(warn);
    CallChecked(RuntimeFn::kWarning, {ctx_arg_, I32(Site(op, std::string(IrName(e)))), I32(SCJIT_WARN_SORT_SIGN)});
    b_.CreateBr(cont);
    b_.SetInsertPoint(cont);
  }

  // order = masked-out flag | key order | lane index, in 32 or 64 bits.
  llvm::Type* order_elem = b_.getIntNTy(used <= 32 ? 32 : 64);
  auto* order_ty = llvm::FixedVectorType::get(order_elem, static_cast<unsigned>(lanes));
  std::vector<llvm::Constant*> iota;
  for (int64_t i = 0; i < lanes; ++i) iota.push_back(llvm::ConstantInt::get(order_elem, static_cast<uint64_t>(i)));
  llvm::Value* lane = llvm::ConstantVector::get(iota);
  llvm::Value* key_order = SortOrder(keys, e, signed_order, descending);
  llvm::Value* order =
      b_.CreateOr(b_.CreateShl(b_.CreateZExt(key_order, order_ty), static_cast<uint64_t>(index_bits)), lane);
  llvm::Constant* out_flag = nullptr;  // masked-out lanes: the flag and their index
  if (masked) {
    out_flag = llvm::ConstantInt::get(order_ty, uint64_t{1} << (key_bits + index_bits));
    order = b_.CreateSelect(ValueOf(*op.mask), order, b_.CreateOr(lane, out_flag));
  }

  std::vector<llvm::Value*> payload;
  for (const Operand& o : ops) payload.push_back(ValueOf(o));
  // Init check: each operand's shadow moves with its lanes (a payload too).
  bool shadows = std::any_of(ops.begin(), ops.end(), [&](const Operand& o) { return HasShadow(o); }) ||
                 (masked && HasShadow(*op.mask));
  if (shadows) {
    for (const Operand& o : ops) payload.push_back(ShadowOf(o));
  }
  for (const NetworkStep& s : BitonicSteps(lanes)) {
    llvm::Value* other = b_.CreateShuffleVector(order, s.partner);
    std::vector<llvm::Constant*> flip;
    for (bool m : s.keeps_max) flip.push_back(b_.getInt1(m));
    // Orders are distinct: a lane keeping the minimum takes its partner's when
    // that is smaller, a lane keeping the maximum when it is not.
    llvm::Value* take = b_.CreateXor(b_.CreateICmpULT(other, order), llvm::ConstantVector::get(flip));
    order = b_.CreateSelect(take, other, order);
    for (llvm::Value*& v : payload) v = b_.CreateSelect(take, b_.CreateShuffleVector(v, s.partner), v);
  }
  for (size_t i = 0; i < ops.size(); ++i) Set(op.results[i], payload[i]);
  if (masked) {
    // Masked-in lanes come first: out_mask[i] = i < popcount(mask).
    Set(op.results[2], b_.CreateICmpEQ(b_.CreateAnd(order, out_flag), llvm::Constant::getNullValue(order_ty)));
  }
  if (shadows) {
    // An unwritten key the sort orders (a masked-in one, or any with an
    // unwritten mask) leaves the order, so every result, unwritten; else each
    // lane's bits moved with it.
    llvm::Value* key_bad = b_.CreateICmpNE(ShadowOf(ops[0]), llvm::Constant::getNullValue(ShadowTy(ops[0].type())));
    llvm::Value* unordered = nullptr;
    llvm::Value* origin = nullptr;
    for (const Operand& o : ops) origin = FirstOrigin({origin, OriginOf(o)});
    if (masked) {
      llvm::Value* m = ValueOf(*op.mask);
      llvm::Value* sm = ShadowOf(*op.mask);
      unordered = b_.CreateOr(b_.CreateOrReduce(sm), b_.CreateOrReduce(b_.CreateAnd(key_bad, b_.CreateOr(m, sm))));
      origin = FirstOrigin({origin, OriginOf(*op.mask)});
    } else {
      unordered = b_.CreateOrReduce(key_bad);
    }
    for (size_t i = 0; i < ops.size(); ++i) {
      llvm::Value* sh = payload[ops.size() + i];
      llvm::Value* all = llvm::Constant::getAllOnesValue(sh->getType());
      SetShadow(op.results[i], b_.CreateSelect(unordered, all, sh),
                b_.CreateSelect(unordered, MarkComputed(origin), OriginOf(ops[i])), /*settle=*/false);
    }
    if (masked) {
      llvm::Value* all = llvm::Constant::getAllOnesValue(ShadowTy(op.results[2]->type));
      SetShadow(op.results[2], b_.CreateSelect(unordered, all, llvm::Constant::getNullValue(all->getType())),
                b_.CreateSelect(unordered, MarkComputed(origin), I32(0)), /*settle=*/false);
    }
  }
  return absl::OkStatus();
}

// rev and gather along `axis`: out[o, i, n] = x[o, src(o, i, n), n] with
// rev's src = M-1-i and gather's src = idx[o, i, n] mod M (into [0, M), also for
// negative indices: runtime.md §7.11), M being the axis' size in x.
absl::Status Emitter::EmitGather(const Op& op) {
  const Operand& x = op.operands[0];
  const Type& xt = x.value->type;
  const Type& out = op.results[0]->type;
  int64_t axis = AxisAttr(op);
  bool rev = op.kind == OpKind::kRev;
  for (int d = 0; d < out.rank(); ++d) {
    if (out.rank() != xt.rank() || (d != axis && out.shape()[d] != xt.shape()[d])) {
      return Unsupported(kernel_, op,
                         Cat("gathering ", out.ToString(), " from ", xt.ToString(),
                             " (the indices must have the value's shape but along the axis)"));
    }
  }
  AxisSplit in = SplitAt(xt, axis), to = SplitAt(out, axis);
  int64_t m = in.axis_size;
  int64_t n = out.NumElements();
  if (rev && !Large(out)) {
    // A static permutation: one shuffle.
    std::vector<int> mask;
    for (int64_t k = 0; k < n; ++k) {
      int64_t i = k / to.inner % to.axis_size, outer = k / (to.inner * to.axis_size), inner = k % to.inner;
      mask.push_back(static_cast<int>((outer * m + (m - 1 - i)) * in.inner + inner));
    }
    Set(op.results[0], b_.CreateShuffleVector(ValueOf(x), mask));
    if (HasShadow(x)) SetShadow(op.results[0], b_.CreateShuffleVector(ShadowOf(x), mask), OriginOf(x), false);
    return absl::OkStatus();
  }
  ElementType e = out.element();
  llvm::Type* elem = BufferElemTy(e);
  llvm::Value* src = AsBuffer(x);
  const Operand* idx = rev ? nullptr : &op.operands[1];
  llvm::Value* idx_buffer = idx != nullptr && (Large(idx->value->type) || Large(out)) ? AsBuffer(*idx) : nullptr;
  // Init check: an element moves with its bits (from x's shadow, gathered as
  // x is); an unwritten index leaves it wholly unwritten.
  bool shadows = HasShadow(x) || (idx != nullptr && HasShadow(*idx));
  llvm::Value* shadow_src = shadows ? ShadowAsBuffer(x) : nullptr;
  ElementType se = ShadowElem(e);
  llvm::Value* chunk_shadow = nullptr;  // the last chunk's shadow
  // The elements [first, first + width) of the result, gathered from `src`.
  auto chunk = [&](llvm::Value* first, int64_t width) -> llvm::Value* {
    auto* i32v = llvm::FixedVectorType::get(b_.getInt32Ty(), static_cast<unsigned>(width));
    std::vector<llvm::Constant*> iota;
    for (int64_t i = 0; i < width; ++i) iota.push_back(b_.getInt32(static_cast<uint32_t>(i)));
    llvm::Value* k = b_.CreateAdd(b_.CreateVectorSplat(static_cast<unsigned>(width), b_.CreateTrunc(first, b_.getInt32Ty())),
                                  llvm::ConstantVector::get(iota));
    auto c = [&](int64_t v) { return llvm::ConstantInt::get(i32v, static_cast<uint64_t>(v)); };
    llvm::Value* inner = b_.CreateURem(k, c(to.inner));
    llvm::Value* row = b_.CreateUDiv(k, c(to.inner));
    llvm::Value* outer = b_.CreateUDiv(row, c(to.axis_size));
    llvm::Value* j;
    if (rev) {
      j = b_.CreateSub(c(m - 1), b_.CreateURem(row, c(to.axis_size)));
    } else {
      ElementType ie = idx->value->type.element();
      llvm::Value* iv = idx_buffer != nullptr ? LoadChunk(idx_buffer, ie, first, width) : ValueOf(*idx);
      j = IndexModulo(iv, ie, m);
    }
    llvm::Value* at = b_.CreateAdd(b_.CreateMul(b_.CreateAdd(b_.CreateMul(outer, c(m)), j), c(in.inner)), inner);
    auto gather = [&](llvm::Value* from, llvm::Type* ty) {
      llvm::Value* v = b_.CreateMaskedGather(llvm::FixedVectorType::get(ty, static_cast<unsigned>(width)),
                                             b_.CreateGEP(ty, from, at), llvm::Align(ty->getScalarSizeInBits() / 8));
      return e == ElementType::kI1
                 ? b_.CreateTrunc(v, llvm::FixedVectorType::get(b_.getInt1Ty(), static_cast<unsigned>(width)))
                 : v;
    };
    if (shadows) {
      chunk_shadow = gather(shadow_src, BufferElemTy(se));
      if (idx != nullptr && HasShadow(*idx)) {
        llvm::Value* si = idx_buffer != nullptr ? ShadowChunkOf(*idx, first, width) : ShadowOf(*idx);
        chunk_shadow = b_.CreateOr(chunk_shadow, Spread(si, chunk_shadow->getType()));
      }
    }
    return gather(src, elem);
  };
  llvm::Value* origin = nullptr;
  if (shadows) {
    origin = FirstOrigin({OriginOf(x), idx != nullptr ? OriginOf(*idx) : nullptr});
    if (idx != nullptr && HasShadow(*idx)) origin = b_.CreateSelect(AnyShadow(*idx), MarkComputed(origin), origin);
  }
  if (!Large(out)) {
    Set(op.results[0], chunk(I64(0), n));
    if (shadows) SetShadow(op.results[0], chunk_shadow, origin);
    return absl::OkStatus();
  }
  llvm::Value* buffer = NewBuffer(out);
  llvm::Value* shadow = shadows ? NewShadowBuffer(out) : nullptr;
  absl::Status s = ForChunks(n, [&](llvm::Value* first, int64_t width) {
    StoreChunk(buffer, e, first, chunk(first, width));
    if (shadows) StoreChunk(shadow, se, first, chunk_shadow);
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  SetBuffer(op.results[0], buffer);
  if (shadows) SetShadowBuffer(op.results[0], shadow, origin);
  return absl::OkStatus();
}

// Integer indices `iv` (element type `e`) modulo m, into [0, m), as i32 lanes.
llvm::Value* Emitter::IndexModulo(llvm::Value* iv, ElementType e, int64_t m) {
  auto* vty = llvm::cast<llvm::FixedVectorType>(iv->getType());
  bool is_signed = Info(e).kind == ElementKind::kSigned;
  unsigned bits = std::max(32u, vty->getScalarSizeInBits());
  auto* wide = llvm::FixedVectorType::get(b_.getIntNTy(bits), vty->getNumElements());
  llvm::Value* w = is_signed ? b_.CreateSExt(iv, wide) : b_.CreateZExt(iv, wide);
  auto c = [&](int64_t v) { return llvm::ConstantInt::get(wide, static_cast<uint64_t>(v)); };
  llvm::Value* r;
  if (std::has_single_bit(static_cast<uint64_t>(m))) {
    r = b_.CreateAnd(w, c(m - 1));  // two's complement: also right for negatives
  } else if (is_signed) {
    r = b_.CreateSRem(w, c(m));
    r = b_.CreateSelect(b_.CreateICmpSLT(r, c(0)), b_.CreateAdd(r, c(m)), r);
  } else {
    r = b_.CreateURem(w, c(m));
  }
  return b_.CreateTrunc(r, llvm::FixedVectorType::get(b_.getInt32Ty(), vty->getNumElements()));
}

}  // namespace scjit::emit
