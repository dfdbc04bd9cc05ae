#include "runtime/shared_writes.h"

#include <algorithm>

namespace scjit {

void SharedWrites::AddRegion(uint8_t* base, int64_t bytes) {
  if (base == nullptr || bytes <= 0) return;
  int64_t stripe = std::max(kMinStripeBytes, (bytes + kMaxStripes - 1) / kMaxStripes);
  int64_t stripes = (bytes + stripe - 1) / stripe;
  regions_.push_back(Region{base, bytes, stripe, stripes, std::make_unique<std::mutex[]>(static_cast<size_t>(stripes))});
}

SharedWrites::Guard SharedWrites::Lock(const uint8_t* lo, const uint8_t* hi) {
  Guard g;
  if (hi <= lo) return g;
  for (Region& r : regions_) {
    if (lo < r.base || lo >= r.base + r.bytes) continue;
    int64_t first = (lo - r.base) / r.stripe_bytes;
    int64_t last = std::min(r.stripes - 1, (hi - 1 - r.base) / r.stripe_bytes);
    for (int64_t i = first; i <= last; ++i) r.locks[i].lock();
    g.first_ = &r.locks[first];
    g.last_ = &r.locks[last];
    return g;
  }
  return g;
}

SharedWrites::Guard::Guard(Guard&& other) noexcept : first_(other.first_), last_(other.last_) {
  other.first_ = other.last_ = nullptr;
}

SharedWrites::Guard::~Guard() {
  if (first_ == nullptr) return;
  for (std::mutex* m = last_; m >= first_; --m) m->unlock();
}

}  // namespace scjit
