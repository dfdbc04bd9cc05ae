// Target chips (target.def): their SparseCore geometry, as the public TargetInfo
// (scjit/types.h) describes it, and the compiler's TargetId for each.
#ifndef SCJIT_LOWERING_BASE_TARGET_H_
#define SCJIT_LOWERING_BASE_TARGET_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lowering/base/shape.h"
#include "scjit/types.h"

namespace scjit {

// The rows of target.def, in order: TargetId(i) is Targets()[i].
enum class TargetId : uint8_t {
#define SCJIT_TARGET(Enum, ...) Enum,
#include "lowering/base/target.def"
};

inline constexpr TargetId kDefaultTarget = TargetId::kV7x;

// The most chips one launch emulates (a kernel's device mesh, `devices(...)`).
inline constexpr int64_t kMaxDevices = 4096;

const TargetInfo& Info(TargetId id);
std::optional<TargetId> TargetFromName(std::string_view name);
// "v5p, v6e, v7x, v8i, v8t", for messages.
std::string TargetNameList();

// The shapes of one vector register of `t` for elements of `bytes` (1, 2 or 4)
// bytes: (L * 4 / bytes,), and (4 / bytes, L) for packed types, as Pallas'
// sc_core.supported_shapes.
std::vector<Shape> RegisterShapes(const TargetInfo& t, int bytes);

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_TARGET_H_
