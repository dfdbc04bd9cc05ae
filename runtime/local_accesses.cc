#include "runtime/local_accesses.h"

#include <algorithm>
#include <cstring>

#include "lowering/base/spaces.h"
#include "runtime/avx2_clones.h"
#include "runtime/dma_walk.h"

namespace scjit {
namespace {

constexpr uint8_t kWritten = SCJIT_SHADOW_WRITTEN;
constexpr uint8_t kReads = SCJIT_SHADOW_DMA_READS;
constexpr uint8_t kWrites = SCJIT_SHADOW_DMA_WRITES;
constexpr uint8_t kAdds = SCJIT_SHADOW_DMA_ADDS;
constexpr uint8_t kInit = SCJIT_SHADOW_INIT_BITS;

// What a kind of access needs of each state byte: (state & mask) == expect.
// (Init is value-precise: what is read unwritten goes into the value, and only
// an index list's entries must be written, as they decide what the DMA moves.)
struct Need {
  uint8_t mask, expect;
};
// (The WATCHED bit sends the kernel's accesses to the runtime, which orders
// them against fetch_and_adds: it is no problem here.)
constexpr Need kRead{kWrites | kAdds, 0};
constexpr Need kWrite{kReads | kWrites | kAdds, 0};
// An adding DMA reads what it adds to; other adds may run beside it (they are
// atomic with respect to each other).
constexpr Need kAdd{kReads | kWrites, 0};

// True when some state of [s, s + n) has a bit of `mask` other than `expect`
// has: the common case, none, in one pass the compiler vectorizes (with AVX2
// where the host has it).
SCJIT_AVX2_CLONES bool AnyBad(const uint8_t* s, int64_t n, uint8_t mask,
                                                                uint8_t expect) {
  uint8_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad |= static_cast<uint8_t>((s[i] & mask) ^ expect);
  return bad != 0;
}

// s[i] |= bits over [s, s + n), vectorized like AnyBad; true when every
// state is `all` then.
SCJIT_AVX2_CLONES bool SetBits(uint8_t* s, int64_t n, uint8_t bits, uint8_t all) {
  uint8_t every = 0xff, some = 0;
  for (int64_t i = 0; i < n; ++i) {
    auto v = static_cast<uint8_t>(s[i] | bits);
    s[i] = v;
    every &= v;
    some |= v;
  }
  return every == all && some == all;
}
// s[i] &= ~bits over [s, s + n).
SCJIT_AVX2_CLONES void ClearBits(uint8_t* s, int64_t n, uint8_t bits) {
  auto keep = static_cast<uint8_t>(~bits);
  for (int64_t i = 0; i < n; ++i) s[i] &= keep;
}

// s[i] = (s[i] & INIT) | bits over [s, s + n): a DMA's destination in flight.
SCJIT_AVX2_CLONES void SetDmaBits(uint8_t* s, int64_t n, uint8_t bits) {
  for (int64_t i = 0; i < n; ++i) s[i] = static_cast<uint8_t>((s[i] & kInit) | bits);
}

}  // namespace

LocalAccesses::LocalAccesses(std::vector<std::pair<uint8_t*, uint8_t*>> arenas, int64_t shadow_delta, int semaphores,
                             bool init, bool race)
    : arenas_(std::move(arenas)),
      delta_(shadow_delta),
      init_(init),
      race_(race),
      started_(static_cast<size_t>(semaphores), 0),
      consumed_(static_cast<size_t>(semaphores), 0),
      records_in_flight_(static_cast<size_t>(semaphores)) {
  in_flight_.reserve(8);  // a pipeline's few buffers, without regrowing in every launch
}

bool LocalAccesses::Local(const uint8_t* p, int64_t bytes) const {
  for (const auto& [lo, hi] : arenas_) {
    if (p >= lo && bytes <= hi - lo && p - lo <= (hi - lo) - bytes) return true;
  }
  return false;
}

LocalAccesses::Place LocalAccesses::PlaceOf(const scjit_ref& view, int64_t elem_bytes) const {
  int64_t extent = ExtentBytes(view, static_cast<int>(elem_bytes));
  if (extent <= 0) return Place::kEither;
  if (Local(view.base, extent)) return Place::kLocal;
  const uint8_t* hi = view.base + extent;
  for (const auto& [lo, end] : arenas_) {
    if (view.base < end && lo < hi) return Place::kEither;
  }
  return Place::kElsewhere;
}

std::optional<AccessProblem> LocalAccesses::Find(const uint8_t* lo, const uint8_t* hi, uint8_t mask,
                                                 uint8_t expect) const {
  if (!AnyBad(State(lo), hi - lo, mask, expect)) return std::nullopt;
  for (const uint8_t* p = lo; p < hi; ++p) {
    uint8_t s = *State(p);
    if ((s & mask) == expect) continue;
    AccessProblem problem;
    problem.byte = p;
    if (uint8_t writer = s & mask & (kWrites | kAdds); writer != 0) {
      problem.kind = AccessProblem::Kind::kDmaWrites;
      problem.dma_site = SiteOf(p, writer);
    } else if ((s & mask & kReads) != 0) {
      problem.kind = AccessProblem::Kind::kDmaReads;
      problem.dma_site = SiteOf(p, kReads);
    }
    return problem;
  }
  return std::nullopt;
}

std::optional<AccessProblem> LocalAccesses::FindForDma(const uint8_t* lo, const uint8_t* hi, uint8_t mask,
                                                       uint8_t expect) const {
  constexpr size_t kFewSpans = 64;
  bool dma_bits_only = (mask & kWritten) == 0 && expect == 0;
  if (dma_bits_only && spans_in_flight_ <= kFewSpans && !InFlightMeets(lo, hi, mask)) return std::nullopt;
  return Find(lo, hi, mask, expect);
}

bool LocalAccesses::InFlightMeets(const uint8_t* lo, const uint8_t* hi, uint8_t bits) const {
  auto meets = [&](const absl::InlinedVector<Span, 2>& spans) {
    for (const Span& s : spans) {
      if (s.lo < hi && lo < s.hi) return true;
    }
    return false;
  };
  for (const InFlight& d : in_flight_) {
    if ((bits & kReads) != 0 && meets(d.reads)) return true;
    if ((bits & (d.add ? kAdds : kWrites)) != 0 && meets(d.writes)) return true;
  }
  return false;
}

int LocalAccesses::SiteOf(const uint8_t* p, uint8_t bits) const {
  for (const InFlight& d : in_flight_) {
    if ((bits & kReads) != 0) {
      for (const Span& s : d.reads) {
        if (p >= s.lo && p < s.hi) return d.site;
      }
    }
    if ((bits & (d.add ? kAdds : kWrites)) != 0) {
      for (const Span& s : d.writes) {
        if (p >= s.lo && p < s.hi) return d.site;
      }
    }
  }
  return -1;
}

std::optional<AccessProblem> LocalAccesses::Access(const uint8_t* p, int64_t bytes, bool write) {
  Need need = write ? kWrite : kRead;
  if (std::optional<AccessProblem> problem = Find(p, p + bytes, need.mask, need.expect)) {
    problem->write = write;
    return problem;
  }
  return std::nullopt;
}

void LocalAccesses::MarkUnwritten(const uint8_t* p, int64_t bytes) {
  if (init_) ClearBits(State(p), bytes, kInit);
}

void LocalAccesses::MarkWritten(const uint8_t* p, int64_t bytes) {
  ClearBits(State(p), bytes, SCJIT_SHADOW_COMPUTED);
  SetBits(State(p), bytes, kWritten, kWritten);
}

bool LocalAccesses::AddRows(const scjit_dma& dma, const int32_t* indices, InFlight* d, SharedDma* shared) const {
  if (dma.indexed == SCJIT_DMA_PLAIN || dma.index_count <= 0 || shared == nullptr) return false;
  const scjit_ref& x = IndexedSide(dma);
  const scjit_ref& p = PlainSide(dma);
  int64_t w = dma.elem_bytes;
  if (x.rank < 1 || x.strides[0] < 0) return false;
  // Whole rows, each contiguous; the plain side too, as contiguous as its rows.
  scjit_ref row = x;
  row.rank = x.rank - 1;
  for (int k = 0; k < row.rank; ++k) {
    row.sizes[k] = x.sizes[k + 1];
    row.strides[k] = x.strides[k + 1];
  }
  int64_t row_bytes = ElementCount(row) * w;
  if (row_bytes <= 0 || !dma_walk::Dense(dma_walk::Squeeze(row)) || !dma_walk::Dense(dma_walk::Squeeze(p)) ||
      ElementCount(p) * w != dma.index_count * row_bytes) {
    return false;
  }
  if (PlaceOf(p, w) != Place::kLocal || PlaceOf(x, w) != Place::kElsewhere) return false;
  // Every entry moves a row (else the plain side's row of one skipped is not touched).
  int32_t lo = INT32_MAX, hi = INT32_MIN;
  bool all = true;
  for (int64_t i = 0; i < dma.index_count; ++i) {
    int32_t v = indices[i];
    all &= !(dma.has_ignore && v == dma.ignore) && v >= 0 && v < x.sizes[0];
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  if (!all) return false;
  Span plain{p.base, p.base + ElementCount(p) * w};
  (dma.indexed == SCJIT_DMA_GATHER ? d->writes : d->reads).push_back(plain);
  SharedDma::Rows& rows = shared->rows.emplace();
  rows.base = reinterpret_cast<uintptr_t>(x.base);
  rows.stride = x.strides[0] * w;
  rows.bytes = row_bytes;
  rows.kind = dma.indexed == SCJIT_DMA_GATHER ? SharedDma::kRead : dma.add ? SharedDma::kAdd : SharedDma::kWrite;
  rows.list.assign(indices, indices + dma.index_count);
  rows.lo = rows.base + static_cast<uintptr_t>(lo) * static_cast<uintptr_t>(rows.stride);
  rows.hi = rows.base + static_cast<uintptr_t>(hi) * static_cast<uintptr_t>(rows.stride) + static_cast<uintptr_t>(row_bytes);
  return true;
}

void LocalAccesses::AddSpans(const scjit_dma& dma, const int32_t* indices, Sides sides, InFlight* d,
                             SharedDma* shared) const {
  if (sides == Sides::kBoth && AddRows(dma, indices, d, shared)) return;
  int64_t w = dma.elem_bytes;
  // Calls add(lo, hi) for each contiguous piece of a run of n elements.
  auto pieces = [&](const uint8_t* base, int64_t stride, int64_t n, auto&& add) {
    for (int64_t i = 0; i < n; i = stride == 1 ? n : i + 1) {
      const uint8_t* lo = base + i * stride * w;
      add(lo, stride == 1 ? base + n * w : lo + w);
    }
  };
  // Where each side's runs lie, known for the whole view when its extent is
  // in one memory or in none (a scatter's thousand rows are not looked up
  // one by one).
  Place src_place = PlaceOf(dma.src, w), dst_place = PlaceOf(dma.dst, w);
  uintptr_t last_hi = 0;  // of shared->runs.back() (0: none yet)
  SharedDma::Kind last_kind = SharedDma::kRead;
  auto add = [&](absl::InlinedVector<Span, 2>& spans, Place place, const uint8_t* base, int64_t stride, int64_t n,
                 SharedDma::Kind kind) {
    if (n <= 0 || stride < 0) return;
    if (place == Place::kLocal || (place == Place::kEither && Local(base, ((n - 1) * stride + 1) * w))) {
      pieces(base, stride, n, [&](const uint8_t* lo, const uint8_t* hi) {
        if (!spans.empty() && spans.back().hi == lo) {
          spans.back().hi = const_cast<uint8_t*>(hi);
        } else {
          // (Field by field into the vector: GCC built a Span on the stack
          // and read it back as one 16-byte load, which waits on both stores.)
          Span& s = spans.emplace_back();
          s.lo = const_cast<uint8_t*>(lo);
          s.hi = const_cast<uint8_t*>(hi);
        }
      });
    } else if (shared != nullptr) {
      pieces(base, stride, n, [&](const uint8_t* lo, const uint8_t* hi) {
        auto l = reinterpret_cast<uintptr_t>(lo), h = reinterpret_cast<uintptr_t>(hi);
        auto& runs = shared->runs;
        // (The last run's end and kind are kept here, not read back from the
        // run just stored: a scatter's rows would each wait on that store.)
        if (l == last_hi && kind == last_kind) {
          runs.back().hi = h;
        } else {
          SharedDma::Run& run = runs.emplace_back();
          run.lo = l;
          run.hi = h;
          run.kind = kind;
          last_kind = kind;
        }
        last_hi = h;
      });
    }
  };
  SharedDma::Kind write = dma.add ? SharedDma::kAdd : SharedDma::kWrite;
  if (shared != nullptr && dma.indexed != SCJIT_DMA_PLAIN && src_place != dst_place) {
    shared->runs.reserve(static_cast<size_t>(dma.index_count));
  }
  ForEachRun(dma, indices, [&](uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
    if (sides != Sides::kDestination) add(d->reads, src_place, src, src_stride, n, SharedDma::kRead);
    if (sides != Sides::kSource) add(d->writes, dst_place, dst, dst_stride, n, write);
  });
}

absl::InlinedVector<LocalAccesses::Span, 2> LocalAccesses::ListSpans(const scjit_dma& dma) const {
  absl::InlinedVector<Span, 2> spans;
  if (dma.indexed == SCJIT_DMA_PLAIN || !dma.list_in_vmem || dma.index_count <= 0) return spans;
  auto* list = reinterpret_cast<uint8_t*>(const_cast<int32_t*>(dma.indices));
  if (dma.index_stride == 1 && dma.index_count < (int64_t{1} << 40) && Local(list, dma.index_count * 4)) {
    spans.push_back(Span{list, list + dma.index_count * 4});
    return spans;
  }
  for (int64_t i = 0; i < dma.index_count; ++i) {
    uint8_t* entry = list + i * dma.index_stride * 4;
    if (!Local(entry, 4)) continue;
    if (!spans.empty() && spans.back().hi == entry) {
      spans.back().hi = entry + 4;
    } else {
      spans.push_back(Span{entry, entry + 4});
    }
  }
  return spans;
}

std::optional<AccessProblem> LocalAccesses::UnwrittenList(const scjit_dma& dma) const {
  if (!init_) return std::nullopt;
  for (const Span& s : ListSpans(dma)) {
    for (const uint8_t* p = s.lo; p < s.hi; ++p) {
      if ((*State(p) & kWritten) != 0) continue;
      AccessProblem problem;
      problem.byte = p;
      problem.list = true;
      return problem;
    }
  }
  return std::nullopt;
}

std::optional<AccessProblem> LocalAccesses::StartDma(const scjit_dma& dma, const int32_t* indices, int site, int sem,
                                                     int64_t credit, std::shared_ptr<SharedDma> shared, Sides sides) {
  if (in_flight_.size() + records_in_flight_count_ >= kMaxInFlight) {
    AccessProblem problem;
    problem.kind = AccessProblem::Kind::kTooMany;
    return problem;
  }
  // An index list in VMEM is read now, at the start (UnwrittenList checked
  // its entries hold values before).
  absl::InlinedVector<Span, 2> list = ListSpans(dma);
  for (const Span& s : list) {
    if (std::optional<AccessProblem> problem = Find(s.lo, s.hi, kRead.mask, kRead.expect)) {
      problem->list = true;
      return problem;
    }
  }
  InFlight d;
  d.site = site;
  d.sem = sem;
  d.add = dma.add != 0;
  AddSpans(dma, indices, sides, &d, shared.get());
  if (shared != nullptr && !shared->Accesses()) shared = nullptr;
  // The DMA may read its index list until the wait (runtime.md §4): writing
  // it before then is a race, as writing the source is.
  for (const Span& s : list) {
    if (!d.reads.empty() && d.reads.back().hi == s.lo) {
      d.reads.back().hi = s.hi;
    } else {
      d.reads.push_back(s);
    }
  }
  d.shared = std::move(shared);
  bool tracked = Tracks(sem);
  if (d.reads.empty() && d.writes.empty() && d.shared == nullptr) {
    if (tracked) Fly(std::move(d), credit);  // (counted all the same: waits retire DMAs by their credit)
    return std::nullopt;
  }
  // Bytes go as they are, written or not (InitStates carries their state).
  for (const Span& s : d.reads) {
    if (std::optional<AccessProblem> problem = FindForDma(s.lo, s.hi, kRead.mask, kRead.expect)) return problem;
  }
  Need write = d.add ? kAdd : kWrite;
  for (const Span& s : d.writes) {
    if (std::optional<AccessProblem> problem = FindForDma(s.lo, s.hi, write.mask, write.expect)) {
      problem->write = true;
      return problem;
    }
  }
  if (!tracked) return std::nullopt;  // a synchronous copy: done (its move gives its bytes their states)
  Fly(std::move(d), credit);
  return std::nullopt;
}

void LocalAccesses::Land(const scjit_dma& dma, int sem, int64_t credit, std::shared_ptr<SharedDma> shared) {
  InFlight d;
  d.site = shared != nullptr ? shared->site : -1;
  d.sem = sem;
  AddSpans(dma, nullptr, Sides::kDestination, &d, nullptr);
  if (!Tracks(sem)) return;  // (its move gave its bytes their states)
  d.shared = std::move(shared);
  Fly(std::move(d), credit);
}

bool LocalAccesses::Tracks(int sem) const { return race_ && sem >= 0 && sem < static_cast<int>(started_.size()); }

void LocalAccesses::Fly(InFlight d, int64_t credit) {
  started_[static_cast<size_t>(d.sem)] += credit;
  d.end = started_[static_cast<size_t>(d.sem)];
  if (d.reads.empty() && d.writes.empty()) {  // at most a record to retire: no bits, no scans
    if (d.shared != nullptr) {
      records_in_flight_[static_cast<size_t>(d.sem)].push_back(RecordInFlight{d.end, std::move(d.shared)});
      ++records_in_flight_count_;
    }
    return;
  }
  for (const auto* spans : {&d.reads, &d.writes}) {
    for (const Span& s : *spans) {
      d.bounds.lo = d.bounds.lo == nullptr ? s.lo : std::min(d.bounds.lo, s.lo);
      d.bounds.hi = std::max(d.bounds.hi, s.hi);
    }
  }
  Mark(d);
  spans_in_flight_ += d.reads.size() + d.writes.size();
  in_flight_.push_back(std::move(d));
}

void LocalAccesses::Mark(InFlight& d) {
  bool all_written = true;
  for (const Span& s : d.reads) {
    if (d.reads_written) {
      std::memset(State(s.lo), kWritten | kReads, static_cast<size_t>(s.hi - s.lo));
    } else {
      all_written &= SetBits(State(s.lo), s.hi - s.lo, kReads, kWritten | kReads);
    }
  }
  // Reads of bytes all written (most copies out to HBM) retire with a memset.
  if (all_written) d.reads_written = true;
  // Its destination keeps its init bits: the move sets them (InitStates).
  for (const Span& s : d.writes) SetDmaBits(State(s.lo), s.hi - s.lo, d.add ? kAdds : kWrites);
}

void LocalAccesses::Consume(int sem, int64_t amount, absl::FunctionRef<void(SharedDma&)> retired) {
  if (sem < 0 || sem >= static_cast<int>(consumed_.size())) return;
  int64_t consumed = consumed_[static_cast<size_t>(sem)] += amount;
  for (auto& records = records_in_flight_[static_cast<size_t>(sem)];
       !records.empty() && records.front().end <= consumed;) {
    std::shared_ptr<SharedDma> s = std::move(records.front().shared);
    records.pop_front();
    --records_in_flight_count_;
    retired(*s);
  }
  for (size_t i = 0; i < in_flight_.size();) {
    if (in_flight_[i].sem == sem && in_flight_[i].end <= consumed) {
      if (std::shared_ptr<SharedDma> s = Retire(i)) retired(*s);
    } else {
      ++i;
    }
  }
}

std::shared_ptr<SharedDma> LocalAccesses::Retire(size_t index) {
  InFlight d = std::move(in_flight_[index]);
  in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(index));
  spans_in_flight_ -= d.reads.size() + d.writes.size();
  // Its spans' states were set by Mark, the destination's init bits by its move.
  for (const Span& s : d.writes) ClearBits(State(s.lo), s.hi - s.lo, kWrites | kAdds);
  for (const Span& s : d.reads) {
    if (d.reads_written) {
      std::memset(State(s.lo), kWritten, static_cast<size_t>(s.hi - s.lo));
    } else {
      ClearBits(State(s.lo), s.hi - s.lo, kReads);
    }
  }
  // DMAs still in flight over the same bytes keep their bits.
  for (InFlight& other : in_flight_) {
    if (other.bounds.lo < d.bounds.hi && d.bounds.lo < other.bounds.hi) Mark(other);
  }
  return std::move(d.shared);
}

}  // namespace scjit
