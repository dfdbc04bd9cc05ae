// Index bounds: which integer parameters of a kernel hold values the kernel uses
// as indices, and the smallest dimension those values index. jit-run warns
// (IO-INDEX) when its default input, iota, would run past that bound.
//
// An index use is an `idx(...)` entry of a DMA operand, a view or a pipeline
// map, or an index vector of load_gather / store_scatter / addupdate_scatter.
// Its values are traced back through `get` / `load_expanded` / `load_gather`
// and views to the ref they were read from, and from that ref to a parameter:
// the ref is the parameter, a pipeline `in` block of it, or a scratch ref or
// alloc that only DMAs and copies from parameters write (one level of
// staging). Anything else (arithmetic on the indices, a ref written by a
// store, a select_ref) gives no bound: the analysis never claims a bound it is
// unsure of, so it may miss some.
#ifndef SCJIT_LOWERING_ANALYSIS_INDEX_BOUNDS_H_
#define SCJIT_LOWERING_ANALYSIS_INDEX_BOUNDS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace scjit {

struct IndexBound {
  int64_t size = 0;  // the smallest dimension size the values index
  std::string ref;   // the ref that dimension belongs to, without '%'
};

// One entry per parameter of `kernel`, in order: the bound of an integer
// parameter whose values are used as indices, else nullopt. `kernel` must be
// verified.
std::vector<std::optional<IndexBound>> IndexBounds(const KernelDef& kernel);

}  // namespace scjit

#endif  // SCJIT_LOWERING_ANALYSIS_INDEX_BOUNDS_H_
