// The init check in generated code (runtime.md, "Init check"; the interpreter's
// interp_shadows.cc carries the same): every value has a shadow, the bits of
// it that hold nothing written, and an origin, where those were read. Loads
// make shadows from memory's state bytes (SCJIT_SHADOW_*, at the address plus
// scjit_ctx::shadow_delta), loaded as the data is (the same view, its
// elements as integers: StateView); ops compute them by their rules (in the
// ops' own files); stores write them back; a use of a value that decides
// something (an index, a branch, a count: lowering/analysis/decisions.h) is
// RT-INIT when a bit of it is unwritten. Values nothing unwritten reaches have
// no shadow at all: the code for them is the code without the check.
//
// The origin is made on a cold path, when a load meets unwritten bytes: the
// runtime's record of the first of them (scjit_rt_unwritten_read).
#include "lowering/emit/emitter.h"
#include "llvm/IR/Intrinsics.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

unsigned Lanes(llvm::Type* t) {
  auto* v = llvm::dyn_cast<llvm::FixedVectorType>(t);
  return v != nullptr ? v->getNumElements() : 1;
}

// The integer element of `e`'s width (memory's elements as state bytes).
ElementType IntOfWidth(ElementType e) {
  switch (ByteWidth(e)) {
    case 1: return ElementType::kU8;
    case 2: return ElementType::kU16;
    case 8: return ElementType::kU64;
    default: return ElementType::kU32;
  }
}

}  // namespace

ElementType Emitter::ShadowElem(ElementType e) { return e == ElementType::kI1 ? e : IntOfWidth(e); }

bool Emitter::HasShadow(const Operand& o) {
  if (!Shadows() || !o.is_value() || o.value == nullptr) return false;
  auto it = vals_.find(o.value);
  return it != vals_.end() && (it->second.shadow != nullptr || it->second.shadow_buffer != nullptr);
}

llvm::Value* Emitter::ShadowOf(const Operand& o) {
  if (HasShadow(o) && vals_[o.value].shadow != nullptr) return vals_[o.value].shadow;
  return llvm::Constant::getNullValue(ShadowTy(o.type()));
}

llvm::Value* Emitter::ShadowChunkOf(const Operand& o, llvm::Value* first, int64_t width) {
  Type t = o.type();
  Type chunk = Type::Vector(ShadowElem(t.element()), {width});
  if (!HasShadow(o)) return llvm::Constant::getNullValue(ValueTy(chunk));
  if (!t.is_vector()) return b_.CreateVectorSplat(static_cast<unsigned>(width), ShadowOf(o));
  return LoadChunk(ShadowAsBuffer(o), ShadowElem(t.element()), first, width);
}

llvm::Value* Emitter::ShadowAsBuffer(const Operand& o) {
  const Type& t = o.value->type;
  if (llvm::Value* own = ShadowBufferOf(o)) return own;
  llvm::Value* buffer = NewShadowBuffer(t);
  llvm::Value* s = ShadowOf(o);
  if (t.element() == ElementType::kI1) s = b_.CreateZExt(s, llvm::FixedVectorType::get(b_.getInt8Ty(), Lanes(s->getType())));
  b_.CreateStore(s, buffer);
  return buffer;
}

llvm::Value* Emitter::OriginOf(const Operand& o) {
  if (!HasShadow(o)) return I32(0);
  llvm::Value* origin = vals_[o.value].origin;
  return origin != nullptr ? origin : I32(0);
}

void Emitter::SetShadow(const Value* v, llvm::Value* shadow, llvm::Value* origin, bool settle) {
  Val& val = vals_[v];
  if (shadow == nullptr || (llvm::isa<llvm::Constant>(shadow) && llvm::cast<llvm::Constant>(shadow)->isNullValue())) {
    val.shadow = val.origin = nullptr;
    return;
  }
  val.shadow = shadow;
  if (origin == nullptr) origin = I32(0);
  val.origin = settle ? b_.CreateSelect(AnyBit(shadow), origin, I32(0)) : origin;
}

void Emitter::SetShadowBuffer(const Value* v, llvm::Value* buffer, llvm::Value* origin, bool settle) {
  Val& val = vals_[v];
  val.shadow_buffer = buffer;
  if (buffer == nullptr) {
    val.origin = nullptr;
    return;
  }
  if (origin == nullptr) origin = I32(0);
  const Type& t = v->type;
  val.origin = settle ? b_.CreateSelect(AnyByte(buffer, t.NumElements() * std::max(1, ByteWidth(t.element()))), origin,
                                        I32(0))
                      : origin;
}

void Emitter::SetShadowFromBuffer(const Value* result, llvm::Value* buffer, llvm::Value* origin, bool settle) {
  const Type& t = result->type;
  if (Large(t)) {
    SetShadowBuffer(result, buffer, origin, settle);
  } else if (!t.is_vector()) {
    SetShadow(result, LoadElement(buffer, ShadowElem(t.element()), I64(0)), origin, settle);
  } else {
    SetShadow(result, LoadChunk(buffer, ShadowElem(t.element()), I64(0), t.NumElements()), origin, settle);
  }
}

llvm::Value* Emitter::AnyShadow(const Operand& o) {
  if (!HasShadow(o)) return b_.getFalse();
  const Type& t = o.type();
  if (llvm::Value* buffer = ShadowBufferOf(o)) return AnyByte(buffer, t.NumElements() * std::max(1, ByteWidth(t.element())));
  return AnyBit(ShadowOf(o));
}

void Emitter::SetLaneShadows(const Value* v, llvm::Value* unwritten, llvm::Value* origin) {
  const Type& t = v->type;
  ElementType se = ShadowElem(t.element());
  llvm::Type* ty = ElemTy(se);
  llvm::Value* lane = b_.CreateSelect(unwritten, se == ElementType::kI1 ? b_.getTrue() : llvm::Constant::getAllOnesValue(ty),
                                      llvm::Constant::getNullValue(ty));
  llvm::Value* computed = MarkComputed(origin);
  if (!Large(t)) {
    SetShadow(v, Splat(lane, t.WithElement(se)), b_.CreateSelect(unwritten, computed, I32(0)), /*settle=*/false);
    return;
  }
  llvm::Value* buffer = NewShadowBuffer(t);
  ForChunks(t.NumElements(), [&](llvm::Value* first, int64_t width) {
    StoreChunk(buffer, se, first, b_.CreateVectorSplat(static_cast<unsigned>(width), lane));
    return absl::OkStatus();
  }).IgnoreError();
  SetShadowBuffer(v, buffer, b_.CreateSelect(unwritten, computed, I32(0)), /*settle=*/false);
}

llvm::Value* Emitter::AnyBit(llvm::Value* shadow, llvm::Value* on) {
  llvm::Value* set = b_.CreateICmpNE(shadow, llvm::Constant::getNullValue(shadow->getType()));
  if (on != nullptr) set = b_.CreateAnd(set, on);
  return set->getType()->isVectorTy() ? b_.CreateOrReduce(set) : set;
}

llvm::Value* Emitter::AnyByte(llvm::Value* buffer, int64_t bytes) {
  llvm::Value* any = ScalarSlot(b_.getInt1Ty(), b_.getFalse());
  int64_t chunk = 64;
  Loop(bytes / chunk, [&](llvm::Value* i) {
    llvm::Value* v = b_.CreateAlignedLoad(llvm::FixedVectorType::get(b_.getInt8Ty(), static_cast<unsigned>(chunk)),
                                          b_.CreateGEP(b_.getInt8Ty(), buffer, b_.CreateMul(i, I64(chunk))), llvm::Align(1));
    b_.CreateStore(b_.CreateOr(b_.CreateLoad(b_.getInt1Ty(), any), AnyBit(v)), any);
  });
  for (int64_t k = bytes / chunk * chunk; k < bytes; ++k) {
    llvm::Value* v = b_.CreateLoad(b_.getInt8Ty(), b_.CreateConstGEP1_64(b_.getInt8Ty(), buffer, static_cast<uint64_t>(k)));
    b_.CreateStore(b_.CreateOr(b_.CreateLoad(b_.getInt1Ty(), any), AnyBit(v)), any);
  }
  return b_.CreateLoad(b_.getInt1Ty(), any);
}

llvm::Value* Emitter::Spread(llvm::Value* shadow, llvm::Type* like) {
  llvm::Value* set = b_.CreateICmpNE(shadow, llvm::Constant::getNullValue(shadow->getType()));
  llvm::Type* ints = like->getScalarType()->isIntegerTy() ? like
                     : like->getWithNewType(b_.getIntNTy(like->getScalarSizeInBits()));
  return ints->getScalarSizeInBits() == 1 ? set : b_.CreateSExt(set, ints);
}

llvm::Value* Emitter::MarkComputed(llvm::Value* origin) {
  return b_.CreateSelect(b_.CreateICmpNE(origin, I32(0)), b_.CreateOr(origin, I32(SCJIT_ORIGIN_COMPUTED)), I32(0));
}

llvm::Value* Emitter::FirstOrigin(std::initializer_list<llvm::Value*> origins) {
  llvm::Value* out = nullptr;
  for (llvm::Value* o : origins) {
    if (o == nullptr || (llvm::isa<llvm::ConstantInt>(o) && llvm::cast<llvm::ConstantInt>(o)->isZero())) continue;
    out = out == nullptr ? o : b_.CreateSelect(b_.CreateICmpNE(out, I32(0)), out, o);
  }
  return out != nullptr ? out : I32(0);
}

llvm::Value* Emitter::LaneOrigin(const Operand& vec, llvm::Value* origin, llvm::Value* shadow, llvm::Value* lane) {
  std::optional<int64_t> offset = LoadLaneOffset(vec.value);
  if (!offset) return origin;
  lane = b_.CreateAdd(b_.CreateSExtOrTrunc(lane, b_.getInt64Ty()), I64(*offset));
  llvm::Value* any = b_.CreateICmpNE(shadow, llvm::Constant::getNullValue(shadow->getType()));
  llvm::BasicBlock* here = b_.GetInsertBlock();
  llvm::BasicBlock* cold = llvm::BasicBlock::Create(ctx_, "unwritten_lane", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "lane", fn_);
  b_.CreateCondBr(any, cold, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(cold);
  TagOp(nullptr);
  llvm::Value* slot = OutSlot();
  CallChecked(RuntimeFn::kLaneOrigin, {ctx_arg_, origin, b_.CreateSExtOrTrunc(lane, b_.getInt64Ty()), slot});
  llvm::Value* named = b_.CreateLoad(b_.getInt32Ty(), slot);
  TagOp(current_op_);
  llvm::BasicBlock* cold_end = b_.GetInsertBlock();
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
  llvm::PHINode* out = b_.CreatePHI(b_.getInt32Ty(), 2);
  out->addIncoming(origin, here);
  out->addIncoming(named, cold_end);
  return out;
}

// ------------------------------------------------------------------------------------
// Uses that decide something.

void Emitter::Require(const Op& op, const Operand& value, Use use, llvm::Value* shadow, llvm::Value* origin,
                      llvm::Value* on) {
  llvm::Value* any = AnyBit(shadow, on);
  llvm::BasicBlock* bad = llvm::BasicBlock::Create(ctx_, "unwritten_use", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "written_use", fn_);
  b_.CreateCondBr(any, bad, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(bad);
  CallChecked(RuntimeFn::kUnwrittenUse, {ctx_arg_, I32(Site(op, UseText(op, value, use), value.loc)), origin});
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
}

void Emitter::RequireUses(const Op& op) {
  if (!Shadows()) return;
  ForEachUse(op, kernel_, [&](const Operand& o, Use use) {
    if (!HasShadow(o)) return;
    // A gather's or scatter's lane indices decide only in the lanes it uses.
    bool lanes = use == Use::kLaneIndex && op.mask.has_value();
    const Type& t = o.type();
    if (!Large(t) && !(lanes && Large(op.mask->type()))) {
      Require(op, o, use, ShadowOf(o), OriginOf(o), lanes ? ValueOf(*op.mask) : nullptr);
      return;
    }
    // Large: the chunks' unwritten lanes, gathered in one flag.
    llvm::Value* any = ScalarSlot(b_.getInt1Ty(), b_.getFalse());
    ForChunks(t.NumElements(), [&](llvm::Value* first, int64_t width) {
      llvm::Value* on = lanes ? ChunkOf(*op.mask, first, width) : nullptr;
      b_.CreateStore(b_.CreateOr(b_.CreateLoad(b_.getInt1Ty(), any), AnyBit(ShadowChunkOf(o, first, width), on)), any);
      return absl::OkStatus();
    }).IgnoreError();  // the body cannot fail
    Require(op, o, use, b_.CreateLoad(b_.getInt1Ty(), any), OriginOf(o));
  });
}

// ------------------------------------------------------------------------------------
// Memory's state bytes.

RefVal Emitter::StateView(const RefVal& r) {
  RefVal s = r;
  s.element = IntOfWidth(r.element);
  s.ptr = b_.CreateGEP(b_.getInt8Ty(), r.ptr, shadow_delta_);
  if (r.chain != nullptr) {
    auto chain = std::make_shared<RefChain>(*r.chain);
    chain->base.ptr = b_.CreateGEP(b_.getInt8Ty(), chain->base.ptr, shadow_delta_);
    chain->base.element = IntOfWidth(chain->base.element);
    for (RefStage& st : chain->stages) st.element = IntOfWidth(st.element);
    s.chain = std::move(chain);
  }
  return s;
}

llvm::Value* Emitter::StateShadow(llvm::Value* state, llvm::Type* ty) {
  unsigned bytes = static_cast<unsigned>(module_.getDataLayout().getTypeStoreSize(state->getType()).getFixedValue());
  auto* byte_ty = llvm::FixedVectorType::get(b_.getInt8Ty(), bytes);
  llvm::Value* b = b_.CreateBitCast(state, byte_ty);
  llvm::Value* written_bit = b_.CreateVectorSplat(bytes, b_.getInt8(SCJIT_SHADOW_WRITTEN));
  llvm::Value* unwritten = b_.CreateICmpEQ(b_.CreateAnd(b, written_bit), llvm::Constant::getNullValue(byte_ty));
  return b_.CreateBitCast(b_.CreateSExt(unwritten, byte_ty), ty);
}

std::pair<llvm::Value*, llvm::Value*> Emitter::ShadowAndOrigin(llvm::Value* state, llvm::Type* ty, int site,
                                                               const std::function<llvm::Value*(llvm::Value*)>& address,
                                                               LoadLanes lanes) {
  llvm::Value* shadow = StateShadow(state, ty);
  unsigned bytes = static_cast<unsigned>(module_.getDataLayout().getTypeStoreSize(state->getType()).getFixedValue());
  auto* byte_ty = llvm::FixedVectorType::get(b_.getInt8Ty(), bytes);
  llvm::Value* unwritten = b_.CreateICmpNE(b_.CreateBitCast(shadow, byte_ty), llvm::Constant::getNullValue(byte_ty));
  llvm::Value* any = b_.CreateOrReduce(unwritten);
  llvm::BasicBlock* here = b_.GetInsertBlock();
  llvm::BasicBlock* cold = llvm::BasicBlock::Create(ctx_, "unwritten_read", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "read", fn_);
  b_.CreateCondBr(any, cold, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(cold);
  llvm::Value* k = b_.CreateZExtOrTrunc(
      b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, b_.CreateBitCast(unwritten, b_.getIntNTy(bytes)), b_.getTrue()),
      b_.getInt64Ty());
  return {shadow, RecordRead(site, address(k), here, cont, lanes)};
}

llvm::Value* Emitter::RecordRead(int site, llvm::Value* address, llvm::BasicBlock* here, llvm::BasicBlock* cont,
                                 LoadLanes lanes) {
  llvm::Value* slot = OutSlot();
  llvm::Value* lane0 = lanes.lane0 != nullptr ? lanes.lane0 : llvm::ConstantPointerNull::get(b_.getPtrTy());
  CallChecked(RuntimeFn::kUnwrittenRead,
              {ctx_arg_, I32(site), address, lane0, lanes.bytes != nullptr ? lanes.bytes : I64(0), slot});
  llvm::Value* made = b_.CreateLoad(b_.getInt32Ty(), slot);
  llvm::BasicBlock* cold_end = b_.GetInsertBlock();
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
  llvm::PHINode* origin = b_.CreatePHI(b_.getInt32Ty(), 2);
  origin->addIncoming(I32(0), here);
  origin->addIncoming(made, cold_end);
  return origin;
}

llvm::Value* Emitter::StoredState(llvm::Value* old, llvm::Value* shadow, llvm::Value* origin) {
  unsigned bytes = static_cast<unsigned>(module_.getDataLayout().getTypeStoreSize(old->getType()).getFixedValue());
  auto* byte_ty = llvm::FixedVectorType::get(b_.getInt8Ty(), bytes);
  auto splat = [&](llvm::Value* byte) { return b_.CreateVectorSplat(bytes, byte); };
  llvm::Value* kept = b_.CreateAnd(b_.CreateBitCast(old, byte_ty), splat(b_.getInt8(static_cast<uint8_t>(~SCJIT_SHADOW_INIT_BITS))));
  if (shadow == nullptr) return b_.CreateBitCast(b_.CreateOr(kept, splat(b_.getInt8(SCJIT_SHADOW_WRITTEN))), old->getType());
  llvm::Value* bad = b_.CreateICmpNE(b_.CreateBitCast(shadow, byte_ty), llvm::Constant::getNullValue(byte_ty));
  // (The computed flag is the origin's sign bit.)
  llvm::Value* computed = b_.CreateICmpSLT(origin, I32(0));
  llvm::Value* undefined = b_.CreateSelect(computed, b_.getInt8(SCJIT_SHADOW_COMPUTED), b_.getInt8(0));
  llvm::Value* state = b_.CreateOr(kept, b_.CreateSelect(bad, splat(undefined), splat(b_.getInt8(SCJIT_SHADOW_WRITTEN))));
  return b_.CreateBitCast(state, old->getType());
}

void Emitter::StoredOrigin(llvm::Value* unwritten, llvm::Value* origin,
                           const std::function<std::pair<llvm::Value*, llvm::Value*>()>& range) {
  llvm::BasicBlock* cold = llvm::BasicBlock::Create(ctx_, "stored_origin", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "stored", fn_);
  b_.CreateCondBr(b_.CreateAnd(b_.CreateICmpSLT(origin, I32(0)), unwritten), cold, cont,
                  llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(cold);
  auto [first, last] = range();
  llvm::Value* f = b_.CreatePtrToInt(first, b_.getInt64Ty());
  llvm::Value* l = b_.CreatePtrToInt(last, b_.getInt64Ty());
  llvm::Value* in_order = b_.CreateICmpULE(f, l);
  llvm::Value* lo = b_.CreateSelect(in_order, first, last);
  llvm::Value* n = b_.CreateAdd(b_.CreateSub(b_.CreateSelect(in_order, l, f), b_.CreateSelect(in_order, f, l)), I64(1));
  CallChecked(RuntimeFn::kStoredOrigin, {ctx_arg_, origin, lo, n});
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
}

llvm::Value* Emitter::ByteAddress(const RefVal& r, llvm::Value* k, llvm::Value* j) {
  int bits = UnitBits(r);
  int unit_bytes = bits / 8;
  int per = std::max(1, ByteWidth(r.element) / std::max(1, unit_bytes));
  std::vector<llvm::Value*> idx = Coordinates(r, k);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Value* u = b_.CreateUDiv(j, I64(unit_bytes));
  llvm::Value* at = nullptr;
  for (int p = 0; p < per; ++p) {
    llvm::Value* a = b_.CreateGEP(unit, r.ptr, UnitOffsets(r, idx, p, bits, b_.getInt64Ty()));
    at = at == nullptr ? a : b_.CreateSelect(b_.CreateICmpEQ(u, I64(p)), a, at);
  }
  return b_.CreateGEP(b_.getInt8Ty(), at, b_.CreateURem(j, I64(unit_bytes)));
}

std::pair<llvm::Value*, llvm::Value*> Emitter::LoadShadow(const Op& op, const RefVal& view, const Type& t,
                                                          llvm::Value* on) {
  TagOp(nullptr);  // the state bytes are no access of the kernel's
  Type it = t.WithElement(IntOfWidth(t.element()));
  RefVal sv = StateView(view);
  llvm::Value* state = nullptr;
  if (on != nullptr) {
    // Lanes off read nothing: as written.
    state = b_.CreateSelect(on, LoadUnits(sv, it, on),
                            b_.CreateBitCast(b_.CreateVectorSplat(static_cast<unsigned>(t.NumElements() * ByteWidth(t.element())),
                                                                  b_.getInt8(SCJIT_SHADOW_WRITTEN)),
                                             ValueTy(it)));
  } else {
    absl::StatusOr<llvm::Value*> loaded = Load(op, sv, it);
    state = loaded.ok() ? *loaded : llvm::Constant::getNullValue(ValueTy(it));
  }
  int64_t w = ByteWidth(t.element());
  // A 1-D strided view's lanes are evenly spaced: extract names the lane it takes.
  LoadLanes lanes;
  if (view.rank() == 1 && !view.reinterpreted() && view.spans.empty() && t.is_vector()) {
    lanes = {view.ptr, b_.CreateMul(view.strides[0], I64(w))};
  }
  auto out = ShadowAndOrigin(state, ShadowTy(t), OriginSite(op), [&](llvm::Value* k) {
    return ByteAddress(view, b_.CreateUDiv(k, I64(w)), b_.CreateURem(k, I64(w)));
  }, lanes);
  TagOp(current_op_);
  return out;
}

void Emitter::StoreShadow(const Op& op, const RefVal& view, const Type& t, llvm::Value* shadow, llvm::Value* origin,
                          llvm::Value* on) {
  TagOp(nullptr);
  Type it = t.WithElement(IntOfWidth(t.element()));
  RefVal sv = StateView(view);
  int64_t w = ByteWidth(t.element());
  int64_t n = t.is_vector() ? t.NumElements() : 1;
  llvm::Value* old = nullptr;
  if (on != nullptr) {
    old = LoadUnits(sv, it, on);
  } else {
    absl::StatusOr<llvm::Value*> loaded = Load(op, sv, it);
    old = loaded.ok() ? *loaded : llvm::Constant::getNullValue(ValueTy(it));
  }
  if (origin == nullptr) origin = I32(0);
  llvm::Value* state = StoredState(old, shadow, origin);
  if (on != nullptr) {
    StoreUnits(sv, state, it, on);
  } else {
    absl::Status s = Store(op, sv, state, it);
    (void)s;
  }
  if (shadow != nullptr) {
    StoredOrigin(AnyBit(shadow), origin, [&] {
      // The first byte stored, and the last (of the lanes on: the first ones).
      llvm::Value* last = I64(n - 1);
      if (on != nullptr) {
        unsigned lanes = static_cast<unsigned>(n);
        llvm::Value* count = b_.CreateZExt(
            b_.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, b_.CreateBitCast(on, b_.getIntNTy(lanes))), b_.getInt64Ty());
        last = b_.CreateSub(count, I64(1));
      }
      return std::pair{ByteAddress(view, I64(0), I64(0)), ByteAddress(view, last, I64(w - 1))};
    });
  }
  TagOp(current_op_);
}

llvm::Value* Emitter::LoadShadowBuffer(const Op& op, const RefVal& view, const Type& t, llvm::Value* buffer) {
  TagOp(nullptr);
  Type it = t.WithElement(IntOfWidth(t.element()));
  RefVal sv = StateView(view);
  absl::Status s = CopyView(op, sv, buffer, it, /*to_buffer=*/true);
  (void)s;
  // In place: state bytes to shadow bytes, chunk by chunk.
  int64_t w = ByteWidth(t.element());
  int64_t bytes = t.NumElements() * w;
  ForChunks(bytes, [&](llvm::Value* first, int64_t width) {
    llvm::Value* chunk = LoadChunk(buffer, ElementType::kU8, first, width);
    StoreChunk(buffer, ElementType::kU8, first,
               StateShadow(chunk, llvm::FixedVectorType::get(b_.getInt8Ty(), static_cast<unsigned>(width))));
    return absl::OkStatus();
  }).IgnoreError();
  // The origin: of the first unwritten byte, found on a cold path.
  llvm::Value* any = AnyByte(buffer, bytes);
  llvm::BasicBlock* here = b_.GetInsertBlock();
  llvm::BasicBlock* cold = llvm::BasicBlock::Create(ctx_, "unwritten_read", fn_);
  llvm::BasicBlock* scan = llvm::BasicBlock::Create(ctx_, "unwritten_scan", fn_);
  llvm::BasicBlock* found = llvm::BasicBlock::Create(ctx_, "unwritten_found", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "read", fn_);
  b_.CreateCondBr(any, cold, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(cold);
  b_.CreateBr(scan);
  b_.SetInsertPoint(scan);
  llvm::PHINode* k = b_.CreatePHI(b_.getInt64Ty(), 2);
  k->addIncoming(I64(0), cold);
  llvm::Value* byte = b_.CreateLoad(b_.getInt8Ty(), b_.CreateGEP(b_.getInt8Ty(), buffer, k));
  k->addIncoming(b_.CreateAdd(k, I64(1)), scan);
  b_.CreateCondBr(b_.CreateICmpNE(byte, b_.getInt8(0)), found, scan);
  b_.SetInsertPoint(found);
  llvm::Value* addr = ByteAddress(view, b_.CreateUDiv(k, I64(w)), b_.CreateURem(k, I64(w)));
  llvm::Value* origin = RecordRead(OriginSite(op), addr, here, cont);
  TagOp(current_op_);
  return origin;
}

void Emitter::StoreShadowBuffer(const Op& op, const RefVal& view, const Type& t, llvm::Value* buffer,
                                llvm::Value* origin) {
  TagOp(nullptr);
  Type it = t.WithElement(IntOfWidth(t.element()));
  RefVal sv = StateView(view);
  int64_t w = ByteWidth(t.element());
  int64_t bytes = t.NumElements() * w;
  llvm::Value* states = NewBuffer(Type::Vector(ElementType::kU8, {bytes}));
  absl::Status s = CopyView(op, sv, states, it, /*to_buffer=*/true);
  if (origin == nullptr) origin = I32(0);
  ForChunks(bytes, [&](llvm::Value* first, int64_t width) {
    llvm::Value* old = LoadChunk(states, ElementType::kU8, first, width);
    llvm::Value* shadow = buffer != nullptr ? LoadChunk(buffer, ElementType::kU8, first, width) : nullptr;
    StoreChunk(states, ElementType::kU8, first, StoredState(old, shadow, origin));
    return absl::OkStatus();
  }).IgnoreError();
  s = CopyView(op, sv, states, it, /*to_buffer=*/false);
  (void)s;
  if (buffer != nullptr) {
    StoredOrigin(AnyByte(buffer, bytes), origin, [&] {
      return std::pair{ByteAddress(view, I64(0), I64(0)), ByteAddress(view, I64(t.NumElements() - 1), I64(w - 1))};
    });
  }
  TagOp(current_op_);
}

// ------------------------------------------------------------------------------------
// Loop carries.

Emitter::CarryShadows Emitter::PrepareCarryShadows(const std::vector<const Value*>& args,
                                                   const std::vector<const Operand*>& init) {
  CarryShadows cs;
  if (!Shadows()) return cs;
  cs.on = true;
  for (size_t i = 0; i < args.size(); ++i) {
    const Type& t = args[i]->type;
    if (Large(t)) {
      llvm::Value* buffer = NewShadowBuffer(t);
      CopyElements(buffer, ShadowAsBuffer(*init[i]), ShadowElem(t.element()), t.NumElements());
      cs.buffer.push_back(buffer);
      cs.origin_slot.push_back(ScalarSlot(b_.getInt32Ty(), OriginOf(*init[i])));
      cs.init_shadow.push_back(nullptr);
      cs.init_origin.push_back(nullptr);
    } else {
      cs.buffer.push_back(nullptr);
      cs.origin_slot.push_back(nullptr);
      cs.init_shadow.push_back(ShadowOf(*init[i]));
      cs.init_origin.push_back(OriginOf(*init[i]));
    }
  }
  return cs;
}

void Emitter::CarryShadowPhis(CarryShadows& cs, llvm::BasicBlock* pre,
                              const std::vector<std::vector<const Value*>>& bind) {
  if (!cs.on) return;
  for (size_t i = 0; i < cs.buffer.size(); ++i) {
    llvm::PHINode* shadow = nullptr;
    llvm::PHINode* origin = nullptr;
    if (cs.buffer[i] == nullptr) {
      shadow = b_.CreatePHI(cs.init_shadow[i]->getType(), 2);
      shadow->addIncoming(cs.init_shadow[i], pre);
      origin = b_.CreatePHI(b_.getInt32Ty(), 2);
      origin->addIncoming(cs.init_origin[i], pre);
    }
    cs.shadow.push_back(shadow);
    cs.origin.push_back(origin);
  }
  // (Loads after the phis.)
  for (size_t i = 0; i < cs.buffer.size(); ++i) {
    for (const std::vector<const Value*>& args : bind) {
      if (cs.buffer[i] == nullptr) {
        SetShadow(args[i], cs.shadow[i], cs.origin[i], /*settle=*/false);
      } else {
        SetShadowBuffer(args[i], cs.buffer[i], b_.CreateLoad(b_.getInt32Ty(), cs.origin_slot[i]), /*settle=*/false);
      }
    }
  }
}

void Emitter::CommitCarryShadows(CarryShadows& cs, const std::vector<const Value*>& args, const Op& yield) {
  if (!cs.on) return;
  // A shadow yielded into another carry's place is read before that place is
  // written (as CommitCarries does the values).
  std::vector<llvm::Value*> from(cs.buffer.size(), nullptr);
  for (size_t i = 0; i < cs.buffer.size(); ++i) {
    if (cs.buffer[i] == nullptr) continue;
    const Type& t = args[i]->type;
    from[i] = ShadowAsBuffer(yield.operands[i]);
    bool another = std::find(cs.buffer.begin(), cs.buffer.end(), from[i]) != cs.buffer.end() && from[i] != cs.buffer[i];
    if (another) {
      llvm::Value* staged = NewShadowBuffer(t);
      CopyElements(staged, from[i], ShadowElem(t.element()), t.NumElements());
      from[i] = staged;
    }
  }
  std::vector<llvm::Value*> origins;
  for (size_t i = 0; i < cs.buffer.size(); ++i) origins.push_back(OriginOf(yield.operands[i]));
  for (size_t i = 0; i < cs.buffer.size(); ++i) {
    if (cs.buffer[i] == nullptr) continue;
    const Type& t = args[i]->type;
    CopyElements(cs.buffer[i], from[i], ShadowElem(t.element()), t.NumElements());
    b_.CreateStore(origins[i], cs.origin_slot[i]);
  }
}

void Emitter::LatchCarryShadows(CarryShadows& cs, const Op& yield, llvm::BasicBlock* latch) {
  if (!cs.on) return;
  for (size_t i = 0; i < cs.shadow.size(); ++i) {
    if (cs.shadow[i] == nullptr) continue;
    cs.shadow[i]->addIncoming(ShadowOf(yield.operands[i]), latch);
    cs.origin[i]->addIncoming(OriginOf(yield.operands[i]), latch);
  }
}

void Emitter::EndCarryShadows(const CarryShadows& cs, const std::vector<Value*>& results) {
  if (!cs.on) return;
  for (size_t i = 0; i < results.size(); ++i) {
    if (cs.buffer[i] == nullptr) {
      SetShadow(results[i], cs.shadow[i], cs.origin[i], /*settle=*/false);
    } else {
      SetShadowBuffer(results[i], cs.buffer[i], b_.CreateLoad(b_.getInt32Ty(), cs.origin_slot[i]), /*settle=*/false);
    }
  }
}

}  // namespace scjit::emit
