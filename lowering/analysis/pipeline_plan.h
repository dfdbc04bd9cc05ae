// Static facts about a `pipeline` op (kernel-ir.md §4.6, sc-semantics.md §5) that
// the memory planner (kernel_info.cc), the VMEM capacity rule (rules/kernel.cc),
// the SC rules (rules/control.cc) and the emitter (emit_pipeline.cc) must agree on:
// how each block reaches the body, how many buffers Pallas gives it, and which grid
// dimension a partitioned pipeline splits.
#ifndef SCJIT_LOWERING_ANALYSIS_PIPELINE_PLAN_H_
#define SCJIT_LOWERING_ANALYSIS_PIPELINE_PLAN_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace scjit {

// How operand k of a pipeline reaches its block ref in the body.
enum class BlockMode : uint8_t {
  // The block ref lives in the source's own space (or in hbm): the body gets a
  // window of the source itself, no buffer, no copy (sc-semantics.md §5.6).
  kWindow,
  // Trivial windowing: the block is the whole array and its map cannot move it;
  // one buffer, copied in before the first step and out after the last (§5.5).
  kWhole,
  // A buffer the block is copied into (inputs) or out of (outputs) whenever its
  // block index changes (§5.7).
  kMoving,
};

BlockMode BlockModeOf(const Op& pipeline, size_t k);

// "%x in blocks [8, squeezed, indirect(4)]": an operand's block, for the sites
// of its map entries' bounds checks.
std::string BlockText(const PipelineOperand& po);

// Pallas' trivial windowing (_spec_has_trivial_windowing): the block is the
// whole array (sizes only, each the array's) and its map is constant over the
// grid dimensions whose size is not a literal 1 and reads no ref. The map is
// then never evaluated: the block is the array.
bool TrivialWindowing(const Op& pipeline, size_t k);

// The buffers Pallas allocates for a block (BufferedRef.create): none for a
// window, one for a whole array, two (double buffering) for a moving block.
// scjit plans as many, so that a kernel fits its VMEM exactly when it fits
// Pallas', whatever number the emitter uses.
int BufferCount(BlockMode mode);

// Calls fn(block ref, buffer count) for each block of `pipeline` that has
// buffers (BufferCount > 0): what the memory planners place while it runs.
void ForEachBlockBuffer(const Op& pipeline, const std::function<void(const Value*, int)>& fn);

// The dimension semantics emit_pipeline sees: `parallel` = all PARALLEL,
// `dims(...)` as written, else all ARBITRARY.
std::vector<DimSemantics> Semantics(const PipelineInfo& p);

// The grid dimension a pipeline split over `workers` > 1 workers partitions
// (Pallas' _partition_grid): the first PARALLEL dimension whose static size
// `workers` divides (even); else the only PARALLEL dimension of run-time size
// if no PARALLEL dimension has a static one; else the first of the largest
// static PARALLEL ones. dim = -1 when the SC rules reject the split (no
// PARALLEL dimension, PIPE-10; several run-time-sized ones, PIPE-11).
struct GridSplit {
  int dim = -1;
  bool even = false;  // a static size that `workers` divides
};
GridSplit SplitGrid(const PipelineInfo& p, int64_t workers);

}  // namespace scjit

#endif  // SCJIT_LOWERING_ANALYSIS_PIPELINE_PLAN_H_
