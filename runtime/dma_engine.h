// DmaEngine: moves the bytes of one DMA descriptor (runtime/abi.h scjit_dma):
// an element-wise copy, or add, between two strided views of equal shape.
#ifndef SCJIT_RUNTIME_DMA_ENGINE_H_
#define SCJIT_RUNTIME_DMA_ENGINE_H_

#include <cstdint>
#include <string>

#include "runtime/abi.h"

namespace scjit {

// Elements of a view (the product of its sizes).
int64_t ElementCount(const scjit_ref& r);

// The view's shape without its size-1 dimensions, as "(4, 16)".
std::string SqueezedShape(const scjit_ref& r);

// True when `a` and `b` have the same shape once size-1 dimensions are dropped
// (runtime.md §4: shapes must match after squeezing).
bool SameSqueezedShape(const scjit_ref& a, const scjit_ref& b);

// Performs `dma`: dst[i] = src[i] (or dst[i] += src[i] when dma.add) for every
// element in row-major order. The shapes must match (SameSqueezedShape); the
// caller has checked both views lie inside their memories. Thread-compatible:
// concurrent transfers must not write the same bytes.
void Transfer(const scjit_dma& dma);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_DMA_ENGINE_H_
