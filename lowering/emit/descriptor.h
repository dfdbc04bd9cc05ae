// Descriptor: a runtime ABI struct (scjit_ref, scjit_dma: runtime/abi.h) that
// generated code fills in its frame before a runtime call.
//
// Most of a DMA descriptor's fields are constants (shapes, strides, the padding
// past its rank, flags). Written with a store each, they were two thirds of a
// kernel's IR and much of the time LLVM took to compile it; here the constant
// fields are one constant (copied from a private global with one memcpy) and
// only the others are stored one by one.
#ifndef SCJIT_LOWERING_EMIT_DESCRIPTOR_H_
#define SCJIT_LOWERING_EMIT_DESCRIPTOR_H_

#include <cstdint>
#include <map>
#include <vector>

#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/IRBuilder.h"

namespace scjit::emit {

class Descriptor {
 public:
  // `type` mirrors a C struct of `bytes` bytes aligned to `align` (the C
  // compiler's figures: the module's data layout may not be the host's yet).
  Descriptor(llvm::StructType* type, uint64_t bytes, uint64_t align) : type_(type), bytes_(bytes), align_(align) {}

  llvm::StructType* type() const { return type_; }
  uint64_t bytes() const { return bytes_; }
  uint64_t align() const { return align_; }
  // Sets the field at `path` (the indices below the struct, as a GEP's after
  // its leading 0) to `value`; fields never set are zero.
  void Set(std::vector<unsigned> path, llvm::Value* value) { fields_[std::move(path)] = value; }
  // The struct with every constant field set, and zero in the others.
  llvm::Constant* ConstantPart() const;
  // Stores the fields that are not constants into the struct at `dst`.
  void StoreVariableFields(llvm::IRBuilder<>& b, llvm::Value* dst) const;

 private:
  llvm::Constant* ConstantAt(llvm::Type* type, std::vector<unsigned>& path) const;

  llvm::StructType* type_;
  uint64_t bytes_;
  uint64_t align_;
  std::map<std::vector<unsigned>, llvm::Value*> fields_;
};

}  // namespace scjit::emit

#endif  // SCJIT_LOWERING_EMIT_DESCRIPTOR_H_
