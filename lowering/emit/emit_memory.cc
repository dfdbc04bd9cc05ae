// Memory, DMA and synchronization ops (kernel-ir.md §4.3, §4.4).
#include "lowering/emit/emitter.h"
#include "lowering/ir/printer.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "runtime/abi.h"

namespace scjit::emit {
// ------------------------------------------------------------------------------------
// Memory ops (kernel-ir.md §4.3).

absl::Status Emitter::EmitMemory(const Op& op) {
  const auto& ops = op.operands;
  int site = Site(op, Print(ops[0]), ops[0].loc);
  // The compressed and expanded accesses touch the window's first
  // popcount(mask) elements only.
  llvm::Value* touched = nullptr;
  if ((op.kind == OpKind::kLoadExpanded || op.kind == OpKind::kStoreCompressed ||
       op.kind == OpKind::kAddupdateCompressed) && op.mask && op.mask->type().is_vector()) {
    llvm::Value* mask = ValueOf(*op.mask);
    unsigned n = llvm::cast<llvm::FixedVectorType>(mask->getType())->getNumElements();
    touched = b_.CreateZExt(b_.CreateIntrinsic(llvm::Intrinsic::ctpop, {b_.getIntNTy(n)},
                                               {b_.CreateBitCast(mask, b_.getIntNTy(n))}),
                            b_.getInt64Ty());
  }
  absl::StatusOr<RefVal> view = View(op, ops[0], site, touched);
  if (!view.ok()) return view.status();
  llvm::Align align(static_cast<uint64_t>(ByteWidth(view->element)));
  // Init check: the shadows of what is loaded and stored (emit_shadows.cc).
  bool shadows = Shadows() && InArena(view->ptr);
  // A large value's load: its buffer, and its shadow's.
  auto load_large = [&](const Value* result, const Type& t) -> absl::Status {
    llvm::Value* buffer = NewBuffer(t);
    if (absl::Status s = CopyView(op, *view, buffer, t, true); !s.ok()) return s;
    SetBuffer(result, buffer);
    if (shadows) {
      llvm::Value* shadow = NewShadowBuffer(t);
      SetShadowBuffer(result, shadow, LoadShadowBuffer(op, *view, t, shadow), /*settle=*/false);
    }
    return absl::OkStatus();
  };
  auto load = [&](const Value* result, const Type& t) -> absl::Status {
    absl::StatusOr<llvm::Value*> v = Load(op, *view, t);
    if (!v.ok()) return v.status();
    Set(result, *v);
    if (shadows) {
      auto [shadow, origin] = LoadShadow(op, *view, t);
      SetShadow(result, shadow, origin);
    }
    return absl::OkStatus();
  };
  switch (op.kind) {
    case OpKind::kGet:
      return Large(op.results[0]->type) ? load_large(op.results[0], op.results[0]->type)
                                        : load(op.results[0], op.results[0]->type);
    case OpKind::kSwap:
    case OpKind::kStore: {
      const Type& t = ops[1].type();
      if (Large(t)) {
        if (op.kind == OpKind::kSwap) {
          if (absl::Status s = load_large(op.results[0], t); !s.ok()) return s;
        }
        if (absl::Status s = CopyView(op, *view, BufferOf(ops[1]), t, false); !s.ok()) return s;
        if (shadows) StoreShadowBuffer(op, *view, t, vals_[ops[1].value].shadow_buffer, OriginOf(ops[1]));
        return absl::OkStatus();
      }
      if (op.kind == OpKind::kSwap) {
        if (absl::Status s = load(op.results[0], t); !s.ok()) return s;
      }
      if (absl::Status s = Store(op, *view, ValueOf(ops[1]), t); !s.ok()) return s;
      if (shadows) StoreShadow(op, *view, t, HasShadow(ops[1]) ? ShadowOf(ops[1]) : nullptr, OriginOf(ops[1]));
      return absl::OkStatus();
    }
    case OpKind::kAddupdate: {
      const Type& t = ops[1].type();
      if (Large(t)) {
        llvm::Value* sum = NewBuffer(t);
        if (absl::Status s = CopyView(op, *view, sum, t, true); !s.ok()) return s;
        llvm::Value* sum_shadow = shadows ? NewShadowBuffer(t) : nullptr;
        llvm::Value* old_origin = shadows ? LoadShadowBuffer(op, *view, t, sum_shadow) : nullptr;
        absl::Status s = ForChunks(t.NumElements(), [&](llvm::Value* first, int64_t width) -> absl::Status {
          absl::StatusOr<llvm::Value*> r = Binary(op, OpKind::kAdd, LoadChunk(sum, t.element(), first, width),
                                                  ChunkOf(ops[1], first, width), t.element());
          if (!r.ok()) return r.status();
          StoreChunk(sum, t.element(), first, *r);
          if (shadows) {
            ElementType se = ShadowElem(t.element());
            StoreChunk(sum_shadow, se, first,
                       b_.CreateOr(LoadChunk(sum_shadow, se, first, width), ShadowChunkOf(ops[1], first, width)));
          }
          return absl::OkStatus();
        });
        if (!s.ok()) return s;
        if (absl::Status s = CopyView(op, *view, sum, t, false); !s.ok()) return s;
        if (shadows) StoreShadowBuffer(op, *view, t, sum_shadow, MarkComputed(FirstOrigin({old_origin, OriginOf(ops[1])})));
        return absl::OkStatus();
      }
      absl::StatusOr<llvm::Value*> old = Load(op, *view, t);
      if (!old.ok()) return old.status();
      absl::StatusOr<llvm::Value*> sum = Binary(op, OpKind::kAdd, *old, ValueOf(ops[1]), t.element());
      if (!sum.ok()) return sum.status();
      if (absl::Status s = Store(op, *view, *sum, t); !s.ok()) return s;
      if (shadows) {
        auto [old_shadow, old_origin] = LoadShadow(op, *view, t);
        StoreShadow(op, *view, t, b_.CreateOr(old_shadow, ShadowOf(ops[1])),
                    MarkComputed(FirstOrigin({old_origin, OriginOf(ops[1])})));
      }
      return absl::OkStatus();
    }
    case OpKind::kLoadExpanded:
    case OpKind::kStoreCompressed:
    case OpKind::kAddupdateCompressed: {
      const Type& t = op.kind == OpKind::kLoadExpanded ? op.results[0]->type : ops[1].type();
      if (!t.is_vector()) return Unsupported(kernel_, op, "masked scalar access");
      llvm::Value* mask = ValueOf(*op.mask);
      // The elements touched are the view's first popcount(mask), in row-major
      // order: a contiguous view is used in place; of any other, those elements
      // are gathered into a copy (and scattered back), the rest left alone.
      bool direct = Contiguous(*view);
      RefVal mem = *view;
      llvm::Value* tmp = nullptr;
      llvm::Type* vty = ValueTy(t);
      unsigned n = llvm::cast<llvm::FixedVectorType>(vty)->getNumElements();
      // The lanes below popcount(mask): the window's elements touched.
      llvm::Value* prefix = b_.CreateICmpULT(b_.CreateStepVector(llvm::FixedVectorType::get(b_.getInt64Ty(), n)),
                                             b_.CreateVectorSplat(n, touched));
      if (!direct) {
        tmp = EntryAlloca(vty);
        b_.CreateAlignedStore(LoadUnits(*view, t, prefix), tmp, align);
        mem.ptr = tmp;
      }
      // Init check: the touched elements' shadow (element k in lane k), which
      // expands and compresses as the data does, through a stack slot.
      llvm::Type* sty = ShadowTy(t);
      llvm::Value* slot = shadows ? EntryAlloca(sty) : nullptr;
      auto expand = [&](llvm::Value* shadow) {
        b_.CreateStore(shadow, slot);
        return b_.CreateMaskedExpandLoad(sty, slot, mask, llvm::Constant::getNullValue(sty));
      };
      auto compress = [&](llvm::Value* shadow) {
        b_.CreateStore(llvm::Constant::getNullValue(sty), slot);
        b_.CreateMaskedCompressStore(shadow, slot, mask);
        return b_.CreateLoad(sty, slot);
      };
      llvm::Value *mem_shadow = nullptr, *mem_origin = nullptr;
      if (shadows && op.kind != OpKind::kStoreCompressed) std::tie(mem_shadow, mem_origin) = LoadShadow(op, *view, t, prefix);
      if (op.kind == OpKind::kLoadExpanded) {
        Set(op.results[0], b_.CreateMaskedExpandLoad(vty, mem.ptr, mask, PoisonConstant(t)));
        if (shadows) SetShadow(op.results[0], expand(mem_shadow), mem_origin);
        return absl::OkStatus();
      }
      llvm::Value* v = ValueOf(ops[1]);
      llvm::Value* v_shadow = HasShadow(ops[1]) ? ShadowOf(ops[1]) : nullptr;
      llvm::Value* v_origin = OriginOf(ops[1]);
      if (op.kind == OpKind::kAddupdateCompressed) {
        llvm::Value* old = b_.CreateMaskedExpandLoad(vty, mem.ptr, mask, llvm::Constant::getNullValue(vty));
        absl::StatusOr<llvm::Value*> sum = Binary(op, OpKind::kAdd, old, v, t.element());
        if (!sum.ok()) return sum.status();
        v = *sum;
        if (shadows) {
          v_shadow = b_.CreateOr(ShadowOf(ops[1]), expand(mem_shadow));
          v_origin = MarkComputed(FirstOrigin({mem_origin, v_origin}));
        }
      }
      b_.CreateMaskedCompressStore(v, mem.ptr, mask);
      if (!direct) StoreUnits(*view, b_.CreateAlignedLoad(vty, tmp, align), t, prefix);
      if (shadows) StoreShadow(op, *view, t, v_shadow != nullptr ? compress(v_shadow) : nullptr, v_origin, prefix);
      return absl::OkStatus();
    }
    case OpKind::kFetchAndAdd: {
      // FAA-3 allows one indexer and no other view before it.
      if (view->reinterpreted()) return Unsupported(kernel_, op, "fetch_and_add through a view_bitcast or view_reshape");
      // The word's byte offset in the target subcore's SMEM.
      llvm::Value* offset = b_.CreatePtrDiff(b_.getInt8Ty(), view->ptr, smem_);
      llvm::Value* target = ValueOf(op.FindAttr("subcore")->value.operand);
      llvm::Value* old = OutSlot();
      CallChecked(RuntimeFn::kFetchAndAdd, {ctx_arg_, offset, ValueOf(ops[1]), target, I32(site), old});
      Set(op.results[0], b_.CreateLoad(b_.getInt32Ty(), old));
      return absl::OkStatus();
    }
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

// ------------------------------------------------------------------------------------
// DMAs, semaphores, barriers, prints, scoped allocations (kernel-ir.md §4.4-4.5).

absl::Status Emitter::EmitDma(const Op& op) {
  const auto& ops = op.operands;
  int site = Site(op, Cat(Print(ops[0]), " -> ", Print(ops[1]), op.dma_add ? " add" : ""));
  if (ops[0].value == nullptr || !ops[0].value->type.is_ref() || !ops[1].value->type.is_ref()) {
    return Unsupported(kernel_, op, "DMA operands that are not refs");
  }
  if (absl::Status s = CheckIndirectViews(op); !s.ok()) return s;
  absl::StatusOr<RefVal> src = View(op, ops[0], site);
  if (!src.ok()) return src.status();
  absl::StatusOr<RefVal> dst = View(op, ops[1], site);
  if (!dst.ok()) return dst.status();
  if (src->indices || dst->indices) {
    if (absl::Status s = IndirectInUnits(op, &*src, &*dst, site); !s.ok()) return s;
  }
  llvm::Value* sem = I32(-1);
  if (ops.size() > 2) {
    absl::StatusOr<RefVal> s = View(op, ops[2], site);
    if (!s.ok()) return s.status();
    sem = s->ptr;
  }
  bool runs = false;
  if (src->indices || dst->indices) {
    // IndirectInUnits has matched the dimensions.
  } else if (absl::Status s = MatchDims(op, &*src, &*dst, site, &runs); !s.ok()) {
    return s;
  }
  if (runs) return DmaRuns(op, *src, *dst, sem, site);  // views strides do not pair up (emit_view_access.cc)
  if (src->rank() > SCJIT_MAX_RANK || dst->rank() > SCJIT_MAX_RANK) {
    return Unsupported(kernel_, op, Cat("DMAs of more than ", SCJIT_MAX_RANK, " dimensions"));
  }
  return IssueDma(op, *src, *dst, sem, site);
}

llvm::Value* Emitter::DeviceCoordinate(int axis) {
  const DeviceAxis& a = kernel_.device_axes()[static_cast<size_t>(axis)];
  llvm::Value* above = b_.CreateUDiv(Ctx(CtxField::kDevice), I32(kernel_.device_stride(axis)));
  return b_.CreateURem(above, I32(a.size));
}

llvm::Value* Emitter::TargetDevice(const Op& op, int site) {
  DeviceTarget t = DeviceTargetOf(op, kernel_);
  auto checked = [&](const Operand& o, int64_t limit, int dim) {
    llvm::Value* v = b_.CreateSExt(ValueOf(o), b_.getInt64Ty());
    return b_.CreateTrunc(CheckIndex(v, I64(limit), SCJIT_BOUNDS_DEVICE, dim, site), b_.getInt32Ty());
  };
  switch (t.form) {
    case DeviceTarget::Form::kLocal:
      return I32(-1);
    case DeviceTarget::Form::kLogical:
      return checked(*t.logical, kernel_.device_count(), -1);
    case DeviceTarget::Form::kMesh:
      break;
  }
  // DEV-6 (an SC rule) has made sure a listed id has one coordinate per axis.
  llvm::Value* id = I32(0);
  for (size_t axis = 0; axis < t.coords.size(); ++axis) {
    int a = static_cast<int>(axis);
    llvm::Value* c = t.coords[axis] != nullptr ? checked(*t.coords[axis], kernel_.device_axes()[axis].size, a)
                                               : DeviceCoordinate(a);
    id = b_.CreateAdd(id, b_.CreateMul(c, I32(kernel_.device_stride(a))));
  }
  return id;
}

absl::Status Emitter::IssueDma(const Op& op, const RefVal& src, const RefVal& dst, llvm::Value* sem, int site) {
  Descriptor dma = NewDma(src, dst, sem, op.dma_add);
  const Type* sem_type = op.operands.size() > 2 ? &op.operands[2].value->type : nullptr;
  if (absl::Status s = FillIndirect(op, dma, src, dst, sem_type); !s.ok()) return s;
  // A remote copy: the chip its destination is on, and its send semaphore.
  llvm::Value* send_sem = I32(-1);
  if (op.has_src_sem) {
    absl::StatusOr<RefVal> s = View(op, op.operands[3], site);
    if (!s.ok()) return s.status();
    send_sem = s->ptr;
  }
  dma.Set({static_cast<unsigned>(DmaField::kSendSem)}, send_sem);
  dma.Set({static_cast<unsigned>(DmaField::kDevice)}, TargetDevice(op, site));
  RuntimeFn fn = op.kind == OpKind::kDmaStart  ? RuntimeFn::kDmaStart
                 : op.kind == OpKind::kDmaWait ? RuntimeFn::kDmaWait
                                               : RuntimeFn::kCopy;
  CallChecked(fn, {ctx_arg_, Materialize(dma), I32(site)});
  return absl::OkStatus();
}

absl::Status Emitter::EmitSync(const Op& op) {
  const auto& ops = op.operands;
  switch (op.kind) {
    case OpKind::kSemSignal:
    case OpKind::kSemWait:
    case OpKind::kSemRead: {
      int site = Site(op, Print(ops[0]), ops[0].loc);
      absl::StatusOr<RefVal> sem = View(op, ops[0], site);
      if (!sem.ok()) return sem.status();
      if (op.kind == OpKind::kSemRead) {
        llvm::Value* out = OutSlot();
        CallChecked(RuntimeFn::kSemRead, {ctx_arg_, sem->ptr, I32(site), out});
        Set(op.results[0], b_.CreateLoad(b_.getInt32Ty(), out));
        return absl::OkStatus();
      }
      if (op.kind == OpKind::kSemWait) {
        CallChecked(RuntimeFn::kSemWait, {ctx_arg_, sem->ptr, ValueOf(ops[1]), I32(site)});
        return absl::OkStatus();
      }
      const Attribute* core = op.FindAttr("core");
      const Attribute* subcore = op.FindAttr("subcore");
      int part = ops[0].value->other_part;  // another part's semaphore (`@scalar`), or -1
      CallChecked(RuntimeFn::kSemSignal, {ctx_arg_, sem->ptr, ValueOf(ops[1]),
                                          core != nullptr ? ValueOf(core->value.operand) : I32(-1),
                                          subcore != nullptr ? ValueOf(subcore->value.operand) : I32(-1),
                                          TargetDevice(op, site), I32(part), I32(site)});
      return absl::OkStatus();
    }
    case OpKind::kBarrier:
      CallChecked(RuntimeFn::kBarrier, {ctx_arg_, I32(Site(op))});
      return absl::OkStatus();
    case OpKind::kDebugPrint: {
      int site = Site(op, op.text);
      llvm::Value* null = llvm::ConstantPointerNull::get(b_.getPtrTy());
      if (ops.empty()) {
        CallChecked(RuntimeFn::kDebugPrint, {ctx_arg_, I32(site), I32(SCJIT_PRINT_NONE), I32(0), null, I64(0), null});
        return absl::OkStatus();
      }
      const Operand& o = ops[0];
      if (o.value->type.is_memory()) {
        absl::StatusOr<RefVal> r = View(op, o, site);
        if (!r.ok()) return r.status();
        if (!r->spans.empty() || r->reinterpreted()) {
          // The runtime prints a ref by its physical dimensions: print a copy
          // with the kernel's shape instead, in a buffer that holds the whole
          // root ref when the view's size is dynamic.
          Type t = o.view.is_ref() ? o.view : o.value->type;
          int64_t capacity = t.NumElements();
          if (capacity == kDynamic) {
            const Value* root = ViewRoot(o.value);
            capacity = root->type.NumElements() * ByteWidth(root->type.element()) / ByteWidth(t.element());
          }
          if (capacity < 0) return Unsupported(kernel_, op, "printing a view of a ref of dynamic size");
          llvm::Value* copy = NewBuffer(Type::Vector(t.element(), {capacity}));
          RefVal flat;
          flat.space = r->space;
          flat.element = r->element;
          flat.ptr = copy;
          llvm::Value* stride = I64(1);
          for (int d = r->dims() - 1; d >= 0; --d) {
            flat.sizes.insert(flat.sizes.begin(), DimSize(*r, d));
            flat.strides.insert(flat.strides.begin(), stride);
            stride = b_.CreateMul(stride, flat.sizes.front());
          }
          CopyUnits(*r, copy, stride, true);
          *r = std::move(flat);
        }
        Descriptor desc(RefTy(), sizeof(scjit_ref), alignof(scjit_ref));
        if (r->semaphore) {  // the view's shape, and its first semaphore's index
          RefVal shape = *r;
          shape.ptr = null;
          FillRef(desc, {}, shape);
          CallChecked(RuntimeFn::kDebugPrint, {ctx_arg_, I32(site), I32(SCJIT_PRINT_SEMS), I32(0), null,
                                               b_.CreateSExt(r->ptr, b_.getInt64Ty()), Materialize(desc)});
          return absl::OkStatus();
        }
        FillRef(desc, {}, *r);
        llvm::Value* ref = Materialize(desc);
        CallChecked(RuntimeFn::kDebugPrint,
                    {ctx_arg_, I32(site), I32(SCJIT_PRINT_REF), I32(static_cast<int>(r->element)), null, I64(0), ref});
        return absl::OkStatus();
      }
      const Type& t = o.value->type;
      if (Large(t)) {  // already in memory, i1 as bytes
        CallChecked(RuntimeFn::kDebugPrint, {ctx_arg_, I32(site), I32(SCJIT_PRINT_VALUE),
                                             I32(static_cast<int>(t.element())), BufferOf(o), I64(t.NumElements()), null});
        return absl::OkStatus();
      }
      llvm::Value* v = ValueOf(o);
      llvm::Value* tmp = EntryAlloca(v->getType());
      // i1 vectors are printed from bytes.
      if (t.element() == ElementType::kI1) {
        llvm::Type* bytes = t.is_vector() ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(
                                                b_.getInt8Ty(), static_cast<unsigned>(t.NumElements())))
                                          : b_.getInt8Ty();
        tmp = EntryAlloca(bytes);
        v = b_.CreateZExt(v, bytes);
      }
      b_.CreateStore(v, tmp);
      CallChecked(RuntimeFn::kDebugPrint, {ctx_arg_, I32(site), I32(SCJIT_PRINT_VALUE),
                                           I32(static_cast<int>(t.element())), tmp, I64(t.NumElements()), null});
      return absl::OkStatus();
    }
    case OpKind::kDebugCheck: {
      // Emitted whatever the checks: the kernel asked for it (language.md §12).
      llvm::BasicBlock* failed = llvm::BasicBlock::Create(ctx_, "check_failed", fn_);
      llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "check_passed", fn_);
      b_.CreateCondBr(ValueOf(op.operands[0]), cont, failed, llvm::MDBuilder(ctx_).createLikelyBranchWeights());
      b_.SetInsertPoint(failed);
      CallChecked(RuntimeFn::kCheckFailed, {ctx_arg_, I32(Site(op, op.text))});
      b_.CreateBr(cont);
      b_.SetInsertPoint(cont);
      return absl::OkStatus();
    }
    case OpKind::kAlloc: {
      const Value* v = op.results[0];
      std::shared_ptr<RefVal> r = BaseRef(v);
      llvm::Value* null = llvm::ConstantPointerNull::get(b_.getPtrTy());
      if (r->semaphore) {
        CallChecked(RuntimeFn::kAlloc, {ctx_arg_, null, I64(v->type.NumElements()), I32(0), r->ptr});
      } else {
        CallChecked(RuntimeFn::kAlloc, {ctx_arg_, r->ptr, I64(v->type.NumElements()),
                                       I32(static_cast<int>(v->type.element())), I32(SCJIT_POISON_UNWRITTEN)});
      }
      return absl::OkStatus();
    }
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

namespace {

bool Narrow(llvm::Type* ty) {
  auto* vt = llvm::cast<llvm::FixedVectorType>(ty);
  return vt->getNumElements() * vt->getScalarSizeInBits() < 128;
}

// Lane i of an expand-load takes element popcount(mask[0, i)) when set. The
// view holds all n elements (the op's vector covers it), so the whole of it may
// be loaded.
llvm::Value* ExpandLanes(llvm::IRBuilder<>& b, llvm::Type* ty, llvm::Value* ptr, llvm::Value* mask,
                         llvm::Value* passthru) {
  unsigned n = llvm::cast<llvm::FixedVectorType>(ty)->getNumElements();
  llvm::Value* all = b.CreateAlignedLoad(ty, ptr, llvm::Align(1));
  llvm::Value* r = passthru;
  llvm::Value* at = b.getInt32(0);
  for (unsigned i = 0; i < n; ++i) {
    llvm::Value* on = b.CreateExtractElement(mask, b.getInt32(i));
    llvm::Value* lane = b.CreateSelect(on, b.CreateExtractElement(all, at), b.CreateExtractElement(passthru, i));
    r = b.CreateInsertElement(r, lane, b.getInt32(i));
    at = b.CreateAdd(at, b.CreateZExt(on, b.getInt32Ty()));
  }
  return r;
}

// The set lanes of a compress-store, in order, over the first popcount(mask)
// elements; the others keep what they hold (the view is read and written back).
void CompressLanes(llvm::IRBuilder<>& b, llvm::Value* v, llvm::Value* ptr, llvm::Value* mask) {
  llvm::Type* ty = v->getType();
  unsigned n = llvm::cast<llvm::FixedVectorType>(ty)->getNumElements();
  llvm::Value* out = b.CreateAlignedLoad(ty, ptr, llvm::Align(1));
  llvm::Value* at = b.getInt32(0);
  for (unsigned i = 0; i < n; ++i) {
    llvm::Value* on = b.CreateExtractElement(mask, b.getInt32(i));
    llvm::Value* placed = b.CreateInsertElement(out, b.CreateExtractElement(v, i), at);
    out = b.CreateSelect(on, placed, out);
    at = b.CreateAdd(at, b.CreateZExt(on, b.getInt32Ty()));
  }
  b.CreateAlignedStore(out, ptr, llvm::Align(1));
}

}  // namespace

void Emitter::LowerNarrowCompressions() {
  std::vector<llvm::IntrinsicInst*> calls;
  for (llvm::BasicBlock& block : *fn_) {
    for (llvm::Instruction& i : block) {
      auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
      if (call == nullptr) continue;
      llvm::Intrinsic::ID id = call->getIntrinsicID();
      if (id == llvm::Intrinsic::masked_expandload && Narrow(call->getType())) calls.push_back(call);
      if (id == llvm::Intrinsic::masked_compressstore && Narrow(call->getArgOperand(0)->getType())) {
        calls.push_back(call);
      }
    }
  }
  llvm::IRBuilder<> b(ctx_);
  for (llvm::IntrinsicInst* call : calls) {
    b.SetInsertPoint(call);
    if (call->getIntrinsicID() == llvm::Intrinsic::masked_expandload) {
      call->replaceAllUsesWith(
          ExpandLanes(b, call->getType(), call->getArgOperand(0), call->getArgOperand(1), call->getArgOperand(2)));
    } else {
      CompressLanes(b, call->getArgOperand(0), call->getArgOperand(1), call->getArgOperand(2));
    }
    call->eraseFromParent();
  }
}

}  // namespace scjit::emit
