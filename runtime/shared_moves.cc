#include "runtime/shared_moves.h"

#include <algorithm>
#include <cstring>

#include "runtime/avx2_clones.h"
#include "runtime/dma_walk.h"

namespace scjit {
namespace {

// Two elements of `w` bytes are equal (inline for the common widths: a strided
// run is compared element by element).
template <typename T>
bool Same(const uint8_t* a, const uint8_t* b) {
  T x, y;
  std::memcpy(&x, a, sizeof(T));
  std::memcpy(&y, b, sizeof(T));
  return x == y;
}
bool SameElement(const uint8_t* a, const uint8_t* b, int64_t w) {
  switch (w) {
    case 1: return *a == *b;
    case 2: return Same<uint16_t>(a, b);
    case 4: return Same<uint32_t>(a, b);
    case 8: return Same<uint64_t>(a, b);
    default: return std::memcmp(a, b, static_cast<size_t>(w)) == 0;
  }
}

void NoteChanged(SharedDma* record, const uint8_t* lo, const uint8_t* hi) {
  auto l = reinterpret_cast<uintptr_t>(lo), h = reinterpret_cast<uintptr_t>(hi);
  auto& changed = record->changed;
  if (!changed.empty() && changed.back().second == l) {
    changed.back().second = h;
  } else {
    changed.emplace_back(l, h);
  }
}

// Notes the 64-byte blocks of [dst, dst + bytes) that differ from `was`, a
// run of adjacent ones at a time (the common cases: all of them, or none).
constexpr int64_t kBlock = 64;
SCJIT_AVX2_CLONES void NoteChangedBlocks(SharedDma* record, const uint8_t* dst, const uint8_t* was, int64_t bytes) {
  int64_t open = -1;  // first block of the run of changed ones being scanned
  int64_t lo = 0;
  for (; lo + kBlock <= bytes; lo += kBlock) {
    // Two 32-byte vectors each (one AVX2 register, or two SSE2 ones).
    using V = uint64_t __attribute__((vector_size(32)));
    V x0, x1, y0, y1;
    std::memcpy(&x0, dst + lo, 32);
    std::memcpy(&x1, dst + lo + 32, 32);
    std::memcpy(&y0, was + lo, 32);
    std::memcpy(&y1, was + lo + 32, 32);
    V d = (x0 ^ y0) | (x1 ^ y1);
    bool diff = (d[0] | d[1] | d[2] | d[3]) != 0;
    if (diff && open < 0) open = lo;
    if (!diff && open >= 0) {
      NoteChanged(record, dst + open, dst + lo);
      open = -1;
    }
  }
  if (lo < bytes && std::memcmp(dst + lo, was + lo, static_cast<size_t>(bytes - lo)) != 0) {
    if (open < 0) open = lo;
    lo = bytes;
  }
  if (open >= 0) NoteChanged(record, dst + open, dst + lo);
}

// Notes which of the run's n destination elements differ from `was` (what
// they held before the move, or the source about to move there). Bytes
// nothing has written yet (`init` knows) change whatever is written there:
// a later write of the same bytes is what compares equal.
// With `all`, every element counts as changed.
void NoteRun(SharedDma* record, const uint8_t* dst, int64_t dst_stride, const uint8_t* was, int64_t was_stride,
             int64_t n, int64_t w, const SharedInit* init, bool all = false) {
  if (dst_stride == 1 && (all || (init != nullptr && init->NoneWritten(dst, n * w)))) {
    return NoteChanged(record, dst, dst + n * w);
  }
  if (all) {
    for (int64_t i = 0; i < n; ++i) NoteChanged(record, dst + i * dst_stride * w, dst + i * dst_stride * w + w);
    return;
  }
  if (dst_stride == 1 && was_stride == 1) return NoteChangedBlocks(record, dst, was, n * w);
  for (int64_t i = 0; i < n; ++i) {
    const uint8_t* d = dst + i * dst_stride * w;
    if (!SameElement(d, was + i * was_stride * w, w)) NoteChanged(record, d, d + w);
  }
}

// A scatter that writes some row twice: what a row holds at the end is not
// what one source row put there.
bool RepeatsRows(const scjit_dma& dma, const std::vector<int32_t>& indices) {
  if (dma.indexed != SCJIT_DMA_SCATTER) return false;
  std::vector<int32_t> sorted = indices;
  std::sort(sorted.begin(), sorted.end());
  return std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
}

// Each destination run's bytes, in ForEachRun order, packed.
std::vector<uint8_t> DestinationBytes(const scjit_dma& dma, const int32_t* indices) {
  std::vector<uint8_t> out;
  int64_t w = dma.elem_bytes;
  ForEachRun(dma, indices, [&](uint8_t* dst, int64_t dst_stride, const uint8_t*, int64_t, int64_t n) {
    if (dst_stride == 1) {
      out.insert(out.end(), dst, dst + n * w);
      return;
    }
    for (int64_t i = 0; i < n; ++i) out.insert(out.end(), dst + i * dst_stride * w, dst + i * dst_stride * w + w);
  });
  return out;
}

}  // namespace

void MoveShared(const scjit_dma& dma, const std::vector<int32_t>& indices, SharedDma* changes, const SharedInit* init,
                DeferredPoison* deferred) {
  int64_t w = dma.elem_bytes;
  // Notes the run changed if it holds an element no DMA wrote yet (the caller's
  // bytes stand for the poison pattern there), else compares it with `was`.
  auto note = [&](uint8_t* dst, int64_t dst_stride, const uint8_t* was, int64_t was_stride, int64_t n) {
    if (deferred != nullptr && deferred->Unwritten(dst, dst_stride, n, w)) {
      NoteRun(changes, dst, dst_stride, dst, dst_stride, n, w, nullptr, /*all=*/true);
    } else {
      NoteRun(changes, dst, dst_stride, was, was_stride, n, w, init);
    }
  };
  if (changes != nullptr && RepeatsRows(dma, indices)) {
    // Compared, after the move, with what the destination held before it.
    std::vector<uint8_t> before = DestinationBytes(dma, indices.data());
    std::vector<bool> unwritten;  // per run, before the move
    if (deferred != nullptr) {
      ForEachRun(dma, indices.data(), [&](uint8_t* dst, int64_t dst_stride, const uint8_t*, int64_t, int64_t n) {
        unwritten.push_back(deferred->Unwritten(dst, dst_stride, n, w));
        deferred->Written(dst, dst_stride, n, w);
      });
    }
    Transfer(dma, indices.data());
    const uint8_t* was = before.data();
    size_t run = 0;
    ForEachRun(dma, indices.data(), [&](uint8_t* dst, int64_t dst_stride, const uint8_t*, int64_t, int64_t n) {
      bool all = deferred != nullptr && unwritten[run++];
      NoteRun(changes, dst, dst_stride, was, 1, n, w, all ? nullptr : init, all);
      was += n * w;
    });
  } else {
    // Compared, run by run, with the source about to move there.
    WithRunMover(dma, [&](const auto& move) {
      ForEachRun(dma, indices.data(),
                 [&](uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
                   if (changes != nullptr) note(dst, dst_stride, src, src_stride, n);
                   if (deferred != nullptr) deferred->Written(dst, dst_stride, n, w);
                   move(dst, dst_stride, src, src_stride, n);
                 });
    });
  }
  if (changes != nullptr) changes->moved = true;
}

}  // namespace scjit
