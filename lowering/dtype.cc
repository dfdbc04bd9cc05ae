#include "lowering/dtype.h"

#include <array>

namespace scjit {
namespace {

constexpr std::array kInfos = {
#define SCJIT_DTYPE(Enum, ir_name, numpy_name, bits, kind, npy_descr) \
  ElementTypeInfo{ir_name, numpy_name, bits, ElementKind::kind, npy_descr},
#include "lowering/dtype.def"
};

}  // namespace

const ElementTypeInfo& Info(ElementType t) { return kInfos[static_cast<size_t>(t)]; }

std::optional<ElementType> ElementTypeFromIrName(std::string_view name) {
  for (size_t i = 0; i < kInfos.size(); ++i) {
    if (kInfos[i].ir_name == name) return static_cast<ElementType>(i);
  }
  return std::nullopt;
}

}  // namespace scjit
