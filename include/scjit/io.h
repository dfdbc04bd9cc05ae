// Arrays in and out of files: .npy reading and writing, the input generators of
// `jit-run --in`, and elements as text.
//
// .npy: format versions 1.0-3.0, C order, little-endian; dtypes |b1 |i1 <i2 <i4
// <i8 |u1 <u2 <u4 <u8 <f2 <f4 <f8, bfloat16 as <V2 / |V2 or the name 'bfloat16'
// that ml_dtypes writes, float8_e5m2 as <f1, the 8-bit floats as |V1 (see ReadNpy). Errors are IO-* diagnostics (IO-OPEN, IO-NPY-FORMAT,
// IO-NPY-ORDER, IO-NPY-DTYPE, IO-NPY-ENDIAN, IO-NPY-DATA, IO-WRITE).
//
// Generators (`spec`): zeros, ones, iota, random[:SEED], randint:LO:HI[:SEED],
// fill:VALUE — deterministic: the same spec gives the same bytes on every run and
// machine (docs/jit-run.md defines each).
//
// Thread safety: every function is safe to call concurrently.
#ifndef SCJIT_INCLUDE_SCJIT_IO_H_
#define SCJIT_INCLUDE_SCJIT_IO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scjit/buffer.h"
#include "scjit/kernel.h"

namespace scjit {

// The array in the .npy file at `path`, read into a buffer of its own. A file of
// raw bytes ('V1', as numpy saves float8_e4m3fn, float8_e4m3b11fnuz, int4 and
// uint4) reads as `raw_as` when that is an 8-bit float type or i4/u4 (jit-run passes
// the parameter's).
absl::StatusOr<Buffer> ReadNpy(const std::string& path, std::optional<DType> raw_as = std::nullopt);
// Writes `buffer` as numpy's np.save does (bf16 as '<V2').
absl::Status WriteNpy(const std::string& path, const Buffer& buffer);

// Whether `source` names a generator rather than a file (its text before the
// first ':' is one of the generators' names).
bool IsGeneratorSpec(std::string_view source);
// Checks a generator spec's syntax, whatever the dtype (IO-USAGE).
absl::Status CheckGeneratorSpec(std::string_view spec);
// A buffer of `dtype` and `shape` filled as `spec` says (IO-USAGE when it does
// not fit the dtype, IO-MEMORY when the host cannot hold it). Generating stops
// once `limit` has passed: DeadlineExceeded, RT-TIMEOUT.
absl::StatusOr<Buffer> Generate(std::string_view spec, DType dtype, const std::vector<int64_t>& shape,
                                const TimeLimit& limit = {});

// Checks that `buffer`, read from `source` (a path, for messages), fits `param`:
// its dtype (IO-DTYPE), then its shape (IO-SHAPE).
absl::Status CheckFits(const Buffer& buffer, std::string_view source, const ParamInfo& param);

// Element `index` (flat, row-major) of `buffer`: as text (integers in decimal,
// bool as 0/1, floats with `float_digits` significant digits, nan/inf spelled
// out), and as a double.
std::string ElementText(const Buffer& buffer, int64_t index, int float_digits = 9);
double ElementAsDouble(const Buffer& buffer, int64_t index);

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_IO_H_
