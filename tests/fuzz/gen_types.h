// The element types and value types of tests/fuzz/kernel_gen.cc, and which
// conversions between them the SC rules accept (lowering/rules/vector.cc,
// ConvertRule: Pallas' _convert_element_type_lowering_rule).
#ifndef SCJIT_TESTS_FUZZ_GEN_TYPES_H_
#define SCJIT_TESTS_FUZZ_GEN_TYPES_H_

#include <cstdint>
#include <string>

#include "scjit/types.h"

namespace scjit::fuzz {

// The element types generated kernels use (no 64-bit types: EL-1).
enum class E : uint8_t {
  kI1, kI32, kU32, kF32, kI16, kU16, kBF16, kF16, kI8, kU8, kF8E5M2, kF8E4M3FN, kF8E4M3B11, kI4, kU4,
  kCount
};
enum class Kind : uint8_t { kBool, kSigned, kUnsigned, kFloat };

struct ElemInfo {
  const char* name;  // the .scir spelling
  int bits;          // in registers: i4/u4 count as 8 (one per byte, language.md §3)
  Kind kind;
  DType dtype;
};
const ElemInfo& Info(E e);
inline const char* Name(E e) { return Info(e).name; }
inline bool IsFloat(E e) { return Info(e).kind == Kind::kFloat; }
inline bool IsBool(E e) { return e == E::kI1; }
inline bool IsInt(E e) { return Info(e).kind == Kind::kSigned || Info(e).kind == Kind::kUnsigned; }
inline bool IsUnsigned(E e) { return Info(e).kind == Kind::kUnsigned; }
inline bool Is32(E e) { return Info(e).bits == 32; }
inline bool Is4Bit(E e) { return e == E::kI4 || e == E::kU4; }
inline bool Is8BitFloat(E e) { return IsFloat(e) && Info(e).bits == 8; }
// Elements per 32-bit lane: 1, 2 or 4 (i1 counts as 32-bit: masks have L lanes).
int PerLane(E e);

// A set of element types, one bit each.
using ESet = uint32_t;
constexpr ESet Bit(E e) { return ESet{1} << static_cast<int>(e); }
constexpr ESet kAll = (ESet{1} << static_cast<int>(E::kCount)) - 1;
constexpr ESet kBool = Bit(E::kI1);
constexpr ESet kFloats = Bit(E::kF32) | Bit(E::kBF16) | Bit(E::kF16) | Bit(E::kF8E5M2) | Bit(E::kF8E4M3FN) |
                         Bit(E::kF8E4M3B11);
constexpr ESet kInts = kAll & ~kFloats & ~kBool;
constexpr ESet kNum = kInts | kFloats;
constexpr ESet k32 = Bit(E::kI32) | Bit(E::kU32) | Bit(E::kF32);
constexpr ESet kNo4Bit = kAll & ~(Bit(E::kI4) | Bit(E::kU4));
constexpr ESet kNo8BitFloat = kAll & ~(Bit(E::kF8E5M2) | Bit(E::kF8E4M3FN) | Bit(E::kF8E4M3B11));
inline bool In(E e, ESet s) { return (s & Bit(e)) != 0; }

// A value's type: a scalar (n == 0) or a rank-1 vector of n elements.
struct VType {
  E e = E::kI32;
  int n = 0;
  bool scalar() const { return n == 0; }
  std::string Text() const;  // "i32", "vector<16xi32>"
  friend bool operator==(const VType&, const VType&) = default;
};

// True when `convert` from `from` to `to` passes EL-1/EL-2.
bool ConvertLegal(E from, E to);

}  // namespace scjit::fuzz

#endif  // SCJIT_TESTS_FUZZ_GEN_TYPES_H_
