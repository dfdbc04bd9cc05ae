#include "lowering/analysis/pipeline_plan.h"

#include <functional>

#include "lowering/base/strings.h"
#include "lowering/ir/printer.h"

namespace scjit {
namespace {

// Calls `fn` on every operand of `op`, indexer entries included.
void ForEachOperand(const Op& op, const std::function<void(const Operand&)>& fn) {
  std::function<void(const Operand&)> visit = [&](const Operand& o) {
    fn(o);
    for (const IndexEntry& e : o.index) {
      visit(e.start);
      visit(e.size);
      if (e.stride) visit(*e.stride);
      if (e.ignore) visit(*e.ignore);
    }
  };
  for (const Operand& o : op.operands) visit(o);
  for (const Operand& o : op.index_vectors) visit(o);
  if (op.mask) visit(*op.mask);
  for (const Attribute& a : op.attrs) visit(a.value.operand);
  for (const IndexEntry& e : op.map_entries) {
    visit(e.start);
    if (e.ignore) visit(*e.ignore);
  }
}

// Pallas' _spec_has_trivial_windowing: the index map is constant over the grid
// dimensions whose size is not a literal 1, and reads no ref (refs may change
// while the pipeline runs).
bool MapIsConstant(const PipelineInfo& p, const Region& map) {
  bool constant = true;
  auto check = [&](const Operand& o) {
    if (!o.is_value() || o.value == nullptr) return;
    if (o.value->type.is_memory()) constant = false;
    if (o.value->kind != Value::Kind::kRegionArg || o.value->region != &map) return;
    size_t d = static_cast<size_t>(o.value->index);
    if (d >= p.grid.size() || !p.grid[d].is_literal() || p.grid[d].int_value != 1) constant = false;
  };
  WalkOps(map, [&](const Op& op) { ForEachOperand(op, check); });
  return constant;
}

}  // namespace

bool TrivialWindowing(const Op& pipeline, size_t k) {
  const PipelineInfo& p = *pipeline.pipeline;
  const PipelineOperand& po = p.operands[k];
  if (po.ref.value == nullptr || !po.ref.value->type.is_ref()) return false;
  const Type& src = po.ref.value->type;
  if (static_cast<int>(po.block.size()) != src.rank()) return false;
  for (size_t d = 0; d < po.block.size(); ++d) {
    if (po.block[d].kind != BlockDim::Kind::kSize || po.block[d].size != src.shape()[d]) return false;
  }
  return po.map == nullptr || po.map->args.empty() || MapIsConstant(p, *po.map);
}

BlockMode BlockModeOf(const Op& pipeline, size_t k) {
  const PipelineOperand& po = pipeline.pipeline->operands[k];
  const Region& body = *pipeline.regions[0];
  if (po.ref.value == nullptr || k >= body.args.size()) return BlockMode::kMoving;
  const Type& src = po.ref.value->type;
  const Type& block = body.args[k]->type;
  if (block.is_ref() && src.is_ref() && (block.space() == MemorySpace::kHbm || block.space() == src.space())) {
    return BlockMode::kWindow;
  }
  return TrivialWindowing(pipeline, k) ? BlockMode::kWhole : BlockMode::kMoving;
}

std::string BlockText(const PipelineOperand& po) {
  std::string out = Cat(Print(po.ref), " in blocks [");
  for (size_t d = 0; d < po.block.size(); ++d) {
    const BlockDim& b = po.block[d];
    Append(&out, d ? ", " : "",
           b.kind == BlockDim::Kind::kSqueezed ? std::string("squeezed")
           : b.kind == BlockDim::Kind::kIndirect ? Cat("indirect(", b.size, ")")
                                                 : Cat(b.size));
  }
  return out + "]";
}

int BufferCount(BlockMode mode) {
  switch (mode) {
    case BlockMode::kWindow:
      return 0;
    case BlockMode::kWhole:
      return 1;
    case BlockMode::kMoving:
      return 2;
  }
  return 2;
}

void ForEachBlockBuffer(const Op& pipeline, const std::function<void(const Value*, int)>& fn) {
  const Region& body = *pipeline.regions[0];
  for (size_t k = 0; k < body.args.size() && k < pipeline.pipeline->operands.size(); ++k) {
    int copies = BufferCount(BlockModeOf(pipeline, k));
    if (copies > 0 && body.args[k]->type.is_ref()) fn(body.args[k], copies);
  }
}

std::vector<DimSemantics> Semantics(const PipelineInfo& p) {
  if (p.all_parallel) return std::vector<DimSemantics>(p.grid.size(), DimSemantics::kParallel);
  if (!p.dims.empty()) return p.dims;
  return std::vector<DimSemantics>(p.grid.size(), DimSemantics::kArbitrary);
}

GridSplit SplitGrid(const PipelineInfo& p, int64_t workers) {
  std::vector<DimSemantics> dims = Semantics(p);
  if (dims.size() != p.grid.size() || workers <= 1) return {};
  std::vector<int> dynamic, fixed;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] != DimSemantics::kParallel) continue;
    const Operand& g = p.grid[d];
    if (g.is_literal() && g.int_value % workers == 0) return GridSplit{static_cast<int>(d), true};
    (g.is_literal() ? fixed : dynamic).push_back(static_cast<int>(d));
  }
  if (dynamic.size() > 1) return {};
  if (!dynamic.empty() && fixed.empty()) return GridSplit{dynamic[0], false};
  int best = -1;
  for (int d : fixed) {
    if (best < 0 || p.grid[d].int_value > p.grid[best].int_value) best = d;
  }
  return GridSplit{best, false};
}

}  // namespace scjit
