#include "runtime/shared_init.h"

#include <algorithm>
#include <cstring>
#include <new>

#include "runtime/dma_engine.h"

namespace scjit {

void SharedInit::AddRegion(const uint8_t* lo, int64_t bytes, uint8_t* state) {
  if (lo == nullptr || bytes <= 0) return;
  Region r{lo, lo + bytes, state};
  regions_.insert(std::upper_bound(regions_.begin(), regions_.end(), lo,
                                   [](const uint8_t* p, const Region& x) { return p < x.lo; }),
                  r);
}

bool SharedInit::AddUnwrittenRegion(const uint8_t* lo, int64_t bytes) {
  if (lo == nullptr || bytes <= 0) return true;
  std::unique_ptr<uint8_t[]> state(new (std::nothrow) uint8_t[static_cast<size_t>(bytes)]);
  if (state == nullptr) return false;
  std::memset(state.get(), 0, static_cast<size_t>(bytes));
  AddRegion(lo, bytes, state.get());
  owned_.push_back(std::move(state));
  return true;
}

const SharedInit::Region* SharedInit::RegionOf(const uint8_t* p) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), p,
                             [](const uint8_t* q, const Region& x) { return q < x.lo; });
  if (it == regions_.begin()) return nullptr;
  --it;
  return p < it->hi ? &*it : nullptr;
}

const uint8_t* SharedInit::FirstUnwritten(const uint8_t* p, int64_t bytes) const {
  const Region* r = RegionOf(p);
  if (r == nullptr) return nullptr;
  const uint8_t* end = std::min(p + bytes, r->hi);
  const uint8_t* s = r->state + (p - r->lo);
  // The common case, every byte written, in one pass the compiler vectorizes.
  uint8_t all = SCJIT_SHADOW_WRITTEN;
  for (int64_t i = 0; i < end - p; ++i) all &= s[i];
  if (all != 0) return nullptr;
  for (int64_t i = 0; i < end - p; ++i) {
    if ((s[i] & SCJIT_SHADOW_WRITTEN) == 0) return p + i;
  }
  return nullptr;
}

const uint8_t* SharedInit::FirstUnwrittenRead(const scjit_dma& dma, const int32_t* indices,
                                              bool* destination) const {
  const uint8_t* first = nullptr;
  if (regions_.empty()) return first;
  int64_t w = dma.elem_bytes;
  auto check = [&](const uint8_t* base, int64_t stride, int64_t n) {
    if (first != nullptr || n <= 0) return;
    if (stride == 1) {
      first = FirstUnwritten(base, n * w);
      return;
    }
    for (int64_t i = 0; i < n && first == nullptr; ++i) first = FirstUnwritten(base + i * stride * w, w);
  };
  ForEachRun(dma, indices, [&](uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
    check(src, src_stride, n);
    if (first != nullptr || !dma.add) return;
    check(dst, dst_stride, n);
    *destination = first != nullptr;
  });
  return first;
}

void SharedInit::MarkWritten(const scjit_dma& dma, const int32_t* indices) {
  if (regions_.empty()) return;
  int64_t w = dma.elem_bytes;
  auto mark = [&](const uint8_t* p, int64_t bytes) {
    const Region* r = RegionOf(p);
    if (r == nullptr) return;
    uint8_t* s = r->state + (p - r->lo);
    int64_t n = std::min<int64_t>(bytes, r->hi - p);
    for (int64_t i = 0; i < n; ++i) s[i] |= SCJIT_SHADOW_WRITTEN;
  };
  ForEachRun(dma, indices, [&](uint8_t* dst, int64_t dst_stride, const uint8_t*, int64_t, int64_t n) {
    if (n <= 0) return;
    if (dst_stride == 1) {
      mark(dst, n * w);
      return;
    }
    for (int64_t i = 0; i < n; ++i) mark(dst + i * dst_stride * w, w);
  });
}

}  // namespace scjit
