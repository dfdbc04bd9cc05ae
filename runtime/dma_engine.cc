#include "runtime/dma_engine.h"

#include <cstring>
#include <vector>

#include "lowering/base/dtype.h"
#include "lowering/base/strings.h"
#include "lowering/base/float8.h"
#include "runtime/half.h"

namespace scjit {
namespace {

// A view with its size-1 dimensions dropped (no heap: DMAs are frequent).
struct Squeezed {
  int rank = 0;
  int64_t sizes[SCJIT_MAX_RANK];
  int64_t strides[SCJIT_MAX_RANK];
};

Squeezed Squeeze(const scjit_ref& r) {
  Squeezed s;
  for (int d = 0; d < r.rank && d < SCJIT_MAX_RANK; ++d) {
    if (r.sizes[d] == 1) continue;
    s.sizes[s.rank] = r.sizes[d];
    s.strides[s.rank] = r.strides[d];
    ++s.rank;
  }
  return s;
}

template <typename T>
void AddRun(uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    T a, b;
    std::memcpy(&a, dst + i * dst_stride * static_cast<int64_t>(sizeof(T)), sizeof(T));
    std::memcpy(&b, src + i * src_stride * static_cast<int64_t>(sizeof(T)), sizeof(T));
    T sum;
    if constexpr (std::is_integral_v<T>) {
      // Integers wrap, as on SparseCore.
      using U = std::make_unsigned_t<T>;
      sum = static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      sum = a + b;
    }
    std::memcpy(dst + i * dst_stride * static_cast<int64_t>(sizeof(T)), &sum, sizeof(T));
  }
}

template <uint16_t (*ToHalf)(float), float (*FromHalf)(uint16_t)>
void AddHalfRun(uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    uint16_t a, b;
    std::memcpy(&a, dst + i * dst_stride * 2, 2);
    std::memcpy(&b, src + i * src_stride * 2, 2);
    uint16_t sum = ToHalf(FromHalf(a) + FromHalf(b));
    std::memcpy(dst + i * dst_stride * 2, &sum, 2);
  }
}

// An 8-bit float sum: in f32, rounded once.
void AddFloat8Run(uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n, ElementType e) {
  for (int64_t i = 0; i < n; ++i) {
    float sum = Float8ToFloat(dst[i * dst_stride], e) + Float8ToFloat(src[i * src_stride], e);
    dst[i * dst_stride] = FloatToFloat8(sum, e);
  }
}

// A 4-bit integer sum: the low nibbles' sum, wrapped to 4 bits (the high nibble 0).
void AddInt4Run(uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    dst[i * dst_stride] = static_cast<uint8_t>((dst[i * dst_stride] + src[i * src_stride]) & 0x0F);
  }
}

}  // namespace

void TransferRun(const scjit_dma& d, uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride,
                 int64_t n) {
  int64_t w = d.elem_bytes;
  if (!d.add) {
    if (dst_stride == 1 && src_stride == 1) {
      std::memmove(dst, src, static_cast<size_t>(n * w));
    } else {
      for (int64_t i = 0; i < n; ++i) std::memcpy(dst + i * dst_stride * w, src + i * src_stride * w, static_cast<size_t>(w));
    }
    return;
  }
  switch (static_cast<ElementType>(d.dtype)) {
    case ElementType::kI8:
    case ElementType::kU8:
      return AddRun<int8_t>(dst, dst_stride, src, src_stride, n);
    case ElementType::kI16:
    case ElementType::kU16:
      return AddRun<int16_t>(dst, dst_stride, src, src_stride, n);
    case ElementType::kI32:
    case ElementType::kU32:
      return AddRun<int32_t>(dst, dst_stride, src, src_stride, n);
    case ElementType::kI64:
    case ElementType::kU64:
      return AddRun<int64_t>(dst, dst_stride, src, src_stride, n);
    case ElementType::kF32:
      return AddRun<float>(dst, dst_stride, src, src_stride, n);
    case ElementType::kF64:
      return AddRun<double>(dst, dst_stride, src, src_stride, n);
    case ElementType::kBF16:
      return AddHalfRun<FloatToBf16, Bf16ToFloat>(dst, dst_stride, src, src_stride, n);
    case ElementType::kF16:
      return AddHalfRun<FloatToF16, F16ToFloat>(dst, dst_stride, src, src_stride, n);
    case ElementType::kF8E5M2:
    case ElementType::kF8E4M3FN:
    case ElementType::kF8E4M3B11FNUZ:
      return AddFloat8Run(dst, dst_stride, src, src_stride, n, static_cast<ElementType>(d.dtype));
    case ElementType::kI4:
    case ElementType::kU4:
      return AddInt4Run(dst, dst_stride, src, src_stride, n);
    case ElementType::kI1:
      return;
  }
}


int64_t ElementCount(const scjit_ref& r) {
  int64_t n = 1;
  for (int d = 0; d < r.rank; ++d) n *= r.sizes[d];
  return n;
}

std::string SqueezedShape(const scjit_ref& r) {
  Squeezed s = Squeeze(r);
  std::string out = "(";
  for (int d = 0; d < s.rank; ++d) Append(&out, d ? ", " : "", s.sizes[d]);
  if (s.rank == 1) out += ',';
  return out + ")";
}

bool SameSqueezedShape(const scjit_ref& a, const scjit_ref& b) {
  Squeezed x = Squeeze(a), y = Squeeze(b);
  if (x.rank != y.rank) return false;
  for (int d = 0; d < x.rank; ++d) {
    if (x.sizes[d] != y.sizes[d]) return false;
  }
  return true;
}

const scjit_ref& IndexedSide(const scjit_dma& dma) { return dma.indexed == SCJIT_DMA_SCATTER ? dma.dst : dma.src; }
const scjit_ref& PlainSide(const scjit_dma& dma) { return dma.indexed == SCJIT_DMA_SCATTER ? dma.src : dma.dst; }

scjit_ref MovedShape(const scjit_dma& dma) {
  if (dma.indexed == SCJIT_DMA_PLAIN) return dma.dst;
  scjit_ref r = IndexedSide(dma);
  if (r.rank > 0) r.sizes[0] = dma.index_count;
  return r;
}

int64_t MovedBytes(const scjit_dma& dma) { return ElementCount(MovedShape(dma)) * dma.elem_bytes; }

int64_t Credit(const scjit_dma& dma, int64_t moved_bytes) {
  return dma.sem_unit == SCJIT_SEM_ONE ? 1 : moved_bytes;
}

int64_t Credit(const scjit_dma& dma) { return Credit(dma, MovedBytes(dma)); }

namespace {

// Calls run(dst, dst_stride, src, src_stride, n) for each innermost run of a
// strided copy between two views of the same squeezed shape.
// Merges each dimension into the next inner one where both views step over
// it as over one longer dimension (a block of whole rows is one run).
void Collapse(Squeezed& a, Squeezed& b) {
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
bool Dense(const Squeezed& s) {
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

}  // namespace

int64_t ExtentBytes(const scjit_ref& r, int elem_bytes) {
  if (ElementCount(r) == 0) return 0;
  int64_t extent = elem_bytes;
  for (int d = 0; d < r.rank; ++d) {
    if (r.strides[d] < 0 || r.sizes[d] < 0) return -1;
    extent += (r.sizes[d] - 1) * r.strides[d] * elem_bytes;
  }
  return extent;
}

void Transfer(const scjit_dma& d, const int32_t* indices) {
  auto run = [&d](uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride, int64_t n) {
    TransferRun(d, dst, dst_stride, src, src_stride, n);
  };
  if (d.indexed == SCJIT_DMA_PLAIN) {
    WalkStrided(d, run);
  } else {
    WalkIndexed(d, indices, run);
  }
}

void ForEachRun(const scjit_dma& d, const int32_t* indices, const RunVisitor& visit) {
  if (d.indexed == SCJIT_DMA_PLAIN) {
    WalkStrided(d, visit);
  } else {
    WalkIndexed(d, indices, visit);
  }
}

}  // namespace scjit
