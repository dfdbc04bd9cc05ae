// SharedWrites: orders the runtime's writes into memory that subcores running
// on different host threads share — the HBM parameters, each core's
// VMEM_SHARED arena.
//
// A kernel may have two subcores write the same bytes with the same values in
// one epoch (identical-byte writes are legal, runtime.md §5: a pipeline's
// output block written back by every core, say). Done by two host threads at
// once, that would be a data race of the host program — undefined behaviour,
// and what ThreadSanitizer reports. So each region is cut into stripes with a
// mutex each, and a DMA's write takes the stripes its destination spans, in
// address order (one DMA at a time per thread: no deadlock). Reads take none: a
// read of bytes another subcore writes in the same epoch is the kernel's race.
//
// Thread-safe once its regions are added.
#ifndef SCJIT_RUNTIME_SHARED_WRITES_H_
#define SCJIT_RUNTIME_SHARED_WRITES_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace scjit {

class SharedWrites {
 public:
  // Adds [base, base + bytes) (before any Lock).
  void AddRegion(uint8_t* base, int64_t bytes);

  // Holds the stripes of one write until it goes out of scope.
  class Guard {
   public:
    Guard() = default;
    Guard(Guard&& other) noexcept;
    Guard& operator=(Guard&&) = delete;
    ~Guard();

   private:
    friend class SharedWrites;
    std::mutex* first_ = nullptr;  // stripes first_ .. last_ of one region, locked
    std::mutex* last_ = nullptr;
  };

  // Locks the stripes [lo, hi) spans in the region that holds lo (nothing when
  // none does: memory only one subcore writes).
  Guard Lock(const uint8_t* lo, const uint8_t* hi);

 private:
  // A region's stripes: at most kMaxStripes, each at least kMinStripeBytes.
  static constexpr int64_t kMinStripeBytes = int64_t{64} << 10;
  static constexpr int64_t kMaxStripes = 1024;
  struct Region {
    uint8_t* base;
    int64_t bytes;
    int64_t stripe_bytes;
    int64_t stripes;
    std::unique_ptr<std::mutex[]> locks;
  };
  std::vector<Region> regions_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SHARED_WRITES_H_
