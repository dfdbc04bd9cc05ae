// JAX's 8-bit float formats (ml_dtypes' float8_e5m2, float8_e4m3fn and
// float8_e4m3b11fnuz): their encodings, and exact conversions from and to wider
// floats. One implementation serves the compiler (constants), the generated code
// (through the runtime's helpers) and the runtime (inputs, prints, DMA adds).
//
// Conversions to 8 bits round to nearest even, as ml_dtypes does: a value past the
// largest finite one by half an ulp or more becomes inf in e5m2 and NaN in the
// formats without infinities; NaN stays NaN; e4m3b11fnuz has no -0 (it is 0).
//
// Thread safety: pure functions.
#ifndef SCJIT_LOWERING_BASE_FLOAT8_H_
#define SCJIT_LOWERING_BASE_FLOAT8_H_

#include <cstdint>

#include "lowering/base/dtype.h"

namespace scjit {

// True for the 8-bit float types.
bool IsFloat8(ElementType t);

// The value of 8-bit pattern `bits` of float8 type `t`.
float Float8ToFloat(uint8_t bits, ElementType t);

// `x` rounded to float8 type `t`, as its 8-bit pattern.
uint8_t FloatToFloat8(double x, ElementType t);

// The quiet NaN scjit writes for `t` (its poison pattern).
uint8_t Float8NaN(ElementType t);

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_FLOAT8_H_
