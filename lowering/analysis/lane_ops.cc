#include "lowering/analysis/lane_ops.h"

namespace scjit {

Combine CombineOf(OpKind k) {
  switch (k) {
    case OpKind::kReduceMax:
    case OpKind::kCummax:
      return Combine::kMax;
    case OpKind::kReduceMin:
    case OpKind::kCummin:
      return Combine::kMin;
    case OpKind::kReduceAnd:
      return Combine::kAnd;
    case OpKind::kReduceOr:
      return Combine::kOr;
    default:
      return Combine::kSum;
  }
}

}  // namespace scjit
