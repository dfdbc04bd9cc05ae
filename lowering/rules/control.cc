// SC rules of control flow, grids and pipelines (sc-errors.md): GEN-1 first of
// all (an op Pallas does not lower for the kernel's subcore type), then CF
// (§24), PL (§18), MESH-15 for scoped allocations and pipeline blocks, and PIPE
// (§26).
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "lowering/analysis/pipeline_plan.h"
#include "lowering/ir/printer.h"
#include "lowering/rules/rule.h"
#include "lowering/rules/sc_rules.h"
#include "lowering/base/strings.h"

namespace scjit::rules {
namespace {

using K = OpKind;

bool OnScalarMesh(const Ctx& c) { return c.kernel.mesh.kind == MeshKind::kScalar; }

// --- GEN-1 ---------------------------------------------------------------------------

// True when `release`'s Pallas has no SparseCore rule for `op` yet.
bool LoweredOnlyLater(OpKind op, JaxRelease release) {
  return release < SparseCoreRuleSince(op);
}

// The name of the Pallas primitive that has no lowering rule for the kernel's
// subcore type, if `op` needs one: the op's own name (IR names are Pallas'
// primitive names), or for reduce_and/reduce_or on the scalar subcore the
// primitive they lower through (jnp.min / jnp.max of a float proxy).
// pltpu.bitcast (`bitcast {dim = -2}`): a TensorCore rule only before JAX 0.12.0.
bool TensorCoreBitcast(const Ctx& c) {
  const Attribute* a = c.op.kind == K::kBitcast ? c.op.FindAttr("dim") : nullptr;
  return a != nullptr && a->value.operand.int_value == -2 && c.jax < JaxRelease{0, 12, 0};
}

std::optional<std::string> UnloweredPrimitive(const Ctx& c) {
  const OpInfo& info = c.op.info();
  if (info.has(kTcOnly) || LoweredOnlyLater(c.op.kind, c.jax) || TensorCoreBitcast(c)) return std::string(info.name);
  if (!OnScalarMesh(c)) return std::nullopt;
  if (info.has(kVectorOnly)) return std::string(info.name);
  if (c.op.kind == K::kReduceOr) return std::string("reduce_max");
  if (c.op.kind == K::kReduceAnd) return std::string("reduce_min");
  return std::nullopt;
}

std::string TcOnlyFix(OpKind k) {
  switch (k) {
    case K::kExp2:
      return "compute `exp` of x * 0.6931472 (ln 2) with `mul` and `exp`";
    case K::kLog1p:
      return "`add` 1.0 and take the `log` (vector subcore only, JAX 0.11.1 on)";
    case K::kSin:
    case K::kCos:
    case K::kTan:
      return "no SparseCore op computes it: evaluate a polynomial with `mul` and `add`, or compute it outside the "
             "kernel";
    case K::kFloor:
    case K::kCeil:
      return "`convert` to an integer type and back (it truncates toward zero), then correct the result with `cmp` "
             "and `select`";
    case K::kLogistic:
      return "compute 1 / (1 + exp(-x)) with `neg`, `exp`, `add` and `div`";
    case K::kPow:
      return "for positive bases compute exp(b * log(a)) with `log`, `mul` and `exp` (vector subcore only, JAX 0.11.1 on); for "
             "integer exponents, repeated `mul`";
    case K::kPopulationCount:
      return "count the bits with `shr`, `and` and `add` (`popcount_all` counts the set lanes of a mask, not bits)";
    case K::kClz:
      return "locate the highest set bit with `shr`, `cmp` and `select`";
    case K::kTranspose:
      return "transpose through memory: `store` the value to a vmem ref and read it back with `load_gather` and "
             "permuted indices";
    default:
      return "";
  }
}

std::optional<Violation> Unimplemented(const Ctx& c) {  // GEN-1
  std::optional<std::string> name = UnloweredPrimitive(c);
  if (!name) return std::nullopt;
  std::string op(c.op.name());
  std::string note, help;
  if (c.op.info().has(kTcOnly)) {
    note = Cat("`", op, "` has a lowering rule for the TensorCore only; no SparseCore kernel can use it");
    help = TcOnlyFix(c.op.kind);
  } else if (TensorCoreBitcast(c)) {
    note = Cat("`bitcast {dim = -2}` is pltpu.bitcast, which JAX ", c.jax.ToString(),
               " lowers for the TensorCore only; its SparseCore rule came in JAX 0.12.0");
    help = "bitcast along the minor dimension (no `dim`: plsc.bitcast), or use JAX 0.12.0 or newer";
  } else if (LoweredOnlyLater(c.op.kind, c.jax)) {
    std::string since = SparseCoreRuleSince(c.op.kind).ToString();
    note = Cat("JAX ", c.jax.ToString(), " has no SparseCore lowering rule for `", op, "`; it came in JAX ", since);
    help = Cat("use JAX ", since, " or newer (`jit-run --jax ", since, "`)");
  } else {
    std::string via = *name == op ? "" : Cat(" lowers through `", *name, "`, which");
    note = Cat("`", op, "`", via.empty() ? " is" : via + " is", " lowered for the vector subcore only, and this kernel runs on ",
               MeshText(c.kernel, c.target));
    help = "do the vector work in a kernel on `mesh vector(...)`; the scalar subcore computes scalars only";
  }
  return Violation{DiagId::kGen1, c.op.loc, {{"ctx.kernel_type", KernelType(c.kernel)}, {"eqn.primitive.name", *name}},
                   note, help};
}

// --- CF --------------------------------------------------------------------------------

// CF-1: `for` (fori_loop / scan) with unroll = 0, which asks for a full unroll,
// over a trip count that is not a constant.
std::optional<Violation> FullUnrollDynamic(const Ctx& c) {
  const Attribute* a = c.op.FindAttr("unroll");
  if (a == nullptr || a->value.operand.int_value != 0) return std::nullopt;
  std::string dynamic;
  static constexpr const char* kRoles[] = {"the lower bound", "the upper bound", "the step"};
  for (int i = 0; i < 3; ++i) {
    if (c.op.operands[i].is_literal()) continue;
    Append(&dynamic, dynamic.empty() ? "" : ", ", kRoles[i], " ", Print(c.op.operands[i]));
  }
  if (dynamic.empty()) return std::nullopt;
  return Violation{DiagId::kCf1, a->loc, {},
                   Cat("the trip count is known only at run time (", dynamic, " is a value)"),
                   ""};
}

// The innermost pipeline whose map or body holds `op`, if any.
const Op* EnclosingPipeline(const Op& op) {
  for (const Region* r = op.parent; r != nullptr && r->parent != nullptr; r = r->parent->parent) {
    if (r->parent->kind == K::kPipeline) return r->parent;
  }
  return nullptr;
}

// A grid entry as Pallas holds it: a Python int, or a traced value.
std::string GridEntry(const Operand& g, bool traced_as_dynamic_dim) {
  if (g.is_literal()) return Cat(g.int_value);
  return traced_as_dynamic_dim ? "DynamicGridDim" : "JitTracer(int32[])";
}

std::string GridTuple(const PipelineInfo& p, bool traced_as_dynamic_dim) {
  std::string out = "(";
  for (size_t i = 0; i < p.grid.size(); ++i) Append(&out, i ? ", " : "", GridEntry(p.grid[i], traced_as_dynamic_dim));
  return out + (p.grid.size() == 1 ? ",)" : ")");
}

std::string GridText(const PipelineInfo& p) {
  std::string out = "grid(";
  for (size_t i = 0; i < p.grid.size(); ++i) Append(&out, i ? ", " : "", Print(p.grid[i]));
  return out + ")";
}

bool HasTracedSize(const PipelineInfo& p) {
  for (const Operand& g : p.grid) {
    if (!g.is_literal()) return true;
  }
  return false;
}

std::string Dimensions(int64_t n) { return n == 1 ? "1 dimension" : Cat(n, " dimensions"); }

// CF-6 (outside pipelines: the grid is the mesh) and CF-7 (inside a pipeline's
// maps and body: the pipeline grid, checked while emit_pipeline traces them).
// A negative axis passes the trace-time lookup (Python indexing) and fails in
// the lowering rule, whose grid inside a pipeline is the pipeline grid followed
// by the mesh axes.
std::optional<Violation> ProgramIdInMap(const Ctx& c) {  // PIPE-33 (pipeline.py::emit_pipeline, 0.12.1)
  for (const Region* r = c.op.parent; r != nullptr; r = r->parent != nullptr ? r->parent->parent : nullptr) {
    if (r->is_pipeline_map) return Violation{DiagId::kPipe33, c.op.loc, {}, "the program_id is in a pipeline operand's index map", ""};
  }
  return std::nullopt;
}

std::optional<Violation> GridAxis(const Ctx& c) {
  const Operand& axis_op = c.op.operands[0];
  int64_t axis = axis_op.int_value;
  std::string op(c.op.name());
  bool scalar = OnScalarMesh(c);
  int64_t mesh_rank = scalar ? 1 : 2;
  std::string mesh_axes = scalar ? "1 axis (core)" : "2 axes (core, subcore)";
  if (const Op* pipeline = EnclosingPipeline(c.op)) {
    const PipelineInfo& p = *pipeline->pipeline;
    int64_t rank = static_cast<int64_t>(p.grid.size());
    std::string fix = Cat(rank == 1 ? std::string("use dimension 0 of the pipeline grid")
                                    : Cat("use a dimension of the pipeline grid (0 to ", rank - 1, ")"),
                          "; for this subcore's place in the mesh use `axis_index`");
    if (axis < 0) {
      return Violation{DiagId::kCf6, axis_op.loc, {{"axis", Cat(axis)}, {"length", Cat(rank + mesh_rank)}},
                       Cat("inside a pipeline Pallas' lowering sees the pipeline's ", GridText(p), " followed by the ",
                           mesh_axes, " of ", MeshText(c.kernel, c.target), "; axes are counted from 0"),
                       fix};
    }
    if (axis < rank) return std::nullopt;
    return Violation{DiagId::kCf7, axis_op.loc, {{"axis", Cat(axis)}, {"self.grid", GridTuple(p, true)}},
                     Cat("`", op, "` inside a pipeline counts over the pipeline's ", GridText(p), ", which has ",
                         Dimensions(rank),
                         HasTracedSize(p) ? "; scjit shows sizes given as values as DynamicGridDim, as Pallas does" : ""),
                     fix};
  }
  if (axis >= 0 && axis < mesh_rank) return std::nullopt;
  return Violation{DiagId::kCf6, axis_op.loc, {{"axis", Cat(axis)}, {"length", Cat(mesh_rank)}},
                   Cat("outside a pipeline the grid is the mesh: ", MeshText(c.kernel, c.target), " has ", mesh_axes),
                   scalar ? "use `program_id 0` or `axis_index core`"
                          : "use `program_id 0` (core) or `program_id 1` (subcore), or `axis_index core`/`axis_index "
                            "subcore`"};
}

// CF-8: `axis_index subcore` where the mesh has no subcore axis.
std::optional<Violation> UnknownAxis(const Ctx& c) {
  if (!OnScalarMesh(c) || c.op.axis != MeshAxis::kSubcore) return std::nullopt;
  return Violation{DiagId::kCf8, c.op.loc, {},
                   Cat("`subcore` names no axis of ", MeshText(c.kernel, c.target),
                       ", whose only axis is `core`, and a SparseCore kernel has no device-mesh context"),
                   ""};
}

// --- PL: plsc.parallel_loop carries ---------------------------------------------------

// A ref value made by a view op: a Pallas TransformedRef (`ref.at[...]`,
// `.bitcast`, `.reshape`).
bool IsTransformedRef(const Operand& o) {
  return o.is_value() && o.value != nullptr && o.value->kind == Value::Kind::kResult && o.value->def != nullptr &&
         o.value->def->info().family == OpFamily::kView;
}

// The carried inits: operands 3... (after lower, upper, step).
size_t NumCarries(const Op& op) { return op.operands.size() > 3 ? op.operands.size() - 3 : 0; }
const Operand& Carry(const Op& op, size_t i) { return op.operands[3 + i]; }

std::optional<Violation> TransformedRefCarry(const Ctx& c) {  // PL-1
  size_t n = NumCarries(c.op);
  for (size_t i = 0; i < n; ++i) {
    const Operand& init = Carry(c.op, i);
    if (!IsTransformedRef(init)) continue;
    const Region& body = *c.op.regions[0];
    // Pallas names the flat carry i by the body's i-th parameter, counting the
    // loop index: with one carry `body(i, carry)` binds and carry 0 is named
    // after the index; with several the binding fails and names are args[i].
    std::string name = n == 1 ? body.args[0]->name : Cat("args[", i, "]");
    return Violation{DiagId::kPl1,
                     init.loc,
                     {{"dbg.func_src_info", Cat("body at line ", c.op.loc.line)},
                      {"dbg.traced_for", "parallel_loop"},
                      {"dbg.arg_names[i] if dbg.arg_names is not None else 'unknown'", name}},
                     Cat("carry ", i, " of the parallel_for starts as ", Print(init), ", a view (", init.value->type.ToString(),
                         ") made by `", init.value->def->name(), "`; Pallas names a carry after the body's parameter at ",
                         "its flat position, counting the loop index first (hence `", name,
                         "`); scjit names the loop body by its line"),
                     ""};
  }
  return std::nullopt;
}

// How Pallas prints an abstract value in a list: `ShapedArray(int32[16])`,
// `Ref<vmem>{int32[16]}`, `Ref<semaphore_mem>{dma_sem[2]}`.
std::string AvalRepr(const Type& t, bool weak) {
  if (t.is_semaphore()) {
    std::string out = t.semaphore_kind() == SemaphoreKind::kDma ? "dma_sem[" : "semaphore[";
    for (int d = 0; d < t.rank(); ++d) Append(&out, d ? "," : "", t.shape()[d]);
    return Cat("Ref<semaphore_mem>{", out, "]}");
  }
  if (t.is_ref()) return Cat("Ref<", SpaceName(t.space()), ">{", Aval(t), "}");
  return Cat("ShapedArray(", Aval(t), weak ? ", weak_type=True)" : ")");
}

std::optional<Violation> RefCarry(const Ctx& c) {  // PL-2
  size_t n = NumCarries(c.op);
  const Region& body = *c.op.regions[0];
  std::optional<size_t> first;
  std::string carries = "[";
  for (size_t i = 0; i < n; ++i) {
    const Operand& init = Carry(c.op, i);
    const Type& t = 1 + i < body.args.size() ? body.args[1 + i]->type : init.type();
    if (t.is_memory() && !first) first = i;
    bool weak = init.is_literal() && (t.element() == ElementType::kI32 || t.element() == ElementType::kF32);
    Append(&carries, i ? ", " : "", AvalRepr(t, weak));
  }
  carries += "]";
  if (!first) return std::nullopt;
  const Operand& init = Carry(c.op, *first);
  return Violation{DiagId::kPl2, init.loc, {{"carries", carries}},
                   Cat("carry ", *first, " of the parallel_for starts as ", Print(init), " : ", init.type().ToString(),
                       ", a ref"),
                   ""};
}

// --- MESH-15 inside the body: scoped allocations and pipeline blocks ---------------

std::string ScalarMeshRepr(const Ctx& c) {
  return Cat("ScalarSubcoreMesh(axis_name='core', num_cores=", MeshCores(c.kernel, c.target), ")");
}

Violation VmemOnScalarMesh(const Ctx& c, const Value& v, std::string_view what) {
  return Violation{DiagId::kMesh15, v.loc, {{"self.memory_space", "vmem"}, {"self.mesh", ScalarMeshRepr(c)}},
                   Cat(what, " %", v.name, " is ", v.type.ToString(), ", and ", MeshText(c.kernel, c.target),
                       " has no VMEM (a scalar subcore has SMEM; its SparseCore has VMEM_SHARED)"),
                   ""};
}

std::optional<Violation> ScopedVmemOnScalarMesh(const Ctx& c) {  // MESH-15
  if (!OnScalarMesh(c)) return std::nullopt;
  if (c.op.kind == K::kAlloc) {
    if (c.op.results.empty() || !c.op.alloc_type.is_ref() || c.op.alloc_type.space() != MemorySpace::kVmem) {
      return std::nullopt;
    }
    return VmemOnScalarMesh(c, *c.op.results[0], "the scoped allocation");
  }
  for (const Value* v : c.op.regions[0]->args) {  // pipeline block refs
    if (v->type.is_ref() && v->type.space() == MemorySpace::kVmem) return VmemOnScalarMesh(c, *v, "the block ref");
  }
  return std::nullopt;
}

// --- PIPE: emit_pipeline -----------------------------------------------------------

std::optional<Violation> GridPositive(const Ctx& c) {  // PIPE-1
  const PipelineInfo& p = *c.op.pipeline;
  for (const Operand& g : p.grid) {
    if (!g.is_literal() || g.int_value > 0) continue;
    return Violation{DiagId::kPipe1, g.loc, {{"grid=", Cat("grid=", GridTuple(p, false))}},
                     Cat("the pipeline's ", GridText(p), " has a dimension of size ", g.int_value,
                         HasTracedSize(p) ? "; scjit shows sizes given as values as Pallas shows traced ones" : ""),
                     ""};
  }
  return std::nullopt;
}

// How many workers share the grid: the product of the partition axes' sizes,
// saturated (a mesh beyond the target's, which MESH-1/2 report, may be of any size).
int64_t Workers(const Ctx& c) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t n = 1;
  for (MeshAxis a : c.op.pipeline->partition) {
    int64_t size = a == MeshAxis::kCore ? MeshCores(c.kernel, c.target) : MeshSubcores(c.kernel, c.target);
    n = n > kMax / size ? kMax : n * size;  // sizes are at least 1 (the verifier)
  }
  return n;
}

std::string PartitionText(const PipelineInfo& p) {
  std::string out = "partition(";
  for (size_t i = 0; i < p.partition.size(); ++i) Append(&out, i ? ", " : "", AxisName(p.partition[i]));
  return out + ")";
}

std::string SemanticsRepr(const std::vector<DimSemantics>& dims) {
  std::string out = "(";
  for (size_t i = 0; i < dims.size(); ++i) {
    Append(&out, i ? ", " : "",
           dims[i] == DimSemantics::kParallel ? "<GridDimensionSemantics.PARALLEL: 'parallel'>"
                                              : "<GridDimensionSemantics.ARBITRARY: 'arbitrary'>");
  }
  return out + (dims.size() == 1 ? ",)" : ")");
}

std::string WorkersText(const Ctx& c) {
  return Cat(PartitionText(*c.op.pipeline), " splits the grid over ", Workers(c), " workers of ",
             MeshText(c.kernel, c.target));
}

std::optional<Violation> DimsLength(const Ctx& c) {  // PIPE-9
  const PipelineInfo& p = *c.op.pipeline;
  if (Workers(c) <= 1 || p.all_parallel || p.dims.empty() || p.dims.size() == p.grid.size()) return std::nullopt;
  return Violation{DiagId::kPipe9, p.dims_loc, {},
                   Cat("dims(...) has ", p.dims.size(), p.dims.size() == 1 ? " entry" : " entries", " for the ",
                       p.grid.size(), "-dimensional ", GridText(p), "; ", WorkersText(c)),
                   Cat("give one semantics per grid dimension (", p.grid.size(), "), or write `parallel`")};
}

std::optional<Violation> NoParallelDim(const Ctx& c) {  // PIPE-10
  const PipelineInfo& p = *c.op.pipeline;
  if (Workers(c) <= 1) return std::nullopt;
  std::vector<DimSemantics> dims = Semantics(p);
  for (DimSemantics d : dims) {
    if (d == DimSemantics::kParallel) return std::nullopt;
  }
  return Violation{DiagId::kPipe10, p.dims_loc.valid() ? p.dims_loc : p.partition_loc,
                   {{"dimension_semantics=", Cat("dimension_semantics=", SemanticsRepr(dims))}},
                   Cat(WorkersText(c), ", but every grid dimension is arbitrary",
                       p.dims.empty() ? " (the default without `parallel` or dims(...))" : ""),
                   ""};
}

std::optional<Violation> DynamicParallelDims(const Ctx& c) {  // PIPE-11
  const PipelineInfo& p = *c.op.pipeline;
  int64_t workers = Workers(c);
  if (workers <= 1) return std::nullopt;
  std::vector<DimSemantics> dims = Semantics(p);
  if (dims.size() != p.grid.size()) return std::nullopt;
  int dynamic = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] != DimSemantics::kParallel) continue;
    const Operand& g = p.grid[i];
    if (g.is_literal() && g.int_value % workers == 0) return std::nullopt;  // a divisible dimension is split
    if (!g.is_literal()) ++dynamic;
  }
  if (dynamic <= 1) return std::nullopt;
  return Violation{DiagId::kPipe11, c.op.loc, {{"grid=", Cat("grid=", GridTuple(p, false))}},
                   Cat(WorkersText(c), "; no parallel dimension of ", GridText(p), " is a constant multiple of ", workers,
                       ", and ", dynamic,
                       " parallel dimensions have sizes known only at run time (Pallas shows traced sizes as "
                       "JitTracer(int32[]))"),
                   ""};
}

// The pipeline operands in the order emit_pipeline creates their buffers:
// inputs, then outputs; with the index of their block ref in the body.
std::vector<size_t> OperandOrder(const PipelineInfo& p) {
  std::vector<size_t> order;
  for (int out = 0; out < 2; ++out) {
    for (size_t k = 0; k < p.operands.size(); ++k) {
      if (p.operands[k].is_output == (out == 1)) order.push_back(k);
    }
  }
  return order;
}

std::optional<Violation> BufferSpace(const Ctx& c) {  // PIPE-14
  const PipelineInfo& p = *c.op.pipeline;
  const Region& body = *c.op.regions[0];
  for (size_t k : OperandOrder(p)) {
    if (k >= body.args.size()) break;
    const Value& block = *body.args[k];
    if (!block.type.is_ref() || block.type.space() != MemorySpace::kVmemShared) continue;
    return Violation{DiagId::kPipe14, block.loc, {{"buffer_memory_space", "vmem_shared"}},
                     Cat("the block ref %", block.name, " of ", Print(p.operands[k].ref), " is ", block.type.ToString(),
                         "; pipeline buffers live in vmem or smem (or the block is the hbm source itself)"),
                     ""};
  }
  return std::nullopt;
}

// The tile Pallas rounds a ragged last block to along dimension `d` of `src`
// (tpu_info.infer_tiling with the default COMPACT tiling, TPU v4 and later).
int64_t CompactTile(const Type& src, int d) {
  // tpu_info.infer_tiling packs int4 8 to a word (not uint4: numpy's itemsize, 1).
  int64_t packing = src.element() == ElementType::kI4 ? 8 : 4 / ByteWidth(src.element());
  int r = src.rank();
  if (r == 1) return packing * 128;
  if (d == r - 1) return 128;
  if (d < r - 2) return 1;
  int64_t second_minor = src.shape()[r - 2];
  int64_t tile = packing;
  while (tile < std::min<int64_t>(second_minor, 8)) tile *= 2;
  return tile;
}

std::optional<Violation> RaggedBlock(const Ctx& c) {  // PIPE-27
  const PipelineInfo& p = *c.op.pipeline;
  const Region& body = *c.op.regions[0];
  for (size_t k : OperandOrder(p)) {
    if (k >= body.args.size()) break;
    const PipelineOperand& po = p.operands[k];
    const Type& block = body.args[k]->type;
    if (po.ref.value == nullptr || !block.is_ref()) continue;
    const Type& src = po.ref.value->type;
    // Blocks in the source's own space (or in HBM) are windows of the source:
    // no buffer, no DMA, no rounding.
    if (BlockModeOf(c.op, k) == BlockMode::kWindow) continue;
    for (size_t d = 0; d < po.block.size() && static_cast<int>(d) < src.rank(); ++d) {
      const BlockDim& b = po.block[d];
      if (b.kind != BlockDim::Kind::kSize) continue;
      int64_t dim = src.shape()[d];
      if (dim % b.size == 0) continue;
      int64_t tile = CompactTile(src, static_cast<int>(d));
      if (b.size % tile == 0) continue;
      return Violation{DiagId::kPipe27,
                       b.loc,
                       {{"block_size=", Cat("block_size=", b.size)}, {"tiling=", Cat("tiling=", tile)}},
                       Cat("dimension ", d, " of ", Print(po.ref), " : ", src.ToString(), " has ", dim,
                           " elements, not a multiple of the block's ", b.size,
                           "; Pallas rounds the ragged last block up to the array's tile, ", tile,
                           " elements along this dimension (COMPACT tiling)"),
                       Cat("use a block size that divides ", dim, " or is a multiple of ", tile,
                           ", or pad the array to a multiple of the block")};
    }
  }
  return std::nullopt;
}

// --- The table ------------------------------------------------------------------------

// GEN-1 first of all: an op without a lowering rule for the kernel type fails
// before any check of its own. Then, per op, in catalog order.
const std::vector<OpRule> kRules = {
    {DiagId::kGen1, {}, Unimplemented},
    {DiagId::kCf1, {K::kFor}, FullUnrollDynamic},
    {DiagId::kPl1, {K::kParallelFor}, TransformedRefCarry},
    {DiagId::kPl2, {K::kParallelFor}, RefCarry},
    {DiagId::kPipe33, {K::kProgramId}, ProgramIdInMap},
    {DiagId::kCf6, {K::kProgramId, K::kNumPrograms}, GridAxis, {DiagId::kCf7}},
    {DiagId::kCf8, {K::kAxisIndex}, UnknownAxis},
    {DiagId::kMesh15, {K::kAlloc, K::kPipeline}, ScopedVmemOnScalarMesh},
    // emit_pipeline: the grid, its partition over the mesh, then the buffers
    // (created for the inputs, then the outputs) and their DMA windows.
    {DiagId::kPipe1, {K::kPipeline}, GridPositive},
    {DiagId::kPipe9, {K::kPipeline}, DimsLength},
    {DiagId::kPipe10, {K::kPipeline}, NoParallelDim},
    {DiagId::kPipe11, {K::kPipeline}, DynamicParallelDims},
    {DiagId::kPipe14, {K::kPipeline}, BufferSpace},
    {DiagId::kPipe27, {K::kPipeline}, RaggedBlock},
};

}  // namespace

const std::vector<OpRule>& ControlRules() { return kRules; }

}  // namespace scjit::rules

namespace scjit {
namespace {

// The ops whose SparseCore lowering rules JAX added after its oldest release
// scjit answers for; before its release an op here is TensorCore-only.
struct OpRelease {
  OpKind op;
  JaxRelease since;
};
constexpr OpRelease kOpReleases[] = {
    {OpKind::kSqrt, {0, 11, 0}},  {OpKind::kRsqrt, {0, 11, 0}}, {OpKind::kTanh, {0, 11, 1}},
    {OpKind::kLog, {0, 11, 1}},   {OpKind::kLog2, {0, 11, 2}},  {OpKind::kRound, {0, 11, 2}},
    {OpKind::kMulhi, {0, 12, 0}}, {OpKind::kFmuladd, {0, 12, 1}}, {OpKind::kViewSubcoreSlice, {0, 12, 0}},
};
}  // namespace

JaxRelease SparseCoreRuleSince(OpKind op) {
  for (const OpRelease& r : kOpReleases) {
    if (r.op == op) return r.since;
  }
  return kOldestJax;
}

}  // namespace scjit
