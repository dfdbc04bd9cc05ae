// What the engines share about cross-lane ops (kernel-ir.md §4.1;
// sc-semantics.md §3.11-3.12): how reductions and cumulative ops combine
// elements, and how max and min order integers. The emitter (emit_lanes.cc) and
// the interpreter (jit/interp/interp_lanes.cc) both read it.
#ifndef SCJIT_LOWERING_ANALYSIS_LANE_OPS_H_
#define SCJIT_LOWERING_ANALYSIS_LANE_OPS_H_

#include "lowering/base/dtype.h"
#include "lowering/ir/ir.h"

namespace scjit {

enum class Combine { kSum, kMax, kMin, kAnd, kOr };

// The combine of reduce_* and cumsum/cummax/cummin (kSum for the others).
Combine CombineOf(OpKind k);

// How max and min order integers: the hardware compares them as unsigned and
// the lowering flips the sign bit around it for int32 only, so narrower signed
// integers order as unsigned there.
inline bool SignedOrder(ElementType e) { return e == ElementType::kI32; }

}  // namespace scjit

#endif  // SCJIT_LOWERING_ANALYSIS_LANE_OPS_H_
