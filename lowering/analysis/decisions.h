// The uses of a value that decide something: an index, a slice's start or
// size, an index list, a mask, a branch or loop condition, a loop bound, a
// semaphore count, a target... (runtime.md, "Init check"). The init check
// carries the written/unwritten state of values through every op and reports
// an unwritten value only where it is used so; both engines name the use the
// same way, from here, in the text of the use's site.
#ifndef SCJIT_LOWERING_ANALYSIS_DECISIONS_H_
#define SCJIT_LOWERING_ANALYSIS_DECISIONS_H_

#include <functional>
#include <optional>
#include <string>

#include "lowering/ir/ir.h"

namespace scjit {

enum class Use : uint8_t {
  kIndex,       // an integer index of a ref or a vector value
  kSliceStart,  // ds(start, ...)
  kSliceSize,   // ds(..., size)
  kIndexList,   // idx(list): which rows a DMA moves
  kLaneIndex,   // the index vector of a gather or scatter
  kMask,        // which elements a memory op touches
  kCondition,   // if, while, pl.when
  kLowerBound,  // for
  kUpperBound,
  kStep,
  kCount,       // a semaphore signal's or wait's count, fetch_and_add's value
  kCore,        // the core, subcore or device a signal, DMA or atomic targets
  kSubcore,
  kDevice,
  kCheck,       // debug_check's condition
  kChoice,      // select_ref's index
  kGridSize,    // a pipeline's grid
  kBlockIndex,  // a pipeline map's block index
};

// "the index of get %buf[%i] is unwritten: %i": what RT-INIT says before it
// says where the value's unwritten bytes came from.
std::string UseText(const Op& op, const Operand& value, Use use);

// Calls f(value, use) for each operand of `op` (of kernel `k`) that decides
// something when the op runs, in operand order; literals and refs are not
// values to check (a VMEM index list's entries are checked by the runtime
// when a DMA reads them). A while's condition and a pipeline map's block
// indices are no operands: they decide when their regions yield them.
void ForEachUse(const Op& op, const KernelDef& k, const std::function<void(const Operand&, Use)>& f);

// When the lanes of the 1-D vector `v` are those of a `get`'s 1-D result from
// lane `offset` on (v is that result, or static slices of it): the offset. The
// init check then names an extracted lane's own element as its origin
// (scjit_rt_lane_origin); after any other op a lane need not be the load's.
std::optional<int64_t> LoadLaneOffset(const Value* v);

}  // namespace scjit

#endif  // SCJIT_LOWERING_ANALYSIS_DECISIONS_H_
