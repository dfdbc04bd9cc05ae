// DmaEngine: moves the bytes of one DMA descriptor (runtime/abi.h scjit_dma):
// an element-wise copy, or add, between two strided views of equal shape, or
// between a view and the rows an index list picks from another (gather/scatter).
#ifndef SCJIT_RUNTIME_DMA_ENGINE_H_
#define SCJIT_RUNTIME_DMA_ENGINE_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "lowering/base/dtype.h"
#include "runtime/abi.h"

namespace scjit {

// Elements of a view (the product of its sizes).
inline int64_t ElementCount(const scjit_ref& r) {
  int64_t n = 1;
  for (int d = 0; d < r.rank; ++d) n *= r.sizes[d];
  return n;
}

// The bytes from a view's first element to the end of its last (0 when it has
// none; -1 when a size or stride is negative): the view lies in
// [r.base, r.base + ExtentBytes). (Inline, one pass: every DMA asks it of
// both views several times.)
inline int64_t ExtentBytes(const scjit_ref& r, int elem_bytes) {
  int64_t n = 1;
  bool negative = false;
  auto w = static_cast<uint64_t>(elem_bytes);
  // (Unsigned, so well defined where a signed sum would overflow; generated
  // code's views come from verified shapes, whose extents fit.)
  uint64_t extent = w;
  for (int d = 0; d < r.rank; ++d) {
    n *= r.sizes[d];
    negative |= r.strides[d] < 0 || r.sizes[d] < 0;
    extent += (static_cast<uint64_t>(r.sizes[d]) - 1) * static_cast<uint64_t>(r.strides[d]) * w;
  }
  if (n == 0) return 0;
  return negative ? -1 : static_cast<int64_t>(extent);
}

// The view's shape without its size-1 dimensions, as "(4, 16)".
std::string SqueezedShape(const scjit_ref& r);

// True when `a` and `b` have the same shape once size-1 dimensions are dropped
// (runtime.md §4: shapes must match after squeezing).
bool SameSqueezedShape(const scjit_ref& a, const scjit_ref& b);

// The side of an indirect DMA its index list addresses (the source of a
// gather, the destination of a scatter), and the other side.
const scjit_ref& IndexedSide(const scjit_dma& dma);
const scjit_ref& PlainSide(const scjit_dma& dma);

// The shape a DMA moves: its destination's, or for an indirect DMA the indexed
// side with dimension 0 replaced by the index count (the shape of the other side).
scjit_ref MovedShape(const scjit_dma& dma);

// What completing `dma` adds to its semaphore, and what waiting for it takes:
// the bytes of MovedShape on a DMA semaphore, 1 on a regular one.
int64_t Credit(const scjit_dma& dma);
// The bytes of MovedShape, and Credit given them (a DMA's start needs both).
int64_t MovedBytes(const scjit_dma& dma);
int64_t Credit(const scjit_dma& dma, int64_t moved_bytes);

// Performs `dma`: dst[i] = src[i] (or dst[i] += src[i] when dma.add) for every
// element in row-major order. The shapes must match (SameSqueezedShape); the
// caller has checked both views lie inside their memories. For an indirect DMA
// `indices` holds the index list (dma.index_count entries, contiguous; the
// descriptor's own `indices` is not read), and rows move in list order: entries
// equal to the ignore value, or outside the indexed dimension, move nothing.
// Thread-compatible: concurrent transfers must not write the same bytes.
void Transfer(const scjit_dma& dma, const int32_t* indices = nullptr);

// Moves one run of `dma` as Transfer does: dst[0, dst_stride, ...] = (or +=)
// src[0, src_stride, ...], n elements (strides in elements).
void TransferRun(const scjit_dma& dma, uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride,
                 int64_t n);

// A run of an add DMA whose elements are `dma.add_pieces` units each
// (scjit_dma::add_pieces): n units, each element's `add_pieces` consecutive
// ones in the run, added as one `dma.dtype` element.
void AddPiecesRun(const scjit_dma& dma, uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride,
                  int64_t n);

// Calls f(mover) with the run mover for `dma`, chosen once for all its runs: a
// callable as TransferRun without the descriptor, its own type for a plain copy
// and for the adds of i32, u32 and f32 (the walk inlines it), TransferRun for
// the others.
template <typename F>
void WithRunMover(const scjit_dma& dma, F&& f);

// ForEachRun, the runs Transfer moves, is in runtime/dma_walk.h.

namespace dma_movers {

struct Copy {
  int64_t w;  // element bytes
  void operator()(uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) const {
    if (dst_stride == 1 && src_stride == 1) {
      std::memmove(dst, src, static_cast<size_t>(n * w));
      return;
    }
    for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_stride * w, src + i * src_stride * w, static_cast<size_t>(w));
  }
};

// dst += src, integers wrapping (as on SparseCore).
template <typename T>
struct Add {
  void operator()(uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) const {
    // Unit strides as constants: the common case, a loop the compiler vectorizes.
    if (dst_stride == 1 && src_stride == 1) return Each(dst, 1, src, 1, n);
    Each(dst, dst_stride, src, src_stride, n);
  }

 private:
  __attribute__((always_inline)) static void Each(uint8_t* dst, int64_t dst_stride, const uint8_t* src,
                                                  int64_t src_stride, int64_t n) {
    constexpr auto kW = static_cast<int64_t>(sizeof(T));
    for (int64_t i = 0; i < n; ++i) {
      T a, b;
      std::memcpy(&a, dst + i * dst_stride * kW, sizeof(T));
      std::memcpy(&b, src + i * src_stride * kW, sizeof(T));
      T sum;
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        sum = static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      } else {
        sum = a + b;
      }
      std::memcpy(dst + i * dst_stride * kW, &sum, sizeof(T));
    }
  }
};

}  // namespace dma_movers

template <typename F>
void WithRunMover(const scjit_dma& dma, F&& f) {
  if (!dma.add) return f(dma_movers::Copy{dma.elem_bytes});
  if (dma.add_pieces > 1) {
    return f([&dma](uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
      AddPiecesRun(dma, dst, dst_stride, src, src_stride, n);
    });
  }
  switch (static_cast<ElementType>(dma.dtype)) {
    case ElementType::kI32:
    case ElementType::kU32:
      return f(dma_movers::Add<int32_t>{});
    case ElementType::kF32:
      return f(dma_movers::Add<float>{});
    default:
      return f([&dma](uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
        TransferRun(dma, dst, dst_stride, src, src_stride, n);
      });
  }
}

}  // namespace scjit

#endif  // SCJIT_RUNTIME_DMA_ENGINE_H_
