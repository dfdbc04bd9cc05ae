#include "lowering/emit_llvm.h"

#include <cstring>

#include "absl/container/flat_hash_map.h"
#include "lowering/printer.h"
#include "lowering/strings.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/raw_ostream.h"
#include "runtime/abi.h"

namespace scjit {
namespace {

// A view of memory (or of semaphores) as the generated code holds it.
struct RefVal {
  MemorySpace space = MemorySpace::kVmem;
  bool semaphore = false;
  ElementType element = ElementType::kI32;
  llvm::Value* ptr = nullptr;  // data: address of element 0; semaphores: i32 index of element 0
  std::vector<llvm::Value*> sizes;    // i64
  std::vector<llvm::Value*> strides;  // i64, in elements
  int rank() const { return static_cast<int>(sizes.size()); }
};

// What an SSA value is in generated code: an LLVM value, or a ref.
struct Val {
  llvm::Value* value = nullptr;
  std::shared_ptr<RefVal> ref;
};

absl::Status Unsupported(const Kernel& k, const Op& op, std::string_view what) {
  return absl::UnimplementedError(Cat("not implemented yet: ", what, " (", op.name(), " at line ", op.loc.line,
                                      ", kernel @", k.name, ")"));
}

class Emitter {
 public:
  Emitter(const Kernel& kernel, KernelInfo& info, const EmitOptions& options, llvm::LLVMContext& ctx,
          llvm::Module& module)
      : kernel_(kernel), info_(info), options_(options), ctx_(ctx), module_(module), b_(ctx) {}

  absl::Status Run();

 private:
  // --- Types ---------------------------------------------------------------------
  llvm::Type* ElemTy(ElementType e);
  llvm::Type* ValueTy(const Type& t);
  llvm::StructType* CtxTy();
  llvm::StructType* RefTy();
  llvm::StructType* DmaTy();
  llvm::Value* I32(int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); }
  llvm::Value* I64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }

  // --- Runtime calls -------------------------------------------------------------
  llvm::FunctionCallee Rt(std::string_view name);
  // Calls a runtime function; on a non-zero status the kernel returns it.
  void CallChecked(std::string_view name, std::vector<llvm::Value*> args);
  // Branches to the exit with `status` when `fail` holds.
  void ExitIf(llvm::Value* fail, llvm::Value* status);
  llvm::Value* CtxField(int field, llvm::Type* ty);
  int Site(const Op& op, std::string text = "", Location loc = {}) {
    return info_.AddSite(op, std::move(text), loc);
  }

  // --- Values --------------------------------------------------------------------
  // A value operand, or a literal as a constant of its literal_type.
  llvm::Value* ValueOf(const Operand& o);
  llvm::Constant* LiteralConstant(const Operand& o, ElementType e);
  llvm::Constant* PoisonConstant(const Type& t);
  llvm::Value* Splat(llvm::Value* scalar, const Type& t);

  // --- Refs ----------------------------------------------------------------------
  std::shared_ptr<RefVal> BaseRef(const Value* v);
  // The view an operand denotes, bounds-checked against its ref.
  absl::StatusOr<RefVal> View(const Op& op, const Operand& o, int site);
  // `index` must lie in [0, limit) (unsigned); returns it, or its clamp.
  llvm::Value* CheckIndex(llvm::Value* index, llvm::Value* limit, int what, int dim, int site);
  llvm::Value* Address(const RefVal& r, llvm::Value* offset);  // element `offset` of r
  absl::StatusOr<llvm::Value*> Load(const Op& op, const RefVal& view, const Type& type);
  absl::Status Store(const Op& op, const RefVal& view, llvm::Value* v, const Type& type);
  bool Contiguous(const RefVal& r) const;
  void FillRef(llvm::Value* dst, const RefVal& r);

  // --- Ops -----------------------------------------------------------------------
  absl::Status EmitRegion(const Region& r, std::vector<llvm::Value*>* yielded);
  absl::Status EmitOp(const Op& op);
  absl::Status EmitElementwise(const Op& op);
  absl::StatusOr<llvm::Value*> Binary(const Op& op, OpKind kind, llvm::Value* a, llvm::Value* b, ElementType e);
  absl::StatusOr<llvm::Value*> Unary(const Op& op, llvm::Value* a, ElementType e);
  llvm::Value* Convert(llvm::Value* v, ElementType from, const Type& to);
  absl::Status EmitMemory(const Op& op);
  absl::Status EmitDma(const Op& op);
  absl::Status EmitSync(const Op& op);
  absl::Status EmitFor(const Op& op);
  absl::Status EmitIf(const Op& op);
  absl::Status EmitWhile(const Op& op);
  void Tick();

  void Set(const Value* v, llvm::Value* value) { vals_[v].value = value; }

  const Kernel& kernel_;
  KernelInfo& info_;
  const EmitOptions& options_;
  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;

  llvm::Function* fn_ = nullptr;
  llvm::Value* ctx_arg_ = nullptr;
  llvm::BasicBlock* exit_ = nullptr;
  llvm::PHINode* exit_status_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  absl::flat_hash_map<const Value*, Val> vals_;
  llvm::Value* vmem_ = nullptr;
  llvm::Value* smem_ = nullptr;
  llvm::Value* shared_ = nullptr;
  llvm::Value* hbm_ = nullptr;
};

// ------------------------------------------------------------------------------------
// Types.

llvm::Type* Emitter::ElemTy(ElementType e) {
  switch (e) {
    case ElementType::kI1:
      return b_.getInt1Ty();
    case ElementType::kI8:
    case ElementType::kU8:
      return b_.getInt8Ty();
    case ElementType::kI16:
    case ElementType::kU16:
      return b_.getInt16Ty();
    case ElementType::kI32:
    case ElementType::kU32:
      return b_.getInt32Ty();
    case ElementType::kI64:
    case ElementType::kU64:
      return b_.getInt64Ty();
    case ElementType::kBF16:
      return b_.getBFloatTy();
    case ElementType::kF16:
      return b_.getHalfTy();
    case ElementType::kF32:
      return b_.getFloatTy();
    case ElementType::kF64:
      return b_.getDoubleTy();
  }
  return b_.getInt32Ty();
}

llvm::Type* Emitter::ValueTy(const Type& t) {
  if (t.is_vector()) return llvm::FixedVectorType::get(ElemTy(t.element()), static_cast<unsigned>(t.NumElements()));
  return ElemTy(t.element());
}

llvm::StructType* Emitter::CtxTy() { return CtxType(ctx_); }
llvm::StructType* Emitter::RefTy() { return RefType(ctx_); }
llvm::StructType* Emitter::DmaTy() { return DmaType(ctx_); }

// Context fields, in scjit_ctx order.
enum CtxField { kVmem, kSmem, kShared, kHbm, kCore, kSubcore, kNumCores, kNumSubcores, kTick, kChecks, kRuntime };

llvm::Value* Emitter::CtxField(int field, llvm::Type* ty) {
  return b_.CreateLoad(ty, b_.CreateStructGEP(CtxTy(), ctx_arg_, field));
}

// ------------------------------------------------------------------------------------
// Runtime calls.

// Parses an abi.def signature such as "i32(ptr, i32)".
llvm::FunctionType* SignatureType(llvm::LLVMContext& ctx, std::string_view sig) {
  auto type = [&](std::string_view t) -> llvm::Type* {
    if (t == "i32") return llvm::Type::getInt32Ty(ctx);
    if (t == "i64") return llvm::Type::getInt64Ty(ctx);
    return llvm::PointerType::get(ctx, 0);
  };
  size_t open = sig.find('(');
  llvm::Type* ret = type(sig.substr(0, open));
  std::vector<llvm::Type*> args;
  std::string_view rest = sig.substr(open + 1, sig.size() - open - 2);
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    std::string_view arg = rest.substr(0, comma);
    while (!arg.empty() && arg.front() == ' ') arg.remove_prefix(1);
    args.push_back(type(arg));
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return llvm::FunctionType::get(ret, args, false);
}

llvm::FunctionCallee Emitter::Rt(std::string_view name) {
  struct Row {
    std::string_view name, sig;
  };
  static constexpr Row kRows[] = {
#define SCJIT_ABI(fn, signature) {#fn, signature},
#include "runtime/abi.def"
  };
  for (const Row& row : kRows) {
    if (row.name == name) {
      return module_.getOrInsertFunction(llvm::StringRef(name.data(), name.size()), SignatureType(ctx_, row.sig));
    }
  }
  return {};  // unreachable: every caller names a row of abi.def
}

void Emitter::ExitIf(llvm::Value* fail, llvm::Value* status) {
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "ok", fn_);
  llvm::BasicBlock* here = b_.GetInsertBlock();
  b_.CreateCondBr(fail, exit_, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  exit_status_->addIncoming(status, here);
  b_.SetInsertPoint(cont);
}

void Emitter::CallChecked(std::string_view name, std::vector<llvm::Value*> args) {
  llvm::Value* status = b_.CreateCall(Rt(name), args);
  ExitIf(b_.CreateICmpNE(status, I32(0)), status);
}

// ------------------------------------------------------------------------------------
// Values.

llvm::Constant* Emitter::LiteralConstant(const Operand& o, ElementType e) {
  llvm::Type* ty = ElemTy(e);
  if (IsFloat(e)) {
    double v = o.kind == Operand::Kind::kFloat ? o.float_value : static_cast<double>(o.int_value);
    return llvm::ConstantFP::get(ty, v);
  }
  return llvm::ConstantInt::get(ty, static_cast<uint64_t>(o.int_value), /*isSigned=*/true);
}

llvm::Constant* Emitter::PoisonConstant(const Type& t) {
  uint64_t bits = PoisonBits(t.element());
  llvm::Constant* c = llvm::ConstantInt::get(b_.getIntNTy(static_cast<unsigned>(BitWidth(t.element()))), bits);
  if (IsFloat(t.element())) c = llvm::ConstantExpr::getBitCast(c, ElemTy(t.element()));
  if (t.element() == ElementType::kI1) c = b_.getTrue();
  if (t.is_vector()) return llvm::ConstantVector::getSplat(llvm::ElementCount::getFixed(static_cast<unsigned>(t.NumElements())), c);
  return c;
}

llvm::Value* Emitter::ValueOf(const Operand& o) {
  if (o.is_literal()) return LiteralConstant(o, o.literal_type.element());
  return vals_[o.value].value;
}


llvm::Value* Emitter::Splat(llvm::Value* scalar, const Type& t) {
  if (!t.is_vector()) return scalar;
  return b_.CreateVectorSplat(static_cast<unsigned>(t.NumElements()), scalar);
}

// ------------------------------------------------------------------------------------
// Refs.

std::shared_ptr<RefVal> Emitter::BaseRef(const Value* v) {
  if (auto it = vals_.find(v); it != vals_.end() && it->second.ref != nullptr) return it->second.ref;
  auto r = std::make_shared<RefVal>();
  const Type& t = v->type;
  const Slot& slot = info_.slots.at(v);
  r->semaphore = t.is_semaphore();
  r->element = t.is_semaphore() ? ElementType::kI32 : t.element();
  r->space = t.is_semaphore() ? MemorySpace::kSmem : t.space();
  int64_t stride = 1;
  r->sizes.resize(t.rank());
  r->strides.resize(t.rank());
  for (int d = t.rank() - 1; d >= 0; --d) {
    r->sizes[d] = I64(t.shape()[d]);
    r->strides[d] = I64(stride);
    stride *= t.shape()[d];
  }
  // Refs are materialized in the entry block so that every use dominates them.
  llvm::IRBuilder<>::InsertPointGuard guard(b_);
  b_.SetInsertPoint(entry_->getTerminator());
  if (r->semaphore) {
    r->ptr = I32(slot.semaphore);
  } else if (slot.space == MemorySpace::kHbm && slot.param >= 0) {
    llvm::Value* addr = b_.CreateConstGEP1_64(b_.getPtrTy(), hbm_, static_cast<uint64_t>(slot.param));
    r->ptr = b_.CreateLoad(b_.getPtrTy(), addr, Cat("%", v->name));
  } else {
    llvm::Value* base = slot.space == MemorySpace::kSmem ? smem_ : slot.space == MemorySpace::kVmemShared ? shared_ : vmem_;
    r->ptr = b_.CreateConstGEP1_64(b_.getInt8Ty(), base, static_cast<uint64_t>(slot.offset), Cat("%", v->name));
  }
  vals_[v].ref = r;
  return r;
}

llvm::Value* Emitter::CheckIndex(llvm::Value* index, llvm::Value* limit, int what, int dim, int site) {
  llvm::Value* in = b_.CreateICmpULT(index, limit);
  if (auto* c = llvm::dyn_cast<llvm::ConstantInt>(in); c != nullptr && c->isOne()) return index;
  if (options_.bounds_checks) {
    llvm::BasicBlock* bad = llvm::BasicBlock::Create(ctx_, "out_of_bounds", fn_);
    llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "in_bounds", fn_);
    b_.CreateCondBr(in, ok, bad, llvm::MDBuilder(ctx_).createLikelyBranchWeights());
    b_.SetInsertPoint(bad);
    CallChecked("scjit_rt_bounds_error", {ctx_arg_, I32(site), I32(what), I32(dim), index, limit});
    b_.CreateBr(ok);
    b_.SetInsertPoint(ok);
  }
  // Clamp into [0, limit) (0 when the range is empty): with checks off, or when
  // findings are warnings, no access leaves its ref.
  llvm::Value* last = b_.CreateSelect(b_.CreateICmpSGT(limit, I64(0)), b_.CreateSub(limit, I64(1)), I64(0));
  return b_.CreateSelect(in, index, last);
}

absl::StatusOr<RefVal> Emitter::View(const Op& op, const Operand& o, int site) {
  RefVal r = *BaseRef(o.value);
  if (!o.indexed) return r;
  RefVal out;
  out.space = r.space;
  out.semaphore = r.semaphore;
  out.element = r.element;
  llvm::Value* offset = I64(0);
  for (int d = 0; d < r.rank(); ++d) {
    llvm::Value* size = r.sizes[d];
    llvm::Value* stride = r.strides[d];
    if (d >= static_cast<int>(o.index.size())) {
      out.sizes.push_back(size);
      out.strides.push_back(stride);
      continue;
    }
    const IndexEntry& e = o.index[d];
    switch (e.kind) {
      case IndexEntry::Kind::kIndex: {
        llvm::Value* i = b_.CreateSExt(ValueOf(e.start), b_.getInt64Ty());
        i = CheckIndex(i, size, SCJIT_BOUNDS_INDEX, d, site);
        offset = b_.CreateAdd(offset, b_.CreateMul(i, stride));
        break;
      }
      case IndexEntry::Kind::kSlice: {
        llvm::Value* start = b_.CreateSExt(ValueOf(e.start), b_.getInt64Ty());
        llvm::Value* n = b_.CreateSExt(ValueOf(e.size), b_.getInt64Ty());
        int64_t k = e.stride ? e.stride->int_value : 1;
        if (!e.size.is_literal()) n = CheckIndex(n, b_.CreateAdd(size, I64(1)), SCJIT_BOUNDS_SLICE_SIZE, d, site);
        // The last element start + (n-1)*k must be inside: start < size - (n-1)*k.
        llvm::Value* span = b_.CreateMul(b_.CreateSub(n, I64(1)), I64(k));
        start = CheckIndex(start, b_.CreateSub(size, span), SCJIT_BOUNDS_SLICE_START, d, site);
        offset = b_.CreateAdd(offset, b_.CreateMul(start, stride));
        out.sizes.push_back(n);
        out.strides.push_back(b_.CreateMul(stride, I64(k)));
        break;
      }
      case IndexEntry::Kind::kRange: {
        int64_t lo = e.lo.value_or(0);
        llvm::Value* hi = e.hi ? I64(*e.hi) : size;
        offset = b_.CreateAdd(offset, b_.CreateMul(I64(lo), stride));
        out.sizes.push_back(b_.CreateSub(hi, I64(lo)));
        out.strides.push_back(stride);
        break;
      }
      case IndexEntry::Kind::kAll:
        out.sizes.push_back(size);
        out.strides.push_back(stride);
        break;
      case IndexEntry::Kind::kIndirect:
        return Unsupported(kernel_, op, "indirect DMAs (idx)");
    }
  }
  out.ptr = r.semaphore ? b_.CreateAdd(r.ptr, b_.CreateTrunc(offset, b_.getInt32Ty()))
                        : b_.CreateGEP(ElemTy(r.element), r.ptr, offset);
  return out;
}

llvm::Value* Emitter::Address(const RefVal& r, llvm::Value* offset) {
  return b_.CreateGEP(ElemTy(r.element), r.ptr, offset);
}

bool Emitter::Contiguous(const RefVal& r) const {
  int64_t expect = 1;
  for (int d = r.rank() - 1; d >= 0; --d) {
    auto* size = llvm::dyn_cast<llvm::ConstantInt>(r.sizes[d]);
    auto* stride = llvm::dyn_cast<llvm::ConstantInt>(r.strides[d]);
    if (size == nullptr || stride == nullptr) return false;
    if (size->getSExtValue() != 1 && stride->getSExtValue() != expect) return false;
    expect *= size->getSExtValue();
  }
  return true;
}

// Row-major element offsets of a view with static sizes: calls `row(offset,
// first_element)` for each run of `row_len` elements that is contiguous.
template <typename Fn>
absl::Status ForEachRow(const RefVal& r, int64_t* row_len, Fn&& row) {
  std::vector<int64_t> sizes, strides;
  for (int d = 0; d < r.rank(); ++d) {
    auto* size = llvm::dyn_cast<llvm::ConstantInt>(r.sizes[d]);
    auto* stride = llvm::dyn_cast<llvm::ConstantInt>(r.strides[d]);
    if (size == nullptr || stride == nullptr) return absl::InternalError("a value view has a dynamic shape");
    sizes.push_back(size->getSExtValue());
    strides.push_back(stride->getSExtValue());
  }
  bool unit_minor = r.rank() > 0 && strides.back() == 1;
  *row_len = unit_minor ? sizes.back() : 1;
  int outer_rank = unit_minor ? r.rank() - 1 : r.rank();
  int64_t rows = 1;
  for (int d = 0; d < outer_rank; ++d) rows *= sizes[d];
  for (int64_t k = 0; k < rows; ++k) {
    int64_t rem = k, off = 0;
    for (int d = outer_rank - 1; d >= 0; --d) {
      off += (rem % sizes[d]) * strides[d];
      rem /= sizes[d];
    }
    row(off, k * *row_len);
  }
  return absl::OkStatus();
}

absl::StatusOr<llvm::Value*> Emitter::Load(const Op& op, const RefVal& view, const Type& type) {
  llvm::Type* elem = ElemTy(view.element);
  llvm::Align align(static_cast<uint64_t>(ByteWidth(view.element)));
  if (!type.is_vector()) return b_.CreateAlignedLoad(elem, view.ptr, align);
  llvm::Type* vec = ValueTy(type);
  if (Contiguous(view)) return b_.CreateAlignedLoad(vec, view.ptr, align);
  // Rows go through a stack temporary, which LLVM turns back into registers.
  llvm::Value* tmp;
  {
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(entry_->getTerminator());
    tmp = b_.CreateAlloca(vec);
  }
  int64_t row_len = 1;
  absl::Status s = ForEachRow(view, &row_len, [&](int64_t off, int64_t first) {
    llvm::Type* row_ty = row_len == 1 ? elem : llvm::FixedVectorType::get(elem, static_cast<unsigned>(row_len));
    llvm::Value* v = b_.CreateAlignedLoad(row_ty, Address(view, I64(off)), align);
    b_.CreateAlignedStore(v, b_.CreateConstGEP1_64(elem, tmp, static_cast<uint64_t>(first)), align);
  });
  if (!s.ok()) return s;
  return b_.CreateAlignedLoad(vec, tmp, align);
}

absl::Status Emitter::Store(const Op& op, const RefVal& view, llvm::Value* v, const Type& type) {
  llvm::Type* elem = ElemTy(view.element);
  llvm::Align align(static_cast<uint64_t>(ByteWidth(view.element)));
  if (!type.is_vector() || Contiguous(view)) {
    b_.CreateAlignedStore(v, view.ptr, align);
    return absl::OkStatus();
  }
  llvm::Value* tmp;
  {
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(entry_->getTerminator());
    tmp = b_.CreateAlloca(v->getType());
  }
  b_.CreateAlignedStore(v, tmp, align);
  int64_t row_len = 1;
  return ForEachRow(view, &row_len, [&](int64_t off, int64_t first) {
    llvm::Type* row_ty = row_len == 1 ? elem : llvm::FixedVectorType::get(elem, static_cast<unsigned>(row_len));
    llvm::Value* row = b_.CreateAlignedLoad(row_ty, b_.CreateConstGEP1_64(elem, tmp, static_cast<uint64_t>(first)), align);
    b_.CreateAlignedStore(row, Address(view, I64(off)), align);
  });
}

void Emitter::FillRef(llvm::Value* dst, const RefVal& r) {
  llvm::StructType* ref_ty = RefTy();
  llvm::Type* dims_ty = llvm::ArrayType::get(b_.getInt64Ty(), SCJIT_MAX_RANK);
  b_.CreateStore(r.ptr, b_.CreateStructGEP(ref_ty, dst, 0));
  for (int d = 0; d < SCJIT_MAX_RANK; ++d) {
    llvm::Value* size = d < r.rank() ? r.sizes[d] : I64(1);
    llvm::Value* stride = d < r.rank() ? r.strides[d] : I64(0);
    b_.CreateStore(size, b_.CreateConstGEP2_32(dims_ty, b_.CreateStructGEP(ref_ty, dst, 1), 0, d));
    b_.CreateStore(stride, b_.CreateConstGEP2_32(dims_ty, b_.CreateStructGEP(ref_ty, dst, 2), 0, d));
  }
  b_.CreateStore(I32(r.rank()), b_.CreateStructGEP(ref_ty, dst, 3));
  b_.CreateStore(I32(static_cast<int>(r.space)), b_.CreateStructGEP(ref_ty, dst, 4));
}

// ------------------------------------------------------------------------------------
// The kernel function.

absl::Status Emitter::Run() {
  llvm::FunctionType* fty = llvm::FunctionType::get(b_.getInt32Ty(), {b_.getPtrTy()}, false);
  fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, KernelSymbol(kernel_.name), module_);
  fn_->addFnAttr(llvm::Attribute::NoUnwind);
  ctx_arg_ = fn_->getArg(0);
  ctx_arg_->setName("ctx");
  entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "body", fn_);
  exit_ = llvm::BasicBlock::Create(ctx_, "exit", fn_);
  b_.SetInsertPoint(exit_);
  exit_status_ = b_.CreatePHI(b_.getInt32Ty(), 4, "status");
  b_.CreateRet(exit_status_);

  b_.SetInsertPoint(entry_);
  vmem_ = CtxField(kVmem, b_.getPtrTy());
  smem_ = CtxField(kSmem, b_.getPtrTy());
  shared_ = CtxField(kShared, b_.getPtrTy());
  hbm_ = CtxField(kHbm, b_.getPtrTy());
  b_.CreateBr(body);

  b_.SetInsertPoint(body);
  if (absl::Status s = EmitRegion(kernel_.body, nullptr); !s.ok()) return s;
  exit_status_->addIncoming(I32(0), b_.GetInsertBlock());
  b_.CreateBr(exit_);

  std::string error;
  llvm::raw_string_ostream os(error);
  if (llvm::verifyFunction(*fn_, &os)) {
    return absl::InternalError(Cat("the emitted LLVM IR of @", kernel_.name, " is invalid: ", os.str()));
  }
  return absl::OkStatus();
}

absl::Status Emitter::EmitRegion(const Region& r, std::vector<llvm::Value*>* yielded) {
  for (const auto& op : r.ops) {
    if (op->kind == OpKind::kYield || op->kind == OpKind::kCondition) {
      if (yielded != nullptr) {
        for (const Operand& o : op->operands) yielded->push_back(ValueOf(o));
      }
      continue;
    }
    if (absl::Status s = EmitOp(*op); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status Emitter::EmitOp(const Op& op) {
  const auto& ops = op.operands;
  switch (op.kind) {
    case OpKind::kConst: {
      const Type& t = op.results[0]->type;
      const ConstValue& c = op.constant;
      if (!t.is_vector()) {
        Set(op.results[0], LiteralConstant(c.elements[0], t.element()));
      } else if (!c.dense_list) {
        Set(op.results[0], llvm::ConstantVector::getSplat(
                               llvm::ElementCount::getFixed(static_cast<unsigned>(t.NumElements())),
                               LiteralConstant(c.elements[0], t.element())));
      } else {
        std::vector<llvm::Constant*> elems;
        for (const Operand& e : c.elements) elems.push_back(LiteralConstant(e, t.element()));
        Set(op.results[0], llvm::ConstantVector::get(elems));
      }
      return absl::OkStatus();
    }
    case OpKind::kIota: {
      const Type& t = op.results[0]->type;
      std::vector<llvm::Constant*> elems;
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        elems.push_back(IsFloat(t.element()) ? llvm::ConstantFP::get(ElemTy(t.element()), static_cast<double>(i))
                                             : llvm::ConstantInt::get(ElemTy(t.element()), static_cast<uint64_t>(i)));
      }
      Set(op.results[0], llvm::ConstantVector::get(elems));
      return absl::OkStatus();
    }
    case OpKind::kBroadcast:
      Set(op.results[0], Splat(ValueOf(ops[0]), op.results[0]->type));
      return absl::OkStatus();
    case OpKind::kExtract:
    case OpKind::kInsert: {
      const Operand& vec = op.kind == OpKind::kExtract ? ops[0] : ops[1];
      const Type& t = vec.value->type;
      llvm::Value* flat = I64(0);
      int64_t stride = 1;
      int site = -1;
      for (int d = t.rank() - 1; d >= 0; --d) {
        llvm::Value* i = b_.CreateSExt(ValueOf(vec.index[d].start), b_.getInt64Ty());
        if (!llvm::isa<llvm::Constant>(i)) {
          if (site < 0) site = Site(op, Print(vec), vec.loc);
          i = CheckIndex(i, I64(t.shape()[d]), SCJIT_BOUNDS_INDEX, d, site);
        }
        flat = b_.CreateAdd(flat, b_.CreateMul(i, I64(stride)));
        stride *= t.shape()[d];
      }
      llvm::Value* v = vals_[vec.value].value;
      Set(op.results[0], op.kind == OpKind::kExtract ? b_.CreateExtractElement(v, flat)
                                                     : b_.CreateInsertElement(v, ValueOf(ops[0]), flat));
      return absl::OkStatus();
    }
    case OpKind::kSlice: {
      const Type& t = ops[0].value->type;
      const Type& out = op.results[0]->type;
      std::vector<int> mask;
      // Each output element's row-major index, mapped back to the input.
      for (int64_t k = 0; k < out.NumElements(); ++k) {
        int64_t rem = k, src = 0, stride = 1;
        for (int d = t.rank() - 1; d >= 0; --d) {
          int64_t out_dim = d < out.rank() ? out.shape()[d] : 1;
          int64_t lo = d < static_cast<int>(ops[0].index.size()) ? ops[0].index[d].lo.value_or(0) : 0;
          src += (rem % out_dim + lo) * stride;
          rem /= out_dim;
          stride *= t.shape()[d];
        }
        mask.push_back(static_cast<int>(src));
      }
      llvm::Value* v = vals_[ops[0].value].value;
      Set(op.results[0], b_.CreateShuffleVector(v, mask));
      return absl::OkStatus();
    }
    case OpKind::kConcat: {
      const Attribute* a = op.FindAttr("axis");
      int64_t axis = a != nullptr ? a->value.operand.int_value : 0;
      const Type& out = op.results[0]->type;
      // Build through a temporary: each operand's rows land at their offset.
      std::vector<llvm::Value*> parts;
      std::vector<int64_t> starts;
      int64_t start = 0;
      for (const Operand& o : ops) {
        parts.push_back(vals_[o.value].value);
        starts.push_back(start);
        start += o.value->type.shape()[axis];
      }
      llvm::Value* result = llvm::PoisonValue::get(ValueTy(out));
      int64_t inner = 1;
      for (int d = static_cast<int>(axis) + 1; d < out.rank(); ++d) inner *= out.shape()[d];
      int64_t outer = out.NumElements() / (out.shape()[axis] * inner);
      for (size_t p = 0; p < parts.size(); ++p) {
        int64_t len = ops[p].value->type.shape()[axis];
        for (int64_t o = 0; o < outer; ++o) {
          for (int64_t j = 0; j < len * inner; ++j) {
            llvm::Value* e = b_.CreateExtractElement(parts[p], I64(o * len * inner + j));
            result = b_.CreateInsertElement(result, e, I64(o * out.shape()[axis] * inner + starts[p] * inner + j));
          }
        }
      }
      Set(op.results[0], result);
      return absl::OkStatus();
    }
    case OpKind::kReshape:
      Set(op.results[0], vals_[ops[0].value].value);
      return absl::OkStatus();
    case OpKind::kAxisIndex:
    case OpKind::kAxisSize: {
      bool core = op.axis == MeshAxis::kCore;
      int field = op.kind == OpKind::kAxisIndex ? (core ? kCore : kSubcore) : (core ? kNumCores : kNumSubcores);
      Set(op.results[0], CtxField(field, b_.getInt32Ty()));
      return absl::OkStatus();
    }
    case OpKind::kProgramId:
    case OpKind::kNumPrograms: {
      // Outside a pipeline the "grid" is the mesh: axis 0 is the core, axis 1 the
      // subcore (kernel-ir.md §4.1).
      bool is_id = op.kind == OpKind::kProgramId;
      int64_t axis = ops[0].int_value;
      int field = axis == 0 ? (is_id ? kCore : kNumCores) : (is_id ? kSubcore : kNumSubcores);
      if (axis > 1) return Unsupported(kernel_, op, "program_id beyond the mesh axes");
      Set(op.results[0], CtxField(field, b_.getInt32Ty()));
      return absl::OkStatus();
    }
    case OpKind::kCmp:
    case OpKind::kSelect:
    case OpKind::kClamp:
    case OpKind::kConvert:
    case OpKind::kBitcast:
      return EmitElementwise(op);
    case OpKind::kView: {
      int site = Site(op, Print(ops[0]), ops[0].loc);
      absl::StatusOr<RefVal> v = View(op, ops[0], site);
      if (!v.ok()) return v.status();
      vals_[op.results[0]].ref = std::make_shared<RefVal>(*std::move(v));
      return absl::OkStatus();
    }
    case OpKind::kSelectRef: {
      llvm::Value* k = ValueOf(ops[0]);
      RefVal r = *BaseRef(ops[1].value);
      for (size_t i = 2; i < ops.size(); ++i) {
        RefVal other = *BaseRef(ops[i].value);
        llvm::Value* pick = b_.CreateICmpEQ(k, b_.getInt32(static_cast<uint32_t>(i - 1)));
        r.ptr = b_.CreateSelect(pick, other.ptr, r.ptr);
        for (int d = 0; d < r.rank(); ++d) {
          r.sizes[d] = b_.CreateSelect(pick, other.sizes[d], r.sizes[d]);
          r.strides[d] = b_.CreateSelect(pick, other.strides[d], r.strides[d]);
        }
      }
      vals_[op.results[0]].ref = std::make_shared<RefVal>(std::move(r));
      return absl::OkStatus();
    }
    case OpKind::kGet:
    case OpKind::kSwap:
    case OpKind::kStore:
    case OpKind::kLoadExpanded:
    case OpKind::kStoreCompressed:
    case OpKind::kAddupdate:
    case OpKind::kAddupdateCompressed:
    case OpKind::kFetchAndAdd:
      return EmitMemory(op);
    case OpKind::kDmaStart:
    case OpKind::kDmaWait:
    case OpKind::kCopy:
      return EmitDma(op);
    case OpKind::kSemSignal:
    case OpKind::kSemWait:
    case OpKind::kSemRead:
    case OpKind::kBarrier:
    case OpKind::kDebugPrint:
    case OpKind::kAlloc:
      return EmitSync(op);
    case OpKind::kFor:
    case OpKind::kParallelFor:
      return EmitFor(op);
    case OpKind::kIf:
      return EmitIf(op);
    case OpKind::kWhile:
      return EmitWhile(op);
    case OpKind::kScoped:
      return EmitRegion(*op.regions[0], nullptr);
    default:
      if (op.info().rule != TypeRule::kCustom) return EmitElementwise(op);
      return Unsupported(kernel_, op, op.name());
  }
}

// ------------------------------------------------------------------------------------
// Elementwise computation (kernel-ir.md §4.1).

absl::StatusOr<llvm::Value*> Emitter::Binary(const Op& op, OpKind kind, llvm::Value* a, llvm::Value* b,
                                             ElementType e) {
  bool fp = IsFloat(e);
  bool is_unsigned = IsUnsigned(e) || IsBool(e);
  llvm::Type* ty = a->getType();
  auto all_ones = [&] { return llvm::Constant::getAllOnesValue(ty); };
  switch (kind) {
    case OpKind::kAdd:
      return fp ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b);
    case OpKind::kSub:
      return fp ? b_.CreateFSub(a, b) : b_.CreateSub(a, b);
    case OpKind::kMul:
      return fp ? b_.CreateFMul(a, b) : b_.CreateMul(a, b);
    case OpKind::kDiv:
    case OpKind::kRem: {
      bool div = kind == OpKind::kDiv;
      if (fp) return div ? b_.CreateFDiv(a, b) : b_.CreateFRem(a, b);
      // XLA's definition: x / 0 = -1, x % 0 = x, INT_MIN / -1 = INT_MIN,
      // INT_MIN % -1 = 0; never a host trap.
      llvm::Value* zero = llvm::Constant::getNullValue(ty);
      llvm::Value* by_zero = b_.CreateICmpEQ(b, zero);
      // No overflow case for unsigned division; the constant must have by_zero's
      // (possibly vector) type, or the `or` below is invalid IR.
      llvm::Value* overflow = llvm::Constant::getNullValue(by_zero->getType());
      if (!is_unsigned) {
        llvm::Value* min = llvm::ConstantInt::get(ty, llvm::APInt::getSignedMinValue(ty->getScalarSizeInBits()));
        overflow = b_.CreateAnd(b_.CreateICmpEQ(a, min), b_.CreateICmpEQ(b, all_ones()));
      }
      llvm::Value* safe = b_.CreateSelect(b_.CreateOr(by_zero, overflow), llvm::ConstantInt::get(ty, 1), b);
      llvm::Value* q = div ? (is_unsigned ? b_.CreateUDiv(a, safe) : b_.CreateSDiv(a, safe))
                           : (is_unsigned ? b_.CreateURem(a, safe) : b_.CreateSRem(a, safe));
      // With the safe divisor 1: INT_MIN / 1 = INT_MIN and INT_MIN % 1 = 0, as wanted.
      return b_.CreateSelect(by_zero, div ? all_ones() : a, q);
    }
    case OpKind::kMin:
    case OpKind::kMax: {
      bool min = kind == OpKind::kMin;
      // Floats propagate NaN and order -0 < +0 (IEEE minimum/maximum).
      if (fp) return min ? b_.CreateMinimum(a, b) : b_.CreateMaximum(a, b);
      llvm::Intrinsic::ID id = min ? (is_unsigned ? llvm::Intrinsic::umin : llvm::Intrinsic::smin)
                                   : (is_unsigned ? llvm::Intrinsic::umax : llvm::Intrinsic::smax);
      return b_.CreateBinaryIntrinsic(id, a, b);
    }
    case OpKind::kAnd:
      return b_.CreateAnd(a, b);
    case OpKind::kOr:
      return b_.CreateOr(a, b);
    case OpKind::kXor:
      return b_.CreateXor(a, b);
    case OpKind::kShl:
    case OpKind::kShr: {
      // Amounts >= the width (unsigned compare: negative amounts are huge) give 0,
      // or the sign fill for a signed shift right.
      unsigned bits = ty->getScalarSizeInBits();
      llvm::Value* width = llvm::ConstantInt::get(ty, bits);
      llvm::Value* big = b_.CreateICmpUGE(b, width);
      llvm::Value* safe = b_.CreateSelect(big, llvm::ConstantInt::get(ty, 0), b);
      if (kind == OpKind::kShl) {
        return b_.CreateSelect(big, llvm::Constant::getNullValue(ty), b_.CreateShl(a, safe));
      }
      if (is_unsigned) return b_.CreateSelect(big, llvm::Constant::getNullValue(ty), b_.CreateLShr(a, safe));
      llvm::Value* fill = b_.CreateAShr(a, llvm::ConstantInt::get(ty, bits - 1));
      return b_.CreateSelect(big, fill, b_.CreateAShr(a, safe));
    }
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

absl::StatusOr<llvm::Value*> Emitter::Unary(const Op& op, llvm::Value* a, ElementType e) {
  bool fp = IsFloat(e);
  llvm::Type* ty = a->getType();
  switch (op.kind) {
    case OpKind::kNeg:
      return fp ? b_.CreateFNeg(a) : b_.CreateNeg(a);
    case OpKind::kAbs:
      if (fp) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, a);
      if (IsUnsigned(e)) return a;
      return b_.CreateBinaryIntrinsic(llvm::Intrinsic::abs, a, b_.getFalse());
    case OpKind::kSign: {
      if (fp) {
        // -1, +1, or x itself for ±0 and NaN.
        llvm::Value* one = llvm::ConstantFP::get(ty, 1.0);
        llvm::Value* minus = llvm::ConstantFP::get(ty, -1.0);
        llvm::Value* zero = llvm::ConstantFP::get(ty, 0.0);
        llvm::Value* pos = b_.CreateSelect(b_.CreateFCmpOGT(a, zero), one, a);
        return b_.CreateSelect(b_.CreateFCmpOLT(a, zero), minus, pos);
      }
      llvm::Value* zero = llvm::Constant::getNullValue(ty);
      llvm::Value* gt = b_.CreateZExt(IsUnsigned(e) ? b_.CreateICmpUGT(a, zero) : b_.CreateICmpSGT(a, zero), ty);
      if (IsUnsigned(e)) return gt;
      return b_.CreateSub(gt, b_.CreateZExt(b_.CreateICmpSLT(a, zero), ty));
    }
    case OpKind::kNot:
      return b_.CreateNot(a);
    case OpKind::kExp:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, a);
    case OpKind::kSqrt:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a);
    case OpKind::kRsqrt:
      return b_.CreateFDiv(llvm::ConstantFP::get(ty, 1.0), b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, a));
    case OpKind::kTanh:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::tanh, a);
    case OpKind::kLog:
      return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, a);
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

llvm::Value* Emitter::Convert(llvm::Value* v, ElementType from, const Type& to) {
  llvm::Type* ty = ValueTy(to);
  ElementType e = to.element();
  if (from == e) return v;
  if (IsBool(e)) {
    // x -> i1 is x != 0 (NaN != 0 too).
    if (IsFloat(from)) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  bool from_unsigned = IsUnsigned(from) || IsBool(from);
  if (IsFloat(from) && IsFloat(e)) {
    return BitWidth(e) > BitWidth(from) ? b_.CreateFPExt(v, ty) : b_.CreateFPTrunc(v, ty);
  }
  if (IsFloat(from)) {
    // Truncate toward zero, saturate, NaN -> 0: exactly fpto[su]i.sat.
    return b_.CreateIntrinsic(IsUnsigned(e) ? llvm::Intrinsic::fptoui_sat : llvm::Intrinsic::fptosi_sat, {ty,
                              v->getType()}, {v});
  }
  if (IsFloat(e)) return from_unsigned ? b_.CreateUIToFP(v, ty) : b_.CreateSIToFP(v, ty);
  if (BitWidth(e) == BitWidth(from) || ty->getScalarSizeInBits() == v->getType()->getScalarSizeInBits()) return v;
  if (ty->getScalarSizeInBits() < v->getType()->getScalarSizeInBits()) return b_.CreateTrunc(v, ty);
  return from_unsigned ? b_.CreateZExt(v, ty) : b_.CreateSExt(v, ty);
}

absl::Status Emitter::EmitElementwise(const Op& op) {
  const auto& ops = op.operands;
  const Type& out = op.results[0]->type;
  switch (op.kind) {
    case OpKind::kCmp: {
      llvm::Value* a = ValueOf(ops[0]);
      llvm::Value* b = ValueOf(ops[1]);
      ElementType e = ops[0].type().element();
      static constexpr llvm::CmpInst::Predicate kFloat[] = {llvm::CmpInst::FCMP_OEQ, llvm::CmpInst::FCMP_ONE,
                                                            llvm::CmpInst::FCMP_OLT, llvm::CmpInst::FCMP_OLE,
                                                            llvm::CmpInst::FCMP_OGT, llvm::CmpInst::FCMP_OGE};
      static constexpr llvm::CmpInst::Predicate kSigned[] = {llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
                                                             llvm::CmpInst::ICMP_SLT, llvm::CmpInst::ICMP_SLE,
                                                             llvm::CmpInst::ICMP_SGT, llvm::CmpInst::ICMP_SGE};
      static constexpr llvm::CmpInst::Predicate kUnsigned[] = {llvm::CmpInst::ICMP_EQ,  llvm::CmpInst::ICMP_NE,
                                                               llvm::CmpInst::ICMP_ULT, llvm::CmpInst::ICMP_ULE,
                                                               llvm::CmpInst::ICMP_UGT, llvm::CmpInst::ICMP_UGE};
      int p = static_cast<int>(op.predicate);
      llvm::CmpInst::Predicate pred =
          IsFloat(e) ? kFloat[p] : (IsUnsigned(e) || IsBool(e)) ? kUnsigned[p] : kSigned[p];
      Set(op.results[0], IsFloat(e) ? b_.CreateFCmp(pred, a, b) : b_.CreateICmp(pred, a, b));
      return absl::OkStatus();
    }
    case OpKind::kSelect: {
      Set(op.results[0], b_.CreateSelect(ValueOf(ops[0]), ValueOf(ops[1]), ValueOf(ops[2])));
      return absl::OkStatus();
    }
    case OpKind::kClamp: {
      absl::StatusOr<llvm::Value*> lo = Binary(op, OpKind::kMax, ValueOf(ops[1]), ValueOf(ops[0]), out.element());
      if (!lo.ok()) return lo.status();
      absl::StatusOr<llvm::Value*> r = Binary(op, OpKind::kMin, *lo, ValueOf(ops[2]), out.element());
      if (!r.ok()) return r.status();
      Set(op.results[0], *r);
      return absl::OkStatus();
    }
    case OpKind::kConvert:
      Set(op.results[0], Convert(ValueOf(ops[0]), ops[0].type().element(), out));
      return absl::OkStatus();
    case OpKind::kBitcast:
      Set(op.results[0], b_.CreateBitCast(ValueOf(ops[0]), ValueTy(out)));
      return absl::OkStatus();
    default:
      break;
  }
  if (op.info().has(kTcOnly)) return Unsupported(kernel_, op, Cat("the TensorCore-only op ", op.name()));
  std::vector<llvm::Value*> args;
  for (const Operand& o : ops) args.push_back(ValueOf(o));
  absl::StatusOr<llvm::Value*> r = args.size() == 2 ? Binary(op, op.kind, args[0], args[1], out.element())
                                                    : Unary(op, args[0], out.element());
  if (!r.ok()) return r.status();
  Set(op.results[0], *r);
  return absl::OkStatus();
}

// ------------------------------------------------------------------------------------
// Memory ops (kernel-ir.md §4.3).

absl::Status Emitter::EmitMemory(const Op& op) {
  const auto& ops = op.operands;
  int site = Site(op, Print(ops[0]), ops[0].loc);
  absl::StatusOr<RefVal> view = View(op, ops[0], site);
  if (!view.ok()) return view.status();
  llvm::Align align(static_cast<uint64_t>(ByteWidth(view->element)));
  switch (op.kind) {
    case OpKind::kGet: {
      absl::StatusOr<llvm::Value*> v = Load(op, *view, op.results[0]->type);
      if (!v.ok()) return v.status();
      Set(op.results[0], *v);
      return absl::OkStatus();
    }
    case OpKind::kSwap:
    case OpKind::kStore: {
      const Type& t = ops[1].type();
      if (op.kind == OpKind::kSwap) {
        absl::StatusOr<llvm::Value*> old = Load(op, *view, t);
        if (!old.ok()) return old.status();
        Set(op.results[0], *old);
      }
      return Store(op, *view, ValueOf(ops[1]), t);
    }
    case OpKind::kAddupdate: {
      const Type& t = ops[1].type();
      absl::StatusOr<llvm::Value*> old = Load(op, *view, t);
      if (!old.ok()) return old.status();
      absl::StatusOr<llvm::Value*> sum = Binary(op, OpKind::kAdd, *old, ValueOf(ops[1]), t.element());
      if (!sum.ok()) return sum.status();
      return Store(op, *view, *sum, t);
    }
    case OpKind::kLoadExpanded:
    case OpKind::kStoreCompressed:
    case OpKind::kAddupdateCompressed: {
      const Type& t = op.kind == OpKind::kLoadExpanded ? op.results[0]->type : ops[1].type();
      if (!t.is_vector()) return Unsupported(kernel_, op, "masked scalar access");
      llvm::Value* mask = ValueOf(*op.mask);
      // The elements touched are the view's first popcount(mask), in row-major
      // order: a contiguous view is used in place, any other through a copy.
      bool direct = Contiguous(*view);
      RefVal mem = *view;
      llvm::Value* tmp = nullptr;
      if (!direct) {
        {
          llvm::IRBuilder<>::InsertPointGuard guard(b_);
          b_.SetInsertPoint(entry_->getTerminator());
          tmp = b_.CreateAlloca(ValueTy(t));
        }
        absl::StatusOr<llvm::Value*> all = Load(op, *view, t);
        if (!all.ok()) return all.status();
        b_.CreateAlignedStore(*all, tmp, align);
        mem.ptr = tmp;
      }
      llvm::Type* vty = ValueTy(t);
      if (op.kind == OpKind::kLoadExpanded) {
        Set(op.results[0], b_.CreateMaskedExpandLoad(vty, mem.ptr, mask, PoisonConstant(t)));
        return absl::OkStatus();
      }
      llvm::Value* v = ValueOf(ops[1]);
      if (op.kind == OpKind::kAddupdateCompressed) {
        llvm::Value* old = b_.CreateMaskedExpandLoad(vty, mem.ptr, mask, llvm::Constant::getNullValue(vty));
        absl::StatusOr<llvm::Value*> sum = Binary(op, OpKind::kAdd, old, v, t.element());
        if (!sum.ok()) return sum.status();
        v = *sum;
      }
      b_.CreateMaskedCompressStore(v, mem.ptr, mask);
      if (!direct) {
        llvm::Value* back = b_.CreateAlignedLoad(vty, tmp, align);
        return Store(op, *view, back, t);
      }
      return absl::OkStatus();
    }
    case OpKind::kFetchAndAdd: {
      // The word's byte offset in the target subcore's SMEM.
      llvm::Value* offset = b_.CreatePtrDiff(b_.getInt8Ty(), view->ptr, smem_);
      llvm::Value* target = ValueOf(op.FindAttr("subcore")->value.operand);
      llvm::Value* old = nullptr;
      {
        llvm::IRBuilder<>::InsertPointGuard guard(b_);
        b_.SetInsertPoint(entry_->getTerminator());
        old = b_.CreateAlloca(b_.getInt32Ty());
      }
      CallChecked("scjit_rt_fetch_and_add", {ctx_arg_, offset, ValueOf(ops[1]), target, I32(site), old});
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
  int site = Site(op, Cat(Print(ops[0]), " -> ", Print(ops[1])));
  if (ops[0].value == nullptr || !ops[0].value->type.is_ref() || !ops[1].value->type.is_ref()) {
    return Unsupported(kernel_, op, "DMA operands that are not refs");
  }
  absl::StatusOr<RefVal> src = View(op, ops[0], site);
  if (!src.ok()) return src.status();
  absl::StatusOr<RefVal> dst = View(op, ops[1], site);
  if (!dst.ok()) return dst.status();
  if (src->rank() > SCJIT_MAX_RANK || dst->rank() > SCJIT_MAX_RANK) {
    return Unsupported(kernel_, op, Cat("DMAs of more than ", SCJIT_MAX_RANK, " dimensions"));
  }
  llvm::Value* sem = I32(-1);
  if (ops.size() > 2) {
    absl::StatusOr<RefVal> s = View(op, ops[2], site);
    if (!s.ok()) return s.status();
    sem = s->ptr;
  }
  llvm::Value* dma;
  {
    llvm::IRBuilder<>::InsertPointGuard guard(b_);
    b_.SetInsertPoint(entry_->getTerminator());
    dma = b_.CreateAlloca(DmaTy());
  }
  FillRef(b_.CreateStructGEP(DmaTy(), dma, 0), *src);
  FillRef(b_.CreateStructGEP(DmaTy(), dma, 1), *dst);
  b_.CreateStore(I32(ByteWidth(dst->element)), b_.CreateStructGEP(DmaTy(), dma, 2));
  b_.CreateStore(I32(static_cast<int>(dst->element)), b_.CreateStructGEP(DmaTy(), dma, 3));
  b_.CreateStore(sem, b_.CreateStructGEP(DmaTy(), dma, 4));
  b_.CreateStore(I32(op.dma_add ? 1 : 0), b_.CreateStructGEP(DmaTy(), dma, 5));
  std::string_view fn = op.kind == OpKind::kDmaStart  ? "scjit_rt_dma_start"
                        : op.kind == OpKind::kDmaWait ? "scjit_rt_dma_wait"
                                                      : "scjit_rt_copy";
  CallChecked(fn, {ctx_arg_, dma, I32(site)});
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
        llvm::Value* out;
        {
          llvm::IRBuilder<>::InsertPointGuard guard(b_);
          b_.SetInsertPoint(entry_->getTerminator());
          out = b_.CreateAlloca(b_.getInt32Ty());
        }
        CallChecked("scjit_rt_sem_read", {ctx_arg_, sem->ptr, I32(site), out});
        Set(op.results[0], b_.CreateLoad(b_.getInt32Ty(), out));
        return absl::OkStatus();
      }
      if (op.kind == OpKind::kSemWait) {
        CallChecked("scjit_rt_sem_wait", {ctx_arg_, sem->ptr, ValueOf(ops[1]), I32(site)});
        return absl::OkStatus();
      }
      const Attribute* core = op.FindAttr("core");
      const Attribute* subcore = op.FindAttr("subcore");
      CallChecked("scjit_rt_sem_signal", {ctx_arg_, sem->ptr, ValueOf(ops[1]),
                                          core != nullptr ? ValueOf(core->value.operand) : I32(-1),
                                          subcore != nullptr ? ValueOf(subcore->value.operand) : I32(-1), I32(site)});
      return absl::OkStatus();
    }
    case OpKind::kBarrier:
      CallChecked("scjit_rt_barrier", {ctx_arg_, I32(Site(op))});
      return absl::OkStatus();
    case OpKind::kDebugPrint: {
      int site = Site(op, op.text);
      llvm::Value* null = llvm::ConstantPointerNull::get(b_.getPtrTy());
      if (ops.empty()) {
        CallChecked("scjit_rt_debug_print", {ctx_arg_, I32(site), I32(SCJIT_PRINT_NONE), I32(0), null, I64(0), null});
        return absl::OkStatus();
      }
      const Operand& o = ops[0];
      if (o.value->type.is_memory()) {
        absl::StatusOr<RefVal> r = View(op, o, site);
        if (!r.ok()) return r.status();
        if (r->semaphore) return Unsupported(kernel_, op, "printing semaphores");
        llvm::Value* ref;
        {
          llvm::IRBuilder<>::InsertPointGuard guard(b_);
          b_.SetInsertPoint(entry_->getTerminator());
          ref = b_.CreateAlloca(RefTy());
        }
        FillRef(ref, *r);
        CallChecked("scjit_rt_debug_print",
                    {ctx_arg_, I32(site), I32(SCJIT_PRINT_REF), I32(static_cast<int>(r->element)), null, I64(0), ref});
        return absl::OkStatus();
      }
      const Type& t = o.value->type;
      llvm::Value* v = ValueOf(o);
      llvm::Value* tmp;
      {
        llvm::IRBuilder<>::InsertPointGuard guard(b_);
        b_.SetInsertPoint(entry_->getTerminator());
        tmp = b_.CreateAlloca(v->getType());
      }
      // i1 vectors are printed from bytes.
      if (t.element() == ElementType::kI1) {
        llvm::Type* bytes = t.is_vector() ? static_cast<llvm::Type*>(llvm::FixedVectorType::get(
                                                b_.getInt8Ty(), static_cast<unsigned>(t.NumElements())))
                                          : b_.getInt8Ty();
        {
          llvm::IRBuilder<>::InsertPointGuard guard(b_);
          b_.SetInsertPoint(entry_->getTerminator());
          tmp = b_.CreateAlloca(bytes);
        }
        v = b_.CreateZExt(v, bytes);
      }
      b_.CreateStore(v, tmp);
      CallChecked("scjit_rt_debug_print", {ctx_arg_, I32(site), I32(SCJIT_PRINT_VALUE),
                                           I32(static_cast<int>(t.element())), tmp, I64(t.NumElements()), null});
      return absl::OkStatus();
    }
    case OpKind::kAlloc: {
      const Value* v = op.results[0];
      std::shared_ptr<RefVal> r = BaseRef(v);
      llvm::Value* null = llvm::ConstantPointerNull::get(b_.getPtrTy());
      if (r->semaphore) {
        CallChecked("scjit_rt_alloc", {ctx_arg_, null, I64(v->type.NumElements()), I32(0), r->ptr});
      } else {
        CallChecked("scjit_rt_alloc", {ctx_arg_, r->ptr, I64(v->type.NumElements()),
                                       I32(static_cast<int>(v->type.element())), I32(-1)});
      }
      return absl::OkStatus();
    }
    default:
      return Unsupported(kernel_, op, op.name());
  }
}

// ------------------------------------------------------------------------------------
// Control flow (kernel-ir.md §4.5).

// Every SCJIT_TICK_PERIOD back-edges the runtime gets control (see abi.h).
void Emitter::Tick() {
  llvm::Value* field = b_.CreateStructGEP(CtxTy(), ctx_arg_, kTick);
  llvm::Value* left = b_.CreateSub(b_.CreateLoad(b_.getInt32Ty(), field), I32(1));
  b_.CreateStore(left, field);
  llvm::BasicBlock* call = llvm::BasicBlock::Create(ctx_, "tick", fn_);
  llvm::BasicBlock* cont = llvm::BasicBlock::Create(ctx_, "tock", fn_);
  b_.CreateCondBr(b_.CreateICmpSLE(left, I32(0)), call, cont, llvm::MDBuilder(ctx_).createUnlikelyBranchWeights());
  b_.SetInsertPoint(call);
  CallChecked("scjit_rt_tick", {ctx_arg_});
  b_.CreateBr(cont);
  b_.SetInsertPoint(cont);
}

absl::Status Emitter::EmitFor(const Op& op) {
  const Region& body = *op.regions[0];
  llvm::Value* lo = b_.CreateSExt(ValueOf(op.operands[0]), b_.getInt64Ty());
  llvm::Value* hi = b_.CreateSExt(ValueOf(op.operands[1]), b_.getInt64Ty());
  llvm::Value* step = b_.CreateSExt(ValueOf(op.operands[2]), b_.getInt64Ty());
  // A non-positive dynamic step would never end: run no iteration.
  llvm::Value* positive = b_.CreateICmpSGT(step, I64(0));
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for", fn_);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "for_body", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "for_end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* iv = b_.CreatePHI(b_.getInt64Ty(), 2, Cat("%", body.args[0]->name));
  iv->addIncoming(lo, pre);
  std::vector<llvm::PHINode*> carries;
  for (size_t i = 1; i < body.args.size(); ++i) {
    llvm::PHINode* phi = b_.CreatePHI(ValueTy(body.args[i]->type), 2, Cat("%", body.args[i]->name));
    phi->addIncoming(ValueOf(op.operands[2 + i]), pre);
    carries.push_back(phi);
    Set(body.args[i], phi);
  }
  b_.CreateCondBr(b_.CreateAnd(positive, b_.CreateICmpSLT(iv, hi)), loop, done);
  b_.SetInsertPoint(loop);
  Set(body.args[0], b_.CreateTrunc(iv, b_.getInt32Ty()));
  std::vector<llvm::Value*> yielded;
  if (absl::Status s = EmitRegion(body, &yielded); !s.ok()) return s;
  Tick();
  llvm::BasicBlock* latch = b_.GetInsertBlock();
  iv->addIncoming(b_.CreateAdd(iv, step), latch);
  for (size_t i = 0; i < carries.size(); ++i) carries[i]->addIncoming(yielded[i], latch);
  b_.CreateBr(header);
  b_.SetInsertPoint(done);
  for (size_t i = 0; i < op.results.size(); ++i) Set(op.results[i], carries[i]);
  return absl::OkStatus();
}

absl::Status Emitter::EmitIf(const Op& op) {
  llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn_);
  llvm::BasicBlock* else_bb = llvm::BasicBlock::Create(ctx_, "else", fn_);
  llvm::BasicBlock* merge = llvm::BasicBlock::Create(ctx_, "endif", fn_);
  b_.CreateCondBr(ValueOf(op.operands[0]), then_bb, else_bb);
  std::vector<llvm::Value*> then_values, else_values;
  b_.SetInsertPoint(then_bb);
  if (absl::Status s = EmitRegion(*op.regions[0], &then_values); !s.ok()) return s;
  llvm::BasicBlock* then_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(else_bb);
  if (op.has_else) {
    if (absl::Status s = EmitRegion(*op.regions[1], &else_values); !s.ok()) return s;
  }
  llvm::BasicBlock* else_end = b_.GetInsertBlock();
  b_.CreateBr(merge);
  b_.SetInsertPoint(merge);
  for (size_t i = 0; i < op.results.size(); ++i) {
    llvm::PHINode* phi = b_.CreatePHI(ValueTy(op.results[i]->type), 2);
    phi->addIncoming(then_values[i], then_end);
    phi->addIncoming(else_values[i], else_end);
    Set(op.results[i], phi);
  }
  return absl::OkStatus();
}

absl::Status Emitter::EmitWhile(const Op& op) {
  const Region& cond = *op.regions[0];
  const Region& body = *op.regions[1];
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "while", fn_);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx_, "while_body", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "while_end", fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  std::vector<llvm::PHINode*> carries;
  for (size_t i = 0; i < cond.args.size(); ++i) {
    llvm::PHINode* phi = b_.CreatePHI(ValueTy(cond.args[i]->type), 2);
    phi->addIncoming(ValueOf(op.operands[i]), pre);
    carries.push_back(phi);
    Set(cond.args[i], phi);
    Set(body.args[i], phi);
  }
  std::vector<llvm::Value*> condition;
  if (absl::Status s = EmitRegion(cond, &condition); !s.ok()) return s;
  b_.CreateCondBr(condition[0], loop, done);
  b_.SetInsertPoint(loop);
  std::vector<llvm::Value*> yielded;
  if (absl::Status s = EmitRegion(body, &yielded); !s.ok()) return s;
  Tick();
  llvm::BasicBlock* latch = b_.GetInsertBlock();
  for (size_t i = 0; i < carries.size(); ++i) carries[i]->addIncoming(yielded[i], latch);
  b_.CreateBr(header);
  b_.SetInsertPoint(done);
  for (size_t i = 0; i < op.results.size(); ++i) Set(op.results[i], carries[i]);
  return absl::OkStatus();
}

}  // namespace

llvm::StructType* CtxType(llvm::LLVMContext& ctx) {
  if (auto* t = llvm::StructType::getTypeByName(ctx, "scjit_ctx")) return t;
  llvm::Type* p = llvm::PointerType::get(ctx, 0);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  return llvm::StructType::create(ctx, {p, p, p, p, i32, i32, i32, i32, i32, i32, p}, "scjit_ctx");
}

llvm::StructType* RefType(llvm::LLVMContext& ctx) {
  if (auto* t = llvm::StructType::getTypeByName(ctx, "scjit_ref")) return t;
  llvm::Type* dims = llvm::ArrayType::get(llvm::Type::getInt64Ty(ctx), SCJIT_MAX_RANK);
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  return llvm::StructType::create(ctx, {llvm::PointerType::get(ctx, 0), dims, dims, i32, i32}, "scjit_ref");
}

llvm::StructType* DmaType(llvm::LLVMContext& ctx) {
  if (auto* t = llvm::StructType::getTypeByName(ctx, "scjit_dma")) return t;
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  return llvm::StructType::create(ctx, {RefType(ctx), RefType(ctx), i32, i32, i32, i32}, "scjit_dma");
}

EmittedKernel::EmittedKernel() = default;
EmittedKernel::EmittedKernel(EmittedKernel&&) noexcept = default;
EmittedKernel& EmittedKernel::operator=(EmittedKernel&&) noexcept = default;
EmittedKernel::~EmittedKernel() {
  module.reset();  // the module before its context
}

std::string KernelSymbol(std::string_view name) { return Cat("scjit_kernel_", name); }

absl::StatusOr<EmittedKernel> EmitKernel(const Kernel& kernel, KernelInfo& info, const EmitOptions& options) {
  EmittedKernel out;
  out.context = std::make_unique<llvm::LLVMContext>();
  out.module = std::make_unique<llvm::Module>(Cat("scjit.", kernel.name), *out.context);
  out.function = KernelSymbol(kernel.name);
  Emitter emitter(kernel, info, options, *out.context, *out.module);
  if (absl::Status s = emitter.Run(); !s.ok()) return s;
  return out;
}

}  // namespace scjit
