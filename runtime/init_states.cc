#include "runtime/init_states.h"

#include <cstring>

#include "scjit/types.h"

#include "absl/container/inlined_vector.h"
#include "runtime/avx2_clones.h"
#include "runtime/dma_walk.h"

namespace scjit {
namespace {

constexpr uint8_t kWritten = SCJIT_SHADOW_WRITTEN;
constexpr uint8_t kComputed = SCJIT_SHADOW_COMPUTED;
constexpr uint8_t kInit = SCJIT_SHADOW_INIT_BITS;

// True when every state of [s, s + n) has WRITTEN (vectorized, as
// local_accesses.cc's AnyBad).
SCJIT_AVX2_CLONES bool AllWritten(const uint8_t* s, int64_t n) {
  uint8_t all = kWritten;
  for (int64_t i = 0; i < n; ++i) all &= s[i];
  return all != 0;
}

// s[i] = (s[i] & ~INIT) | WRITTEN over [s, s + n).
SCJIT_AVX2_CLONES void SetWritten(uint8_t* s, int64_t n) {
  for (int64_t i = 0; i < n; ++i) s[i] = static_cast<uint8_t>((s[i] & ~kInit) | kWritten);
}

}  // namespace

uint8_t* InitStates::StateByte(const uint8_t* p) const {
  if (p < lo_ || p >= hi_ || (shared_ != nullptr && shared_->Tracks(p))) return nullptr;
  return const_cast<uint8_t*>(p) + delta_;
}

bool InitStates::Written(const uint8_t* p, int64_t n) const {
  return Written(p, n, Side{StateByte(p) != nullptr});
}

bool InitStates::Written(const uint8_t* p, int64_t n, Side side) const {
  if (n <= 0) return true;
  if (side.local) return AllWritten(StateByte(p, side), n);
  return shared_ == nullptr || shared_->Written(p, n);
}

void InitStates::Read(const uint8_t* p, int64_t n, uint8_t* out) const {
  if (uint8_t* s = StateByte(p)) {
    for (int64_t i = 0; i < n; ++i) out[i] = s[i] & kInit;
  } else if (shared_ != nullptr) {
    shared_->Read(p, n, out);
  } else {
    std::memset(out, kWritten, static_cast<size_t>(n));
  }
}

void InitStates::WriteWritten(uint8_t* p, int64_t n, Side side) {
  if (uint8_t* s = StateByte(p, side)) {
    SetWritten(s, n);
  } else if (shared_ != nullptr) {
    SharedInit::RunMarker(shared_).Mark(p, 1, n, 1);
  }
}

void InitStates::Write(uint8_t* p, int64_t n, const uint8_t* states) {
  if (uint8_t* s = StateByte(p)) {
    for (int64_t i = 0; i < n; ++i) s[i] = static_cast<uint8_t>((s[i] & ~kInit) | states[i]);
  } else if (shared_ != nullptr) {
    shared_->Write(p, n, states);  // (without memory for a bitmap, the bytes stay as they were)
  }
}

void InitStates::CarrySpan(uint8_t* dst, Side dst_side, const uint8_t* src, Side src_side, int64_t bytes, bool add,
                           RawOrigin raw_origin) {
  if (Written(src, bytes, src_side) && (!add || Written(dst, bytes, dst_side))) {
    WriteWritten(dst, bytes, dst_side);
    return;
  }
  absl::InlinedVector<uint8_t, 256> states(static_cast<size_t>(bytes));
  Read(src, bytes, states.data());
  if (!add) {
    for (uint8_t s : states) {
      if (s != kComputed) continue;
      origins_->Copy(dst, src, bytes);
      break;
    }
    Write(dst, bytes, states.data());
    return;
  }
  // An add: computed unless both operands are written, from the first
  // operand byte that is not (its value's origin, or one made now).
  absl::InlinedVector<uint8_t, 256> old(static_cast<size_t>(bytes));
  Read(dst, bytes, old.data());
  int32_t origin = 0;
  for (int64_t i = 0; i < bytes && origin == 0; ++i) {
    for (auto [state, p] : {std::pair{old[i], static_cast<const uint8_t*>(dst + i)}, std::pair{states[i], src + i}}) {
      if (state == kWritten || origin != 0) continue;
      origin = state == kComputed ? origins_->At(p) : 0;
      if (origin == 0) origin = raw_origin(p);
    }
  }
  origin |= SCJIT_ORIGIN_COMPUTED;
  for (int64_t i = 0; i < bytes; ++i) states[i] = states[i] == kWritten && old[i] == kWritten ? kWritten : kComputed;
  Write(dst, bytes, states.data());
  origins_->Set(dst, bytes, origin, [&](const uint8_t* p) { return states[static_cast<size_t>(p - dst)] == kComputed; });
}

namespace {

// A subcore's own memory, whose states are the arenas' state bytes.
bool Local(int32_t space) {
  auto s = static_cast<MemorySpace>(space);
  return s == MemorySpace::kVmem || s == MemorySpace::kSmem;
}

}  // namespace

void InitStates::Carry(const scjit_dma& dma, const int32_t* indices, RawOrigin raw_origin) {
  int64_t w = dma.elem_bytes;
  bool add = dma.add != 0;
  // (A remote copy from another process reads its bytes from a message, not
  // from its space's memory: outside the arenas, a side is no arena's.)
  auto side = [&](const scjit_ref& r) { return Side{Local(r.space) && r.base >= lo_ && r.base < hi_}; };
  Side src_side = side(dma.src), dst_side = side(dma.dst);
  ForEachRun(dma, indices, [&](uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
    if (dst_stride == 1 && src_stride == 1) {
      CarrySpan(dst, dst_side, src, src_side, n * w, add, raw_origin);
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      CarrySpan(dst + i * dst_stride * w, dst_side, src + i * src_stride * w, src_side, w, add, raw_origin);
    }
  });
}

}  // namespace scjit
