// `pipeline` (Pallas' emit_pipeline; kernel-ir.md §4.6, sc-semantics.md §5), as
// emit_pipeline.cc runs it: one loop over this worker's grid points in
// row-major order; at each point the maps give every block's index, blocks move
// by synchronous runtime copies (scjit_rt_copy, at each block's copy site), and
// the body runs once with its block refs bound to windows of the source or to
// the blocks' buffers.
#include "jit/interp/program.h"
#include "lowering/analysis/pipeline_plan.h"
#include "lowering/ir/printer.h"

namespace scjit::interp {
namespace {

// One in/out operand of a running pipeline.
struct Block {
  const PipelineOperand* po = nullptr;
  const Value* arg = nullptr;  // the body's block ref
  BlockMode mode = BlockMode::kMoving;
  bool trivial = false, ragged = false, indirect = false;
  Ref src;     // the operand's ref
  Ref buffer;  // kWhole, kMoving: the block's buffer
  int copy_site = -1;
  std::vector<int> sites;  // the map entries' bounds sites
  std::vector<int64_t> prev, idx;
  std::optional<IndexList> list;  // the idx(...) list at this point
};

// The sites of operand k: its copy site, then one per block dimension.
size_t FirstSite(const Op& op, size_t k) {
  size_t at = 0;
  for (size_t j = 0; j < k; ++j) at += 1 + op.pipeline->operands[j].block.size();
  return at;
}

int32_t BlockIndices(Exec& x, const Op& op, Block& b) {
  const Region& map = *b.po->map;
  const Exec::GridFrame& g = x.grids.back();
  for (size_t d = 0; d < map.args.size() && d < g.index.size(); ++d) {
    Val i = Val::Of(map.args[d]->type);
    i.set(0, static_cast<uint32_t>(g.index[d]));
    x.Set(map.args[d], std::move(i));
  }
  if (int32_t s = x.RunRegion(map, nullptr); s != 0) return s;
  const Op& yield = *map.ops.back();
  b.idx.clear();
  for (size_t d = 0; d < b.po->block.size(); ++d) {
    const BlockDim& bd = b.po->block[d];
    if (int32_t s = x.RequireOperand(op, yield.map_entries[d].start); s != 0) return s;
    if (bd.kind == BlockDim::Kind::kIndirect) {  // the list's entries are checked by the DMA
      b.list = MakeIndexList(x, yield.map_entries[d]);
      b.idx.push_back(0);
      continue;
    }
    const Operand& e = yield.map_entries[d].start;
    int64_t i = e.is_literal() ? e.int_value
                : IsUnsigned(e.value->type.element()) ? static_cast<int64_t>(x.Scalar(e))
                                                       : x.SInt(e);
    // Valid: every element of a squeezed dimension; every block that starts
    // inside the array (the last may be ragged) of a copied one; the blocks
    // that fit whole of a window.
    int64_t size = b.src.sizes[d], limit = size;
    if (bd.kind == BlockDim::Kind::kSize) {
      limit = b.mode == BlockMode::kWindow ? size / bd.size : (size + bd.size - 1) / bd.size;
    }
    if (int32_t s = x.CheckIndex(&i, limit, SCJIT_BOUNDS_INDEX, static_cast<int>(d), b.sites[d]); s != 0) return s;
    b.idx.push_back(i);
  }
  return 0;
}

// The part of b's source that block `idx` covers; `clip`: a ragged last block
// stops at the array's end. Squeezed dimensions are dropped.
Ref BlockView(const Block& b, const std::vector<int64_t>& idx, bool clip) {
  Ref v;
  v.space = b.src.space;
  v.element = b.src.element;
  v.arena = b.src.arena;
  int64_t offset = 0;
  for (size_t d = 0; d < b.po->block.size(); ++d) {
    const BlockDim& bd = b.po->block[d];
    int64_t stride = b.src.strides[d];
    if (bd.kind == BlockDim::Kind::kIndirect) {  // the whole dimension, which the list indexes
      v.sizes.push_back(b.src.sizes[d]);
      v.strides.push_back(stride);
      v.indices = b.list;
      continue;
    }
    if (bd.kind == BlockDim::Kind::kSqueezed) {
      offset += idx[d] * stride;
      continue;
    }
    int64_t start = idx[d] * bd.size;
    offset += start * stride;
    int64_t n = bd.size, size = b.src.sizes[d];
    if (clip && size % bd.size != 0) {
      n = size - start < n ? size - start : n;
      v.static_shape = false;
    }
    v.sizes.push_back(n);
    v.strides.push_back(stride);
  }
  v.ptr = b.src.ptr + offset * ByteWidth(v.element);
  return v;
}

// Copies block `idx` (null: the whole array) between b's source and buffer.
int32_t CopyBlock(Exec& x, const Block& b, const std::vector<int64_t>* idx, bool in) {
  Ref mem = idx != nullptr ? BlockView(b, *idx, /*clip=*/true) : b.src;
  Ref buf = b.buffer;
  buf.sizes = mem.sizes;  // a ragged block fills the front of its buffer
  if (b.indirect) buf.sizes[0] = b.buffer.sizes[0];  // one row per list entry
  return IssueDma(x, scjit_rt_copy, in ? mem : buf, in ? buf : mem, -1, false, nullptr, b.copy_site);
}

int32_t PoisonBlock(Exec& x, const Block& b, bool padding = false) {
  const Type& t = b.arg->type;
  return scjit_rt_alloc(x.ctx, b.buffer.ptr, t.NumElements(), static_cast<int32_t>(t.element()),
                        padding ? SCJIT_POISON_PADDING : SCJIT_POISON_UNWRITTEN);
}

// A moving block at this point: an indirect one moves every time; an input
// comes in when its index changed (or at the first point), an output goes back
// then.
int32_t MoveBlock(Exec& x, Block& b, bool first) {
  if (b.indirect) {
    if (b.po->is_output) return PoisonBlock(x, b);  // a new output window
    if (b.ragged || b.list->ignore) {
      if (int32_t s = PoisonBlock(x, b, /*padding=*/true); s != 0) return s;  // rows no DMA writes
    }
    return CopyBlock(x, b, &b.idx, /*in=*/true);
  }
  bool changed = b.idx != b.prev;
  if (!b.po->is_output) {
    if (first || changed) {
      if (b.ragged) {
        if (int32_t s = PoisonBlock(x, b, /*padding=*/true); s != 0) return s;
      }
      if (int32_t s = CopyBlock(x, b, &b.idx, /*in=*/true); s != 0) return s;
    }
  } else if (!first && changed) {
    if (int32_t s = CopyBlock(x, b, &b.prev, /*in=*/false); s != 0) return s;
    if (int32_t s = PoisonBlock(x, b); s != 0) return s;
  }
  b.prev = b.idx;
  return 0;
}

// This worker's part of the grid: per dimension the points it runs and the
// first one's index, and the full sizes (Pallas' _partition_grid).
struct Grid {
  std::vector<int64_t> count, offset, full;
  int64_t steps = 1;
};

Grid WorkerGrid(Exec& x, const PipelineInfo& p) {
  Grid g;
  for (const Operand& n : p.grid) {
    int64_t size = n.is_literal() ? n.int_value : x.SInt(n);  // below 1: no point
    size = size < 0 ? 0 : size;
    g.full.push_back(size);
    g.count.push_back(size);
    g.offset.push_back(0);
  }
  int64_t workers = 1, worker = 0;
  for (MeshAxis a : p.partition) {
    bool core = a == MeshAxis::kCore;
    int64_t size = core ? x.program.cores : x.program.subcores;
    worker = worker * size + (core ? x.ctx->core : x.ctx->subcore);
    workers *= size;
  }
  if (workers > 1) {
    GridSplit split = SplitGrid(p, workers);
    int64_t n = g.full[split.dim];
    int64_t base = n / workers, rem = n % workers;
    bool extra = worker < rem;  // the first `rem` workers run one more
    g.count[split.dim] = extra ? base + 1 : base;
    g.offset[split.dim] = extra ? worker * (base + 1) : worker * base + rem;
  }
  for (int64_t c : g.count) g.steps *= c;
  return g;
}

int32_t Step(Exec& x, const Op& op, const Grid& grid, std::vector<Block>& blocks, int64_t step) {
  // The global grid index of the step: row-major over the local grid, plus the
  // worker's offset.
  Exec::GridFrame frame;
  frame.index.resize(grid.count.size());
  for (int64_t n : grid.full) frame.size.push_back(static_cast<int32_t>(n));
  int64_t rest = step;
  for (int d = static_cast<int>(grid.count.size()) - 1; d >= 0; --d) {
    frame.index[d] = static_cast<int32_t>(rest % grid.count[d] + grid.offset[d]);
    rest /= grid.count[d];
  }
  x.grids.push_back(std::move(frame));
  for (Block& b : blocks) {
    if (b.trivial) continue;  // Pallas never evaluates such a map
    if (int32_t s = BlockIndices(x, op, b); s != 0) return s;
    if (b.mode == BlockMode::kWindow) x.SetRef(b.arg, BlockView(b, b.idx, false));
  }
  // Inputs first (Pallas fetches the next blocks before it writes back the
  // previous outputs), then outputs whose block changed.
  for (bool outputs : {false, true}) {
    for (Block& b : blocks) {
      if (b.mode != BlockMode::kMoving || b.po->is_output != outputs) continue;
      if (int32_t s = MoveBlock(x, b, step == 0); s != 0) return s;
    }
  }
  if (int32_t s = x.RunRegion(*op.regions[0], nullptr); s != 0) return s;
  for (Block& b : blocks) {
    if (b.indirect && b.mode == BlockMode::kMoving && b.po->is_output) {
      if (int32_t s = CopyBlock(x, b, &b.idx, /*in=*/false); s != 0) return s;
    }
  }
  x.grids.pop_back();
  return 0;
}

}  // namespace

absl::Status PreparePipeline(Builder& b, const Op& op) {
  OpSites& sites = b.SitesOf(op);
  sites.main = b.Site(op);  // the loop's tick
  for (size_t k = 0; k < op.pipeline->operands.size(); ++k) {
    const PipelineOperand& po = op.pipeline->operands[k];
    const Value* arg = op.regions[0]->args[k];
    BlockMode mode = BlockModeOf(op, k);
    const Type& src = po.ref.value->type;
    if (Reinterpreted(po.ref.value)) {
      return b.Unsupported(op, "a pipeline operand viewed by view_bitcast or view_reshape");
    }
    for (size_t d = 0; d < po.block.size(); ++d) {
      if (po.block[d].kind == BlockDim::Kind::kIndirect && d != 0) {
        return b.Unsupported(op, "an indirect(N) block dimension after the first");
      }
    }
    if (src.rank() > SCJIT_MAX_RANK) {
      return b.Unsupported(op, Cat("pipeline operands of more than ", SCJIT_MAX_RANK, " dimensions"));
    }
    if (mode == BlockMode::kWindow && src.space() != arg->type.space()) {
      return b.Unsupported(op, Cat("an hbm block ref of ", Print(po.ref), ", which is not in hbm"));
    }
    bool trivial = TrivialWindowing(op, k);
    sites.more.push_back(-1);  // the copy site, made after the dimensions' (as the emitter does)
    size_t copy = sites.more.size() - 1;
    const Op& yield = *po.map->ops.back();
    for (size_t d = 0; d < po.block.size(); ++d) {
      const BlockDim& bd = po.block[d];
      int64_t size = src.shape()[d];
      if (mode == BlockMode::kWindow && !trivial && bd.kind == BlockDim::Kind::kSize && size < bd.size) {
        return absl::InvalidArgumentError(Cat("the block [", bd.size, "] of dimension ", d, " of ", Print(po.ref),
                                              " is larger than the dimension (", size, ") (pipeline at line ",
                                              op.loc.line, ", kernel @", b.kernel.name, ")"));
      }
      sites.more.push_back(b.Site(op, BlockText(po), yield.map_entries[d].loc));
      const Operand& entry = yield.map_entries[d].start;
      if (!entry.type().is_memory()) b.UseSite(op, entry, bd.kind == BlockDim::Kind::kIndirect ? Use::kIndexList : Use::kBlockIndex);
    }
    sites.more[copy] = b.Site(op, Cat(Print(po.ref), " block"), po.loc);
  }
  return absl::OkStatus();
}

int32_t ExecPipeline(Exec& x, const Op& op) {
  const OpSites& sites = x.program.SitesOf(op);
  std::vector<Block> blocks;
  for (size_t k = 0; k < op.pipeline->operands.size(); ++k) {
    Block b;
    b.po = &op.pipeline->operands[k];
    b.arg = op.regions[0]->args[k];
    b.mode = BlockModeOf(op, k);
    b.trivial = TrivialWindowing(op, k);
    b.src = x.RefOf(b.po->ref.value);
    size_t first = FirstSite(op, k);
    b.copy_site = sites.more[first];
    for (size_t d = 0; d < b.po->block.size(); ++d) {
      const BlockDim& bd = b.po->block[d];
      b.indirect = b.indirect || bd.kind == BlockDim::Kind::kIndirect;
      if (bd.kind == BlockDim::Kind::kSize && b.src.sizes[d] % bd.size != 0) b.ragged = true;
      b.sites.push_back(sites.more[first + 1 + d]);
    }
    if (b.mode != BlockMode::kWindow) {
      x.env.erase(b.arg);
      b.buffer = x.RefOf(b.arg);
    } else if (b.trivial) {
      x.SetRef(b.arg, b.src);
    }
    blocks.push_back(std::move(b));
  }
  Grid grid = WorkerGrid(x, *op.pipeline);
  if (grid.steps <= 0) return 0;
  for (Block& b : blocks) {  // before the first point
    if (b.mode == BlockMode::kWindow) continue;
    if (b.mode == BlockMode::kWhole && !b.po->is_output) {
      if (int32_t s = CopyBlock(x, b, nullptr, /*in=*/true); s != 0) return s;
    }
    if (b.po->is_output) {
      if (int32_t s = PoisonBlock(x, b); s != 0) return s;
    }
    if (b.mode == BlockMode::kMoving) b.prev.assign(b.po->block.size(), 0);
  }
  for (int64_t step = 0; step < grid.steps; ++step) {
    if (int32_t s = Step(x, op, grid, blocks, step); s != 0) return s;
    if (int32_t s = x.Tick(sites.main); s != 0) return s;
  }
  for (Block& b : blocks) {  // after the last point: the outputs go back
    if (b.mode == BlockMode::kWindow || !b.po->is_output || b.indirect) continue;
    if (int32_t s = CopyBlock(x, b, b.mode == BlockMode::kWhole ? nullptr : &b.prev, /*in=*/false); s != 0) return s;
  }
  return 0;
}

}  // namespace scjit::interp
