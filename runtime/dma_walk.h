// How a DMA's bytes are walked: the runs of contiguous (or evenly strided)
// elements a DMA descriptor (runtime/abi.h scjit_dma) moves, in the order the
// DMA engine moves them. A header of templates: the engine and the checks
// visit every run of every DMA, a scatter's rows one by one, and a call per
// run through a function pointer costs as much as the check it makes.
#ifndef SCJIT_RUNTIME_DMA_WALK_H_
#define SCJIT_RUNTIME_DMA_WALK_H_

#include <cstdint>

#include "runtime/abi.h"
#include "runtime/dma_engine.h"

namespace scjit {
namespace dma_walk {

// A view with its size-1 dimensions dropped (no heap: DMAs are frequent).
struct Squeezed {
  int rank = 0;
  int64_t sizes[SCJIT_MAX_RANK];
  int64_t strides[SCJIT_MAX_RANK];
};

inline Squeezed Squeeze(const scjit_ref& r) {
  Squeezed s;
  for (int d = 0; d < r.rank && d < SCJIT_MAX_RANK; ++d) {
    if (r.sizes[d] == 1) continue;
    s.sizes[s.rank] = r.sizes[d];
    s.strides[s.rank] = r.strides[d];
    ++s.rank;
  }
  return s;
}

// Merges each dimension into the next inner one where both views step over
// it as over one longer dimension (a block of whole rows is one run).
inline void Collapse(Squeezed& a, Squeezed& b) {
  int rank = 0;
  for (int k = 0; k < a.rank; ++k) {
    bool merge = rank > 0 && a.strides[rank - 1] == a.strides[k] * a.sizes[k] &&
                 b.strides[rank - 1] == b.strides[k] * b.sizes[k];
    if (merge) {
      a.sizes[rank - 1] *= a.sizes[k];
      b.sizes[rank - 1] *= b.sizes[k];
      a.strides[rank - 1] = a.strides[k];
      b.strides[rank - 1] = b.strides[k];
      continue;
    }
    a.sizes[rank] = a.sizes[k];
    a.strides[rank] = a.strides[k];
    b.sizes[rank] = b.sizes[k];
    b.strides[rank] = b.strides[k];
    ++rank;
  }
  a.rank = b.rank = rank;
}

// Calls run(dst, dst_stride, src, src_stride, n) for each innermost run of a
// strided copy between two views of the same squeezed shape.
template <typename RunFn>
void WalkStrided(const scjit_dma& d, RunFn&& run) {
  Squeezed src = Squeeze(d.src), dst = Squeeze(d.dst);
  if (src.rank == dst.rank) Collapse(dst, src);
  int64_t total = ElementCount(d.dst);
  if (total == 0) return;
  int rank = dst.rank;
  if (rank == 0) {
    run(d.dst.base, 1, d.src.base, 1, 1);
    return;
  }
  // Walk the outer dimensions; each innermost run is one Run().
  int64_t inner = dst.sizes[rank - 1];
  int64_t index[SCJIT_MAX_RANK] = {};
  int64_t w = d.elem_bytes;
  for (int64_t done = 0; done < total; done += inner) {
    int64_t src_off = 0, dst_off = 0;
    for (int k = 0; k < rank - 1; ++k) {
      src_off += index[k] * src.strides[k];
      dst_off += index[k] * dst.strides[k];
    }
    run(d.dst.base + dst_off * w, dst.strides[rank - 1], d.src.base + src_off * w, src.strides[rank - 1], inner);
    for (int k = rank - 2; k >= 0; --k) {
      if (++index[k] < dst.sizes[k]) break;
      index[k] = 0;
    }
  }
}

// Whether a squeezed view's elements are contiguous in row-major order.
inline bool Dense(const Squeezed& s) {
  int64_t expect = 1;
  for (int k = s.rank - 1; k >= 0; --k) {
    if (s.strides[k] != expect) return false;
    expect *= s.sizes[k];
  }
  return true;
}

// A gather or scatter: row i of the plain side <-> row indices[i] of the
// indexed side, in list order (so a plain scatter's duplicates leave the last
// entry's row, and adds accumulate in list order: runtime.md §7.6), each row as
// runs like WalkStrided's.
template <typename RunFn>
void WalkIndexed(const scjit_dma& d, const int32_t* indices, RunFn&& run) {
  const scjit_ref& x = IndexedSide(d);
  const scjit_ref& p = PlainSide(d);
  int64_t w = d.elem_bytes;
  // A row of the indexed side: its dimensions after the first.
  scjit_ref xrow = x;
  xrow.rank = x.rank - 1;
  for (int k = 0; k < xrow.rank; ++k) {
    xrow.sizes[k] = x.sizes[k + 1];
    xrow.strides[k] = x.strides[k + 1];
  }
  // A row of the plain side: its squeezed first dimension is the list's (the
  // shapes match), unless the list has one entry, whose row is the whole side.
  Squeezed ps = Squeeze(p);
  scjit_ref prow = p;
  int64_t prow_stride = 0;
  bool split = d.index_count != 1 && ps.rank > 0;
  prow.rank = split ? ps.rank - 1 : ps.rank;
  for (int k = 0; k < prow.rank; ++k) {
    prow.sizes[k] = ps.sizes[k + (split ? 1 : 0)];
    prow.strides[k] = ps.strides[k + (split ? 1 : 0)];
  }
  if (split) prow_stride = ps.strides[0];
  scjit_dma row = d;
  row.indexed = SCJIT_DMA_PLAIN;
  bool scatter = d.indexed == SCJIT_DMA_SCATTER;
  // Dense rows on both sides (the common case: whole rows of a table) move as one
  // run each, without walking their dimensions.
  bool dense = Dense(Squeeze(xrow)) && Dense(Squeeze(prow));
  int64_t row_elements = ElementCount(xrow);
  for (int64_t i = 0; i < d.index_count; ++i) {
    int32_t v = indices[i];
    if ((d.has_ignore && v == d.ignore) || v < 0 || v >= x.sizes[0]) continue;
    uint8_t* xb = x.base + v * x.strides[0] * w;
    uint8_t* pb = p.base + i * prow_stride * w;
    if (dense) {
      run(scatter ? xb : pb, 1, scatter ? pb : xb, 1, row_elements);
      continue;
    }
    xrow.base = xb;
    prow.base = pb;
    row.src = scatter ? prow : xrow;
    row.dst = scatter ? xrow : prow;
    WalkStrided(row, run);
  }
}

}  // namespace dma_walk

// The bytes Transfer moves, as it moves them: visit(dst, dst_stride, src,
// src_stride, n) for each run of `n` elements (strides in elements), in
// Transfer's order; skipped index entries have none. The checks use it to find
// the bytes a DMA reads and writes.
template <typename Visit>
void ForEachRun(const scjit_dma& dma, const int32_t* indices, Visit&& visit) {
  if (dma.indexed == SCJIT_DMA_PLAIN) {
    dma_walk::WalkStrided(dma, visit);
  } else {
    dma_walk::WalkIndexed(dma, indices, visit);
  }
}

// The contiguous byte spans of a run of `n` elements of `w` bytes, `stride`
// elements apart (as ForEachRun gives them): the whole run when it is dense,
// else one span per element. f(first byte, bytes).
template <typename Span>
void ForEachSpan(const uint8_t* p, int64_t stride, int64_t n, int64_t w, Span&& f) {
  if (stride == 1) {
    f(p, n * w);
    return;
  }
  for (int64_t k = 0; k < n; ++k) f(p + k * stride * w, w);
}

}  // namespace scjit

#endif  // SCJIT_RUNTIME_DMA_WALK_H_
