#include "lowering/base/target.h"

#include <array>

#include "lowering/base/strings.h"

namespace scjit {
namespace {

constexpr std::array kTargets = {
#define SCJIT_TARGET(Enum, name, cores, subcores, lanes, vmem, granule) \
  TargetInfo{TargetId::Enum, name, cores, subcores, lanes, vmem, granule},
#include "lowering/base/target.def"
};

}  // namespace

const TargetInfo& Info(TargetId id) { return kTargets[static_cast<size_t>(id)]; }

std::span<const TargetInfo> AllTargets() { return kTargets; }

std::optional<TargetId> TargetFromName(std::string_view name) {
  for (const TargetInfo& t : kTargets) {
    if (t.name == name) return t.id;
  }
  return std::nullopt;
}

std::string TargetNameList() {
  std::string out;
  for (const TargetInfo& t : kTargets) Append(&out, out.empty() ? "" : ", ", t.name);
  return out;
}

}  // namespace scjit
