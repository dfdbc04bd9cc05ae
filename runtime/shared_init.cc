#include "runtime/shared_init.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <new>

#include "runtime/dma_walk.h"

namespace scjit {

bool SharedInit::AddRegion(const uint8_t* lo, int64_t bytes, const uint8_t* state) {
  if (lo == nullptr || bytes <= 0) return true;
  size_t words = static_cast<size_t>((bytes + 63) / 64);
  Region r{lo, lo + bytes, std::unique_ptr<uint64_t[]>(new (std::nothrow) uint64_t[words]),
           std::make_unique<std::atomic<int64_t>>(bytes)};
  if (r.written == nullptr) return false;
  std::memset(r.written.get(), 0, words * 8);
  for (int64_t i = 0; state != nullptr && i < bytes;) {  // each run of written bytes
    while (i < bytes && (state[i] & SCJIT_SHADOW_WRITTEN) == 0) ++i;
    int64_t first = i;
    while (i < bytes && (state[i] & SCJIT_SHADOW_WRITTEN) != 0) ++i;
    if (i > first) Set(r, first, i - first);
  }
  if (r.unwritten->load(std::memory_order_relaxed) != 0) regions_unwritten_.fetch_add(1, std::memory_order_relaxed);
  auto at = std::upper_bound(regions_.begin(), regions_.end(), lo,
                             [](const uint8_t* p, const Region& x) { return p < x.lo; });
  regions_.insert(at, std::move(r));
  return true;
}

bool SharedInit::Set(const Region& r, int64_t first, int64_t count) {
  uint64_t* bits = r.written.get();
  // A word this run covers in part may hold bits of bytes in another stripe of
  // SharedWrites, which another thread may be writing: set them atomically.
  int64_t made = 0;  // bits set here that were clear
  auto part = [&](int64_t from, int64_t to) {  // within one word
    if (from >= to) return;
    uint64_t mask = (to - from == 64 ? ~uint64_t{0} : ((uint64_t{1} << (to - from)) - 1)) << (from % 64);
    uint64_t was = std::atomic_ref<uint64_t>(bits[from / 64]).fetch_or(mask, std::memory_order_relaxed);
    made += std::popcount(mask & ~was);
  };
  int64_t end = first + count;
  int64_t head_end = std::min(end, (first + 63) / 64 * 64);
  part(first, head_end);
  // Whole words lie in the run's own stripes: plain stores. Most runs are
  // first writes (every word 0): one vectorized test, then a memset.
  first = head_end;
  uint64_t* words = bits + first / 64;
  int64_t whole = (end - first) / 64;
  uint64_t any = 0;
  for (int64_t i = 0; i < whole; ++i) any |= words[i];
  if (any == 0) {
    made += whole * 64;
    std::memset(words, 0xff, static_cast<size_t>(whole) * 8);
  } else {
    for (int64_t i = 0; i < whole; ++i) {
      // (Without a popcount of a word untouched or done: the host's may be a call.)
      if (words[i] != ~uint64_t{0}) made += words[i] == 0 ? 64 : 64 - std::popcount(words[i]);
      words[i] = ~uint64_t{0};
    }
  }
  first += whole * 64;
  part(first, end);
  // (Decreased only after the bits are set: who reads 0 needs no bit.)
  // (One call sees the count reach 0: the bits each sets are its own.)
  return made != 0 && r.unwritten->fetch_sub(made, std::memory_order_relaxed) == made;
}

const SharedInit::Region* SharedInit::RegionOf(const uint8_t* p) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), p,
                             [](const uint8_t* q, const Region& x) { return q < x.lo; });
  if (it == regions_.begin()) return nullptr;
  --it;
  return p < it->hi ? &*it : nullptr;
}

const uint8_t* SharedInit::FirstUnwritten(const Region& r, const uint8_t* p, int64_t bytes) {
  int64_t first = p - r.lo, end = std::min<int64_t>(first + bytes, r.hi - r.lo);
  uint64_t* bits = r.written.get();
  auto word = [&](int64_t i) { return std::atomic_ref<uint64_t>(bits[i / 64]).load(std::memory_order_relaxed); };
  for (int64_t i = first; i < end;) {
    uint64_t w = word(i) >> (i % 64);
    int64_t n = std::min<int64_t>(64 - i % 64, end - i);  // bits of this word in the range
    int64_t ones = std::countr_one(w);
    if (ones < n) return p + (i - first) + ones;
    i += n;
  }
  return nullptr;
}

bool SharedInit::NoneWritten(const uint8_t* p, int64_t bytes) const {
  if (AllWritten()) return false;
  const Region* r = RegionOf(p);
  if (r == nullptr || bytes <= 0 || bytes > r->hi - p) return false;
  int64_t first = p - r->lo, end = first + bytes;
  uint64_t* bits = r->written.get();
  // A word may hold bits of bytes another thread writes (an array need not be
  // aligned to the stripes of SharedWrites): loaded atomically, the whole
  // words of the range without a mask each.
  auto word = [&](int64_t w) { return std::atomic_ref<uint64_t>(bits[w]).load(std::memory_order_relaxed); };
  auto part = [&](int64_t from, int64_t to) {  // within one word
    if (from >= to) return uint64_t{0};
    uint64_t mask = (to - from == 64 ? ~uint64_t{0} : ((uint64_t{1} << (to - from)) - 1)) << (from % 64);
    return word(from / 64) & mask;
  };
  int64_t head_end = std::min(end, (first + 63) / 64 * 64);
  int64_t tail_start = std::max(head_end, end / 64 * 64);
  uint64_t any = part(first, head_end) | part(tail_start, end);
  for (int64_t w = head_end / 64; w < tail_start / 64; ++w) any |= word(w);
  return any == 0;
}

bool SharedInit::MayHoldUnwritten(const scjit_ref& r, int64_t elem_bytes) const {
  if (regions_.empty()) return false;
  int64_t extent = ExtentBytes(r, static_cast<int>(elem_bytes));
  if (extent < 0) return true;  // (not a valid view: let the walk decide)
  const uint8_t* lo = r.base;
  const uint8_t* hi = lo + extent;
  // The first region ending after lo is the only one that may start before hi.
  auto it = std::upper_bound(regions_.begin(), regions_.end(), lo,
                             [](const uint8_t* p, const Region& x) { return p < x.hi; });
  if (it == regions_.end() || it->lo >= hi) return false;
  bool within = it->lo <= lo && hi <= it->hi;
  return !within || it->unwritten->load(std::memory_order_relaxed) != 0;
}

const uint8_t* SharedInit::FirstUnwrittenRead(const scjit_dma& dma, const int32_t* indices,
                                              bool* destination) const {
  const uint8_t* first = nullptr;
  if (AllWritten()) return first;
  // Most DMAs read no region (an input array, a subcore's own VMEM): no walk;
  // nor a side of one that meets none (a scatter-add's source rows).
  bool src = MayHoldUnwritten(dma.src, dma.elem_bytes);
  bool dst = dma.add && MayHoldUnwritten(dma.dst, dma.elem_bytes);
  if (!src && !dst) return first;
  int64_t w = dma.elem_bytes;
  const Region* last = nullptr;
  auto unwritten = [&](const uint8_t* p, int64_t bytes) -> const uint8_t* {
    const Region* r = RegionOf(p, last);
    if (r == nullptr) return nullptr;
    last = r;
    return FirstUnwritten(*r, p, bytes);
  };
  auto check = [&](const uint8_t* base, int64_t stride, int64_t n) {
    if (first != nullptr || n <= 0) return;
    if (stride == 1) {
      first = unwritten(base, n * w);
      return;
    }
    for (int64_t i = 0; i < n && first == nullptr; ++i) first = unwritten(base + i * stride * w, w);
  };
  ForEachRun(dma, indices, [&](uint8_t* dst_base, int64_t dst_stride, const uint8_t* src_base, int64_t src_stride,
                               int64_t n) {
    if (src) check(src_base, src_stride, n);
    if (first != nullptr || !dst) return;
    check(dst_base, dst_stride, n);
    *destination = first != nullptr;
  });
  return first;
}

void SharedInit::RunMarker::Mark(const uint8_t* dst, int64_t stride, int64_t n, int64_t w) {
  if (init_->AllWritten() || n <= 0) return;
  if (stride == 1) {
    MarkBytes(dst, n * w);
    return;
  }
  for (int64_t i = 0; i < n; ++i) MarkBytes(dst + i * stride * w, w);
}

void SharedInit::RunMarker::MarkBytes(const uint8_t* p, int64_t bytes) {
  const Region* r = init_->RegionOf(p, last_);
  if (r == nullptr) return;
  last_ = r;
  if (r->unwritten->load(std::memory_order_relaxed) == 0) return;  // nothing left to mark
  if (Set(*r, p - r->lo, std::min<int64_t>(bytes, r->hi - p))) {
    init_->regions_unwritten_.fetch_sub(1, std::memory_order_relaxed);
  }
}

}  // namespace scjit
