// `pipeline` (Pallas' emit_pipeline; kernel-ir.md §4.6, sc-semantics.md §5).
//
// A pipeline becomes one loop over this worker's grid points in row-major order
// (Pallas' _partition_grid decides which points a worker runs). At each point the
// maps give every block's index; the body then runs once with its block refs
// bound to:
//   - windows of the source itself (BlockMode::kWindow: hbm blocks, blocks in the
//     source's own space);
//   - a per-subcore buffer (kWhole, kMoving) planned by PlanKernel. A moving input
//     block is copied in when its index differs from the previous point's (or at
//     the first); a moving output block is written back when the index changes
//     and after the last point, so consecutive points with one output block share
//     its buffer (accumulation); whole-array blocks are copied in before the first
//     point and out after the last, their maps never evaluated.
// An `indirect(N)` block (its first dimension; the map yields `idx(list)`) moves
// by indirect DMA at every point (Pallas' has_indirect): an input gathers the
// list's rows before the body, an output scatters its rows after it; a window
// with one is the source carrying the list, so DMAs from or to it gather or scatter.
// Copies are synchronous runtime copies (scjit_rt_copy), so checks, byte counts
// and findings are those of `copy`. Single buffering is exact here: a DMA costs
// the emulator the same host time at any point, so prefetching could only add
// work (docs/runtime.md, "Pipelines").
#include "lowering/emit/emitter.h"
#include "lowering/analysis/pipeline_plan.h"
#include "lowering/ir/printer.h"
#include "runtime/abi.h"

namespace scjit::emit {

struct PipelineBlock {
  const Op* op = nullptr;  // the pipeline
  const PipelineOperand* po = nullptr;
  const Value* arg = nullptr;  // the body's block ref
  BlockMode mode = BlockMode::kMoving;
  bool trivial = false;        // Pallas' trivial windowing: the block is the array
  RefVal src;                  // the pipeline operand
  RefVal buffer;               // kWhole, kMoving: the block's buffer
  bool ragged = false;         // a last block may end past the array (clipped)
  std::vector<int> sites;      // bounds sites of the map entries, one per dimension
  int copy_site = -1;
  std::vector<llvm::Value*> prev;  // kMoving: slots with the current block index (i64)
  bool indirect = false;           // dimension 0 is indirect(N): moved at every point
  std::optional<RefVal::Indices> list;  // its idx(...) list at the current point
  std::vector<llvm::Value*> idx;        // the block index at the current point (i64; none if trivial)
};

// A pipeline's grid as this worker runs it (sc-semantics.md §5.2).
struct PipelineGrid {
  std::vector<llvm::Value*> count, offset;  // per dimension: the points it runs, the first's index (i64)
  std::vector<llvm::Value*> sizes;          // the full sizes, as num_programs gives them (i32)
  llvm::Value* steps = nullptr;             // the points it runs in all (i64)
};

absl::Status Emitter::EmitGridQuery(const Op& op) {
  const GridFrame& g = grids_.back();
  int64_t axis = op.operands[0].int_value;
  if (axis < 0 || axis >= static_cast<int64_t>(g.index.size())) {
    return Unsupported(kernel_, op, "an axis beyond the pipeline grid");  // CF-7 rejects it first
  }
  Set(op.results[0], op.kind == OpKind::kProgramId ? g.index[axis] : g.size[axis]);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<llvm::Value*>> Emitter::BlockIndices(PipelineBlock& b) {
  const Region& map = *b.po->map;
  const GridFrame& g = grids_.back();
  for (size_t d = 0; d < map.args.size() && d < g.index.size(); ++d) Set(map.args[d], g.index[d]);
  if (absl::Status s = EmitRegion(map, nullptr); !s.ok()) return s;
  const Op& yield = *map.ops.back();
  std::vector<llvm::Value*> idx;
  for (size_t d = 0; d < b.po->block.size(); ++d) {
    const BlockDim& bd = b.po->block[d];
    // Init check: a block index, or the list of an indirect block, decides what moves.
    const Operand& entry = yield.map_entries[d].start;
    if (HasShadow(entry) && !entry.type().is_memory()) {
      Require(*b.op, entry, bd.kind == BlockDim::Kind::kIndirect ? Use::kIndexList : Use::kBlockIndex,
              ShadowOf(entry), OriginOf(entry));
    }
    if (bd.kind == BlockDim::Kind::kIndirect) {  // the list's entries are checked by the DMA
      absl::StatusOr<RefVal::Indices> list = IndexList(yield, yield.map_entries[d]);
      if (!list.ok()) return list.status();
      b.list = *list;
      idx.push_back(I64(0));
      continue;
    }
    const Operand& e = yield.map_entries[d].start;
    llvm::Value* i = e.is_literal() ? I64(e.int_value)
                     : IsUnsigned(e.value->type.element()) ? b_.CreateZExt(ValueOf(e), b_.getInt64Ty())
                                                            : b_.CreateSExt(ValueOf(e), b_.getInt64Ty());
    // Valid indices: every element of a squeezed dimension; every block that
    // starts inside the array (the last may be ragged) of a copied one; the
    // blocks that fit whole of a window.
    llvm::Value* size = b.src.sizes[d];
    llvm::Value* limit = size;
    if (bd.kind == BlockDim::Kind::kSize) {
      limit = b.mode == BlockMode::kWindow ? b_.CreateSDiv(size, I64(bd.size))
                                           : b_.CreateSDiv(b_.CreateAdd(size, I64(bd.size - 1)), I64(bd.size));
    }
    idx.push_back(CheckIndex(i, limit, SCJIT_BOUNDS_INDEX, static_cast<int>(d), b.sites[d]));
  }
  return idx;
}

RefVal Emitter::BlockView(const PipelineBlock& b, const std::vector<llvm::Value*>& idx, bool clip) {
  RefVal v;
  v.space = b.src.space;
  v.element = b.src.element;
  llvm::Value* offset = I64(0);
  for (size_t d = 0; d < b.po->block.size(); ++d) {
    const BlockDim& bd = b.po->block[d];
    llvm::Value* stride = b.src.strides[d];
    if (bd.kind == BlockDim::Kind::kIndirect) {  // the whole dimension, which the list indexes
      v.sizes.push_back(b.src.sizes[d]);
      v.strides.push_back(stride);
      v.indices = b.list;
      continue;
    }
    if (bd.kind == BlockDim::Kind::kSqueezed) {
      offset = b_.CreateAdd(offset, b_.CreateMul(idx[d], stride));
      continue;
    }
    llvm::Value* start = b_.CreateMul(idx[d], I64(bd.size));
    offset = b_.CreateAdd(offset, b_.CreateMul(start, stride));
    llvm::Value* n = I64(bd.size);
    int64_t size = StaticInt(b.src.sizes[d]);
    if (clip && (size < 0 || size % bd.size != 0)) {
      n = b_.CreateSelect(b_.CreateICmpSLT(b_.CreateSub(b.src.sizes[d], start), n), b_.CreateSub(b.src.sizes[d], start), n);
    }
    v.sizes.push_back(n);
    v.strides.push_back(stride);
  }
  v.ptr = b_.CreateGEP(ElemTy(v.element), b.src.ptr, offset);
  return v;
}

void Emitter::CopyBlock(const PipelineBlock& b, const std::vector<llvm::Value*>* idx, bool in) {
  RefVal mem = idx != nullptr ? BlockView(b, *idx, /*clip=*/true) : b.src;
  RefVal buf = b.buffer;
  buf.sizes = mem.sizes;  // a ragged block fills the front of its buffer
  if (b.indirect) buf.sizes[0] = b.buffer.sizes[0];  // one row per list entry
  Descriptor dma = NewDma(in ? mem : buf, in ? buf : mem, I32(-1), /*add=*/false);
  // Only the array's side carries a list, so this cannot fail.
  absl::Status s = FillIndirect(*b.op, dma, in ? mem : buf, in ? buf : mem, nullptr);
  (void)s;
  CallChecked(RuntimeFn::kCopy, {ctx_arg_, Materialize(dma), I32(b.copy_site)});
}

void Emitter::PoisonBlock(const PipelineBlock& b, bool padding) {
  const Type& t = b.arg->type;
  CallChecked(RuntimeFn::kAlloc, {ctx_arg_, b.buffer.ptr, I64(t.NumElements()), I32(static_cast<int>(t.element())),
                                  I32(padding ? SCJIT_POISON_PADDING : SCJIT_POISON_UNWRITTEN)});
}

absl::Status Emitter::EmitPipeline(const Op& op) {
  absl::StatusOr<std::vector<PipelineBlock>> blocks = PlanBlocks(op);
  if (!blocks.ok()) return blocks.status();
  absl::StatusOr<PipelineGrid> grid = WorkerGrid(*op.pipeline);
  if (!grid.ok()) return grid.status();

  llvm::BasicBlock* run = llvm::BasicBlock::Create(ctx_, "pipeline", fn_);
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "pipeline_step", fn_);
  llvm::BasicBlock* step_body = llvm::BasicBlock::Create(ctx_, "pipeline_body", fn_);
  llvm::BasicBlock* post = llvm::BasicBlock::Create(ctx_, "pipeline_post", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "pipeline_end", fn_);
  b_.CreateCondBr(b_.CreateICmpSGT(grid->steps, I64(0)), run, done);

  b_.SetInsertPoint(run);
  StartBlocks(*blocks);
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  b_.CreateBr(header);

  b_.SetInsertPoint(header);
  llvm::PHINode* s = b_.CreatePHI(b_.getInt64Ty(), 2, "step");
  s->addIncoming(I64(0), pre);
  b_.CreateCondBr(b_.CreateICmpSLT(s, grid->steps), step_body, post);

  b_.SetInsertPoint(step_body);
  if (absl::Status st = EmitPipelineStep(op, *grid, *blocks, s); !st.ok()) return st;
  Tick(op);
  s->addIncoming(b_.CreateAdd(s, I64(1)), b_.GetInsertBlock());
  b_.CreateBr(header);

  b_.SetInsertPoint(post);
  FinishBlocks(*blocks);
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<PipelineBlock>> Emitter::PlanBlocks(const Op& op) {
  std::vector<PipelineBlock> blocks;
  for (size_t k = 0; k < op.pipeline->operands.size(); ++k) {
    absl::StatusOr<PipelineBlock> b = PlanBlock(op, k);
    if (!b.ok()) return b.status();
    blocks.push_back(*std::move(b));
  }
  return blocks;
}

absl::StatusOr<PipelineBlock> Emitter::PlanBlock(const Op& op, size_t k) {
  PipelineBlock b;
  b.op = &op;
  b.po = &op.pipeline->operands[k];
  b.arg = op.regions[0]->args[k];
  b.mode = BlockModeOf(op, k);
  for (size_t d = 0; d < b.po->block.size(); ++d) {
    if (b.po->block[d].kind != BlockDim::Kind::kIndirect) continue;
    // Indirect DMAs take their list on dimension 0 (emit_indirect.cc).
    if (d != 0) return Unsupported(kernel_, op, "an indirect(N) block dimension after the first");
    b.indirect = true;
  }
  b.trivial = TrivialWindowing(op, k);
  b.src = *BaseRef(b.po->ref.value);
  if (!b.src.spans.empty() || b.src.reinterpreted()) {
    return Unsupported(kernel_, op, "a pipeline operand viewed by view_bitcast or view_reshape");
  }
  if (b.src.rank() > SCJIT_MAX_RANK) {
    return Unsupported(kernel_, op, Cat("pipeline operands of more than ", SCJIT_MAX_RANK, " dimensions"));
  }
  if (b.mode == BlockMode::kWindow && b.src.space != b.arg->type.space()) {
    // Pallas: "You cannot request HBM block spec for a non-HBM source" (PIPE-15).
    return Unsupported(kernel_, op, Cat("an hbm block ref of ", Print(b.po->ref), ", which is not in hbm"));
  }
  if (absl::Status s = PlanBlockDims(b); !s.ok()) return s;
  b.copy_site = Site(op, Cat(Print(b.po->ref), " block"), b.po->loc);
  if (b.mode != BlockMode::kWindow) {
    b.buffer = *BaseRef(b.arg);
    vals_[b.arg].ref = std::make_shared<RefVal>(b.buffer);
  } else if (b.trivial) {
    vals_[b.arg].ref = std::make_shared<RefVal>(b.src);
  }
  return b;
}

absl::Status Emitter::PlanBlockDims(PipelineBlock& b) {
  const Op& op = *b.op;
  for (size_t d = 0; d < b.po->block.size(); ++d) {
    const BlockDim& bd = b.po->block[d];
    int64_t size = StaticInt(b.src.sizes[d]);
    if (bd.kind == BlockDim::Kind::kSize && (size < 0 || size % bd.size != 0)) b.ragged = true;
    // A window is typed with the block's shape, so it must fit the source.
    if (b.mode == BlockMode::kWindow && !b.trivial && bd.kind == BlockDim::Kind::kSize && size < bd.size) {
      if (size < 0) return Unsupported(kernel_, op, Cat("a window block of ", Print(b.po->ref), ", whose size is dynamic"));
      return absl::InvalidArgumentError(Cat("the block [", bd.size, "] of dimension ", d, " of ", Print(b.po->ref),
                                            " is larger than the dimension (", size, ") (pipeline at line ",
                                            op.loc.line, ", kernel @", kernel_.name, ")"));
    }
    const Op& yield = *b.po->map->ops.back();
    b.sites.push_back(Site(op, BlockText(*b.po), yield.map_entries[d].loc));
  }
  return absl::OkStatus();
}

absl::StatusOr<PipelineGrid> Emitter::WorkerGrid(const PipelineInfo& p) {
  PipelineGrid g;
  std::vector<llvm::Value*> full;
  for (const Operand& n : p.grid) {
    // A run-time size below 1 runs no point (a literal one is PIPE-1).
    llvm::Value* size = n.is_literal() ? I64(n.int_value) : b_.CreateSExt(ValueOf(n), b_.getInt64Ty());
    size = b_.CreateSelect(b_.CreateICmpSLT(size, I64(0)), I64(0), size);
    full.push_back(size);
    g.count.push_back(size);
    g.offset.push_back(I64(0));
  }
  if (absl::Status s = PartitionGrid(p, full, g); !s.ok()) return s;
  g.steps = I64(1);
  for (llvm::Value* c : g.count) g.steps = b_.CreateMul(g.steps, c);
  for (llvm::Value* n : full) g.sizes.push_back(b_.CreateTrunc(n, b_.getInt32Ty()));
  return g;
}

absl::Status Emitter::PartitionGrid(const PipelineInfo& p, const std::vector<llvm::Value*>& full, PipelineGrid& g) {
  int64_t workers = 1;
  llvm::Value* worker = I64(0);
  for (MeshAxis a : p.partition) {
    bool core = a == MeshAxis::kCore;
    int64_t size = core ? info_.layout.cores : info_.layout.subcores;
    llvm::Value* coord = b_.CreateZExt(Ctx(core ? CtxField::kCore : CtxField::kSubcore), b_.getInt64Ty());
    worker = b_.CreateAdd(b_.CreateMul(worker, I64(size)), coord);
    workers *= size;
  }
  if (workers <= 1) return absl::OkStatus();
  GridSplit split = SplitGrid(p, workers);
  if (split.dim < 0) return absl::InternalError("a pipeline split without a partitionable dimension passed the SC rules");
  llvm::Value* n = full[split.dim];
  llvm::Value* base = b_.CreateUDiv(n, I64(workers));
  llvm::Value* rem = b_.CreateURem(n, I64(workers));
  llvm::Value* extra = b_.CreateICmpULT(worker, rem);  // the first `rem` workers run one more
  g.count[split.dim] = b_.CreateSelect(extra, b_.CreateAdd(base, I64(1)), base);
  g.offset[split.dim] = b_.CreateSelect(extra, b_.CreateMul(worker, b_.CreateAdd(base, I64(1))),
                                        b_.CreateAdd(b_.CreateMul(worker, base), rem));
  return absl::OkStatus();
}

void Emitter::StartBlocks(std::vector<PipelineBlock>& blocks) {
  for (PipelineBlock& b : blocks) {
    if (b.mode == BlockMode::kWindow) continue;
    if (b.mode == BlockMode::kWhole && !b.po->is_output) CopyBlock(b, nullptr, /*in=*/true);
    if (b.po->is_output) PoisonBlock(b);
    if (b.mode == BlockMode::kMoving) {
      for (size_t d = 0; d < b.po->block.size(); ++d) b.prev.push_back(ScalarSlot(b_.getInt64Ty(), I64(0)));
    }
  }
}

absl::Status Emitter::EmitPipelineStep(const Op& op, const PipelineGrid& grid, std::vector<PipelineBlock>& blocks,
                                       llvm::Value* step) {
  EnterPoint(grid, step);
  llvm::Value* first = b_.CreateICmpEQ(step, I64(0));
  for (PipelineBlock& b : blocks) {
    if (b.trivial) continue;  // Pallas never evaluates such a map
    absl::StatusOr<std::vector<llvm::Value*>> idx = BlockIndices(b);
    if (!idx.ok()) return idx.status();
    b.idx = *std::move(idx);
    if (b.mode == BlockMode::kWindow) vals_[b.arg].ref = std::make_shared<RefVal>(BlockView(b, b.idx, false));
  }
  // Inputs first (Pallas fetches the next blocks before it writes back the
  // previous outputs), then outputs whose block changed.
  for (bool outputs : {false, true}) {
    for (PipelineBlock& b : blocks) {
      if (b.mode == BlockMode::kMoving && b.po->is_output == outputs) MoveBlock(b, first);
    }
  }
  if (absl::Status s = EmitRegion(*op.regions[0], nullptr); !s.ok()) return s;
  for (PipelineBlock& b : blocks) {
    if (b.indirect && b.mode == BlockMode::kMoving && b.po->is_output) CopyBlock(b, &b.idx, /*in=*/false);
  }
  grids_.pop_back();
  return absl::OkStatus();
}

void Emitter::EnterPoint(const PipelineGrid& grid, llvm::Value* step) {
  // The global grid index of the step: row-major over the local grid, last
  // dimension fastest, plus the worker's offset.
  GridFrame frame;
  frame.size = grid.sizes;
  frame.index.resize(grid.count.size());
  llvm::Value* rest = step;
  for (int d = static_cast<int>(grid.count.size()) - 1; d >= 0; --d) {
    llvm::Value* local = b_.CreateURem(rest, grid.count[d]);
    rest = b_.CreateUDiv(rest, grid.count[d]);
    frame.index[d] = b_.CreateTrunc(b_.CreateAdd(local, grid.offset[d]), b_.getInt32Ty());
  }
  grids_.push_back(std::move(frame));
}

void Emitter::MoveBlock(PipelineBlock& b, llvm::Value* first) {
  if (b.indirect) {  // moved at every point
    if (b.po->is_output) {
      PoisonBlock(b);  // a new output window
    } else {
      if (b.ragged || b.list->ignore != nullptr) PoisonBlock(b, /*padding=*/true);  // rows no DMA writes
      CopyBlock(b, &b.idx, /*in=*/true);
    }
    return;
  }
  llvm::Value* changed = b_.getFalse();
  for (size_t d = 0; d < b.idx.size(); ++d) {
    changed = b_.CreateOr(changed, b_.CreateICmpNE(b.idx[d], b_.CreateLoad(b_.getInt64Ty(), b.prev[d])));
  }
  if (!b.po->is_output) {
    When(b_.CreateOr(first, changed), [&] {
      if (b.ragged) PoisonBlock(b, /*padding=*/true);  // what a ragged block does not cover
      CopyBlock(b, &b.idx, /*in=*/true);
    });
  } else {
    When(b_.CreateAnd(b_.CreateNot(first), changed), [&] {
      std::vector<llvm::Value*> prev = PreviousIndex(b);
      CopyBlock(b, &prev, /*in=*/false);
      PoisonBlock(b);  // a new output window
    });
  }
  for (size_t d = 0; d < b.idx.size(); ++d) b_.CreateStore(b.idx[d], b.prev[d]);
}

std::vector<llvm::Value*> Emitter::PreviousIndex(const PipelineBlock& b) {
  std::vector<llvm::Value*> idx;
  for (llvm::Value* slot : b.prev) idx.push_back(b_.CreateLoad(b_.getInt64Ty(), slot));
  return idx;
}

void Emitter::FinishBlocks(std::vector<PipelineBlock>& blocks) {
  for (PipelineBlock& b : blocks) {
    if (b.mode == BlockMode::kWindow || !b.po->is_output || b.indirect) continue;
    if (b.mode == BlockMode::kWhole) {
      CopyBlock(b, nullptr, /*in=*/false);
      continue;
    }
    std::vector<llvm::Value*> last = PreviousIndex(b);
    CopyBlock(b, &last, /*in=*/false);
  }
}

}  // namespace scjit::emit
