// RT-INIT on the memories subcores share (runtime.md §5): the bytes of a
// core's VMEM_SHARED scratch and of `out` parameters in HBM hold nothing
// written when a launch starts. Only DMAs touch these memories: one whose
// source (or, adding, whose destination) holds such bytes reads what nothing
// wrote; the bytes a DMA moves count as written from then on. A state byte per
// memory byte, WRITTEN or not (SCJIT_SHADOW_WRITTEN).
//
// Thread safety: FirstUnwritten and MarkWritten touch plain bytes, like the
// DMAs they follow: concurrent calls on the same bytes are the kernel races
// the race check reports, and the writes are made under the data's own
// SharedWrites guard.
#ifndef SCJIT_RUNTIME_SHARED_INIT_H_
#define SCJIT_RUNTIME_SHARED_INIT_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "runtime/abi.h"

namespace scjit {

class SharedInit {
 public:
  // Memory [lo, lo + bytes) whose state bytes start at `state` (kept up to
  // date by the caller until now: a VMEM_SHARED arena's part of the machine's
  // shadow).
  void AddRegion(const uint8_t* lo, int64_t bytes, uint8_t* state);
  // Memory [lo, lo + bytes) of which nothing is written yet (an out parameter):
  // its state bytes are allocated here. False when the host has no memory for them.
  bool AddUnwrittenRegion(const uint8_t* lo, int64_t bytes);

  // The first byte of [p, p + bytes) nothing has written, or null. Bytes in
  // no region count as written.
  const uint8_t* FirstUnwritten(const uint8_t* p, int64_t bytes) const;
  // The first unwritten byte `dma` reads in these memories (its source, and
  // its destination when it adds), or null; `destination`: it is the latter.
  const uint8_t* FirstUnwrittenRead(const scjit_dma& dma, const int32_t* indices, bool* destination) const;
  // The bytes `dma` writes hold values now.
  void MarkWritten(const scjit_dma& dma, const int32_t* indices);

 private:
  struct Region {
    const uint8_t* lo;
    const uint8_t* hi;
    uint8_t* state;
  };
  const Region* RegionOf(const uint8_t* p) const;

  std::vector<Region> regions_;  // sorted by lo, disjoint
  std::vector<std::unique_ptr<uint8_t[]>> owned_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SHARED_INIT_H_
