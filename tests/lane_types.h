// What the lane-op tests share: the 32-bit element types they run, float <-> bits,
// and the two targets with their lane counts.
#ifndef SCJIT_TESTS_LANE_TYPES_H_
#define SCJIT_TESTS_LANE_TYPES_H_

#include <bit>
#include <cstdint>
#include <ostream>

#include "scjit/scjit.h"

namespace scjit::testing {

enum class Dt { kI32, kU32, kF32 };
inline const char* Ir(Dt t) { return t == Dt::kI32 ? "i32" : t == Dt::kU32 ? "u32" : "f32"; }

inline float F(uint32_t b) { return std::bit_cast<float>(b); }
inline uint32_t B(float f) { return std::bit_cast<uint32_t>(f); }

struct Target {
  const char* id;
  int lanes;
  const char* name;
};
inline constexpr Target kTargets[] = {{"v7x", 16, "v7x"}, {"v5p", 8, "v5p"}};
inline void PrintTo(const Target& t, std::ostream* os) { *os << t.name; }  // GoogleTest's name for it

}  // namespace scjit::testing

#endif  // SCJIT_TESTS_LANE_TYPES_H_
