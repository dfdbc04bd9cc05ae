// RT-RACE (and RT-INIT of index lists) on a subcore's own memories (its VMEM
// and SMEM arenas): one state byte per arena byte (SCJIT_SHADOW_*,
// runtime/abi.h), at a fixed distance from it. Code compiled with these checks
// tests the state bytes of every load and store it makes and sets the init
// bits of what it stores; a DMA's move sets those of its destination
// (InitStates); this class keeps the DMA bits. A DMA reads its source, and
// writes its destination, from its dma_start until the wait that retires it
// (runtime.md §4, §5), whichever mode moves its bytes, so both bits are set at
// the start and cleared at that wait.
//
// A wait retires DMAs by counting: the DMAs started on one semaphore retire in
// start order as the waits on it take their credit (a wait counts bytes, not
// descriptors).
//
// Thread safety: one per subcore, used by its fiber during epochs and by the
// machine between them. A remote copy's record is in flight in two of them,
// its sender's and its receiver's, whose fibers may retire it at once on two
// threads: they write different fields of it (end; recv_end), and it is not
// pooled (Subcore::NewRecord).
#ifndef SCJIT_RUNTIME_LOCAL_ACCESSES_H_
#define SCJIT_RUNTIME_LOCAL_ACCESSES_H_

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/functional/function_ref.h"
#include "runtime/abi.h"
#include "runtime/shared_races.h"

namespace scjit {

// An access the state bytes do not allow.
struct AccessProblem {
  enum class Kind : uint8_t {
    kUnwritten,  // an index list entry not written (RT-INIT: it decides what moves)
    kDmaWrites,  // the byte is being written (or added into) by a DMA in flight (RT-RACE)
    kDmaReads,   // a write of a byte a DMA in flight reads (RT-RACE)
    kTooMany,    // a DMA started with kMaxInFlight in flight already (RT-SYNC)
  };
  Kind kind = Kind::kUnwritten;
  bool write = false;             // the access at fault writes the byte (else reads it)
  bool list = false;              // the byte is of a DMA's index list
  const uint8_t* byte = nullptr;  // the first byte at fault
  int dma_site = -1;              // kDma*: the dma_start of the DMA in flight
};

class LocalAccesses {
 public:
  // The DMAs a subcore may have in flight (started, not yet retired by a
  // wait) under the checks. Each is a record the race check compares the
  // accesses of the subcore, and of the others, with: a kernel that piles up
  // DMAs without waiting would make their cost grow without bound. No public
  // figure gives a SparseCore's DMA queue depth; this is far above what the
  // kernels we know keep in flight (docs/runtime.md, "Limits").
  static constexpr size_t kMaxInFlight = 1024;

  // `arenas`: [lo, hi) of each memory of the subcore (VMEM, SMEM); the state
  // byte of p is p + shadow_delta. `semaphores`: how many the subcore has.
  // `init`, `race`: the checks on (without init every byte counts as written;
  // without race DMAs set no bits and count as done at their start).
  LocalAccesses(std::vector<std::pair<uint8_t*, uint8_t*>> arenas, int64_t shadow_delta, int semaphores, bool init,
                bool race);

  // True when [p, p + bytes) lies in one of the subcore's memories.
  bool Local(const uint8_t* p, int64_t bytes) const;

  // A kernel access of [p, p + bytes) (which must be Local): the first byte it
  // may not make (a DMA in flight on it), if any.
  std::optional<AccessProblem> Access(const uint8_t* p, int64_t bytes, bool write);
  // The bytes hold nothing written (a scoped alloc entered: they are poison again).
  void MarkUnwritten(const uint8_t* p, int64_t bytes);
  // The bytes hold a value (fetch_and_add wrote them, or the runtime staged them).
  void MarkWritten(const uint8_t* p, int64_t bytes);

  // A DMA starts on semaphore `sem` (-1: a synchronous copy, retired at once),
  // adding `credit` to it when it completes: checks the bytes it reads and
  // writes in the subcore's memories (an index list in VMEM included: with the
  // init check its entries must be written) and marks them. On a problem
  // nothing is marked.
  // `shared`: the race check's record of it (or null), retired with it: the
  // same walk over the DMA's runs fills in its accesses outside the subcore's
  // memories (shared->runs); a record left without any is dropped.
  // `sides`: kSource for the sender's side of a copy to another chip, whose
  // destination is not this subcore's to mark (it reads its source until the
  // sender's wait on its send semaphore).
  enum class Sides : uint8_t { kBoth, kSource, kDestination };
  // Init check: the first entry of a DMA's index list in the subcore's
  // memories that holds no written value (its entries decide what moves).
  std::optional<AccessProblem> UnwrittenList(const scjit_dma& dma) const;
  std::optional<AccessProblem> StartDma(const scjit_dma& dma, const int32_t* indices, int site, int sem,
                                        int64_t credit, std::shared_ptr<SharedDma> shared, Sides sides = Sides::kBoth);
  // A remote copy (`dma`, its destination on this subcore's chip) landed,
  // crediting `sem` with `credit`: with the race check its destination bytes
  // in the subcore's memories are being written until the waits on `sem` take
  // that credit, which retire `shared` (its record) too.
  void Land(const scjit_dma& dma, int sem, int64_t credit, std::shared_ptr<SharedDma> shared);
  // A wait took `amount` from semaphore `sem`: retires the DMAs that covers,
  // calling `retired` with the shared records among them, in start order.
  void Consume(int sem, int64_t amount, absl::FunctionRef<void(SharedDma&)> retired);

 private:
  struct Span {
    uint8_t* lo;
    uint8_t* hi;
  };
  struct InFlight {
    int site = -1;
    int sem = -1;
    int64_t end = 0;  // retired once the waits on `sem` have taken this much
    bool add = false;
    // Mark found its reads all written: their state is then exactly WRITTEN,
    // and READS while it is in flight.
    bool reads_written = false;
    absl::InlinedVector<Span, 2> reads, writes;
    Span bounds{nullptr, nullptr};  // of reads and writes together
    std::shared_ptr<SharedDma> shared;
  };

  uint8_t* State(const uint8_t* p) const { return const_cast<uint8_t*>(p) + delta_; }
  // The first byte of [lo, hi) whose state has a bit of `mask` other than
  // `expect` has, as a problem (kUnwritten when WRITTEN is missing).
  std::optional<AccessProblem> Find(const uint8_t* lo, const uint8_t* hi, uint8_t mask, uint8_t expect) const;
  // Find, for a DMA's span: when only DMA bits are asked for and few spans
  // are in flight, their spans answer sooner than the state bytes (which
  // they set).
  std::optional<AccessProblem> FindForDma(const uint8_t* lo, const uint8_t* hi, uint8_t mask, uint8_t expect) const;
  // The DMA in flight that has `bits` on byte p.
  int SiteOf(const uint8_t* p, uint8_t bits) const;
  // True when a DMA in flight has one of `bits` on some byte of [lo, hi).
  bool InFlightMeets(const uint8_t* lo, const uint8_t* hi, uint8_t bits) const;
  // Sets the DMA bits of `d`. What StartDma checked leaves one state per span
  // (a destination's WRITTEN does not matter while a DMA writes it), so most
  // spans are set with memset. Sets d.reads_written when its reads turn out
  // to be of bytes all written, and of no other state.
  void Mark(InFlight& d);
  // True when DMAs on `sem` are followed until a wait retires them (race check).
  bool Tracks(int sem) const;
  // Counts `credit` on d.sem and puts d in flight (its bits, or its record
  // alone; nothing when it has neither).
  void Fly(InFlight d, int64_t credit);
  std::shared_ptr<SharedDma> Retire(size_t index);
  // The entries of a DMA's index list in the subcore's memories.
  absl::InlinedVector<Span, 2> ListSpans(const scjit_dma& dma) const;
  // Where a DMA's view lies: wholly in one of the subcore's memories, wholly
  // outside them, or either (then each run is looked up).
  enum class Place : uint8_t { kLocal, kElsewhere, kEither };
  Place PlaceOf(const scjit_ref& view, int64_t elem_bytes) const;
  // The parts of a DMA in the subcore's memories, and (with `shared`) the runs
  // of the others.
  void AddSpans(const scjit_dma& dma, const int32_t* indices, Sides sides, InFlight* d, SharedDma* shared) const;
  // AddSpans for the common indirect DMA: whole contiguous rows, the plain
  // side contiguous in the subcore's memories, the indexed side wholly outside
  // them, every entry moving its row. The plain side is one span, and the
  // rows go to shared->rows, runs only when the race check needs them. False
  // (nothing added) for any other DMA.
  bool AddRows(const scjit_dma& dma, const int32_t* indices, InFlight* d, SharedDma* shared) const;

  std::vector<std::pair<uint8_t*, uint8_t*>> arenas_;
  int64_t delta_;
  bool init_, race_;
  std::vector<InFlight> in_flight_;
  size_t spans_in_flight_ = 0;  // their reads and writes
  std::vector<int64_t> started_, consumed_;  // credit per semaphore
  // Per semaphore, in start order: the DMAs in flight that touch none of the
  // subcore's memories (a remote copy between HBM buffers, and each one it
  // receives), held only to retire their records. (A remote copy's sender and
  // receiver hold dozens at once: kept out of in_flight_, whose retiring and
  // overlap scans are linear in its size.)
  struct RecordInFlight {
    int64_t end;
    std::shared_ptr<SharedDma> shared;
  };
  std::vector<std::deque<RecordInFlight>> records_in_flight_;
  size_t records_in_flight_count_ = 0;  // over every semaphore
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_LOCAL_ACCESSES_H_
