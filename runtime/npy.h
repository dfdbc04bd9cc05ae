// The .npy file format (interfaces.md §1): NpyArray, an array held as raw
// little-endian C-order bytes, and its reader, writer and parameter check.
//
// Reading accepts format versions 1.0, 2.0 and 3.0. The header is parsed as the
// Python dict literal it is: keys in any order, single or double quotes, with or
// without a trailing comma, any whitespace; exactly the keys 'descr',
// 'fortran_order' and 'shape'; Python 2 `3L` integer suffixes in 1.0/2.0 files.
// Descrs, by element type:
//   i1 (bool)  b1                          bf16  V2 (no '>'), or 'bfloat16'
//   i8 / u8    i1 / u1                     f16   f2
//   i16 / u16  i2 / u2                     f32   f4
//   i32 / u32  i4 / u4                     f64   f8
//   i64 / u64  i8 / u8                     f8e5m2  f1, or V1 as raw_as (below)
//                                          f8e4m3fn, f8e4m3b11fnuz  V1 as raw_as
//   i4 / u4    V1 as raw_as (one element a byte, in the low nibble, as numpy holds them)
// each with an optional byte-order character: '<', '=' and '|' read as
// little-endian; '>' is rejected for multi-byte types and accepted for one-byte
// types (which have no byte order). Bool data bytes are kept as they are.
// A header with 'fortran_order': True is accepted when its layout equals C
// order (at most one dimension larger than 1, or no elements); otherwise it is
// rejected.
//
// Errors are diagnostics (DiagnosticStatus) checked in this order:
//   IO-OPEN        (ReadNpyArray) the file cannot be opened or read
//   IO-NPY-FORMAT  bad magic, unsupported version, header length over
//                  kMaxNpyHeaderLength, file ending inside the preamble or
//                  header, malformed or incomplete header dict, more than
//                  kMaxNpyRank dimensions, an element or byte count of 2^63 or
//                  more
//   IO-NPY-ORDER   a Fortran-order array (see above)
//   IO-NPY-DTYPE   a descr with no kernel IR type ('<c8', 'O', '<M8', a
//                  structured dtype)
//   IO-NPY-ENDIAN  a big-endian multi-byte descr ('>i4')
//   IO-NPY-DATA    the bytes after the header are not exactly
//                  product(shape) * itemsize (truncated or trailing data)
// No input makes the reader crash or hang. ParseNpy allocates only the array
// it returns; ReadNpyArray reads the header (at most kMaxNpyHeaderLength bytes), then
// the data in chunks of at most 16 MiB, so a header claiming more data than the
// file holds costs at most one chunk.
//
// Writing produces the bytes numpy >= 1.24 (1.x and 2.x) np.save writes: magic,
// version 1.0 (2.0 if the header exceeds 65535 bytes), the dict
// `{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }`, numpy's 21-digit
// growth padding for the first axis, then spaces and '\n' so that the data starts
// at a multiple of 64 bytes. bf16 is written as '<V2' (read it back in Python with
// np.load(f).view(ml_dtypes.bfloat16)).
#ifndef SCJIT_RUNTIME_NPY_H_
#define SCJIT_RUNTIME_NPY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "lowering/base/dtype.h"
#include "lowering/base/shape.h"

namespace scjit {

// Limits of the reader.
inline constexpr uint64_t kMaxNpyHeaderLength = uint64_t{1} << 20;  // 1 MiB
inline constexpr int kMaxNpyRank = 64;

// An array: `data` holds NumBytes() bytes, C order, little-endian. A shape of
// rank 0 is a scalar (one element). Dimensions are never negative.
struct NpyArray {
  ElementType dtype = ElementType::kF32;
  Shape shape;
  std::vector<uint8_t> data;

  // Product of the dims (1 for rank 0).
  int64_t NumElements() const;
  // NumElements() * ByteWidth(dtype).
  int64_t NumBytes() const;
};

// Parses the bytes of a whole .npy file. `path` is only used in messages. numpy
// saves ml_dtypes' 8-bit floats float8_e4m3fn and float8_e4m3b11fnuz, and int4 and
// uint4, as raw bytes ('V1'): such a file reads as `raw_as` when that is an 8-bit
// float type or i4/u4, and is
// IO-NPY-DTYPE otherwise ('<f1', what numpy writes for float8_e5m2, reads as it).
absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes, std::string_view path,
                                  std::optional<ElementType> raw_as = std::nullopt);

// Reads and parses the .npy file at `path`.
absl::StatusOr<NpyArray> ReadNpyArray(const std::string& path, std::optional<ElementType> raw_as = std::nullopt);

// The .npy bytes of `array`, as numpy's np.save writes them (see above).
// `array.data` is written as it is; it should hold NumBytes() bytes.
std::string SerializeNpy(const NpyArray& array);

// The header SerializeNpy writes before the data.
std::string NpyHeader(ElementType dtype, const Shape& shape);

// Writes SerializeNpy(array) to `path` (IO-WRITE on failure), the data straight
// from where it is.
absl::Status WriteNpy(const std::string& path, const NpyArray& array);
absl::Status WriteNpy(const std::string& path, ElementType dtype, const Shape& shape, const uint8_t* data,
                      size_t bytes);

// Checks that an array of `dtype` and `shape` from `source` (for messages:
// "'x.npy'", "the buffer bound to it") fits kernel parameter `param` (as written
// in .scir, e.g. "%x") of element type `want_dtype`, shape `want` and .scir type
// `type_text`. The dtype is checked first: a mismatch is IO-DTYPE, naming both
// dtypes by numpy name, with a note about the shape when that differs too. Then
// the shape: IO-SHAPE naming both shapes. A dynamic dimension (`?`) of the
// parameter matches any size; the ranks must be equal. Both messages also show
// the parameter's .scir type.
absl::Status CheckFits(ElementType dtype, const Shape& shape, std::string_view source, std::string_view param,
                       ElementType want_dtype, const Shape& want, std::string_view type_text);
// CheckFits for `array`, read from `path`.
absl::Status CheckNpyMatches(const NpyArray& array, std::string_view path, std::string_view param,
                             ElementType dtype, const Shape& shape, std::string_view type_text);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_NPY_H_
