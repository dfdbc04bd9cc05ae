// The init state of the memories subcores share (runtime.md, "Init check"):
// a core's VMEM_SHARED scratch and the kernel's HBM parameters that it may
// write. Only DMAs touch these memories, and a DMA gives each byte it writes
// the state of the byte it reads: written (it holds a value), computed (a
// value the kernel computed from bytes nothing had written) or unwritten
// (nothing wrote it, or it holds such bytes copied unchanged). A region keeps
// two bitmaps: written bytes (null while every byte is written: an `in` or
// `inout` parameter until something unwritten lands there) and computed ones
// (null until one is), so that a DMA of written bytes into a region written
// in full, the common case, looks at nothing.
//
// Thread safety: Read, Write, RunMarker touch plain words, like the DMAs
// they follow: concurrent calls on the same bytes are the kernel races the
// race check reports, and the writes are made under the data's own
// SharedWrites guard (whose stripes are 64-byte multiples: a bitmap word
// covers 64 bytes of one stripe); a word shared with another stripe is
// written atomically, and bitmaps are made on first need with one atomic
// exchange.
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
  // Memory [lo, lo + bytes): nothing written yet, or (`written`) every byte
  // written, or (with `state`) what the state bytes there say
  // (SCJIT_SHADOW_INIT_BITS: a VMEM_SHARED arena's part of the machine's
  // shadow). False when the host has no memory for its bits.
  bool AddRegion(const uint8_t* lo, int64_t bytes, bool written = false, const uint8_t* state = nullptr);

  // The init state (SCJIT_SHADOW_INIT_BITS) of the `n` bytes at p, into
  // out[0, n): WRITTEN for bytes in no region. [p, p + n) lies in one region
  // or none.
  void Read(const uint8_t* p, int64_t n, uint8_t* out) const;
  // Gives the `n` bytes at p the states in[0, n) (in one region or none).
  // False when the host has no memory for a bitmap (the states stay).
  bool Write(const uint8_t* p, int64_t n, const uint8_t* in);
  // True when p lies in a region.
  bool Tracks(const uint8_t* p) const { return RegionOf(p) != nullptr; }
  // True when every byte of [p, p + bytes) is written (bytes in no region are).
  bool Written(const uint8_t* p, int64_t bytes) const;
  // The first byte of [p, p + bytes) not written, or null.
  const uint8_t* FirstUnwritten(const uint8_t* p, int64_t bytes) const;
  // True when [p, p + bytes) lies in a region and nothing has written any of it.
  bool NoneWritten(const uint8_t* p, int64_t bytes) const;
  // True once every byte of every region is written (then no DMA needs a look).
  bool AllWritten() const { return regions_unwritten_.load(std::memory_order_relaxed) == 0; }
  // The elements of `width` bytes in [lo, lo + bytes) (in one region) that
  // hold a computed byte: how many, and the first such byte (null when none).
  int64_t Computed(const uint8_t* lo, int64_t bytes, int64_t width, const uint8_t** first) const;

 private:
  struct Bits {
    ~Bits();
    // Bit i of word i / 64: byte lo + i. Null: every byte written / none computed.
    std::atomic<uint64_t*> written{nullptr};
    std::atomic<uint64_t*> computed{nullptr};
    // How many of its bytes are not written: at 0 (a buffer written once
    // and then read or added into, the common case) no DMA needs a look.
    std::atomic<int64_t> unwritten{0};
  };
  struct Region {
    const uint8_t* lo;
    const uint8_t* hi;
    std::unique_ptr<Bits> bits;
  };

 public:
  // Marks the runs of a DMA of written bytes as it moves them: n elements of
  // w bytes at dst, `stride` elements apart. Remembers the region of the last
  // run (a DMA's runs, a scatter's rows, mostly fall in one).
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
  // The bitmap `slot` of region r, made now (every bit `fill`) if it has none;
  // null when the host has no memory for it.
  static uint64_t* Bitmap(const Region& r, std::atomic<uint64_t*>& slot, bool fill);
  // Sets (or clears) bits [first, first + count) of `bits`; returns how many
  // changed.
  static int64_t SetRange(uint64_t* bits, int64_t first, int64_t count, bool on);
  // Region r's count of unwritten bytes changes by `delta`.
  void CountUnwritten(const Region& r, int64_t delta);

  std::vector<Region> regions_;  // sorted by lo, disjoint
  std::atomic<int64_t> regions_unwritten_{0};  // regions with a byte not written
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SHARED_INIT_H_
