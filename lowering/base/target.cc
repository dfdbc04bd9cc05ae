#include "lowering/base/target.h"

#include <array>

#include "lowering/base/strings.h"

namespace scjit {
namespace {

constexpr std::array kTargets = {
#define SCJIT_TARGET(Enum, name, cores, subcores, lanes, vmem, granule) \
  TargetInfo{name, cores, subcores, lanes, vmem, granule},
#include "lowering/base/target.def"
};

static_assert(kTargets[static_cast<size_t>(kDefaultTarget)].name == kDefaultTargetName);

}  // namespace

const TargetInfo& Info(TargetId id) { return kTargets[static_cast<size_t>(id)]; }

std::span<const TargetInfo> Targets() { return kTargets; }

const TargetInfo* FindTarget(std::string_view name) {
  std::optional<TargetId> id = TargetFromName(name);
  return id ? &Info(*id) : nullptr;
}

std::optional<TargetId> TargetFromName(std::string_view name) {
  for (size_t i = 0; i < kTargets.size(); ++i) {
    if (kTargets[i].name == name) return static_cast<TargetId>(i);
  }
  return std::nullopt;
}

std::string TargetNameList() {
  std::string out;
  for (const TargetInfo& t : kTargets) Append(&out, out.empty() ? "" : ", ", t.name);
  return out;
}

}  // namespace scjit
