// Input generators for `jit-run --in NAME=SOURCE` (interfaces.md §1): the
// SOURCEs that are not .npy files. Each fills an array of a given dtype and
// shape, deterministically: the same spec gives the same bytes on every run and
// machine. docs/jit-run.md ("Generators") is their exact definition, with numpy
// code that recomputes each bit for bit; in short, for element i (flat, C order):
//
//   zeros, ones           the integer 0, 1
//   iota                  the integer i
//   random[:SEED]         from draw i+1 of splitmix64(SEED): integers its low
//                         bits, bool its top bit, floats with p significand bits
//                         (bf16 8, f16 11, f32 24, f64 53) k * 2^-p - 1 for k its
//                         top p+1 bits: uniform in [-1, 1) on a grid the dtype
//                         holds exactly
//   randint:LO:HI[:SEED]  LO + d mod (HI - LO) for the next draw d not below
//                         2^64 mod (HI - LO) (the biased tail, at most half of
//                         the draws, is skipped); HI exclusive, like numpy
//   fill:VALUE            VALUE: a decimal integer, a decimal float or inf,
//                         -inf, nan; float32 rounds the text, the other float
//                         dtypes its nearest double
//
// An integer goes into an N-bit integer dtype modulo 2^N, into bool modulo 2,
// into a float dtype rounded to nearest even (overflowing to inf). SEED is a
// decimal integer in [0, 2^64), 0 when omitted; LO, HI and integer VALUEs may
// be written up to 2^64 in magnitude. randint's range and fill's value must fit
// an integer or bool dtype.
//
// Malformed specs, and specs that do not fit the dtype, are IO-USAGE errors
// whose message quotes the spec.
#ifndef SCJIT_RUNTIME_GENERATORS_H_
#define SCJIT_RUNTIME_GENERATORS_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/base/dtype.h"
#include "lowering/base/shape.h"
#include "scjit/launch.h"

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

// Checks `spec` against `dtype` and `shape` (IO-USAGE when it does not fit them,
// or the shape has dynamic dimensions) and returns the array's element count, so
// that a caller allocates only for a spec that works.
absl::StatusOr<int64_t> CheckGenerator(std::string_view spec, ElementType dtype, const Shape& shape);

// Writes the array of `dtype` and `shape` that `spec` generates to `out`, every
// element (count * ByteWidth(dtype) bytes); the same errors as CheckGenerator,
// and RT-TIMEOUT (DeadlineExceeded) once `limit` has passed, checked every 2^20
// elements.
absl::Status GenerateInto(std::string_view spec, ElementType dtype, const Shape& shape, uint8_t* out,
                          const TimeLimit& limit = {});

}  // namespace scjit

#endif  // SCJIT_RUNTIME_GENERATORS_H_
