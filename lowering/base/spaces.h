// Memory spaces and parameter directions (scjit/types.h): their names in .scir
// and in Pallas' messages.
#ifndef SCJIT_LOWERING_BASE_SPACES_H_
#define SCJIT_LOWERING_BASE_SPACES_H_

#include <optional>
#include <string_view>

#include "scjit/types.h"

namespace scjit {

// The .scir spelling (`hbm`), which is also Pallas' str() of the space.
std::string_view SpaceName(MemorySpace s);
// Pallas' repr() of the space (`HBM`, `VMEM_SHARED`), used in SC rule messages.
std::string_view SpaceRepr(MemorySpace s);
std::optional<MemorySpace> SpaceFromName(std::string_view name);
// HBM and HOST: memory outside the SparseCore, one per device, that kernels reach
// by DMA only; a parameter there is the caller's buffer, used in place.
bool OffCore(MemorySpace s);

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_SPACES_H_
