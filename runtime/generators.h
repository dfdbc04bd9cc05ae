// Input generators for `jit-run --in NAME=SOURCE` (interfaces.md §1): the
// SOURCEs that are not .npy files. Each fills an array of a given dtype and
// shape, deterministically: the same spec gives the same bytes on every run and
// machine.
//
//   zeros                 every element 0 (floats +0.0, bool false)
//   ones                  every element 1 (bool true)
//   iota                  element i (the flat C-order index 0, 1, 2, ...)
//                         converted to the dtype: integers wrap modulo 2^bits
//                         (two's complement, so int8 runs 0..127, -128, ...);
//                         bool is i & 1 (false, true, false, ...); floats round
//                         to nearest even (float16 reaches inf at i = 65520,
//                         bfloat16 steps by 2 from 256)
//   random[:SEED]         uniform pseudo-random values, SEED defaults to 0.
//                         Integers: uniform over the dtype's full range (the low
//                         `bits` bits of a 64-bit draw). Bool: the top bit of a
//                         draw. Floats with p significand bits (bf16 8, f16 11,
//                         f32 24, f64 53): k * 2^-p for k uniform in
//                         [-2^p, 2^p), i.e. uniform in [-1, 1) on a grid every
//                         value of which the dtype holds exactly
//   randint:LO:HI[:SEED]  uniform integers in [LO, HI) (HI exclusive, like
//                         numpy), SEED defaults to 0; for an integer or bool
//                         dtype the whole range must fit the dtype; for a float
//                         dtype each integer is rounded to nearest even, and
//                         HI - LO must be at most 2^64
//   fill:VALUE            every element VALUE: a decimal integer (optional
//                         sign), a decimal float (1.5, -2e-3, .5) or inf, -inf,
//                         nan (case-insensitive, 'infinity' too). An integer
//                         dtype needs an integral value in its range (2.0 and
//                         1e3 are fine: a float text is taken as its nearest
//                         double); bool needs 0 or 1; float dtypes round to
//                         nearest even, overflowing to inf (float32 and float64
//                         from the decimal text directly; bf16/f16 from its
//                         nearest double)
//
// SEED is a decimal integer in [0, 2^64). The stream is splitmix64 started at
// SEED, one 64-bit draw per element in C order, except that randint redraws a
// value in the (at most 1 in 2) biased tail to stay exactly uniform. LO, HI and
// VALUE integers may be written up to 2^64 in magnitude.
//
// Malformed specs, and specs that do not fit the dtype, are IO-USAGE errors
// whose message quotes the spec.
#ifndef SCJIT_RUNTIME_GENERATORS_H_
#define SCJIT_RUNTIME_GENERATORS_H_

#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/base/dtype.h"
#include "lowering/base/shape.h"
#include "runtime/npy.h"

namespace scjit {

// Whether `source` names a generator (its text before the first ':' is zeros,
// ones, iota, random, randint or fill) rather than a file path. A source for
// which this is true is always handled by Generate, which reports malformed
// arguments ("randint:5" is a bad generator, not a file).
bool IsGeneratorSpec(std::string_view source);

// Checks the syntax of a generator spec, independently of any dtype (IO-USAGE
// on error). Generate checks this too; this lets a caller reject a bad flag
// before it knows the parameter's type.
absl::Status CheckGeneratorSpec(std::string_view spec);

// An array of `dtype` and `shape` filled as `spec` says. The shape must not
// have dynamic dimensions.
absl::StatusOr<NpyArray> GenerateArray(std::string_view spec, ElementType dtype, const Shape& shape);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_GENERATORS_H_
