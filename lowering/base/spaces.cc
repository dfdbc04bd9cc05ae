#include "lowering/base/spaces.h"

#include <iterator>

namespace scjit {
namespace {

struct SpaceNames {
  std::string_view name;
  std::string_view repr;
};
// In MemorySpace order.
constexpr SpaceNames kSpaceNames[] = {{"hbm", "HBM"},
                                     {"vmem_shared", "VMEM_SHARED"},
                                     {"vmem", "VMEM"},
                                     {"smem", "SMEM"},
                                     // pl.HOST, a pallas_core.MemorySpace without a __repr__ of its own
                                     {"host", "<MemorySpace.HOST: 'host'>"}};

}  // namespace

std::string_view SpaceName(MemorySpace s) { return kSpaceNames[static_cast<int>(s)].name; }
std::string_view SpaceRepr(MemorySpace s) { return kSpaceNames[static_cast<int>(s)].repr; }
std::string_view MemorySpaceName(MemorySpace s) { return SpaceName(s); }

bool OffCore(MemorySpace s) { return s == MemorySpace::kHbm || s == MemorySpace::kHost; }

std::optional<MemorySpace> SpaceFromName(std::string_view name) {
  for (size_t i = 0; i < std::size(kSpaceNames); ++i) {
    if (kSpaceNames[i].name == name) return static_cast<MemorySpace>(i);
  }
  return std::nullopt;
}

std::string_view DirectionName(ParamDirection d) {
  switch (d) {
    case ParamDirection::kIn:
      return "in";
    case ParamDirection::kOut:
      return "out";
    case ParamDirection::kInOut:
      return "inout";
  }
  return "?";
}

}  // namespace scjit
