#include "lowering/base/dtype.h"

#include <array>

#include "lowering/base/float8.h"

namespace scjit {
namespace {

constexpr std::array kInfos = {
#define SCJIT_DTYPE(Enum, ir_name, numpy_name, bits, kind, npy_descr) \
  ElementTypeInfo{ir_name, numpy_name, bits, ElementKind::kind, npy_descr},
#include "scjit/dtype.def"
};

constexpr ElementType kAll[] = {
#define SCJIT_DTYPE(Enum, ...) ElementType::Enum,
#include "scjit/dtype.def"
};

}  // namespace

std::span<const ElementType> AllElementTypes() { return kAll; }

const ElementTypeInfo& Info(ElementType t) { return kInfos[static_cast<size_t>(t)]; }

uint64_t PoisonBits(ElementType t) {
  switch (t) {
    case ElementType::kF32:
      return 0x7FC00000u;
    case ElementType::kF16:
      return 0x7E00u;
    case ElementType::kBF16:
      return 0x7FC0u;
    case ElementType::kF64:
      return 0x7FF8000000000000ull;
    case ElementType::kI1:
      return 1;
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
      return Float8NaN(t);
    case ElementType::kI4:
    case ElementType::kU4:
      return 0x0B;  // memory's form: the nibble B (i4 -5, u4 11), the high nibble 0
    default: {
      uint64_t bits = 0;
      for (int i = 0; i < ByteWidth(t); ++i) bits = (bits << 8) | 0xBE;
      return bits;
    }
  }
}

std::optional<ElementType> ElementTypeFromIrName(std::string_view name) {
  for (size_t i = 0; i < kInfos.size(); ++i) {
    if (kInfos[i].ir_name == name) return static_cast<ElementType>(i);
  }
  return std::nullopt;
}

// The public names (scjit/types.h).
std::string_view DTypeName(DType t) { return NumpyName(t); }
std::string_view DTypeIrName(DType t) { return IrName(t); }
int DTypeBytes(DType t) { return ByteWidth(t); }

std::optional<DType> DTypeFromName(std::string_view name) {
  for (size_t i = 0; i < kInfos.size(); ++i) {
    if (kInfos[i].ir_name == name || kInfos[i].numpy_name == name) return static_cast<DType>(i);
  }
  return std::nullopt;
}

}  // namespace scjit
