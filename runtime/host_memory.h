// Host memory for what scjit allocates on behalf of a kernel — arrays (Buffer),
// .npy data, a launch's arenas and its subcores' stacks: how much the host has,
// and IO-MEMORY, the error of every allocation that cannot be made. Sizes come
// from kernels and files, so they are checked before anything is allocated,
// and allocations never throw.
#ifndef SCJIT_RUNTIME_HOST_MEMORY_H_
#define SCJIT_RUNTIME_HOST_MEMORY_H_

#include <cstdint>
#include <string_view>

#include "absl/status/status.h"

namespace scjit {

// The host's physical memory in bytes, or its cgroup's memory limit when that is
// lower: the most that one allocation, or all of a run's arrays together, may take.
int64_t HostMemoryBytes();

// IO-MEMORY (ResourceExhausted): `bytes` for `what` ("a buffer of int32 (4, 8)")
// could not be allocated, for `reason`.
absl::Status HostMemoryError(int64_t bytes, std::string_view what, std::string_view reason);

// OK when `bytes` fit the host's memory, else IO-MEMORY naming `what`.
absl::Status CheckHostMemory(int64_t bytes, std::string_view what);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_HOST_MEMORY_H_
