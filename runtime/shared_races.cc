#include "runtime/shared_races.h"

#include <algorithm>

#include "runtime/avx2_clones.h"

namespace scjit {

namespace {

// x[i] = max(x[i], y[i]) for i < n: through raw pointers, which the compiler
// vectorizes (an InlinedVector's operator[] asks where its data is each time).
SCJIT_AVX2_CLONES void MaxInto(uint32_t* __restrict x, const uint32_t* __restrict y, size_t n) {
  for (size_t i = 0; i < n; ++i) x[i] = std::max(x[i], y[i]);
}

}  // namespace

void Join(Clock& a, const Clock& b) {
  if (&a == &b) return;
  if (a.size() < b.size()) a.resize(b.size(), 0);
  MaxInto(a.data(), b.data(), b.size());
}

bool SharedDma::Span(uintptr_t* lo, uintptr_t* hi, uint8_t* kinds) const {
  if (!Accesses()) return false;
  *lo = rows ? rows->lo : runs[0].lo;
  *hi = rows ? rows->hi : runs[0].hi;
  *kinds = rows ? rows->kind : 0;
  for (const Run& run : runs) {
    *lo = std::min(*lo, run.lo);
    *hi = std::max(*hi, run.hi);
    *kinds |= run.kind;
  }
  return true;
}

void SharedDma::ExpandRows() {
  if (!rows) return;
  runs.reserve(runs.size() + rows->list.size());
  for (int32_t v : rows->list) {
    uintptr_t lo = rows->base + static_cast<uintptr_t>(v) * static_cast<uintptr_t>(rows->stride);
    uintptr_t hi = lo + static_cast<uintptr_t>(rows->bytes);
    if (!runs.empty() && runs.back().hi == lo && runs.back().kind == rows->kind) {
      runs.back().hi = hi;
    } else {
      runs.push_back(Run{lo, hi, rows->kind});
    }
  }
  rows.reset();
}

namespace {

// a[i] = min(a[i], b[i]) over n entries (Forget's floors: a clock entry per
// subcore, per region, after every barrier).
SCJIT_AVX2_CLONES void MinInto(uint32_t* a, const uint32_t* b, size_t n) {
  for (size_t i = 0; i < n; ++i) a[i] = std::min(a[i], b[i]);
}

// `a` ended before `b` started: b's subcore had seen the wait that retired a.
bool Before(const SharedDma& a, const SharedDma& b) { return a.EndedFor(b.start); }

// True when whoever is ordered after `d`'s end, however it ends, is ordered
// after `e`'s: both are of one subcore, `e` has ended, and each way `d` may
// end (its sender's wait; a remote copy's receiver's) comes after the same
// way of `e` (a wait not yet made comes later). Without this, the records of
// an exchange between two chips, each copy waited, would pile up until every
// chip of the launch synchronised.
bool EndsBefore(const SharedDma& e, const SharedDma& d) {
  if (e.subcore != d.subcore || e.end == 0 || (d.end != 0 && d.end < e.end)) return false;
  if (!d.remote) return true;
  return e.remote && e.recv_subcore == d.recv_subcore && e.recv_end != 0 &&
         (d.recv_end == 0 || d.recv_end >= e.recv_end);
}

bool Overlaps(const absl::InlinedVector<std::pair<uintptr_t, uintptr_t>, 1>& runs, uintptr_t lo, uintptr_t hi) {
  for (const auto& [a, b] : runs) {
    if (a < hi && lo < b) return true;
  }
  return false;
}

// True when `d` covers `e` wholly: the same runs (rows expanded or not),
// and `e` ends before `d` (EndsBefore).
bool Covers(const SharedDma& d, const SharedDma& e) {
  if (!EndsBefore(e, d) || e.runs.size() != d.runs.size() || e.rows.has_value() != d.rows.has_value()) return false;
  for (size_t k = 0; k < e.runs.size(); ++k) {
    if (e.runs[k].lo != d.runs[k].lo || e.runs[k].hi != d.runs[k].hi || e.runs[k].kind != d.runs[k].kind) return false;
  }
  if (!e.rows) return true;
  const SharedDma::Rows& a = *e.rows;
  const SharedDma::Rows& b = *d.rows;
  return a.base == b.base && a.stride == b.stride && a.bytes == b.bytes && a.kind == b.kind && a.list == b.list;
}

}  // namespace

void SharedAccesses::Cover(uintptr_t lo, uintptr_t hi) {
  // Split the segment holding `p` at p, if it starts before it.
  auto split = [&](uintptr_t p) {
    auto it = segments_.upper_bound(p);
    if (it == segments_.begin()) return;
    --it;
    if (it->first < p && p < it->second.hi) {
      Segment tail{it->second.hi, it->second.entries};
      it->second.hi = p;
      segments_.emplace(p, std::move(tail));
    }
  };
  split(lo);
  split(hi);
  cover_.clear();
  uintptr_t at = lo;
  auto it = segments_.lower_bound(lo);
  while (at < hi) {
    if (it == segments_.end() || it->first > at) {  // a gap: a new, empty segment
      uintptr_t end = it == segments_.end() ? hi : std::min(hi, it->first);
      it = segments_.emplace_hint(it, at, Segment{end, {}});
    }
    cover_.push_back(it);
    at = it->second.hi;
    ++it;
  }
}

void SharedAccesses::AddRegion(uintptr_t lo, uintptr_t hi, int first, int count) {
  if (lo == 0 || lo >= hi) return;
  // Buffers that overlap (one array passed twice) make one region.
  int end = first + count;
  std::erase_if(regions_, [&](const Region& r) {
    if (r.hi <= lo || hi <= r.lo) return false;
    lo = std::min(lo, r.lo);
    hi = std::max(hi, r.hi);
    first = std::min(first, r.first);
    end = std::max(end, r.first + r.count);
    return true;
  });
  Region r;
  r.lo = lo;
  r.hi = hi;
  r.first = first;
  r.count = end - first;
  regions_.insert(std::upper_bound(regions_.begin(), regions_.end(), lo,
                                   [](uintptr_t p, const Region& x) { return p < x.lo; }),
                  std::move(r));
}

SharedAccesses::Region* SharedAccesses::RegionOf(uintptr_t p) {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), p,
                             [](uintptr_t q, const Region& x) { return q < x.lo; });
  if (it == regions_.begin()) return nullptr;
  --it;
  return p < it->hi ? &*it : nullptr;
}

bool SharedAccesses::CannotRace(const Region& r, uint8_t kinds, uintptr_t lo, uintptr_t hi) {
  if (r.held.empty()) return true;
  // (Not "one subcore only": a subcore's own DMAs in flight race each other.)
  kinds |= r.kinds;
  return kinds == SharedDma::kRead || kinds == SharedDma::kAdd || hi <= r.held_lo || lo >= r.held_hi;
}

void SharedAccesses::Hold(Region& r, const std::shared_ptr<SharedDma>& dma, uint8_t kinds, uintptr_t lo,
                          uintptr_t hi) {
  if (r.held.empty()) {
    r.kinds = 0;
    r.held_lo = lo;
    r.held_hi = hi;
  }
  r.kinds |= kinds;
  r.held_lo = std::min(r.held_lo, lo);
  r.held_hi = std::max(r.held_hi, hi);
  if (!r.held.empty() && r.held.back() == dma) return;
  // The same subcore's last held access, ended before this one and moving the
  // same runs, is covered by it (as in Map): a loop reading one table slice
  // round after round, on chips that never synchronise with the rest (whose
  // holds Forget cannot drop), keeps one record, not one per round.
  if (!r.held.empty() && Covers(*dma, *r.held.back())) r.held.pop_back();
  r.held.push_back(dma);
}

bool SharedAccesses::HoldWhole(const std::shared_ptr<SharedDma>& dma) {
  uintptr_t lo = 0, hi = 0;
  uint8_t kinds = 0;
  if (!dma->Span(&lo, &hi, &kinds)) return false;
  Region* r = RegionOf(lo);
  if (r == nullptr || hi > r->hi || r->mapped) return false;
  // (A DMA's own runs do not race each other.)
  if (!CannotRace(*r, kinds, lo, hi)) return false;
  Hold(*r, dma, kinds, lo, hi);
  return true;
}

void SharedAccesses::Add(const std::shared_ptr<SharedDma>& dma, std::vector<SharedRace>* races) {
  if (HoldWhole(dma)) return;
  dma->ExpandRows();
  Region* last = nullptr;  // a DMA's runs mostly fall in one region
  for (size_t k = 0; k < dma->runs.size(); ++k) {
    const SharedDma::Run& run = dma->runs[k];
    Region* r = last != nullptr && run.lo >= last->lo && run.lo < last->hi ? last : RegionOf(run.lo);
    last = r;
    if (r == nullptr || run.hi > r->hi || r->mapped) {
      Map(dma, run, races);
    } else if (CannotRace(*r, run.kind, run.lo, run.hi)) {
      Hold(*r, dma, run.kind, run.lo, run.hi);
    } else {
      MapRegion(*r, dma, k, races);
      Map(dma, run, races);
    }
  }
}

void SharedAccesses::MapRegion(Region& r, const std::shared_ptr<SharedDma>& dma, size_t upto,
                               std::vector<SharedRace>* races) {
  r.mapped = true;
  for (const std::shared_ptr<SharedDma>& held : r.held) {
    held->ExpandRows();
    size_t n = held == dma ? upto : held->runs.size();
    for (size_t k = 0; k < n; ++k) {
      const SharedDma::Run& run = held->runs[k];
      if (run.lo >= r.lo && run.hi <= r.hi) Map(held, run, races);
    }
  }
  r.held.clear();
}

void SharedAccesses::Map(const std::shared_ptr<SharedDma>& dma, const SharedDma::Run& run,
                         std::vector<SharedRace>* races) {
  {
    Cover(run.lo, run.hi);
    for (auto it : cover_) {
      auto& entries = it->second.entries;
      // One pair waiting on its bytes (Pending) per subcore and kind of the
      // other access, the earliest started (Waiting): DMAs piled up in flight
      // on the same bytes make pairs linear in their number, not quadratic.
      for (const Entry& e : entries) {
        if (dma->reported) break;
        if (e.dma == dma) continue;
        bool conflict = (e.kind | run.kind) != SharedDma::kRead && !(e.kind == SharedDma::kAdd && run.kind == SharedDma::kAdd);
        if (!conflict) continue;
        bool plain = (e.kind | run.kind) == (SharedDma::kRead | SharedDma::kWrite) ||
                     (e.kind == SharedDma::kWrite && run.kind == SharedDma::kWrite);
        if (plain && Waiting(e.dma->subcore, e.kind)) continue;
        if (Before(*e.dma, *dma) || e.dma->reported) continue;
        SharedRace race{e.dma, dma, it->first, e.kind, run.kind};
        if (plain) {  // decided by the bytes, once they have moved
          Pending p{race, it->first, it->second.hi, {}};
          if (e.kind == SharedDma::kRead) p.witnesses = Witnesses(entries, *e.dma, *dma);
          if (run.kind == SharedDma::kRead) p.witnesses = Witnesses(entries, *dma, *e.dma);
          bool unwitnessed = e.kind != run.kind && p.witnesses.empty();
          if (!unwitnessed) {
            pending_.push_back(std::move(p));
            Wait(e.dma->subcore, e.kind);
            continue;
          }
        }
        dma->reported = true;
        races->push_back(std::move(race));
      }
      ClearWaiting();
      // An earlier access of the same subcore that this one covers (same bytes,
      // at least as strong, ended first) can no longer race alone: whoever is
      // unordered with it is unordered with this one.
      auto covered = [&](const Entry& e) {
        bool covers = e.kind == run.kind || (run.kind == SharedDma::kWrite && e.kind == SharedDma::kRead);
        return covers && EndsBefore(*e.dma, *dma);
      };
      entries.erase(std::remove_if(entries.begin(), entries.end(), covered), entries.end());
      entries.push_back(Entry{dma, run.kind});
    }
  }
}

bool SharedAccesses::Waiting(int subcore, SharedDma::Kind kind) const {
  auto i = static_cast<size_t>(subcore);
  return i < waiting_.size() && (waiting_[i] & kind) != 0;
}

void SharedAccesses::Wait(int subcore, SharedDma::Kind kind) {
  auto i = static_cast<size_t>(subcore);
  if (i >= waiting_.size()) waiting_.resize(i + 1, 0);
  if (waiting_[i] == 0) waiting_subcores_.push_back(subcore);
  waiting_[i] |= kind;
}

void SharedAccesses::ClearWaiting() {
  for (int i : waiting_subcores_) waiting_[static_cast<size_t>(i)] = 0;
  waiting_subcores_.clear();
}

std::vector<std::shared_ptr<SharedDma>> SharedAccesses::Witnesses(const absl::InlinedVector<Entry, 2>& entries,
                                                                  const SharedDma& reader, const SharedDma& write) {
  std::vector<std::shared_ptr<SharedDma>> before;
  for (const Entry& e : entries) {
    if (e.kind == SharedDma::kWrite && e.dma.get() != &write && e.dma.get() != &reader && Before(*e.dma, reader)) {
      before.push_back(e.dma);
    }
  }
  // Only the latest count: what an earlier one wrote, they overwrote.
  std::erase_if(before, [&](const std::shared_ptr<SharedDma>& a) {
    return std::any_of(before.begin(), before.end(), [&](const auto& b) { return a != b && Before(*a, *b); });
  });
  return before;
}

bool SharedAccesses::Differ(const SharedDma& a, const SharedDma& b, uintptr_t lo, uintptr_t hi) {
  return Overlaps((a.moved_at > b.moved_at ? a : b).changed, lo, hi);
}

bool SharedAccesses::Ready(const Pending& p) {
  const SharedRace& r = p.race;
  const SharedDma& write = r.earlier_kind == SharedDma::kWrite ? *r.earlier : *r.later;
  if (!write.moved) return false;
  if (r.earlier_kind == SharedDma::kWrite && r.later_kind == SharedDma::kWrite) return r.earlier->moved && r.later->moved;
  return std::all_of(p.witnesses.begin(), p.witnesses.end(), [](const auto& w) { return w->moved; });
}

bool SharedAccesses::IsRace(const Pending& p) {
  const SharedRace& r = p.race;
  if (r.earlier_kind == SharedDma::kWrite && r.later_kind == SharedDma::kWrite) {
    return Differ(*r.earlier, *r.later, p.lo, p.hi);
  }
  const SharedDma& write = r.earlier_kind == SharedDma::kWrite ? *r.earlier : *r.later;
  return std::any_of(p.witnesses.begin(), p.witnesses.end(),
                     [&](const auto& w) { return Differ(write, *w, p.lo, p.hi); });
}

void SharedAccesses::Resolve(std::vector<SharedRace>* races) {
  std::erase_if(pending_, [&](Pending& p) {
    if (!Ready(p)) return false;
    if (!p.race.later->reported && IsRace(p)) {
      p.race.later->reported = true;
      races->push_back(p.race);
    }
    return true;
  });
}

void SharedAccesses::Forget(const std::vector<std::span<const uint32_t>>& bounds) {
  if (segments_.empty() && std::all_of(regions_.begin(), regions_.end(), [](const Region& r) { return r.held.empty(); })) {
    return;  // nothing to forget
  }
  // The least clock of the subcores that reach region i (i ==
  // regions_.size(): all of them) and may still act, in its entries of those
  // subcores (the only ones its accesses are of; the others are 0), or empty
  // when none may. Made when first needed: most regions hold nothing.
  size_t n = bounds.size();
  floors_.resize(regions_.size() + 1);
  floor_known_.assign(regions_.size() + 1, false);
  auto floor = [&](size_t i) -> const Clock& {
    Clock& f = floors_[i];
    if (floor_known_[i]) return f;
    floor_known_[i] = true;
    size_t first = i < regions_.size() ? static_cast<size_t>(regions_[i].first) : 0;
    size_t end = std::min(n, i < regions_.size() ? first + static_cast<size_t>(regions_[i].count) : n);
    f.clear();
    for (size_t j = first; j < end; ++j) {
      std::span<const uint32_t> c = bounds[j];
      if (c.empty()) continue;
      if (c.size() < end) {  // (not a whole clock: nothing is forgotten)
        f.assign(n, 0);
        break;
      }
      if (f.empty()) {
        f.assign(n, 0);
        std::copy(c.begin() + static_cast<std::ptrdiff_t>(first), c.begin() + static_cast<std::ptrdiff_t>(end),
                  f.begin() + static_cast<std::ptrdiff_t>(first));
      } else {
        MinInto(f.data() + first, c.data() + first, end - first);
      }
    }
    return f;
  };
  // An access nobody is unordered with any more; with no floor, nobody may act.
  auto forgotten = [&](const SharedDma& d, size_t region) {
    if (d.end == 0 && d.recv_end == 0) return false;
    const Clock& f = floor(region);
    return f.empty() || d.EndedFor(f);
  };
  for (size_t i = 0; i < regions_.size(); ++i) {
    Region& r = regions_[i];
    if (!r.held.empty()) {
      std::erase_if(r.held, [&](const std::shared_ptr<SharedDma>& d) { return forgotten(*d, i); });
    }
    if (r.held.empty()) r.kinds = 0;
  }
  for (auto it = segments_.begin(); it != segments_.end();) {
    Region* r = RegionOf(it->first);
    size_t region = r != nullptr ? static_cast<size_t>(r - regions_.data()) : regions_.size();
    auto& entries = it->second.entries;
    entries.erase(std::remove_if(entries.begin(), entries.end(), [&](const Entry& e) { return forgotten(*e.dma, region); }),
                  entries.end());
    it = entries.empty() ? segments_.erase(it) : std::next(it);
  }
  // A mapped region with nothing left in the map holds its accesses again.
  for (Region& r : regions_) {
    if (!r.mapped) continue;
    auto it = segments_.lower_bound(r.lo);
    bool empty = it == segments_.end() || it->first >= r.hi;
    if (empty && it != segments_.begin()) empty = std::prev(it)->second.hi <= r.lo;
    if (empty && r.held.empty()) r.mapped = false;
  }
}

}  // namespace scjit
