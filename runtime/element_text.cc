#include "runtime/element_text.h"

#include <cmath>
#include <cstring>

#include "absl/strings/str_format.h"
#include "lowering/base/strings.h"
#include "lowering/base/float8.h"
#include "runtime/half.h"

namespace scjit {

std::string ElementText(const uint8_t* p, ElementType e, int float_digits) {
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof(v));
    return v;
  };
  auto real = [float_digits](double v) {
    if (std::isnan(v)) return std::string("nan");
    if (std::isinf(v)) return std::string(v < 0 ? "-inf" : "inf");
    return absl::StrFormat("%.*g", float_digits, v);
  };
  switch (e) {
    case ElementType::kI1: return get(uint8_t{}) != 0 ? "1" : "0";
    case ElementType::kI8: return Cat(get(int8_t{}));
    case ElementType::kI16: return Cat(get(int16_t{}));
    case ElementType::kI32: return Cat(get(int32_t{}));
    case ElementType::kI64: return Cat(get(int64_t{}));
    case ElementType::kU8: return Cat(get(uint8_t{}));
    case ElementType::kU16: return Cat(get(uint16_t{}));
    case ElementType::kU32: return Cat(get(uint32_t{}));
    case ElementType::kU64: return Cat(get(uint64_t{}));
    case ElementType::kBF16: return real(Bf16ToFloat(get(uint16_t{})));
    case ElementType::kF16: return real(F16ToFloat(get(uint16_t{})));
    case ElementType::kF32: return real(get(float{}));
    case ElementType::kF64: return real(get(double{}));
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ: return real(Float8ToFloat(get(uint8_t{}), e));
    case ElementType::kI4:
    case ElementType::kU4: return Cat(Int4Value(get(uint8_t{}), e));
  }
  return "?";
}

}  // namespace scjit
