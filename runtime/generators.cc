#include "runtime/generators.h"

#include <array>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "absl/strings/str_format.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/strings.h"
#include "lowering/base/float8.h"
#include "runtime/half.h"

namespace scjit {
namespace {

using absl::int128;
using absl::uint128;

constexpr std::array<std::string_view, 6> kGeneratorNames = {"zeros",  "ones",    "iota",
                                                             "random", "randint", "fill"};

const uint128 kTwoTo64 = uint128(1) << 64;

absl::Status UsageError(std::string detail) {
  return DiagnosticStatus(
      MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{}, {{"detail", std::move(detail)}}));
}

absl::Status SpecError(std::string_view spec, std::string_view why) {
  return UsageError(Cat("invalid input generator '", spec, "': ", why));
}

std::string ToString(int128 v) {
  bool negative = v < 0;
  uint128 mag = negative ? uint128(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
  std::string digits;
  do {
    digits += static_cast<char>('0' + static_cast<int>(static_cast<uint64_t>(mag % 10)));
    mag /= 10;
  } while (mag != 0);
  if (negative) digits += '-';
  return std::string(digits.rbegin(), digits.rend());
}

// The splitmix64 generator: a 64-bit counter stepped by the golden-ratio
// constant and mixed by two multiply-xorshift rounds.
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    state_ += 0x9E3779B97F4A7C15ull;
    uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  uint64_t state_;
};

// A decimal integer: optional sign, digits, magnitude at most 2^64.
enum class IntParse { kOk, kNotInteger, kOutOfRange };

IntParse ParseInteger(std::string_view text, int128* out) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return IntParse::kNotInteger;
  uint128 mag = 0;
  bool too_big = false;
  for (char c : text) {
    if (c < '0' || c > '9') return IntParse::kNotInteger;
    if (!too_big) {
      mag = mag * 10 + static_cast<uint64_t>(c - '0');
      if (mag > kTwoTo64) too_big = true;
    }
  }
  if (too_big) return IntParse::kOutOfRange;
  *out = negative ? -static_cast<int128>(mag) : static_cast<int128>(mag);
  return IntParse::kOk;
}

// A seed: decimal digits, < 2^64.
std::optional<uint64_t> ParseSeed(std::string_view text) {
  int128 v;
  if (text.empty() || text[0] == '+' || text[0] == '-') return std::nullopt;
  if (ParseInteger(text, &v) != IntParse::kOk || v >= static_cast<int128>(kTwoTo64)) {
    return std::nullopt;
  }
  return static_cast<uint64_t>(v);
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i] >= 'A' && a[i] <= 'Z' ? static_cast<char>(a[i] - 'A' + 'a') : a[i];
    if (x != b[i]) return false;
  }
  return true;
}

// Whether `text` is a decimal float literal: [sign] (digits [. digits] | . digits)
// [e [sign] digits], or [sign] inf / infinity / nan.
bool IsFloatLiteral(std::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  if (EqualsIgnoreCase(text, "inf") || EqualsIgnoreCase(text, "infinity") ||
      EqualsIgnoreCase(text, "nan")) {
    return true;
  }
  size_t i = 0;
  auto digits = [&]() {
    size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  size_t mantissa_digits = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa_digits += digits();
  }
  if (mantissa_digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == text.size();
}

// A parsed spec, before it meets a dtype.
struct Spec {
  enum class Kind { kZeros, kOnes, kIota, kRandom, kRandint, kFill };
  Kind kind = Kind::kZeros;
  uint64_t seed = 0;
  int128 lo = 0, hi = 0;  // randint
  // fill: an integer, or a float kept both as the nearest double and the
  // nearest float (so float32 is rounded once, from the text).
  bool fill_is_integer = false;
  int128 fill_int = 0;
  double fill_double = 0;
  float fill_float = 0;
  std::string fill_text;
};

absl::StatusOr<Spec> ParseSpec(std::string_view spec) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t colon = spec.find(':', start);
    parts.push_back(spec.substr(start, colon == std::string_view::npos ? colon : colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  std::string_view name = parts[0];
  size_t args = parts.size() - 1;
  Spec out;
  if (name == "zeros" || name == "ones" || name == "iota") {
    if (args != 0) return SpecError(spec, Cat(name, " takes no arguments"));
    out.kind = name == "zeros"  ? Spec::Kind::kZeros
               : name == "ones" ? Spec::Kind::kOnes
                                : Spec::Kind::kIota;
    return out;
  }
  if (name == "random") {
    out.kind = Spec::Kind::kRandom;
    if (args > 1) return SpecError(spec, "random takes at most one argument, a seed (random:SEED)");
    if (args == 1) {
      std::optional<uint64_t> seed = ParseSeed(parts[1]);
      if (!seed) {
        return SpecError(spec, Cat("the seed '", parts[1],
                                   "' is not a decimal integer in [0, 2^64)"));
      }
      out.seed = *seed;
    }
    return out;
  }
  if (name == "randint") {
    out.kind = Spec::Kind::kRandint;
    if (args < 2 || args > 3) {
      return SpecError(spec, "randint takes LO, HI and an optional seed (randint:LO:HI[:SEED])");
    }
    const char* what[2] = {"LO", "HI"};
    int128* bound[2] = {&out.lo, &out.hi};
    for (int i = 0; i < 2; ++i) {
      switch (ParseInteger(parts[1 + i], bound[i])) {
        case IntParse::kOk:
          break;
        case IntParse::kNotInteger:
          return SpecError(spec, Cat(what[i], " '", parts[1 + i], "' is not a decimal integer"));
        case IntParse::kOutOfRange:
          return SpecError(spec, Cat(what[i], " ", parts[1 + i], " exceeds 2^64 in magnitude"));
      }
    }
    if (out.lo >= out.hi) {
      return SpecError(spec, Cat("LO (", ToString(out.lo), ") must be less than HI (",
                                 ToString(out.hi), "); the range [LO, HI) excludes HI"));
    }
    if (args == 3) {
      std::optional<uint64_t> seed = ParseSeed(parts[3]);
      if (!seed) {
        return SpecError(spec, Cat("the seed '", parts[3],
                                   "' is not a decimal integer in [0, 2^64)"));
      }
      out.seed = *seed;
    }
    return out;
  }
  if (name == "fill") {
    out.kind = Spec::Kind::kFill;
    if (args != 1) return SpecError(spec, "fill takes one value (fill:VALUE, e.g. fill:1.5)");
    std::string_view value = parts[1];
    out.fill_text = std::string(value);
    switch (ParseInteger(value, &out.fill_int)) {
      case IntParse::kOk:
        out.fill_is_integer = true;
        return out;
      case IntParse::kOutOfRange:
        return SpecError(spec, Cat("the value ", value, " exceeds 2^64 in magnitude"));
      case IntParse::kNotInteger:
        break;
    }
    if (!IsFloatLiteral(value)) {
      return SpecError(spec, Cat("the value '", value,
                                 "' is not a number (an integer, a float, inf, -inf or nan)"));
    }
    // The syntax is checked above; strtod/strtof round correctly and return
    // inf or a subnormal/zero on overflow/underflow, which is what we want.
    std::string text(value);
    if (!text.empty() && text[0] == '+') text.erase(0, 1);
    out.fill_double = std::strtod(text.c_str(), nullptr);
    out.fill_float = std::strtof(text.c_str(), nullptr);
    return out;
  }
  return UsageError(Cat("unknown input generator '", spec,
                        "' (expected zeros, ones, iota, random[:SEED], randint:LO:HI[:SEED] or "
                        "fill:VALUE)"));
}

// The range of values of an integer or bool dtype.
int128 MinValue(ElementType t) {
  if (IsBool(t) || IsUnsigned(t)) return 0;
  return -(int128(1) << (ValueBits(t) - 1));
}
int128 MaxValue(ElementType t) {
  if (IsBool(t)) return 1;
  if (IsUnsigned(t)) return (int128(1) << ValueBits(t)) - 1;
  return (int128(1) << (ValueBits(t) - 1)) - 1;
}
std::string RangeText(ElementType t) {
  return Cat(NumpyName(t), " (", ToString(MinValue(t)), " to ", ToString(MaxValue(t)), ")");
}

// `v` rounded to a double: to nearest even, or with round-to-odd (the double
// then rounds to nearest even at float precision or less exactly as `v` would).
double IntToDouble(int128 v, bool round_to_odd) {
  bool negative = v < 0;
  uint128 mag = negative ? uint128(0) - static_cast<uint128>(v) : static_cast<uint128>(v);
  auto high = static_cast<uint64_t>(mag >> 64), low = static_cast<uint64_t>(mag);
  if (high == 0 && low < (uint64_t{1} << 53)) {  // exact: the common case (an iota, a fill)
    double d = static_cast<double>(low);
    return negative ? -d : d;
  }
  int width = high != 0 ? 64 + std::bit_width(high) : std::bit_width(low);
  int shift = width > 53 ? width - 53 : 0;
  uint128 q = mag >> shift;
  if (shift > 0) {
    uint128 rem = mag & ((uint128(1) << shift) - 1);
    if (round_to_odd) {
      if (rem != 0) q |= 1;
    } else {
      uint128 half = uint128(1) << (shift - 1);
      if (rem > half || (rem == half && (q & 1) != 0)) q += 1;  // may reach 2^53: still exact
    }
  }
  double d = std::ldexp(static_cast<double>(static_cast<uint64_t>(q)), shift);
  return negative ? -d : d;
}

// The bit pattern of integer `v` in dtype `t` (low ByteWidth(t) bytes used):
// integers and bool wrap modulo 2^bits (bool: 1 bit, i4/u4: 4 bits, in the low
// nibble), floats round to nearest even.
uint64_t IntBits(int128 v, ElementType t) {
  switch (t) {
    case ElementType::kI1:
      return static_cast<uint64_t>(v) & 1;
    case ElementType::kI4:
    case ElementType::kU4:
      return static_cast<uint64_t>(v) & 0x0F;
    case ElementType::kBF16:
      return DoubleToBf16(IntToDouble(v, /*round_to_odd=*/true));
    case ElementType::kF16:
      return DoubleToF16(IntToDouble(v, /*round_to_odd=*/true));
    case ElementType::kF32:
      return std::bit_cast<uint32_t>(static_cast<float>(IntToDouble(v, /*round_to_odd=*/true)));
    case ElementType::kF64:
      return std::bit_cast<uint64_t>(IntToDouble(v, /*round_to_odd=*/false));
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
      return FloatToFloat8(IntToDouble(v, /*round_to_odd=*/true), t);
    default:
      return static_cast<uint64_t>(v);  // two's complement, low bits
  }
}

// The bit pattern of a float value in float dtype `t`: `d` is the value (or its
// nearest double) and `f` its nearest float.
uint64_t FloatBits(double d, float f, ElementType t) {
  switch (t) {
    case ElementType::kBF16:
      return DoubleToBf16(d);
    case ElementType::kF16:
      return DoubleToF16(d);
    case ElementType::kF32:
      return std::bit_cast<uint32_t>(f);
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
      return FloatToFloat8(d, t);
    default:
      return std::bit_cast<uint64_t>(d);
  }
}

int SignificandBits(ElementType t) {
  switch (t) {
    case ElementType::kBF16: return 8;
    case ElementType::kF16: return 11;
    case ElementType::kF32: return 24;
    case ElementType::kF8E5M2: return 3;
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ: return 4;
    default: return 53;
  }
}

void Store(uint8_t* data, int64_t index, int width, uint64_t bits) {
  uint8_t* p = data + index * width;
  for (int i = 0; i < width; ++i) p[i] = static_cast<uint8_t>(bits >> (8 * i));
}

// Uniform in [0, width) for 1 <= width <= 2^64, by rejecting the biased tail.
uint64_t UniformBelow(SplitMix64& rng, uint128 width) {
  if (width == kTwoTo64) return rng.Next();
  uint64_t w = static_cast<uint64_t>(width);
  uint64_t tail = (0 - w) % w;  // 2^64 mod w draws would favour small results
  while (true) {
    uint64_t x = rng.Next();
    if (x >= tail) return x % w;
  }
}

}  // namespace

bool IsGeneratorSpec(std::string_view source) {
  std::string_view name = source.substr(0, source.find(':'));
  for (std::string_view g : kGeneratorNames) {
    if (name == g) return true;
  }
  return false;
}

absl::Status CheckGeneratorSpec(std::string_view spec) { return ParseSpec(spec).status(); }

namespace {

// A spec checked against a dtype and shape: what filling needs.
struct Prepared {
  Spec spec;
  int64_t count = 0;       // elements
  uint64_t fill_bits = 0;  // fill: the value's bits in the dtype
};

absl::StatusOr<Prepared> Prepare(std::string_view spec_text, ElementType dtype, const Shape& shape) {
  absl::StatusOr<Spec> parsed = ParseSpec(spec_text);
  if (!parsed.ok()) return parsed.status();
  Prepared out;
  out.spec = *std::move(parsed);
  const Spec& spec = out.spec;

  const int width = ByteWidth(dtype);
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      return UsageError(Cat("cannot generate '", spec_text, "' for shape ", ShapeRepr(shape),
                            ": it has a dynamic dimension"));
    }
  }
  for (int64_t d : shape) {
    if (d == 0) count = 0;
  }
  for (int64_t d : shape) {
    if (count == 0) break;
    if (count > std::numeric_limits<int64_t>::max() / width / d) {
      return UsageError(Cat("cannot generate '", spec_text, "' for shape ", ShapeRepr(shape),
                            ": the array would hold 2^63 or more bytes"));
    }
    count *= d;
  }
  out.count = count;

  // Dtype checks, before the caller spends memory on a spec that fails.
  const bool is_float = IsFloat(dtype);
  if (spec.kind == Spec::Kind::kFill) {
    if (is_float) {
      out.fill_bits = spec.fill_is_integer ? IntBits(spec.fill_int, dtype)
                                           : FloatBits(spec.fill_double, spec.fill_float, dtype);
    } else {
      int128 value = spec.fill_int;
      if (!spec.fill_is_integer) {
        double d = spec.fill_double;
        if (!std::isfinite(d) || d != std::trunc(d)) {
          return SpecError(spec_text, Cat(spec.fill_text, " is not an integer, which ",
                                          NumpyName(dtype), " needs"));
        }
        if (std::fabs(d) > 0x1p64) {
          return SpecError(spec_text,
                           Cat(spec.fill_text, " does not fit in ", RangeText(dtype)));
        }
        value = static_cast<int128>(d);
      }
      if (value < MinValue(dtype) || value > MaxValue(dtype)) {
        return SpecError(spec_text, Cat(spec.fill_text, " does not fit in ", RangeText(dtype)));
      }
      out.fill_bits = IntBits(value, dtype);
    }
  }
  if (spec.kind == Spec::Kind::kRandint) {
    if (is_float) {
      if (static_cast<uint128>(spec.hi - spec.lo) > kTwoTo64) {
        return SpecError(spec_text, "the range [LO, HI) is wider than 2^64");
      }
    } else if (spec.lo < MinValue(dtype) || spec.hi - 1 > MaxValue(dtype)) {
      return SpecError(spec_text, Cat("the range [", ToString(spec.lo), ", ", ToString(spec.hi),
                                      ") does not fit in ", RangeText(dtype)));
    }
  }
  return out;
}

// Stores element(i) for every i in [0, count), in order, checking `limit` every
// 2^20 elements; false when it passed.
template <typename Element>
bool StoreAll(uint8_t* data, int64_t count, int width, const TimeLimit& limit, Element element) {
  constexpr int64_t kChunk = int64_t{1} << 20;
  for (int64_t i = 0; i < count; ++i) {
    if (i % kChunk == 0 && limit.Passed()) return false;
    Store(data, i, width, element(i));
  }
  return true;
}

bool Fill(const Prepared& p, ElementType dtype, uint8_t* data, const TimeLimit& limit) {
  const Spec& spec = p.spec;
  const int width = ByteWidth(dtype);
  auto all = [&](auto element) { return StoreAll(data, p.count, width, limit, element); };
  SplitMix64 rng(spec.seed);
  switch (spec.kind) {
    case Spec::Kind::kZeros:
      return all([](int64_t) { return uint64_t{0}; });
    case Spec::Kind::kOnes:
      return all([one = IntBits(1, dtype)](int64_t) { return one; });
    case Spec::Kind::kIota:
      return all([dtype](int64_t i) { return IntBits(i, dtype); });
    case Spec::Kind::kFill:
      return all([&p](int64_t) { return p.fill_bits; });
    case Spec::Kind::kRandom:
      if (IsFloat(dtype)) {
        return all([&rng, dtype, bits = SignificandBits(dtype)](int64_t) {
          uint64_t k = rng.Next() >> (64 - (bits + 1));                   // uniform in [0, 2^(bits+1))
          double value = std::ldexp(static_cast<double>(k), -bits) - 1.0;  // exact
          return FloatBits(value, static_cast<float>(value), dtype);
        });
      }
      if (IsBool(dtype)) return all([&rng](int64_t) { return rng.Next() >> 63; });
      return all([&rng, dtype](int64_t) { return IntBits(static_cast<int128>(rng.Next()), dtype); });
    case Spec::Kind::kRandint: {
      uint128 range = static_cast<uint128>(spec.hi - spec.lo);
      return all([&](int64_t) { return IntBits(spec.lo + static_cast<int128>(UniformBelow(rng, range)), dtype); });
    }
  }
  return true;
}

}  // namespace

absl::StatusOr<int64_t> CheckGenerator(std::string_view spec, ElementType dtype, const Shape& shape) {
  absl::StatusOr<Prepared> p = Prepare(spec, dtype, shape);
  if (!p.ok()) return p.status();
  return p->count;
}

absl::Status GenerateInto(std::string_view spec, ElementType dtype, const Shape& shape, uint8_t* out,
                          const TimeLimit& limit) {
  absl::StatusOr<Prepared> p = Prepare(spec, dtype, shape);
  if (!p.ok()) return p.status();
  if (Fill(*p, dtype, out, limit)) return absl::OkStatus();
  Diagnostic d = MakeDiagnostic(DiagId::kRtTimeout, nullptr, Location{},
                                {{"what", Cat("generating ", spec, " for ", NumpyName(dtype), " ", ShapeRepr(shape))},
                                 {"seconds", absl::StrFormat("%g", limit.seconds)}});
  d.help = "raise the limit with --time-limit, or generate a smaller input";
  return DiagnosticStatus(d, absl::StatusCode::kDeadlineExceeded);
}

}  // namespace scjit
