#include "lowering/emit/descriptor.h"

namespace scjit::emit {

llvm::Constant* Descriptor::ConstantAt(llvm::Type* type, std::vector<unsigned>& path) const {
  auto it = fields_.find(path);
  if (it != fields_.end()) {
    auto* c = llvm::dyn_cast<llvm::Constant>(it->second);
    return c != nullptr ? c : llvm::Constant::getNullValue(type);
  }
  std::vector<llvm::Constant*> parts;
  if (auto* s = llvm::dyn_cast<llvm::StructType>(type)) {
    for (unsigned i = 0; i < s->getNumElements(); ++i) {
      path.push_back(i);
      parts.push_back(ConstantAt(s->getElementType(i), path));
      path.pop_back();
    }
    return llvm::ConstantStruct::get(s, parts);
  }
  if (auto* a = llvm::dyn_cast<llvm::ArrayType>(type)) {
    for (unsigned i = 0; i < a->getNumElements(); ++i) {
      path.push_back(i);
      parts.push_back(ConstantAt(a->getElementType(), path));
      path.pop_back();
    }
    return llvm::ConstantArray::get(a, parts);
  }
  return llvm::Constant::getNullValue(type);
}

llvm::Constant* Descriptor::ConstantPart() const {
  std::vector<unsigned> path;
  return ConstantAt(type_, path);
}

void Descriptor::StoreVariableFields(llvm::IRBuilder<>& b, llvm::Value* dst) const {
  for (const auto& [path, value] : fields_) {
    if (llvm::isa<llvm::Constant>(value)) continue;
    std::vector<llvm::Value*> indices{b.getInt32(0)};
    for (unsigned i : path) indices.push_back(b.getInt32(i));
    b.CreateStore(value, b.CreateInBoundsGEP(type_, dst, indices));
  }
}

}  // namespace scjit::emit
