// Target chips (target.def): their SparseCore geometry.
#ifndef SCJIT_LOWERING_BASE_TARGET_H_
#define SCJIT_LOWERING_BASE_TARGET_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace scjit {

enum class TargetId : uint8_t {
#define SCJIT_TARGET(Enum, name, cores, subcores, lanes, vmem, granule) Enum,
#include "lowering/base/target.def"
};

struct TargetInfo {
  TargetId id;
  std::string_view name;
  int cores;               // SparseCores
  int subcores;            // vector subcores per SparseCore
  int lanes;               // 32-bit lanes per vector register
  int64_t vmem_bytes;      // VMEM per vector subcore
  int dma_granule_bytes;
};

inline constexpr TargetId kDefaultTarget = TargetId::kV7x;

const TargetInfo& Info(TargetId id);
std::span<const TargetInfo> AllTargets();
std::optional<TargetId> TargetFromName(std::string_view name);
// "v5p, v6e, v7x, v8i, v8t", for messages.
std::string TargetNameList();

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_TARGET_H_
