#include "runtime/dma_engine.h"

#include <cstring>
#include <vector>

#include "lowering/base/dtype.h"
#include "lowering/base/strings.h"
#include "lowering/base/float8.h"
#include "runtime/dma_walk.h"
#include "runtime/half.h"

namespace scjit {

using dma_walk::Squeeze;
using dma_walk::Squeezed;

namespace {

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
  if (!d.add) return dma_movers::Copy{d.elem_bytes}(dst, dst_stride, src, src_stride, n);
  switch (static_cast<ElementType>(d.dtype)) {
    case ElementType::kI8:
    case ElementType::kU8:
      return dma_movers::Add<int8_t>{}(dst, dst_stride, src, src_stride, n);
    case ElementType::kI16:
    case ElementType::kU16:
      return dma_movers::Add<int16_t>{}(dst, dst_stride, src, src_stride, n);
    case ElementType::kI32:
    case ElementType::kU32:
      return dma_movers::Add<int32_t>{}(dst, dst_stride, src, src_stride, n);
    case ElementType::kI64:
    case ElementType::kU64:
      return dma_movers::Add<int64_t>{}(dst, dst_stride, src, src_stride, n);
    case ElementType::kF32:
      return dma_movers::Add<float>{}(dst, dst_stride, src, src_stride, n);
    case ElementType::kF64:
      return dma_movers::Add<double>{}(dst, dst_stride, src, src_stride, n);
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

void AddPiecesRun(const scjit_dma& d, uint8_t* dst, int64_t dst_stride, const uint8_t* src, int64_t src_stride,
                  int64_t n) {
  const int64_t k = d.add_pieces, w = d.elem_bytes;
  if (k * w > 8) return;  // no element is wider (Subcore::Admit refuses such a descriptor)
  scjit_dma whole = d;
  whole.elem_bytes = static_cast<int32_t>(k * w);
  whole.add_pieces = 0;
  for (int64_t e = 0; e + k <= n; e += k) {
    uint8_t a[8], b[8];
    for (int64_t j = 0; j < k; ++j) {
      std::memcpy(a + j * w, dst + (e + j) * dst_stride * w, static_cast<size_t>(w));
      std::memcpy(b + j * w, src + (e + j) * src_stride * w, static_cast<size_t>(w));
    }
    TransferRun(whole, a, 1, b, 1, 1);
    for (int64_t j = 0; j < k; ++j) std::memcpy(dst + (e + j) * dst_stride * w, a + j * w, static_cast<size_t>(w));
  }
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

int64_t MovedBytes(const scjit_dma& dma) {
  // (Counted in place, not from a copy of MovedShape: generated code has just
  // stored the views' bases, and a wide load over one waits for the store.)
  if (dma.indexed == SCJIT_DMA_PLAIN) return ElementCount(dma.dst) * dma.elem_bytes;
  const scjit_ref& r = IndexedSide(dma);
  int64_t n = r.rank > 0 ? dma.index_count : 1;
  for (int d = 1; d < r.rank; ++d) n *= r.sizes[d];
  return n * dma.elem_bytes;
}

int64_t Credit(const scjit_dma& dma, int64_t moved_bytes) {
  return dma.sem_unit == SCJIT_SEM_ONE ? 1 : moved_bytes;
}

int64_t Credit(const scjit_dma& dma) { return Credit(dma, MovedBytes(dma)); }

void Transfer(const scjit_dma& d, const int32_t* indices) {
  WithRunMover(d, [&](const auto& move) { ForEachRun(d, indices, move); });
}

}  // namespace scjit
