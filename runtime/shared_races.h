// RT-RACE between subcores (runtime.md §5): happens-before by vector clocks over
// everything that orders subcores — barriers, semaphore signals and the waits
// that take them, fetch_and_add — and the accesses of DMAs to the memory
// subcores share (HBM and host parameters, VMEM_SHARED). A DMA reads its source
// and writes its destination from its dma_start until the wait that retires
// it; two such accesses to the same bytes race when one writes and neither
// ended before the other began. Adding DMAs do not race each other. A race of
// plain accesses is decided once their bytes have moved, by value: two writes
// race only when they wrote different bytes (the later to move changed them),
// and a write races a read unless a write ordered before the read already
// wrote those bytes with the same values (then every order reads the same:
// 16 subcores each copying a table into VMEM_SHARED, then reading it).
//
// Subcores record their DMAs during an epoch (SharedDma, owned by the subcore
// until the epoch ends); the machine checks them between epochs, subcore by
// subcore in start order, so what is reported does not depend on threads.
//
// Thread safety: VectorClocks rows and SharedDma records are written by their
// subcore during an epoch and by the machine between epochs; SharedAccesses is
// used between epochs only.
#ifndef SCJIT_RUNTIME_SHARED_RACES_H_
#define SCJIT_RUNTIME_SHARED_RACES_H_

#include <cstdint>
#include <map>
#include <optional>

#include <memory>
#include <utility>
#include <span>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "runtime/record_pool.h"

namespace scjit {

using Clock = std::vector<uint32_t>;

// a = max(a, b), element by element.
void Join(Clock& a, const Clock& b);

// One DMA's accesses to shared memory.
struct SharedDma {
  enum Kind : uint8_t { kRead = 1, kWrite = 2, kAdd = 4 };
  struct Run {
    uintptr_t lo, hi;
    Kind kind;
  };
  // (User-provided: value-initializing a SharedDma, as allocate_shared does,
  // would first zero all of it, its inline clock included.)
  SharedDma() {}

  int subcore = 0;  // global index
  int site = -1;    // its dma_start or copy
  // Its subcore's clock at the start (inline: one per DMA, most meshes have
  // at most 32 subcores).
  absl::InlinedVector<uint32_t, 32> start;
  uint32_t end = 0;  // its subcore's own clock entry at the wait that retired it; 0: in flight
  int end_site = -1;
  // A copy to another chip is also retired by its receiver's wait on %recv:
  // that subcore (known from the start) and its clock entry then (0: not yet). Whoever is ordered after
  // either wait is ordered after the copy (Subcore::StartRemoteAccesses).
  bool remote = false;
  int recv_subcore = -1;
  uint32_t recv_end = 0;
  // True when a subcore whose clock is `c` is ordered after this DMA's end.
  template <typename C>
  bool EndedFor(const C& c) const {
    auto seen = [&](int subcore, uint32_t at) {
      return at != 0 && subcore >= 0 && static_cast<size_t>(subcore) < c.size() && c[static_cast<size_t>(subcore)] >= at;
    };
    return seen(subcore, end) || seen(recv_subcore, recv_end);
  }
  absl::InlinedVector<Run, 2> runs;
  // An indirect DMA's rows on the shared side, kept as its index list until
  // its runs are needed (ExpandRows): the rows of most (a scatter-add's into
  // an accumulator only added into, a gather's from a table only read) never
  // are, and a run per row costs more than the row's move.
  struct Rows {
    uintptr_t base = 0;  // row 0
    int64_t stride = 0;  // bytes from a row to the next
    int64_t bytes = 0;   // of a row: one run
    Kind kind = kRead;
    std::vector<int32_t> list;  // the rows moved, in list order
    uintptr_t lo = 0, hi = 0;   // the bytes they span
  };
  std::optional<Rows> rows;
  // Plain writes: the bytes the DMA changed when it moved them.
  absl::InlinedVector<std::pair<uintptr_t, uintptr_t>, 1> changed;
  bool moved = false;
  uint64_t moved_at = 0;  // when, in the machine's order of shared moves (Machine::NextSharedMove)
  bool reported = false;  // one finding per DMA

  // True when it accesses some shared bytes.
  bool Accesses() const { return !runs.empty() || rows.has_value(); }
  // The bytes [*lo, *hi) its accesses span and their kinds (false: it has none).
  bool Span(uintptr_t* lo, uintptr_t* hi, uint8_t* kinds) const;
  // Appends the runs of `rows` (a run per row, adjacent rows' merged) to `runs`.
  void ExpandRows();
};

// One race found: `later` (the DMA checked) against `earlier`, at byte `byte`.
struct SharedRace {
  std::shared_ptr<SharedDma> earlier, later;
  uintptr_t byte = 0;
  SharedDma::Kind earlier_kind = SharedDma::kRead, later_kind = SharedDma::kRead;
};

// The live accesses to shared memory, by byte range.
//
// Many buffers are only read (a gather's table) or only added into (a
// scatter-add's), or written in disjoint blocks in address order (a
// pipeline's output, block after block, subcore after subcore): no access to
// them can race. Such a buffer's DMAs are only held, not put in the
// byte-range map, until an access that could race with them arrives; then
// they enter the map, in order, before it. (Held accesses cannot race each
// other, so nothing is lost.)
class SharedAccesses {
 public:
  // A buffer the kernel's subcores share: [lo, hi) of host memory. Runs in no
  // region are put in the map at once.
  // Only subcores [first, first + count) reach it (a core's VMEM_SHARED: that
  // core's), which decides when its accesses may be forgotten.
  void AddRegion(uintptr_t lo, uintptr_t hi, int first, int count);
  // Checks `dma` (just started, or started this epoch) against the accesses it
  // may race with and records it. Races of plain accesses wait until the
  // bytes that decide them have moved (Resolve).
  void Add(const std::shared_ptr<SharedDma>& dma, std::vector<SharedRace>* races);
  // The races of plain accesses whose bytes have moved and differ: two writes
  // whose later one changed the bytes; a write and a read with no write
  // ordered before the read that wrote the same bytes (`witnesses`).
  void Resolve(std::vector<SharedRace>* races);
  // Forgets the accesses that every subcore that may still access their bytes
  // is ordered after: `bounds[i]` is the least clock subcore i may still act
  // with (null: it is done), for each region the least over the subcores that
  // reach it. A region left with nothing in the map holds its accesses again.
  // (A subcore's bound is a span, empty when it is done: a DMA's start clock
  // is not a Clock, and this runs after every barrier.)
  void Forget(const std::vector<std::span<const uint32_t>>& bounds);

 private:
  struct Entry {
    std::shared_ptr<SharedDma> dma;
    SharedDma::Kind kind;
  };
  struct Segment {
    uintptr_t hi;
    absl::InlinedVector<Entry, 2> entries;
  };
  struct Pending {
    SharedRace race;
    uintptr_t lo, hi;
    // A write against a read: the latest writes of [lo, hi) ordered before
    // the read (none: the read may see what was there before the write).
    std::vector<std::shared_ptr<SharedDma>> witnesses;
  };
  // The writes in `entries` ordered before `reader` that no other such write
  // is ordered before, other than `write`.
  static std::vector<std::shared_ptr<SharedDma>> Witnesses(const absl::InlinedVector<Entry, 2>& entries,
                                                          const SharedDma& reader, const SharedDma& write);
  // True when `a` and `b` (plain writes, both moved) left different bytes in
  // [lo, hi): the later to move changed them.
  static bool Differ(const SharedDma& a, const SharedDma& b, uintptr_t lo, uintptr_t hi);
  // True when the DMAs that decide `p` have moved their bytes.
  static bool Ready(const Pending& p);
  // True when `p` (Ready) is a race.
  static bool IsRace(const Pending& p);
  struct Region {
    uintptr_t lo, hi;
    int first = 0, count = 0;  // the subcores that reach it
    bool mapped = false;  // its accesses are in the map
    uint8_t kinds = 0;    // of the held accesses
    uintptr_t held_lo = 0, held_hi = 0;  // the bytes they span (while any are held)
    std::vector<std::shared_ptr<SharedDma>> held;  // in the order they were added
  };
  // The map's nodes come from a pool (a DMA may make one).
  using SegmentMap = std::map<uintptr_t, Segment, std::less<>, RecordAllocator<std::pair<const uintptr_t, Segment>>>;
  // Segments covering exactly [lo, hi) (made or split as needed), in order,
  // into cover_ (kept to save an allocation per run).
  void Cover(uintptr_t lo, uintptr_t hi);
  // The region holding byte `p`, or null.
  Region* RegionOf(uintptr_t p);
  // True when holding an access of `kinds` (SharedDma::Kind bits) to [lo, hi)
  // in `r` keeps every held access free of races: all of them read, or all
  // add, or it lies outside the bytes they span.
  static bool CannotRace(const Region& r, uint8_t kinds, uintptr_t lo, uintptr_t hi);
  // Holds `dma`'s access of `kinds` to [lo, hi) in `r` (CannotRace said it may).
  static void Hold(Region& r, const std::shared_ptr<SharedDma>& dma, uint8_t kinds, uintptr_t lo, uintptr_t hi);
  // Holds `dma` when all its runs lie in one region where CannotRace holds
  // for them together (a scatter-add's hundred rows into one accumulator: one
  // test, not one per row); else false.
  bool HoldWhole(const std::shared_ptr<SharedDma>& dma);
  // Checks one run against the map and enters it there.
  void Map(const std::shared_ptr<SharedDma>& dma, const SharedDma::Run& run, std::vector<SharedRace>* races);
  // Puts `r`'s held accesses in the map (and those of runs[0, upto) of `dma`).
  void MapRegion(Region& r, const std::shared_ptr<SharedDma>& dma, size_t upto, std::vector<SharedRace>* races);

  // Map's pairs of one segment waiting on their bytes, by the other access's
  // subcore: its kinds (waiting_, kept zero between segments), and the
  // subcores set.
  bool Waiting(int subcore, SharedDma::Kind kind) const;
  void Wait(int subcore, SharedDma::Kind kind);
  void ClearWaiting();
  std::vector<uint8_t> waiting_;
  std::vector<int> waiting_subcores_;

  std::vector<Region> regions_;            // sorted by lo, disjoint
  RecordPool nodes_;  // before segments_: outlives it
  SegmentMap segments_{RecordAllocator<SegmentMap::value_type>(&nodes_)};  // by first byte, disjoint
  std::vector<Pending> pending_;
  std::vector<SegmentMap::iterator> cover_;
  // Forget's floors, per region and one for all subcores (kept to save allocations).
  std::vector<Clock> floors_;
  std::vector<bool> floor_known_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SHARED_RACES_H_
