// Gathers and scatters (kernel-ir.md §4.3; sc-semantics.md §3.5-3.7; runtime.md
// §7.1, §7.11): load_gather, store_scatter, addupdate_scatter.
//
// Vector code throughout: lane addresses are the view's base plus a vector of
// i32 element offsets, accessed with llvm.masked.gather / llvm.masked.scatter
// (AVX-512 vpgatherdd / vpscatterdd); addupdate_scatter's adds, whose order
// matters, walk the active lanes (see ScatterAdd). The bounds check is one
// vector compare per dimension and one branch to a cold path for the whole
// vector. Masked-off lanes are never checked and touch no memory; gathered ones
// read the poison value.
// Large values (scatters are not shape-checked, sc-errors.md §10) run in chunks,
// in lane order.
#include "lowering/emit/emitter.h"
#include "lowering/ir/printer.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

unsigned Width(llvm::Value* v) { return llvm::cast<llvm::FixedVectorType>(v->getType())->getNumElements(); }

// The histogram idiom, `%cnt, %last = scan_count %v ⟨mask %m⟩` then
// `addupdate_scatter %r[%v], %cnt mask %last` with i32 counts: the scatter adds,
// at each distinct index, how many (masked-in) lanes hold it. Adding 1 at each of
// those lanes gives the same sums (integer adds, in any order) without the
// scan's conflict detection or a walk that depends on the data. Returns the
// scan_count when `op` is its scatter.
const Op* CountingScan(const Op& op) {
  if (op.kind != OpKind::kAddupdateScatter || op.index_vectors.size() != 1 || !op.mask) return nullptr;
  const Operand& counts = op.operands[1];
  const Operand& index = op.index_vectors[0];
  if (counts.kind != Operand::Kind::kValue || counts.value == nullptr || op.mask->value == nullptr) return nullptr;
  const Op* scan = counts.value->def;
  if (scan == nullptr || scan->kind != OpKind::kScanCount || counts.value != scan->results[0] ||
      op.mask->value != scan->results[1] || scan->operands[0].value != index.value || index.value == nullptr) {
    return nullptr;
  }
  bool one_row = index.type().is_vector() && index.type().rank() == 1;
  return one_row && counts.type().element() == ElementType::kI32 ? scan : nullptr;
}

}  // namespace

std::vector<llvm::Value*> Emitter::LaneOffsets(const RefVal& r, std::vector<llvm::Value*> idx, llvm::Value** active,
                                               llvm::Value* first, const std::vector<int>& sites,
                                               llvm::Value* named) {
  unsigned w = Width(*active);
  int dims = r.dims();
  std::vector<llvm::Value*> sizes, in, bad;
  for (int d = 0; d < dims; ++d) {
    sizes.push_back(DimSize(r, d));
    llvm::Value* size32 = b_.CreateTrunc(sizes[d], b_.getInt32Ty());
    // Unsigned: negative indices are out of range too.
    in.push_back(b_.CreateICmpULT(idx[d], b_.CreateVectorSplat(w, size32)));
    bad.push_back(b_.CreateAnd(*active, b_.CreateNot(in[d])));
  }
  llvm::Type* bits_ty = b_.getIntNTy(w);
  llvm::Value* any_bad = b_.getFalse();
  for (llvm::Value* v : bad) any_bad = b_.CreateOr(any_bad, b_.CreateICmpNE(b_.CreateBitCast(v, bits_ty), llvm::ConstantInt::get(bits_ty, 0)));
  // The cold path reports the lowest bad lane (of `named`) of the first dimension
  // that has one.
  ReportUnless(b_.CreateNot(any_bad), [&] {
    llvm::Value *site = I32(0), *what = I32(0), *dim = I32(0), *index = I64(0), *limit = I64(0);
    for (int d = dims - 1; d >= 0; --d) {
      llvm::Value* bits = b_.CreateBitCast(named ? b_.CreateAnd(named, b_.CreateNot(in[d])) : bad[d], bits_ty);
      llvm::Value* has = b_.CreateICmpNE(bits, llvm::ConstantInt::get(bits_ty, 0));
      llvm::Value* lane = b_.CreateZExtOrTrunc(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits, b_.getTrue()),
                                               b_.getInt64Ty());
      llvm::Value* number = b_.CreateTrunc(b_.CreateAdd(first, lane), b_.getInt32Ty());
      site = b_.CreateSelect(has, I32(sites[d]), site);
      what = b_.CreateSelect(has, b_.CreateOr(b_.CreateShl(number, 8), I32(SCJIT_BOUNDS_LANE)), what);
      dim = b_.CreateSelect(has, I32(d), dim);
      index = b_.CreateSelect(has, b_.CreateSExt(b_.CreateExtractElement(idx[d], lane), b_.getInt64Ty()), index);
      limit = b_.CreateSelect(has, sizes[d], limit);
    }
    return std::vector<llvm::Value*>{site, what, dim, index, limit};
  });
  // Out-of-range lanes (unchecked, or findings as warnings) use the last element;
  // an empty dimension has none, so its lanes go off.
  llvm::Type* lanes = llvm::FixedVectorType::get(b_.getInt32Ty(), w);
  for (int d = 0; d < dims; ++d) {
    llvm::Value* size32 = b_.CreateTrunc(sizes[d], b_.getInt32Ty());
    llvm::Value* nonempty = b_.CreateICmpSGT(size32, I32(0));
    llvm::Value* last = b_.CreateSelect(nonempty, b_.CreateSub(size32, I32(1)), I32(0));
    idx[d] = b_.CreateSelect(in[d], idx[d], b_.CreateVectorSplat(w, last));
    *active = b_.CreateAnd(*active, b_.CreateVectorSplat(w, nonempty));
  }
  // The offsets of each unit of the elements (one unit but for views with
  // pieces or chains, emit_view_access.cc). The freeze hides that they are
  // non-negative: otherwise LLVM widens them with a zext, which x86 cannot fold
  // into vpgatherdd's sign-extended 32-bit indices, and splits each gather into
  // two 64-bit-index ones.
  int bits = UnitBits(r);
  std::vector<llvm::Value*> offsets;
  for (int u = 0; u < BitWidth(r.element) / bits; ++u) {
    offsets.push_back(b_.CreateFreeze(UnitOffsets(r, idx, u, bits, lanes)));
  }
  return offsets;
}

llvm::Value* Emitter::GatherLanes(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active,
                                  const Type& chunk) {
  int bits = UnitBits(r);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Type* units_ty = llvm::FixedVectorType::get(unit, Width(active));
  // Masked-off lanes keep the poison value, unit by unit.
  std::vector<llvm::Value*> poison = SplitUnits(PoisonConstant(chunk), chunk.element(), bits);
  std::vector<llvm::Value*> units;
  for (size_t u = 0; u < offsets.size(); ++u) {
    units.push_back(b_.CreateMaskedGather(units_ty, b_.CreateGEP(unit, r.ptr, offsets[u]),
                                          llvm::Align(static_cast<uint64_t>(bits / 8)), active, poison[u]));
  }
  return JoinUnits(units, chunk.element());
}

llvm::Value* Emitter::LaneStates(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active,
                                 int64_t w) {
  int bits = UnitBits(r);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Type* units_ty = llvm::FixedVectorType::get(unit, Width(active));
  llvm::Value* state_base = b_.CreateGEP(b_.getInt8Ty(), r.ptr, shadow_delta_);
  // Lanes off: as written.
  llvm::Constant* written = llvm::ConstantInt::get(units_ty, llvm::APInt::getSplat(static_cast<unsigned>(bits), llvm::APInt(8, SCJIT_SHADOW_WRITTEN)));
  std::vector<llvm::Value*> units;
  for (llvm::Value* offset : offsets) {
    units.push_back(b_.CreateMaskedGather(units_ty, b_.CreateGEP(unit, state_base, offset),
                                          llvm::Align(static_cast<uint64_t>(bits / 8)), active, written));
  }
  return JoinUnits(units, IntOfBits(static_cast<int>(w * 8)));
}

void Emitter::ScatterStates(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active,
                            llvm::Value* states, int64_t w) {
  int bits = UnitBits(r);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Value* state_base = b_.CreateGEP(b_.getInt8Ty(), r.ptr, shadow_delta_);
  std::vector<llvm::Value*> units = SplitUnits(states, IntOfBits(static_cast<int>(w * 8)), bits);
  for (size_t u = 0; u < offsets.size(); ++u) {
    b_.CreateMaskedScatter(units[u], b_.CreateGEP(unit, state_base, offsets[u]),
                           llvm::Align(static_cast<uint64_t>(bits / 8)), active);
  }
}

llvm::Value* Emitter::LaneByte(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* lane,
                               llvm::Value* j) {
  int bits = UnitBits(r);
  int unit_bytes = bits / 8;
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  llvm::Value* u = b_.CreateUDiv(j, I64(unit_bytes));
  llvm::Value* at = nullptr;
  for (size_t p = 0; p < offsets.size(); ++p) {
    llvm::Value* a = b_.CreateGEP(unit, r.ptr, b_.CreateExtractElement(offsets[p], lane));
    at = at == nullptr ? a : b_.CreateSelect(b_.CreateICmpEQ(u, I64(static_cast<int64_t>(p))), a, at);
  }
  return b_.CreateGEP(b_.getInt8Ty(), at, b_.CreateURem(j, I64(unit_bytes)));
}

void Emitter::ScatterLanes(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active,
                           llvm::Value* v, ElementType e) {
  int bits = UnitBits(r);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(bits));
  std::vector<llvm::Value*> units = SplitUnits(v, e, bits);
  for (size_t u = 0; u < offsets.size(); ++u) {
    b_.CreateMaskedScatter(units[u], b_.CreateGEP(unit, r.ptr, offsets[u]), llvm::Align(static_cast<uint64_t>(bits / 8)),
                           active);
  }
}

absl::Status Emitter::EmitGatherScatter(const Op& op) {
  const auto& ops = op.operands;
  bool gather = op.kind == OpKind::kLoadGather;
  int site = Site(op, Print(ops[0]), ops[0].loc);
  absl::StatusOr<RefVal> view = View(op, ops[0], site);
  if (!view.ok()) return view.status();
  const RefVal& r = *view;
  const Type& t = gather ? op.results[0]->type : ops[1].type();
  int64_t n = t.NumElements();
  // GS-4/5/6/7/9/11 make these hold; an unchecked kernel still must not reach
  // lanes that are not there.
  bool shaped = t.is_vector() && t.rank() == 1 && static_cast<int>(op.index_vectors.size()) == r.dims() &&
                (!op.mask || op.mask->type() == Type::Vector(ElementType::kI1, {n}));
  for (const Operand& iv : op.index_vectors) {
    shaped = shaped && iv.type().is_vector() && iv.type().shape() == t.shape() && IsInteger(iv.type().element());
  }
  if (!shaped) {
    return Unsupported(kernel_, op, Cat(op.name(), " whose index vectors, mask and value are not ", r.dims(),
                                        " integer, one i1 and one vector of one length"));
  }
  // One site per dimension, at its index vector, for RT-BOUNDS.
  std::vector<int> sites;
  for (const Operand& iv : op.index_vectors) sites.push_back(Site(op, Print(ops[0]), iv.loc));
  bool large = Large(t);
  llvm::Value* result = gather && large ? NewBuffer(t) : nullptr;
  // Init check: the lanes' shadows, read from or written to memory's state.
  bool shadows = Shadows() && InArena(r.ptr);
  int64_t w = ByteWidth(t.element());
  ElementType se = ShadowElem(t.element());
  llvm::Value* shadow_result = gather && large && shadows ? NewShadowBuffer(t) : nullptr;
  llvm::Value* origin_slot = gather && shadows ? ScalarSlot(b_.getInt32Ty(), I32(0)) : nullptr;
  bool value_shadow = !gather && HasShadow(ops[1]);

  // With large values, small vector operands (a mask of 200 lanes is 200 bytes)
  // are staged in buffers once, before the chunk loop.
  absl::flat_hash_map<const Operand*, llvm::Value*> buffers;
  const Op* scan = large ? nullptr : CountingScan(op);
  if (large) {
    std::vector<const Operand*> all = {op.mask ? &*op.mask : nullptr, gather ? nullptr : &ops[1]};
    for (const Operand& iv : op.index_vectors) all.push_back(&iv);
    for (const Operand* o : all) {
      if (o != nullptr) buffers[o] = AsBuffer(*o);
    }
  }
  auto lanes = [&](llvm::Value* first, int64_t width) -> absl::Status {
    auto part = [&](const Operand& o) {
      return large ? LoadChunk(buffers.at(&o), o.type().element(), first, width) : ValueOf(o);
    };
    unsigned chunk_lanes = static_cast<unsigned>(width);
    llvm::Value* active = op.mask ? part(*op.mask) : llvm::ConstantInt::getTrue(llvm::FixedVectorType::get(b_.getInt1Ty(), chunk_lanes));
    std::vector<llvm::Value*> idx;
    for (const Operand& iv : op.index_vectors) {
      llvm::Value* v = part(iv);
      idx.push_back(IsUnsigned(iv.type().element()) ? b_.CreateZExtOrTrunc(v, llvm::FixedVectorType::get(b_.getInt32Ty(), chunk_lanes))
                                                    : b_.CreateSExtOrTrunc(v, llvm::FixedVectorType::get(b_.getInt32Ty(), chunk_lanes)));
    }
    if (scan != nullptr) {
      // Every counted lane (the scan's) is checked; the scatter's mask, which
      // holds one lane of each value they hold, names the lane a report names.
      llvm::Value* counted = scan->mask ? ValueOf(*scan->mask) : llvm::ConstantInt::getTrue(active->getType());
      std::vector<llvm::Value*> offsets = LaneOffsets(r, idx, &counted, first, sites, active);
      ScatterAdd(r, offsets, counted, Splat(b_.getInt32(1), t), ElementType::kI32,
                 shadows ? llvm::Constant::getNullValue(ShadowTy(t)) : nullptr, I32(0));
      return absl::OkStatus();
    }
    std::vector<llvm::Value*> offsets = LaneOffsets(r, idx, &active, first, sites);
    Type chunk = Type::Vector(t.element(), {width});
    if (gather) {
      llvm::Value* v = GatherLanes(r, offsets, active, chunk);
      if (large) {
        StoreChunk(result, t.element(), first, v);
      } else {
        Set(op.results[0], v);
      }
      if (shadows) {
        TagOp(nullptr);
        auto [shadow, origin] = ShadowAndOrigin(LaneStates(r, offsets, active, w), ShadowTy(chunk), OriginSite(op),
                                                [&](llvm::Value* k) {
                                                  return LaneByte(r, offsets, b_.CreateUDiv(k, I64(w)), b_.CreateURem(k, I64(w)));
                                                });
        llvm::Value* before = b_.CreateLoad(b_.getInt32Ty(), origin_slot);  // (in chunks: the first chunk's)
        b_.CreateStore(b_.CreateSelect(b_.CreateICmpNE(before, I32(0)), before, origin), origin_slot);
        if (large) {
          StoreChunk(shadow_result, se, first, shadow);
        } else {
          SetShadow(op.results[0], shadow, b_.CreateLoad(b_.getInt32Ty(), origin_slot), false);
        }
        TagOp(current_op_);
      }
      return absl::OkStatus();
    }
    llvm::Value* v = part(ops[1]);
    llvm::Value* v_shadow = value_shadow ? (large ? ShadowChunkOf(ops[1], first, width) : ShadowOf(ops[1])) : nullptr;
    if (op.kind == OpKind::kStoreScatter) {
      // LangRef, llvm.masked.scatter: "Scatter with overlapping addresses is
      // guaranteed to be ordered from least-significant to most-significant
      // element" -- the highest lane wins, as sc-semantics.md §3.6 requires.
      ScatterLanes(r, offsets, active, v, t.element());
      if (shadows) {
        TagOp(nullptr);
        llvm::Value* state = StoredState(LaneStates(r, offsets, active, w), v_shadow, OriginOf(ops[1]));
        ScatterStates(r, offsets, active, state, w);
        if (v_shadow != nullptr) {
          StoredOrigin(AnyBit(v_shadow, active), OriginOf(ops[1]), [&] {
            // The first active lane's first byte, and the last one's last.
            unsigned n = Width(active);
            llvm::Value* bits = b_.CreateBitCast(active, b_.getIntNTy(n));
            llvm::Value* lo = b_.CreateZExtOrTrunc(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, bits, b_.getTrue()),
                                                   b_.getInt64Ty());
            llvm::Value* hi = b_.CreateSub(I64(n - 1), b_.CreateZExtOrTrunc(
                b_.CreateBinaryIntrinsic(llvm::Intrinsic::ctlz, bits, b_.getTrue()), b_.getInt64Ty()));
            return std::pair{LaneByte(r, offsets, lo, I64(0)), LaneByte(r, offsets, hi, I64(w - 1))};
          });
        }
        TagOp(current_op_);
      }
      return absl::OkStatus();
    }
    ScatterAdd(r, offsets, active, v, t.element(), shadows ? (v_shadow != nullptr ? v_shadow : llvm::Constant::getNullValue(ShadowTy(chunk))) : nullptr,
               OriginOf(ops[1]));
    return absl::OkStatus();
  };
  absl::Status s = large ? ForChunks(n, lanes) : lanes(I64(0), n);
  if (!s.ok()) return s;
  if (result != nullptr) SetBuffer(op.results[0], result);
  if (shadow_result != nullptr) {
    SetShadowBuffer(op.results[0], shadow_result, b_.CreateLoad(b_.getInt32Ty(), origin_slot), false);
  }
  return absl::OkStatus();
}

// addupdate_scatter: duplicates add from the lowest lane to the highest
// (sc-semantics.md §3.7), which for floats fixes the rounding:
// ((old + v_lo) + v_hi). The adds walk the set bits of the mask, lowest first,
// each a scalar load-add-store. Measured against a vector path (find colliding
// lanes by w/2 rotate-and-compare steps; without collisions one gather, add and
// scatter, with them this walk), the walk alone was faster at every collision
// rate on the AVX-512 host (docs/performance.md), so it is the only path. A
// mask known to be all set is a counted loop (no branch on the data).
void Emitter::ScatterAdd(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active,
                         llvm::Value* v, ElementType e, llvm::Value* shadow, llvm::Value* origin) {
  unsigned w = Width(active);
  int unit_bits = UnitBits(r);
  llvm::Type* unit = b_.getIntNTy(static_cast<unsigned>(unit_bits));
  llvm::Align align(static_cast<uint64_t>(unit_bits / 8));
  int64_t n = static_cast<int64_t>(offsets.size());
  int64_t width = ByteWidth(e);
  llvm::Value* offset_buf = NewBuffer(Type::Vector(ElementType::kI32, {w * n}));  // unit u of lane i at u * w + i
  llvm::Value* value_buf = NewBuffer(Type::Vector(e, {w}));
  for (int64_t u = 0; u < n; ++u) StoreChunk(offset_buf, ElementType::kI32, I64(u * w), offsets[u]);
  StoreChunk(value_buf, e, I64(0), v);
  ElementType se = ShadowElem(e);
  llvm::Value* shadow_buf = shadow != nullptr ? NewBuffer(Type::Vector(se, {w})) : nullptr;
  if (shadow_buf != nullptr) StoreChunk(shadow_buf, se, I64(0), shadow);
  bool with_states = false;  // the walk that tests each lane gives each sum its state (init check)
  // r[offsets[lane]] += v[lane], unit by unit.
  auto add_lane = [&](llvm::Value* lane) {
    std::vector<llvm::Value*> ptrs, old;
    for (int64_t u = 0; u < n; ++u) {
      llvm::Value* offset = LoadElement(offset_buf, ElementType::kI32, b_.CreateAdd(lane, I64(u * w)));
      ptrs.push_back(b_.CreateGEP(unit, r.ptr, offset));
      old.push_back(b_.CreateAlignedLoad(unit, ptrs.back(), align));
    }
    llvm::Value* sum = CombineValues(Combine::kSum, JoinUnits(old, e), LoadElement(value_buf, e, lane), e);
    std::vector<llvm::Value*> units = SplitUnits(sum, e, unit_bits);
    for (int64_t u = 0; u < n; ++u) b_.CreateAlignedStore(units[u], ptrs[u], align);
    if (!with_states) return;
    // The sum is unwritten where the element or the lane was.
    TagOp(nullptr);
    llvm::Type* iw = b_.getIntNTy(static_cast<unsigned>(width * 8));
    std::vector<llvm::Value*> state_ptrs, states;
    for (llvm::Value* p : ptrs) {
      state_ptrs.push_back(b_.CreateGEP(b_.getInt8Ty(), p, shadow_delta_));
      states.push_back(b_.CreateAlignedLoad(unit, state_ptrs.back(), llvm::Align(1)));
    }
    llvm::Value* state = JoinUnits(states, IntOfBits(static_cast<int>(width * 8)));
    auto [old_shadow, old_origin] = ShadowAndOrigin(state, iw, Site(*current_op_), [&](llvm::Value* k) {
      llvm::Value* u = b_.CreateUDiv(k, I64(unit_bits / 8));
      llvm::Value* at = ptrs[0];
      for (int64_t p = 1; p < n; ++p) at = b_.CreateSelect(b_.CreateICmpEQ(u, I64(p)), ptrs[p], at);
      return b_.CreateGEP(b_.getInt8Ty(), at, b_.CreateURem(k, I64(unit_bits / 8)));
    });
    llvm::Value* lane_shadow = b_.CreateBitCast(LoadElement(shadow_buf, se, lane), iw);
    llvm::Value* sum_shadow = b_.CreateOr(old_shadow, lane_shadow);
    llvm::Value* sum_origin = MarkComputed(FirstOrigin({old_origin, origin}));
    llvm::Value* now = StoredState(state, sum_shadow, sum_origin);
    std::vector<llvm::Value*> now_units = SplitUnits(now, IntOfBits(static_cast<int>(width * 8)), unit_bits);
    for (int64_t u = 0; u < n; ++u) b_.CreateAlignedStore(now_units[u], state_ptrs[u], llvm::Align(1));
    StoredOrigin(AnyBit(sum_shadow), sum_origin, [&] {
      return std::pair{static_cast<llvm::Value*>(ptrs.front()),
                       b_.CreateGEP(b_.getInt8Ty(), ptrs.back(), I64(unit_bits / 8 - 1))};
    });
    TagOp(current_op_);
  };
  auto walk = [&] {
    if (auto* all = llvm::dyn_cast<llvm::Constant>(active); all != nullptr && all->isAllOnesValue()) {
      // A loop LLVM may unroll: one body to optimize whatever the lane count
      // (16 inlined bodies, each with its access checks, had doubled a checked
      // histogram's compile).
      Loop(w, add_lane);
      return;
    }
    llvm::Type* bits_ty = b_.getIntNTy(w);
    llvm::Value* zero = llvm::ConstantInt::get(bits_ty, 0);
    llvm::Value* bits = b_.CreateBitCast(active, bits_ty);
    llvm::BasicBlock* pre = b_.GetInsertBlock();
    llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "scatter_add_lane", fn_);
    llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "scatter_add_done", fn_);
    b_.CreateCondBr(b_.CreateICmpNE(bits, zero), loop, done);
    b_.SetInsertPoint(loop);
    llvm::PHINode* left = b_.CreatePHI(bits_ty, 2);
    left->addIncoming(bits, pre);
    llvm::Value* lane = b_.CreateZExtOrTrunc(b_.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, left, b_.getTrue()),
                                             b_.getInt64Ty());
    add_lane(lane);
    llvm::Value* rest = b_.CreateAnd(left, b_.CreateSub(left, llvm::ConstantInt::get(bits_ty, 1)));
    left->addIncoming(rest, b_.GetInsertBlock());
    b_.CreateCondBr(b_.CreateICmpNE(rest, zero), loop, done);
    b_.SetInsertPoint(done);
  };
  if (!options_.access_checks || !InArena(r.ptr) || unit_bits % 8 != 0) {
    walk();
    return;
  }
  // Checked: one vector test of every active lane's state bytes, then the walk
  // without per-lane tests (an add reads and writes its element, so it marks
  // nothing new); when a lane fails it, the walk with them, which reports the
  // first failing access as it would alone.
  TagOp(nullptr);
  std::vector<llvm::Value*> ptrs;
  for (int64_t u = 0; u < n; ++u) ptrs.push_back(b_.CreateGEP(unit, r.ptr, offsets[u]));
  llvm::Value* ok = LanesUpdatable(ptrs, static_cast<unsigned>(unit_bits / 8), active);
  // (Lanes that add unwritten bits leave their sums unwritten: the walk by lane.)
  if (shadow != nullptr) ok = b_.CreateAnd(ok, b_.CreateNot(AnyBit(shadow, active)));
  llvm::BasicBlock* tested = llvm::BasicBlock::Create(ctx_, "scatter_add_tested", fn_);
  llvm::BasicBlock* by_lane = llvm::BasicBlock::Create(ctx_, "scatter_add_by_lane", fn_);
  llvm::BasicBlock* join = llvm::BasicBlock::Create(ctx_, "scatter_add_join", fn_);
  b_.CreateCondBr(ok, tested, by_lane, llvm::MDBuilder(ctx_).createLikelyBranchWeights());
  b_.SetInsertPoint(tested);
  walk();
  b_.CreateBr(join);
  TagOp(current_op_);
  b_.SetInsertPoint(by_lane);
  with_states = shadow != nullptr;
  walk();
  b_.CreateBr(join);
  b_.SetInsertPoint(join);
}

}  // namespace scjit::emit
