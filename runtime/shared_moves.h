// Moving a DMA's bytes into memory subcores share (HBM and host parameters,
// VMEM_SHARED), with what the race check needs to know of it: which
// destination bytes it changed (two writes of identical bytes are no race,
// runtime.md §5). One walk over the DMA's runs does both: a DMA is frequent
// and its bytes many. (Their init states: InitStates, after the move.)
#ifndef SCJIT_RUNTIME_SHARED_MOVES_H_
#define SCJIT_RUNTIME_SHARED_MOVES_H_

#include <cstdint>
#include <vector>

#include "runtime/abi.h"
#include "runtime/poison.h"
#include "runtime/shared_init.h"
#include "runtime/shared_races.h"

namespace scjit {

// Performs `dma` (as Transfer does). With `changes` (a plain DMA's race
// record), notes in changes->changed the destination bytes whose value it
// changed, by 64-byte blocks of a contiguous run (a block counts as changed
// when any of its bytes does) or by elements of a strided one (`init` says
// which bytes nothing has written: a write of them is a change); with
// `deferred`, that they need no fill (an element it had not seen written
// counts as changed).
void MoveShared(const scjit_dma& dma, const std::vector<int32_t>& indices, SharedDma* changes, const SharedInit* init,
                DeferredPoison* deferred);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SHARED_MOVES_H_
