// Ops that move between element widths: 16-bit float conversions, pack/unpack
// (sc-semantics.md §3.9, runtime.md §7.4) and value bitcasts (§3.8).
#include "lowering/emit/emitter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"

namespace scjit::emit {

// ------------------------------------------------------------------------------------
// 16-bit floats.
//
// Both formats convert here with integer SIMD code, exactly, whatever the host.
// LLVM's own lowering would not do: with AVX512-BF16 it rounds to bf16 with
// VCVTNEPS2BF16, which flushes subnormals to zero; without it every lane calls
// __truncsfbf2, which Debian 12's libgcc lacks; and fptrunc/fpext pairs around
// an op let InstCombine shrink the op to half precision, which the x86 backend
// then scalarizes (minimum/maximum). No fpext/fptrunc of a 16-bit type, so no
// soft-float call, is ever emitted (docs/runtime.md, "8- and 16-bit element types").

namespace {

llvm::Constant* Splat32(llvm::Type* like, uint32_t c) {
  return llvm::ConstantInt::get(like->getWithNewType(llvm::Type::getInt32Ty(like->getContext())), c);
}

}  // namespace

// 8-bit floats convert through the runtime's helpers, by way of entry-block
// buffers: `in` is stored, converted in place of `out`, and loaded.
llvm::Value* Emitter::Float8Call(RuntimeFn fn, llvm::Value* in, llvm::Type* out_ty, ElementType e) {
  unsigned n = in->getType()->isVectorTy() ? llvm::cast<llvm::FixedVectorType>(in->getType())->getNumElements() : 1;
  llvm::Value* src = EntryAlloca(in->getType());
  llvm::Value* dst = EntryAlloca(out_ty);
  b_.CreateStore(in, src);
  b_.CreateCall(Rt(fn), {src, dst, I64(n), I32(static_cast<int>(e))});
  return b_.CreateLoad(out_ty, dst);
}

// ------------------------------------------------------------------------------------
// 4-bit integers.

llvm::Value* Emitter::WidenInt4(llvm::Value* v, ElementType e) {
  if (!IsInt4(e)) return v;
  llvm::Type* ty = v->getType();
  if (e == ElementType::kU4) return b_.CreateAnd(v, llvm::ConstantInt::get(ty, 0x0F));
  return b_.CreateAShr(b_.CreateShl(v, llvm::ConstantInt::get(ty, 4)), llvm::ConstantInt::get(ty, 4));
}

llvm::Value* Emitter::NarrowInt4(llvm::Value* v, ElementType e) {
  if (!IsInt4(e)) return v;
  return b_.CreateAnd(v, llvm::ConstantInt::get(v->getType(), 0x0F));
}

llvm::Value* Emitter::ToF32(llvm::Value* v, ElementType e) {
  if (IsFloat8(e)) return Float8Call(RuntimeFn::kF8ToF32, v, v->getType()->getWithNewType(b_.getFloatTy()), e);
  if (!IsHalf(e)) return v;
  llvm::Type* ty = v->getType();
  llvm::Type* f32 = ty->getWithNewType(b_.getFloatTy());
  auto k = [&](uint32_t c) { return Splat32(ty, c); };
  llvm::Value* h =
      b_.CreateZExt(b_.CreateBitCast(v, ty->getWithNewType(b_.getInt16Ty())), ty->getWithNewType(b_.getInt32Ty()));
  // bf16 is the top half of an f32.
  if (e == ElementType::kBF16) return b_.CreateBitCast(b_.CreateShl(h, 16), f32);
  // f16: rebias a normal exponent (15 -> 127); inf and NaN keep their payload;
  // a subnormal or zero is its mantissa times 2^-24 (exact, and a normal f32).
  llvm::Value* exp = b_.CreateAnd(h, k(0x7C00));
  llvm::Value* mant = b_.CreateAnd(h, k(0x3FF));
  llvm::Value* shifted = b_.CreateShl(b_.CreateAnd(h, k(0x7FFF)), 13);
  llvm::Value* normal = b_.CreateAdd(shifted, k(112u << 23));
  llvm::Value* special = b_.CreateOr(shifted, k(0x7F800000));
  llvm::Value* tiny =
      b_.CreateBitCast(b_.CreateFMul(b_.CreateUIToFP(mant, f32), llvm::ConstantFP::get(f32, 0x1p-24)), k(0)->getType());
  llvm::Value* abs = b_.CreateSelect(b_.CreateICmpEQ(exp, k(0x7C00)), special,
                                     b_.CreateSelect(b_.CreateICmpEQ(exp, k(0)), tiny, normal));
  return b_.CreateBitCast(b_.CreateOr(abs, b_.CreateShl(b_.CreateAnd(h, k(0x8000)), 16)), f32);
}

llvm::Value* Emitter::FromF32(llvm::Value* v, ElementType e) {
  if (IsFloat8(e)) return Float8Call(RuntimeFn::kF32ToF8, v, v->getType()->getWithNewType(b_.getInt8Ty()), e);
  if (!IsHalf(e)) return v;
  llvm::Type* ty = v->getType();
  auto k = [&](uint32_t c) { return Splat32(ty, c); };
  llvm::Value* bits = b_.CreateBitCast(v, k(0)->getType());
  llvm::Value* nan = b_.CreateFCmpUNO(v, v);
  // Round to nearest even on the dropped bits: adding half an ulp minus one,
  // plus the kept lowest bit, carries exactly when the result rounds up; a
  // carry out of the mantissa bumps the exponent, up to inf. A NaN keeps its
  // sign and top payload bits and is made quiet (so that it cannot become inf).
  auto round = [&](llvm::Value* x, unsigned drop) {
    llvm::Value* odd = b_.CreateAnd(b_.CreateLShr(x, drop), k(1));
    return b_.CreateLShr(b_.CreateAdd(x, b_.CreateAdd(odd, k((1u << (drop - 1)) - 1))), drop);
  };
  llvm::Value* r;
  if (e == ElementType::kBF16) {
    r = b_.CreateSelect(nan, b_.CreateOr(b_.CreateLShr(bits, 16), k(0x40)), round(bits, 16));
  } else {
    llvm::Value* abs = b_.CreateAnd(bits, k(0x7FFFFFFF));
    // |x| >= 2^-14: rebias the exponent (127 -> 15) and round 13 bits; anything
    // from 65520 up rounds to inf (0x7C00), and beyond that is clamped to it.
    llvm::Value* normal =
        b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, round(b_.CreateSub(abs, k(112u << 23)), 13), k(0x7C00));
    // |x| < 2^-14: a subnormal in units of 2^-24: the 24-bit significand shifted
    // right by 126 - exponent (at most 25: everything below 2^-25 rounds to 0).
    llvm::Value* exp = b_.CreateLShr(abs, 23);
    llvm::Value* sig = b_.CreateOr(b_.CreateAnd(abs, k(0x7FFFFF)), k(0x800000));
    llvm::Value* shift = b_.CreateBinaryIntrinsic(
        llvm::Intrinsic::umin, b_.CreateSub(k(126), b_.CreateBinaryIntrinsic(llvm::Intrinsic::umin, exp, k(126))),
        k(25));
    llvm::Value* kept = b_.CreateLShr(sig, shift);
    llvm::Value* rest = b_.CreateAnd(sig, b_.CreateSub(b_.CreateShl(k(1), shift), k(1)));
    llvm::Value* half = b_.CreateShl(k(1), b_.CreateSub(shift, k(1)));
    llvm::Value* up = b_.CreateOr(b_.CreateICmpUGT(rest, half),
                                  b_.CreateAnd(b_.CreateICmpEQ(rest, half), b_.CreateTrunc(kept, nan->getType())));
    llvm::Value* subnormal = b_.CreateAdd(kept, b_.CreateZExt(up, kept->getType()));
    llvm::Value* magnitude = b_.CreateSelect(b_.CreateICmpUGE(abs, k(0x38800000)), normal, subnormal);
    llvm::Value* quiet = b_.CreateOr(b_.CreateAnd(b_.CreateLShr(abs, 13), k(0x3FF)), k(0x7E00));
    r = b_.CreateOr(b_.CreateSelect(nan, quiet, magnitude), b_.CreateAnd(b_.CreateLShr(bits, 16), k(0x8000)));
  }
  llvm::Type* half_ty = e == ElementType::kBF16 ? b_.getBFloatTy() : b_.getHalfTy();
  return b_.CreateBitCast(b_.CreateTrunc(r, ty->getWithNewType(b_.getInt16Ty())), ty->getWithNewType(half_ty));
}

// ------------------------------------------------------------------------------------
// pack / unpack.

// Mosaic's subelement conversions: integers count as signed
// (unsigned_integers=false), so unpack sign-extends; float -> int rounds to
// nearest even (saturating, NaN -> 0); the rest converts as `convert` does
// (int -> int truncates, float -> float rounds to nearest even or is exact).
llvm::Value* Emitter::PackConvert(llvm::Value* v, ElementType from, ElementType to) {
  if (IsUnsigned(from)) from = BitWidth(from) == 16 ? ElementType::kI16 : ElementType::kI32;
  if (IsFloat(from) && !IsFloat(to)) {
    v = b_.CreateUnaryIntrinsic(llvm::Intrinsic::roundeven, ToF32(v, from));
    from = ElementType::kF32;
  }
  return Convert(v, from, to);
}

absl::Status Emitter::EmitPack(const Op& op) {
  const Operand& a = op.operands[0];
  const Operand& b = op.operands[1];
  const Type& out = op.results[0]->type;
  ElementType from = a.type().element(), to = out.element();
  if (IsInt4(from) || IsInt4(to)) return Unsupported(kernel_, op, Cat(op.name(), " of ", IrName(IsInt4(to) ? to : from)));
  bool interleaved = op.FindAttr("format")->value.str == "interleaved";
  int64_t n = a.type().NumElements();
  // [a0, b0, a1, b1, ...] or, compressed, concat(a, b) read as (N, 2) row-major.
  auto combine = [&](llvm::Value* x, llvm::Value* y, int64_t w) {
    std::vector<int> mask;
    for (int64_t i = 0; i < 2 * w; ++i) {
      mask.push_back(static_cast<int>(interleaved ? (i % 2) * w + i / 2 : i));
    }
    return b_.CreateShuffleVector(x, y, mask);
  };
  // Init check: a conversion: each lane wholly unwritten where its source's was.
  bool shadows = HasShadow(a) || HasShadow(b);
  llvm::Value* origin = shadows ? MarkComputed(FirstOrigin({OriginOf(a), OriginOf(b)})) : nullptr;
  ElementType se = ShadowElem(to);
  auto spread = [&](llvm::Value* s, int64_t w) {
    return Spread(s, llvm::FixedVectorType::get(ElemTy(se), static_cast<unsigned>(w)));
  };
  if (!Large(out)) {
    Set(op.results[0], combine(PackConvert(ValueOf(a), from, to), PackConvert(ValueOf(b), from, to), n));
    if (shadows) SetShadow(op.results[0], combine(spread(ShadowOf(a), n), spread(ShadowOf(b), n), n), origin, false);
    return absl::OkStatus();
  }
  llvm::Value* buffer = NewBuffer(out);
  llvm::Value* shadow = shadows ? NewShadowBuffer(out) : nullptr;
  absl::Status s = ForChunks(n, [&](llvm::Value* first, int64_t w) {
    llvm::Value* x = PackConvert(ChunkOf(a, first, w), from, to);
    llvm::Value* y = PackConvert(ChunkOf(b, first, w), from, to);
    llvm::Value* sx = shadows ? spread(ShadowChunkOf(a, first, w), w) : nullptr;
    llvm::Value* sy = shadows ? spread(ShadowChunkOf(b, first, w), w) : nullptr;
    if (interleaved) {
      StoreChunk(buffer, to, b_.CreateMul(first, I64(2)), combine(x, y, w));
      if (shadows) StoreChunk(shadow, se, b_.CreateMul(first, I64(2)), combine(sx, sy, w));
    } else {
      StoreChunk(buffer, to, first, x);
      StoreChunk(buffer, to, b_.CreateAdd(first, I64(n)), y);
      if (shadows) {
        StoreChunk(shadow, se, first, sx);
        StoreChunk(shadow, se, b_.CreateAdd(first, I64(n)), sy);
      }
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  SetBuffer(op.results[0], buffer);
  if (shadows) SetShadowBuffer(op.results[0], shadow, origin, false);
  return absl::OkStatus();
}

absl::Status Emitter::EmitUnpack(const Op& op) {
  const Operand& ab = op.operands[0];
  const Type& out = op.results[0]->type;
  ElementType from = ab.type().element(), to = out.element();
  if (IsInt4(from) || IsInt4(to)) return Unsupported(kernel_, op, Cat(op.name(), " of ", IrName(IsInt4(to) ? to : from)));
  bool interleaved = op.FindAttr("format")->value.str == "interleaved";
  int64_t n = out.NumElements();
  // The halves of a packed run of 2w elements: its even and odd elements.
  auto pick = [&](llvm::Value* v, int64_t w, int which) {
    std::vector<int> mask;
    for (int64_t i = 0; i < w; ++i) mask.push_back(static_cast<int>(2 * i + which));
    return b_.CreateShuffleVector(v, mask);
  };
  auto half = [&](llvm::Value* v, int64_t w, int which) { return PackConvert(pick(v, w, which), from, to); };
  // Init check: a conversion: each lane wholly unwritten where its source's was.
  bool shadows = HasShadow(ab);
  llvm::Value* origin = shadows ? MarkComputed(OriginOf(ab)) : nullptr;
  ElementType se = ShadowElem(to);
  auto spread = [&](llvm::Value* s, int64_t w) {
    return Spread(s, llvm::FixedVectorType::get(ElemTy(se), static_cast<unsigned>(w)));
  };
  if (!Large(out)) {
    llvm::Value* v = ValueOf(ab);
    for (int which = 0; which < 2; ++which) {
      std::vector<int> mask;
      for (int64_t i = 0; i < n; ++i) mask.push_back(static_cast<int>(interleaved ? 2 * i + which : which * n + i));
      Set(op.results[which], PackConvert(b_.CreateShuffleVector(v, mask), from, to));
      if (shadows) SetShadow(op.results[which], spread(b_.CreateShuffleVector(ShadowOf(ab), mask), n), origin);
    }
    return absl::OkStatus();
  }
  llvm::Value* src = BufferOf(ab);
  llvm::Value* dst[2] = {NewBuffer(out), NewBuffer(out)};
  llvm::Value* shadow_src = shadows ? ShadowAsBuffer(ab) : nullptr;
  llvm::Value* shadow_dst[2] = {shadows ? NewShadowBuffer(out) : nullptr, shadows ? NewShadowBuffer(out) : nullptr};
  ElementType sfrom = ShadowElem(from);
  absl::Status s = ForChunks(n, [&](llvm::Value* first, int64_t w) {
    for (int which = 0; which < 2; ++which) {
      llvm::Value* r = interleaved
                           ? half(LoadChunk(src, from, b_.CreateMul(first, I64(2)), 2 * w), w, which)
                           : PackConvert(LoadChunk(src, from, b_.CreateAdd(first, I64(which * n)), w), from, to);
      StoreChunk(dst[which], to, first, r);
      if (!shadows) continue;
      llvm::Value* sr = interleaved ? pick(LoadChunk(shadow_src, sfrom, b_.CreateMul(first, I64(2)), 2 * w), w, which)
                                    : LoadChunk(shadow_src, sfrom, b_.CreateAdd(first, I64(which * n)), w);
      StoreChunk(shadow_dst[which], se, first, spread(sr, w));
    }
    return absl::OkStatus();
  });
  if (!s.ok()) return s;
  SetBuffer(op.results[0], dst[0]);
  SetBuffer(op.results[1], dst[1]);
  if (shadows) {
    SetShadowBuffer(op.results[0], shadow_dst[0], origin);
    SetShadowBuffer(op.results[1], shadow_dst[1], origin);
  }
  return absl::OkStatus();
}

// ------------------------------------------------------------------------------------
// bitcast.

// Values are row-major and the result has the same byte size, so numpy's
// x.view(dtype) on a little-endian machine is the same bytes read with the new
// element type: an LLVM vector bitcast, or a large value's buffer reused. i1
// elements are the bytes 0/1; bytes read as i1 are `byte != 0`.
namespace {

// The shuffle mask that swaps the last two dimensions of a row-major value of
// `shape` (..., R, C): lane (..., c, r) of the result is lane (..., r, c).
std::vector<int> SwapMinorMask(const Shape& shape) {
  int64_t r = shape[shape.size() - 2], c = shape.back(), n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<int> mask;
  for (int64_t base = 0; base < n; base += r * c) {
    for (int64_t j = 0; j < c; ++j) {
      for (int64_t i = 0; i < r; ++i) mask.push_back(static_cast<int>(base + i * c + j));
    }
  }
  return mask;
}

}  // namespace

// pltpu.bitcast along the second-minor dimension (`{dim = -2}`): element (a, b)
// of a k-times wider result is made of elements (k*a + j, b), j = 0 the low
// bits; the reverse for a narrower one. That is the minor-dimension bitcast of
// the transposed value, transposed back.
absl::Status Emitter::EmitRowBitcast(const Op& op) {
  const Operand& x = op.operands[0];
  const Type& in = x.type();
  const Type& out = op.results[0]->type;
  if (Large(in) || Large(out) || in.element() == ElementType::kI1 || out.element() == ElementType::kI1 ||
      IsInt4(in.element()) || IsInt4(out.element())) {
    return Unsupported(kernel_, op, Cat("bitcast {dim = -2} from ", in.ToString(), " to ", out.ToString(),
                                        " (masks, 4-bit types and values over 512 bytes)"));
  }
  Shape swapped_out = out.shape();
  std::swap(swapped_out[swapped_out.size() - 1], swapped_out[swapped_out.size() - 2]);
  std::vector<int> to_columns = SwapMinorMask(in.shape()), back = SwapMinorMask(swapped_out);
  auto move = [&](llvm::Value* v, llvm::Type* ty) {
    llvm::Value* columns = b_.CreateShuffleVector(v, to_columns);
    return b_.CreateShuffleVector(b_.CreateBitCast(columns, ty), back);
  };
  Set(op.results[0], move(ValueOf(x), ValueTy(out)));
  if (HasShadow(x)) SetShadow(op.results[0], move(ShadowOf(x), ShadowTy(out)), OriginOf(x), /*settle=*/false);
  return absl::OkStatus();
}

absl::Status Emitter::EmitBitcast(const Op& op) {
  const Operand& x = op.operands[0];
  const Type& in = x.type();
  const Type& out = op.results[0]->type;
  bool to_bool = out.element() == ElementType::kI1;
  if (IsInt4(in.element()) || IsInt4(out.element())) return Int4BitcastUnsupported(kernel_, op, in, out);
  // Init check: the shadow's bits move as the value's do (an i1 is unwritten
  // when a bit of its byte is); a copy, not a computation.
  bool shadows = HasShadow(x);
  if (const Attribute* a = op.FindAttr("dim"); a != nullptr && a->value.operand.int_value == -2) {
    return EmitRowBitcast(op);
  }
  if (Large(out)) {
    if (!to_bool) {
      SetBuffer(op.results[0], BufferOf(x));
      if (shadows) SetShadowBuffer(op.results[0], ShadowBufferOf(x), OriginOf(x), /*settle=*/false);
      return absl::OkStatus();
    }
    llvm::Value* buffer = NewBuffer(out);
    llvm::Value* shadow = shadows ? NewShadowBuffer(out) : nullptr;
    absl::Status s = ForChunks(out.NumElements(), [&](llvm::Value* first, int64_t w) {
      llvm::Value* bytes = LoadChunk(BufferOf(x), ElementType::kI8, first, w);
      StoreChunk(buffer, ElementType::kI1, first,
                 b_.CreateICmpNE(bytes, llvm::Constant::getNullValue(bytes->getType())));
      if (shadows) {
        llvm::Value* sb = LoadChunk(ShadowBufferOf(x), ElementType::kI8, first, w);
        StoreChunk(shadow, ElementType::kI1, first, b_.CreateICmpNE(sb, llvm::Constant::getNullValue(sb->getType())));
      }
      return absl::OkStatus();
    });
    if (!s.ok()) return s;
    SetBuffer(op.results[0], buffer);
    if (shadows) SetShadowBuffer(op.results[0], shadow, OriginOf(x), /*settle=*/false);
    return absl::OkStatus();
  }
  auto cast = [&](llvm::Value* v, bool bits) {
    if (in.element() == ElementType::kI1) v = b_.CreateZExt(v, ValueTy(in.WithElement(ElementType::kI8)));
    if (!to_bool) return b_.CreateBitCast(v, bits ? ShadowTy(out) : ValueTy(out));
    llvm::Value* bytes = b_.CreateBitCast(v, ValueTy(out.WithElement(ElementType::kI8)));
    return b_.CreateICmpNE(bytes, llvm::Constant::getNullValue(bytes->getType()));
  };
  Set(op.results[0], cast(ValueOf(x), false));
  if (shadows) SetShadow(op.results[0], cast(ShadowOf(x), true), OriginOf(x), /*settle=*/false);
  return absl::OkStatus();
}

}  // namespace scjit::emit
