// The public array I/O (scjit/io.h), over the .npy reader and writer and the
// input generators.
#include "scjit/io.h"

#include <cstring>

#include "lowering/base/strings.h"
#include "runtime/element_text.h"
#include "runtime/generators.h"
#include "lowering/base/float8.h"
#include "runtime/half.h"
#include "runtime/npy.h"

namespace scjit {
namespace {

// An array's bytes become the buffer's own: no copy.
absl::StatusOr<Buffer> ToBuffer(absl::StatusOr<NpyArray> array) {
  if (!array.ok()) return array.status();
  return Buffer::Adopt(array->dtype, std::move(array->shape), std::move(array->data));
}

}  // namespace

absl::StatusOr<Buffer> ReadNpy(const std::string& path, std::optional<DType> raw_as) {
  return ToBuffer(ReadNpyArray(path, raw_as));
}

absl::Status WriteNpy(const std::string& path, const Buffer& buffer) {
  return WriteNpy(path, buffer.dtype(), buffer.shape(), buffer.data(), buffer.bytes());
}

absl::StatusOr<Buffer> Generate(std::string_view spec, DType dtype, const std::vector<int64_t>& shape,
                                const TimeLimit& limit) {
  auto element = static_cast<ElementType>(dtype);
  if (absl::Status s = CheckGenerator(spec, element, shape).status(); !s.ok()) return s;
  absl::StatusOr<Buffer> out = Buffer::Allocate(dtype, shape);
  if (!out.ok()) return out.status();
  if (absl::Status s = GenerateInto(spec, element, shape, out->data(), limit); !s.ok()) return s;
  return out;
}

absl::Status CheckFits(const Buffer& buffer, std::string_view source, const ParamInfo& param) {
  return CheckFits(buffer.dtype(), buffer.shape(), Cat("'", source, "'"), Cat("%", param.name), param.dtype,
                   param.shape, param.type);
}

std::string ElementText(const Buffer& buffer, int64_t index, int float_digits) {
  return ElementText(buffer.data() + index * DTypeBytes(buffer.dtype()), buffer.dtype(), float_digits);
}

double ElementAsDouble(const Buffer& buffer, int64_t index) {
  const uint8_t* p = buffer.data() + index * DTypeBytes(buffer.dtype());
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return static_cast<double>(v);
  };
  switch (buffer.dtype()) {
    case DType::kI1: return get(uint8_t{}) != 0 ? 1 : 0;
    case DType::kI8: return get(int8_t{});
    case DType::kI16: return get(int16_t{});
    case DType::kI32: return get(int32_t{});
    case DType::kI64: return get(int64_t{});
    case DType::kU8: return get(uint8_t{});
    case DType::kU16: return get(uint16_t{});
    case DType::kU32: return get(uint32_t{});
    case DType::kU64: return get(uint64_t{});
    case DType::kBF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return Bf16ToFloat(h);
    }
    case DType::kF16: {
      uint16_t h;
      std::memcpy(&h, p, 2);
      return F16ToFloat(h);
    }
    case DType::kF32: return get(float{});
    case DType::kF64: return get(double{});
    case DType::kF8E5M2:
    case DType::kF8E4M3FN:
    case DType::kF8E4M3B11FNUZ: return Float8ToFloat(*p, buffer.dtype());
    case DType::kI4:
    case DType::kU4: return Int4Value(*p, buffer.dtype());
  }
  return 0;
}

}  // namespace scjit
