// One element at a time: how the interpreter reads, writes and computes with
// the elements of values and memory, bit-identical to the JIT's code
// (lowering/emit/emit_compute.cc, emit_narrow.cc).
//
// An element is held as its bits, zero-extended to 64: memory's form, which is
// also the form of values (i1: one byte 0 or 1; i4/u4: one byte, the value in
// its low nibble; 8-bit floats: their pattern). Narrow floats (bf16, f16, f8)
// compute in f32 and round back once per op; 4-bit integers compute widened to
// 8 bits and wrap back to 4.
#ifndef SCJIT_JIT_INTERP_ELEMENTS_H_
#define SCJIT_JIT_INTERP_ELEMENTS_H_

#include <cstdint>

#include "lowering/base/dtype.h"
#include "lowering/ir/ir.h"

namespace scjit::interp {

using Bits = uint64_t;

uint64_t LoadBits(const uint8_t* p, int bytes);
void StoreBits(uint8_t* p, int bytes, Bits bits);

// The width elements of `e` compute in: 1 for i1, else the storage width.
int ComputeBits(ElementType e);
// `bits` sign-extended from the compute width of `e` (a signed type).
int64_t SignExtend(Bits bits, int width);
// The i8/u8 an i4/u4 computes as (sign- or zero-extended from its low nibble).
inline ElementType Int4Compute(ElementType e) {
  return e == ElementType::kI4 ? ElementType::kI8 : e == ElementType::kU4 ? ElementType::kU8 : e;
}
Bits WidenInt4(Bits v, ElementType e);
inline Bits NarrowInt4(Bits v, ElementType e) { return IsInt4(e) ? v & 0x0F : v; }

bool IsNarrowFloat(ElementType e);
// A bf16/f16/f8/f32 element as f32 (exact), and an f32 rounded to nearest even to `e`.
float ToF32(Bits bits, ElementType e);
Bits FromF32(float f, ElementType e);
inline Bits F32Bits(float f) { return std::bit_cast<uint32_t>(f); }

// A literal operand as an element of `e` (the emitter's LiteralConstant).
Bits Literal(const Operand& o, ElementType e);

// Elementwise ops (kernel-ir.md §4.1): add ... shr, and neg ... log.
Bits Binary(OpKind kind, Bits a, Bits b, ElementType e);
Bits Unary(OpKind kind, Bits a, ElementType e);
Bits MulHi(Bits a, Bits b, ElementType e);  // mulhi
Bits RoundEven(Bits a, ElementType e);      // round {rounding_method = "to_nearest_even"}
bool Compare(CmpPredicate p, Bits a, Bits b, ElementType e);
Bits Convert(Bits v, ElementType from, ElementType to);

// IEEE minimum/maximum (NaN propagates, -0 < +0), as llvm.minimum/maximum.
float FMinimum(float a, float b);
float FMaximum(float a, float b);

}  // namespace scjit::interp

#endif  // SCJIT_JIT_INTERP_ELEMENTS_H_
