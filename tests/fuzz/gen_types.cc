#include "tests/fuzz/gen_types.h"

#include <array>

#include "absl/strings/str_cat.h"

namespace scjit::fuzz {
namespace {

constexpr std::array<ElemInfo, static_cast<int>(E::kCount)> kInfo = {{
    {"i1", 32, Kind::kBool, DType::kI1},
    {"i32", 32, Kind::kSigned, DType::kI32},
    {"u32", 32, Kind::kUnsigned, DType::kU32},
    {"f32", 32, Kind::kFloat, DType::kF32},
    {"i16", 16, Kind::kSigned, DType::kI16},
    {"u16", 16, Kind::kUnsigned, DType::kU16},
    {"bf16", 16, Kind::kFloat, DType::kBF16},
    {"f16", 16, Kind::kFloat, DType::kF16},
    {"i8", 8, Kind::kSigned, DType::kI8},
    {"u8", 8, Kind::kUnsigned, DType::kU8},
    {"f8e5m2", 8, Kind::kFloat, DType::kF8E5M2},
    {"f8e4m3fn", 8, Kind::kFloat, DType::kF8E4M3FN},
    {"f8e4m3b11fnuz", 8, Kind::kFloat, DType::kF8E4M3B11FNUZ},
    {"i4", 8, Kind::kSigned, DType::kI4},
    {"u4", 8, Kind::kUnsigned, DType::kU4},
}};

bool Signed(E e) { return Info(e).kind == Kind::kSigned; }
int Bytes(E e) { return IsBool(e) ? 1 : Info(e).bits / 8; }

bool Lower(E from, E to, int depth);

// Pallas' _convert_helper, as lowering/rules/vector.cc transcribes it.
bool Helper(E from, E to, int depth) {
  if (from == E::kI1) return Lower(E::kI1, E::kI32, depth + 1) && Helper(E::kI32, to, depth + 1);
  if (to == E::kI1) {
    if (IsFloat(from) && Bytes(from) < 4) return Lower(from, E::kF32, depth + 1);
    if (IsInt(from) && Bytes(from) < 4) return Lower(from, E::kI32, depth + 1);
    return true;
  }
  if (Signed(from)) {
    E cur = from;
    if (Bytes(from) < 4) {
      if (!Lower(from, E::kI32, depth + 1)) return false;
      cur = E::kI32;
    }
    if (IsFloat(to) && Bytes(to) < 4) {
      if (!Lower(cur, E::kF32, depth + 1)) return false;
      cur = E::kF32;
    }
    return Lower(cur, to, depth + 1);
  }
  if (IsUnsigned(from)) {
    E cur = from;
    if (Bytes(from) < 4) {
      if (!Lower(from, E::kU32, depth + 1)) return false;
      cur = E::kU32;
    }
    if (!IsFloat(to)) return Lower(cur, to, depth + 1);
  }
  return false;
}

bool Lower(E from, E to, int depth) {
  if (from == to) return true;
  if (depth > 8) return false;
  int bf = Bytes(from), bt = Bytes(to);
  if (IsFloat(from) && IsFloat(to)) {
    if ((bf < bt && bt == 4) || (bf > bt && bf == 4)) return true;
  } else if (IsInt(from) && IsInt(to)) {
    if (bf < bt && bt == 4) return Signed(from) && Signed(to);
    if ((bf > bt && bf == 4) || bf == bt) return true;
  } else if (IsFloat(from) && Signed(to)) {
    return true;
  } else if (Signed(from) && IsFloat(to)) {
    return true;
  } else if (from == E::kI1 && IsInt(to) && bt == 4) {
    return true;
  }
  return Helper(from, to, depth);
}

}  // namespace

const ElemInfo& Info(E e) { return kInfo[static_cast<int>(e)]; }

int PerLane(E e) { return IsBool(e) ? 1 : 32 / Info(e).bits; }

std::string VType::Text() const {
  if (scalar()) return Name(e);
  return absl::StrCat("vector<", n, "x", Name(e), ">");
}

bool ConvertLegal(E from, E to) { return from != to && Lower(from, to, 0); }

}  // namespace scjit::fuzz
