// The fill pattern (runtime.md §7.9): what fresh `out` buffers, scratch and
// allocs hold until the kernel writes them.
//
// An `out` parameter the kernel never reads (LaunchLayout's ParamLayout::
// write_only: every use of it is the destination of a plain DMA) cannot show
// its pattern to the kernel, only to the caller, in the bytes the launch left
// unwritten. Its fill is deferred to the end of the launch and made only
// there (DeferredPoison): a kernel that writes all of its output — the common
// case — spares a pass over it, as large as the output itself.
//
// Thread safety: DeferredPoison's Written and Unwritten may be called from any
// thread during a launch; Add and Fill only while no other call runs.
#ifndef SCJIT_RUNTIME_POISON_H_
#define SCJIT_RUNTIME_POISON_H_

#include <atomic>
#include <cstdlib>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "lowering/base/dtype.h"

namespace scjit {

// Fills `count` elements of type `e` at `data` with the pattern.
void FillPoison(uint8_t* data, int64_t count, ElementType e);

class DeferredPoison {
 public:
  // Defers the fill of `count` elements of `e` at `base`. False when the host
  // cannot hold the state (a bit per element).
  bool Add(uint8_t* base, int64_t count, ElementType e);
  bool empty() const { return regions_.empty(); }

  // A DMA is about to write a run of `n` units of `w` bytes at `dst`,
  // `stride` units apart: their bytes need no fill. A unit that covers part
  // of an element nothing has written yet gives the rest of it the pattern
  // now (call it before the write, holding what orders writes of those bytes:
  // runtime/shared_writes.h). Bytes outside every region are ignored.
  void Written(const uint8_t* dst, int64_t stride, int64_t n, int64_t w);
  // True when some element a run touches has not been written: what it holds
  // is the caller's, standing for the pattern (the race check counts a write
  // of it as a change, as it would of the pattern).
  bool Unwritten(const uint8_t* dst, int64_t stride, int64_t n, int64_t w) const;

  // Fills every element nothing wrote, in pieces; when `go_on` says to stop
  // between two (the time limit), leaves the rest as it is and returns the
  // region it was filling (in the order of Add), else -1.
  int Fill(const std::function<bool()>& go_on);

 private:
  struct Region {
    uint8_t* base;
    int64_t count;
    ElementType element;
    int64_t width;                                 // bytes per element
    // A bit per element, set once written; calloc's, so untouched pages cost
    // nothing, and used through std::atomic_ref (threads set bits at once).
    std::unique_ptr<uint64_t[], void (*)(void*)> bits{nullptr, std::free};
  };
  Region* Find(const uint8_t* p);
  const Region* Find(const uint8_t* p) const;
  // Elements [first, last) of `r` are written.
  void SetBits(Region& r, int64_t first, int64_t last);
  // Bytes [lo, hi) of `r` are about to be written.
  void WrittenBytes(Region& r, int64_t lo, int64_t hi);
  bool Seen(const Region& r, int64_t element) const;
  static std::atomic_ref<uint64_t> Word(const Region& r, int64_t word) { return std::atomic_ref<uint64_t>(r.bits[word]); }

  std::vector<Region> regions_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_POISON_H_
