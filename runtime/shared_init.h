// RT-INIT on the memories subcores share (runtime.md §5): the bytes of a
// core's VMEM_SHARED scratch and of `out` parameters in HBM hold nothing
// written when a launch starts. Only DMAs touch these memories: one whose
// source (or, adding, whose destination) holds such bytes reads what nothing
// wrote; the bytes a DMA moves count as written from then on. One bit per
// memory byte (an out parameter may be large): set once written.
//
// Thread safety: FirstUnwritten and RunMarker touch plain words, like the
// DMAs they follow: concurrent calls on the same bytes are the kernel races
// the race check reports, and the writes are made under the data's own
// SharedWrites guard (whose stripes are 64-byte multiples: a bitmap word covers
// 64 bytes of one stripe).
#ifndef SCJIT_RUNTIME_SHARED_INIT_H_
#define SCJIT_RUNTIME_SHARED_INIT_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "runtime/abi.h"

namespace scjit {

class SharedInit {
 public:
  // Memory [lo, lo + bytes) of which nothing is written yet, or (with
  // `state`) what the state bytes there say (SCJIT_SHADOW_WRITTEN: a VMEM_SHARED
  // arena's part of the machine's shadow). False when the host has no memory
  // for its bits.
  bool AddRegion(const uint8_t* lo, int64_t bytes, const uint8_t* state = nullptr);

  // The first byte of [p, p + bytes) nothing has written, or null. Bytes in
  // no region count as written.
  const uint8_t* FirstUnwritten(const uint8_t* p, int64_t bytes) const {
    const Region* r = RegionOf(p);
    return r != nullptr ? FirstUnwritten(*r, p, bytes) : nullptr;
  }
  // True when [p, p + bytes) lies in a region and nothing has written any of it.
  bool NoneWritten(const uint8_t* p, int64_t bytes) const;
  // True once every byte of every region is written (then no DMA needs a look:
  // a kernel's scratch and outputs, written in its first steps, stay so).
  bool AllWritten() const { return regions_unwritten_.load(std::memory_order_relaxed) == 0; }
  // The first unwritten byte `dma` reads in these memories (its source, and
  // its destination when it adds), or null; `destination`: it is the latter.
  const uint8_t* FirstUnwrittenRead(const scjit_dma& dma, const int32_t* indices, bool* destination) const;

 private:
  struct Region {
    const uint8_t* lo;
    const uint8_t* hi;
    std::unique_ptr<uint64_t[]> written;  // bit i of word i / 64: byte lo + i
    // How many of its bytes nothing has written: at 0 (a buffer written once
    // and then read or added into, the common case) no DMA's bytes need looking at.
    std::unique_ptr<std::atomic<int64_t>> unwritten;
  };

 public:
  // Marks the runs of a DMA written as it moves them: n elements of w bytes
  // at dst, `stride` elements apart. Remembers the region of the last run (a
  // DMA's runs, a scatter's rows, mostly fall in one).
  class RunMarker {
   public:
    explicit RunMarker(SharedInit* init) : init_(init) {}
    void Mark(const uint8_t* dst, int64_t stride, int64_t n, int64_t w);

   private:
    void MarkBytes(const uint8_t* p, int64_t bytes);
    SharedInit* init_;
    const Region* last_ = nullptr;
  };

 private:
  const Region* RegionOf(const uint8_t* p) const;
  // RegionOf, trying `last` (the region of the run before) first.
  const Region* RegionOf(const uint8_t* p, const Region* last) const {
    return last != nullptr && p >= last->lo && p < last->hi ? last : RegionOf(p);
  }
  static const uint8_t* FirstUnwritten(const Region& r, const uint8_t* p, int64_t bytes);
  // True when view `r` may hold a byte nothing has written: some region has a
  // byte of it, and not all of that region is written.
  bool MayHoldUnwritten(const scjit_ref& r, int64_t elem_bytes) const;
  // Sets bits [first, first + count) of `r` and counts the bytes they made
  // written; true when that wrote the region's last unwritten byte.
  static bool Set(const Region& r, int64_t first, int64_t count);

  std::vector<Region> regions_;  // sorted by lo, disjoint
  std::atomic<int64_t> regions_unwritten_{0};  // regions with a byte nothing has written
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SHARED_INIT_H_
