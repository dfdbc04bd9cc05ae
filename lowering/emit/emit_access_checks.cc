// The race check of the kernel's own accesses (runtime.md §5): every load and
// store the emitted code makes to VMEM or SMEM first tests the state bytes of
// what it touches (SCJIT_SHADOW_*, runtime/abi.h), at the address plus
// scjit_ctx::shadow_delta, for a DMA in flight on them (or a word other
// subcores fetch_and_add). A failed test calls scjit_rt_access_fault on a cold
// path, which names the op, the element and the DMA. (The init check reads
// and writes the same state bytes with the ops: emit_shadows.cc.)
//
// It runs on the emitted function, after the ops are emitted: whatever path
// the emitter took to an access (strided, by units, gathers, masked and
// compressed forms, bulk copies), the access is an LLVM load, store, masked
// intrinsic or memory intrinsic whose address derives from the VMEM or SMEM
// arena base. Each carries the op it was emitted for (OpTag), so a finding
// names it. Stack buffers (large values, descriptors) derive from allocas and
// are left alone; HBM and VMEM_SHARED are reached by DMAs only (the SC rules).
#include "lowering/emit/emitter.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/Metadata.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

constexpr char kOpTag[] = "scjit.op";

// One access to check: where, what, and under which mask.
struct Access {
  llvm::Instruction* at = nullptr;
  bool write = false;
  llvm::Value* ptr = nullptr;    // a pointer, or a vector of them (gather/scatter)
  llvm::Type* type = nullptr;    // the value loaded or stored
  llvm::Value* mask = nullptr;   // null: every lane
  bool expand = false;           // expandload/compressstore: popcount(mask) consecutive elements
  llvm::Value* length = nullptr; // memory intrinsics: bytes (then type is null)
};

// The accesses `i` makes (a memcpy makes two).
std::vector<Access> AccessesOf(llvm::Instruction& i) {
  if (auto* l = llvm::dyn_cast<llvm::LoadInst>(&i)) return {{&i, false, l->getPointerOperand(), l->getType()}};
  if (auto* s = llvm::dyn_cast<llvm::StoreInst>(&i)) {
    return {{&i, true, s->getPointerOperand(), s->getValueOperand()->getType()}};
  }
  auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&i);
  if (call == nullptr) return {};
  switch (call->getIntrinsicID()) {
    case llvm::Intrinsic::masked_load:
    case llvm::Intrinsic::masked_gather:
      return {{&i, false, call->getArgOperand(0), call->getType(), call->getArgOperand(2)}};
    case llvm::Intrinsic::masked_store:
    case llvm::Intrinsic::masked_scatter:
      return {{&i, true, call->getArgOperand(1), call->getArgOperand(0)->getType(), call->getArgOperand(3)}};
    case llvm::Intrinsic::masked_expandload:
      return {{&i, false, call->getArgOperand(0), call->getType(), call->getArgOperand(1), true}};
    case llvm::Intrinsic::masked_compressstore:
      return {{&i, true, call->getArgOperand(1), call->getArgOperand(0)->getType(), call->getArgOperand(2), true}};
    case llvm::Intrinsic::memcpy:
    case llvm::Intrinsic::memmove:
      return {{&i, false, call->getArgOperand(1), nullptr, nullptr, false, call->getArgOperand(2)},
              {&i, true, call->getArgOperand(0), nullptr, nullptr, false, call->getArgOperand(2)}};
    case llvm::Intrinsic::memset:
      return {{&i, true, call->getArgOperand(0), nullptr, nullptr, false, call->getArgOperand(2)}};
    default:
      return {};
  }
}

// `byte` in each of an element's `width` state bytes, read as one integer; a
// splat of `lanes` such integers, or the integer alone when lanes is 0.
llvm::Constant* StateBytes(llvm::LLVMContext& ctx, uint8_t byte, uint64_t width, unsigned lanes) {
  auto bits_wide = static_cast<unsigned>(width * 8);
  llvm::APInt bits(bits_wide, 0);
  for (uint64_t k = 0; k < width; ++k) bits |= llvm::APInt(bits_wide, byte) << (8 * k);
  llvm::Constant* c = llvm::ConstantInt::get(llvm::IntegerType::get(ctx, bits_wide), bits);
  return lanes == 0 ? c : llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(lanes), c);
}

}  // namespace

void Emitter::TagOp(const Op* op) {
  if (!options_.access_checks) return;
  unsigned kind = ctx_.getMDKindID(kOpTag);
  if (tag_carrier_ == nullptr) tag_carrier_ = new llvm::UnreachableInst(ctx_);
  if (op == nullptr) {
    tag_carrier_->setMetadata(kind, nullptr);
  } else {
    tagged_ops_.push_back(op);
    llvm::Metadata* index = llvm::ConstantAsMetadata::get(b_.getInt32(static_cast<uint32_t>(tagged_ops_.size() - 1)));
    tag_carrier_->setMetadata(kind, llvm::MDNode::get(ctx_, {index}));
  }
  b_.CollectMetadataToCopy(tag_carrier_, {kind});
}

bool Emitter::InArena(llvm::Value* ptr) const {
  std::vector<llvm::Value*> work = {ptr};
  llvm::SmallPtrSet<llvm::Value*, 16> seen;
  while (!work.empty()) {
    llvm::Value* v = work.back();
    work.pop_back();
    if (!seen.insert(v).second) continue;
    if (v == vmem_ || v == smem_) return true;
    if (auto* gep = llvm::dyn_cast<llvm::GEPOperator>(v)) {
      work.push_back(gep->getPointerOperand());
    } else if (auto* sel = llvm::dyn_cast<llvm::SelectInst>(v)) {
      work.push_back(sel->getTrueValue());
      work.push_back(sel->getFalseValue());
    } else if (auto* phi = llvm::dyn_cast<llvm::PHINode>(v)) {
      for (llvm::Value* in : phi->incoming_values()) work.push_back(in);
    } else if (auto* freeze = llvm::dyn_cast<llvm::FreezeInst>(v)) {
      work.push_back(freeze->getOperand(0));
    } else if (auto* splat = llvm::dyn_cast<llvm::ShuffleVectorInst>(v)) {
      work.push_back(splat->getOperand(0));
    } else if (auto* ins = llvm::dyn_cast<llvm::InsertElementInst>(v)) {
      work.push_back(ins->getOperand(1));
    }
  }
  return false;
}

void Emitter::InstrumentAccesses() {
  if (!options_.access_checks) return;
  TagOp(nullptr);  // what follows is the checks' own code
  if (tag_carrier_ != nullptr) {
    tag_carrier_->deleteValue();
    tag_carrier_ = nullptr;
  }
  info_.layout.access_checks = true;
  unsigned kind = ctx_.getMDKindID(kOpTag);
  std::vector<std::pair<Access, const Op*>> accesses;
  for (llvm::BasicBlock& block : *fn_) {
    for (llvm::Instruction& i : block) {
      llvm::MDNode* tag = i.getMetadata(kind);
      if (tag == nullptr) continue;
      i.setMetadata(kind, nullptr);
      int64_t index = llvm::mdconst::extract<llvm::ConstantInt>(tag->getOperand(0))->getSExtValue();
      for (const Access& a : AccessesOf(i)) {
        if (InArena(a.ptr)) accesses.emplace_back(a, tagged_ops_[static_cast<size_t>(index)]);
      }
    }
  }
  // One site per op, made when its first access needs one.
  absl::flat_hash_map<const Op*, int> sites;
  for (const auto& [access, op] : accesses) {
    auto [it, added] = sites.try_emplace(op, 0);
    if (added) it->second = Site(*op);
    if (access.length != nullptr) {
      CheckInBulk(access.at, access.write, access.ptr, access.length, it->second);
      continue;
    }
    CheckAccess(access.at, access.write, access.ptr, access.type, access.mask, access.expand, it->second);
  }
}

void Emitter::CheckInBulk(llvm::Instruction* at, bool write, llvm::Value* ptr, llvm::Value* bytes, int site) {
  llvm::BasicBlock* here = at->getParent();
  llvm::BasicBlock* cont = here->splitBasicBlock(at, "access_ok");
  here->getTerminator()->eraseFromParent();
  b_.SetInsertPoint(here);
  CallChecked(RuntimeFn::kAccessCheck,
              {ctx_arg_, I32(site), I32(write), ptr, b_.CreateZExtOrTrunc(bytes, b_.getInt64Ty())});
  b_.CreateBr(cont);
}

void Emitter::CheckAccess(llvm::Instruction* at, bool write, llvm::Value* ptr, llvm::Type* type, llvm::Value* mask,
                          bool expand, int site) {
  const llvm::DataLayout& dl = module_.getDataLayout();
  auto* vec = llvm::dyn_cast<llvm::FixedVectorType>(type);
  llvm::Type* elem = vec != nullptr ? vec->getElementType() : type;
  bool by_lane = vec != nullptr && elem->getScalarSizeInBits() % 8 == 0;
  unsigned lanes = by_lane ? vec->getNumElements() : 1;
  uint64_t width = by_lane ? elem->getScalarSizeInBits() / 8 : dl.getTypeStoreSize(type).getFixedValue();
  // One state byte per byte: an element's state bytes read as one integer.
  bool gather = ptr->getType()->isVectorTy();
  if (!by_lane && (mask != nullptr || gather)) {
    // Masked vectors of sub-byte elements (i1): checked in bulk, every lane.
    if (!gather) CheckInBulk(at, write, ptr, I64(static_cast<int64_t>(width)), site);
    return;
  }
  llvm::Type* state_elem = b_.getIntNTy(static_cast<unsigned>(width * 8));
  llvm::Type* state_ty = by_lane ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(state_elem, lanes)) : state_elem;
  auto repeat = [&](uint8_t byte) { return StateBytes(ctx_, byte, width, by_lane ? lanes : 0); };
  llvm::Constant* need_mask = repeat(write ? SCJIT_SHADOW_WRITE_MASK : SCJIT_SHADOW_READ_MASK);
  llvm::Constant* need = repeat(0);

  b_.SetInsertPoint(at);
  llvm::Value* state_ptr = b_.CreateGEP(b_.getInt8Ty(), ptr, shadow_delta_);
  llvm::Align one(1);
  llvm::Value* state = nullptr;
  if (gather) {
    state = b_.CreateMaskedGather(state_ty, state_ptr, one, mask, need);
  } else if (expand) {
    state = b_.CreateMaskedExpandLoad(state_ty, state_ptr, mask, need);
  } else if (mask != nullptr) {
    state = b_.CreateMaskedLoad(state_ty, state_ptr, one, mask, need);
  } else {
    state = b_.CreateAlignedLoad(state_ty, state_ptr, one);
  }
  // Masked-off lanes read `need` and pass.
  llvm::Value* bad = b_.CreateICmpNE(b_.CreateAnd(state, need_mask), need);
  llvm::Value* any = by_lane ? b_.CreateOrReduce(bad) : bad;

  // The cold path: the first bad element (or, compressed, the whole run) to the runtime.
  llvm::BasicBlock* here = at->getParent();
  llvm::BasicBlock* cont = here->splitBasicBlock(at, "access_ok");
  llvm::BasicBlock* fault = llvm::BasicBlock::Create(ctx_, "access_fault", fn_);
  here->getTerminator()->eraseFromParent();
  b_.SetInsertPoint(here);
  b_.CreateCondBr(any, fault, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(fault);
  llvm::Value* addr = ptr;
  llvm::Value* bytes = I64(static_cast<int64_t>(width));
  if (by_lane) {
    llvm::Value* lane = b_.CreateIntrinsic(llvm::Intrinsic::cttz, {b_.getIntNTy(lanes)},
                                           {b_.CreateBitCast(bad, b_.getIntNTy(lanes)), b_.getTrue()});
    lane = b_.CreateZExtOrTrunc(lane, b_.getInt64Ty());
    if (gather) {
      addr = b_.CreateExtractElement(ptr, lane);
    } else if (expand) {
      llvm::Value* active = b_.CreateIntrinsic(llvm::Intrinsic::ctpop, {b_.getIntNTy(lanes)},
                                               {b_.CreateBitCast(mask, b_.getIntNTy(lanes))});
      bytes = b_.CreateMul(b_.CreateZExtOrTrunc(active, b_.getInt64Ty()), I64(static_cast<int64_t>(width)));
    } else {
      addr = b_.CreateGEP(b_.getInt8Ty(), ptr, b_.CreateMul(lane, I64(static_cast<int64_t>(width))));
    }
  }
  CallChecked(RuntimeFn::kAccessFault, {ctx_arg_, I32(site), I32(write), addr, bytes});
  b_.CreateBr(cont);
}

llvm::Value* Emitter::LanesUpdatable(const std::vector<llvm::Value*>& ptrs, unsigned unit_bytes, llvm::Value* active) {
  unsigned lanes = llvm::cast<llvm::FixedVectorType>(active->getType())->getNumElements();
  // Read and write at once: written, and no DMA touching it, nor watched.
  llvm::Constant* need_mask = StateBytes(
      ctx_, SCJIT_SHADOW_READ_MASK | SCJIT_SHADOW_WRITE_MASK | SCJIT_SHADOW_INIT_BITS, unit_bytes, lanes);
  llvm::Constant* need = StateBytes(ctx_, SCJIT_SHADOW_WRITTEN, unit_bytes, lanes);
  llvm::Value* ok = b_.getTrue();
  for (llvm::Value* p : ptrs) {
    llvm::Value* state = b_.CreateMaskedGather(need->getType(),
                                               b_.CreateGEP(b_.getInt8Ty(), p, shadow_delta_), llvm::Align(1), active, need);
    ok = b_.CreateAnd(ok, b_.CreateNot(b_.CreateOrReduce(b_.CreateICmpNE(b_.CreateAnd(state, need_mask), need))));
  }
  return ok;
}

}  // namespace scjit::emit
