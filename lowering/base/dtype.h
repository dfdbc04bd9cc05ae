// Element types of the Kernel IR and their properties, expanded from scjit/dtype.def.
#ifndef SCJIT_LOWERING_BASE_DTYPE_H_
#define SCJIT_LOWERING_BASE_DTYPE_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "scjit/types.h"

namespace scjit {

// The compiler's name for the public DType (scjit/dtype.def has one row each).
using ElementType = DType;

enum class ElementKind : uint8_t { kSigned, kUnsigned, kFloat, kBool };

struct ElementTypeInfo {
  std::string_view ir_name;     // `i32`
  std::string_view numpy_name;  // `int32`, as JAX prints it
  int bits;                     // storage width
  ElementKind kind;
  std::string_view npy_descr;   // descr written to .npy files
};

// Properties of `t`. Never fails: every enumerator has a row.
const ElementTypeInfo& Info(ElementType t);
// Every element type, in dtype.def's order.
std::span<const ElementType> AllElementTypes();

// The element type spelled `name` in .scir (`i32`, `bf16`), if any.
std::optional<ElementType> ElementTypeFromIrName(std::string_view name);

inline std::string_view IrName(ElementType t) { return Info(t).ir_name; }
inline std::string_view NumpyName(ElementType t) { return Info(t).numpy_name; }
inline int BitWidth(ElementType t) { return Info(t).bits; }
inline int ByteWidth(ElementType t) { return Info(t).bits / 8; }
inline bool IsFloat(ElementType t) { return Info(t).kind == ElementKind::kFloat; }
inline bool IsBool(ElementType t) { return t == ElementType::kI1; }
// Signed or unsigned integer; i1 is not an integer here.
inline bool IsInteger(ElementType t) {
  return Info(t).kind == ElementKind::kSigned || Info(t).kind == ElementKind::kUnsigned;
}
inline bool IsUnsigned(ElementType t) { return Info(t).kind == ElementKind::kUnsigned; }
// The 4-bit integers i4 and u4: one per byte in memory (the low nibble), 4-bit values.
inline bool IsInt4(ElementType t) { return t == ElementType::kI4 || t == ElementType::kU4; }
// Bits of a value of `t`: 4 for i4/u4, BitWidth otherwise.
inline int ValueBits(ElementType t) { return IsInt4(t) ? 4 : BitWidth(t); }
// The value of the i4/u4 in the low nibble of memory byte `byte` (its high
// nibble is ignored): sign-extended for i4, zero-extended for u4.
inline int Int4Value(uint8_t byte, ElementType t) {
  int v = byte & 0x0F;
  return t == ElementType::kI4 && v >= 8 ? v - 16 : v;
}
// The poison pattern (runtime.md §5, §7.1): the bits of one element of fresh
// `out` buffers, scratch, allocs and masked-off lanes. Floats hold a quiet NaN;
// integers repeat the byte 0xBE (int32: -1094795586), easy to spot in dumps;
// i4/u4 hold the nibble 0xB (0x0B).
uint64_t PoisonBits(ElementType t);

// Types the hardware computes with (everything but the 64-bit ones).
inline bool IsSupportedWidth(ElementType t) { return Info(t).bits <= 32; }

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_DTYPE_H_
