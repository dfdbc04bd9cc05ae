#include "runtime/shared_races.h"

#include <algorithm>

namespace scjit {

void Join(Clock& a, const Clock& b) {
  if (a.size() < b.size()) a.resize(b.size(), 0);
  for (size_t i = 0; i < b.size(); ++i) a[i] = std::max(a[i], b[i]);
}

namespace {

// `a` ended before `b` started: b's subcore had seen the wait that retired a.
bool Before(const SharedDma& a, const SharedDma& b) {
  return a.end != 0 && static_cast<size_t>(a.subcore) < b.start.size() && b.start[a.subcore] >= a.end;
}

bool Overlaps(const std::vector<std::pair<uintptr_t, uintptr_t>>& runs, uintptr_t lo, uintptr_t hi) {
  for (const auto& [a, b] : runs) {
    if (a < hi && lo < b) return true;
  }
  return false;
}

}  // namespace

std::vector<std::map<uintptr_t, SharedAccesses::Segment>::iterator> SharedAccesses::Cover(uintptr_t lo,
                                                                                          uintptr_t hi) {
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
  std::vector<std::map<uintptr_t, Segment>::iterator> out;
  uintptr_t at = lo;
  auto it = segments_.lower_bound(lo);
  while (at < hi) {
    if (it == segments_.end() || it->first > at) {  // a gap: a new, empty segment
      uintptr_t end = it == segments_.end() ? hi : std::min(hi, it->first);
      it = segments_.emplace_hint(it, at, Segment{end, {}});
    }
    out.push_back(it);
    at = it->second.hi;
    ++it;
  }
  return out;
}

void SharedAccesses::Add(const std::shared_ptr<SharedDma>& dma, std::vector<SharedRace>* races) {
  for (const SharedDma::Run& run : dma->runs) {
    for (auto it : Cover(run.lo, run.hi)) {
      std::vector<Entry>& entries = it->second.entries;
      for (const Entry& e : entries) {
        if (e.dma == dma || dma->reported || e.dma->reported) continue;
        bool conflict = (e.kind | run.kind) != SharedDma::kRead && !(e.kind == SharedDma::kAdd && run.kind == SharedDma::kAdd);
        if (!conflict || Before(*e.dma, *dma)) continue;
        SharedRace race{e.dma, dma, it->first, e.kind, run.kind};
        if (e.kind == SharedDma::kWrite && run.kind == SharedDma::kWrite) {
          pending_.push_back(Pending{race, it->first, it->second.hi});  // identical bytes are no race
        } else {
          dma->reported = true;
          races->push_back(std::move(race));
        }
      }
      // An earlier access of the same subcore that this one covers (same bytes,
      // at least as strong) can no longer race alone: whoever is unordered
      // with it is unordered with this one.
      std::erase_if(entries, [&](const Entry& e) {
        bool covers = e.kind == run.kind || (run.kind == SharedDma::kWrite && e.kind == SharedDma::kRead);
        return covers && e.dma->subcore == dma->subcore && e.dma->end != 0;
      });
      entries.push_back(Entry{dma, run.kind});
    }
  }
}

void SharedAccesses::Resolve(std::vector<SharedRace>* races) {
  std::erase_if(pending_, [&](Pending& p) {
    SharedDma& a = *p.race.earlier;
    SharedDma& b = *p.race.later;
    if (!a.moved || !b.moved) return false;
    if (!b.reported && Overlaps(a.changed, p.lo, p.hi) && Overlaps(b.changed, p.lo, p.hi)) {
      b.reported = true;
      races->push_back(p.race);
    }
    return true;
  });
}

void SharedAccesses::Forget(const Clock& floor) {
  auto done = [&](const Entry& e) {
    const SharedDma& d = *e.dma;
    return d.end != 0 && static_cast<size_t>(d.subcore) < floor.size() && floor[d.subcore] >= d.end;
  };
  for (auto it = segments_.begin(); it != segments_.end();) {
    std::erase_if(it->second.entries, done);
    it = it->second.entries.empty() ? segments_.erase(it) : std::next(it);
  }
}

}  // namespace scjit
