// What a DMA does to the init state (runtime.md, "Init check"): each byte it
// writes takes the state of the byte it reads, so unwritten bytes copied along
// stay unwritten (and are no finding: only what they decide is), computed ones
// stay computed with their origins; an adding DMA's byte is written when both
// of its operands were, else computed. States live in the machine's state
// bytes for the arenas (VMEM, SMEM: runtime/abi.h SCJIT_SHADOW_*) and in
// SharedInit's bitmaps for VMEM_SHARED and the HBM parameters the kernel may
// write; any other byte (an input's) is written.
//
// Thread safety: as SharedInit's: Carry runs where the DMA moves its bytes,
// under the guard that orders writes of them.
#ifndef SCJIT_RUNTIME_INIT_STATES_H_
#define SCJIT_RUNTIME_INIT_STATES_H_

#include <cstdint>

#include "absl/functional/function_ref.h"

#include "runtime/abi.h"
#include "runtime/init_origins.h"
#include "runtime/shared_init.h"

namespace scjit {

class InitStates {
 public:
  // `arenas`: [lo, lo + bytes), whose state byte of p is p + shadow_delta.
  InitStates(const uint8_t* arenas, int64_t bytes, int64_t shadow_delta, SharedInit* shared, InitOrigins* origins)
      : lo_(arenas), hi_(arenas + bytes), delta_(shadow_delta), shared_(shared), origins_(origins) {}

  // After `dma` moved its bytes (an indirect one's rows by `indices`): gives
  // the bytes it wrote their states. `raw_origin(p)` makes the origin of
  // unwritten byte p an adding DMA computes with (the DMA read it).
  using RawOrigin = absl::FunctionRef<int32_t(const uint8_t*)>;
  void Carry(const scjit_dma& dma, const int32_t* indices, RawOrigin raw_origin);

  // The states (SCJIT_SHADOW_INIT_BITS) of the n bytes at p (in one memory).
  void Read(const uint8_t* p, int64_t n, uint8_t* out) const;
  // True when every byte of [p, p + n) is written.
  bool Written(const uint8_t* p, int64_t n) const;
  SharedInit* shared() const { return shared_; }
  InitOrigins* origins() const { return origins_; }

 private:
  // Where the state of a byte is: in the arenas' state bytes (a subcore's
  // VMEM or SMEM: `local`, known from the DMA side's space), else SharedInit's.
  struct Side {
    bool local;
  };
  // A state byte of the arenas (outside VMEM_SHARED, which SharedInit keeps), or null.
  uint8_t* StateByte(const uint8_t* p) const;
  uint8_t* StateByte(const uint8_t* p, Side side) const { return side.local ? const_cast<uint8_t*>(p) + delta_ : nullptr; }
  bool Written(const uint8_t* p, int64_t n, Side side) const;
  // One contiguous piece of a run: `bytes` bytes from src to dst.
  void CarrySpan(uint8_t* dst, Side dst_side, const uint8_t* src, Side src_side, int64_t bytes, bool add,
                 RawOrigin raw_origin);
  void WriteWritten(uint8_t* p, int64_t n, Side side);
  void Write(uint8_t* p, int64_t n, const uint8_t* states);

  const uint8_t* lo_;
  const uint8_t* hi_;
  int64_t delta_;
  SharedInit* shared_;
  InitOrigins* origins_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_INIT_STATES_H_
