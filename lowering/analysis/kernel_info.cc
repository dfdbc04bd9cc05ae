#include "lowering/analysis/kernel_info.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "lowering/analysis/pipeline_plan.h"
#include "lowering/base/strings.h"

namespace scjit {
namespace {

int64_t AlignUp(int64_t v, int64_t a) { return (v + a - 1) / a * a; }

// Running allocation state of the arenas while walking nested scopes.
struct Arenas {
  int64_t vmem = 0, smem = 0, vmem_shared = 0;
  int semaphores = 0;
};

// The root refs of the fetch_and_add ops of `r` (FAA-3: at most an indexer on them).
// The root refs of the first operands of ops of kind `kind`.
void RootsOf(OpKind kind, const Region& r, absl::flat_hash_set<const Value*>* out) {
  for (const auto& op : r.ops) {
    if (op->kind == kind && !op->operands.empty() && op->operands[0].value != nullptr) {
      out->insert(ViewRoot(op->operands[0].value));
    }
    for (const auto& region : op->regions) RootsOf(kind, *region, out);
  }
}

// The root refs the ops of a kernel may read and may write (through views):
// every ref an operand names, in an indexer or an attribute too, counts as
// both, except the source (read) and destination (written; read too by an
// `add`) of a dma_start or copy, a dma_wait's operands (a wait moves nothing)
// and a pipeline's inputs (read) and outputs (written).
class RefUses {
 public:
  absl::flat_hash_set<const Value*> read, written;

  void Walk(const Region& r) {
    WalkOps(r, [this](const Op& op) { Visit(op); });
  }

 private:
  void Visit(const Op& op) {
    if (op.kind == OpKind::kDmaWait) return;
    bool dma = op.kind == OpKind::kDmaStart || op.kind == OpKind::kCopy;
    bool view = op.info().family == OpFamily::kView;
    for (size_t i = 0; i < op.operands.size(); ++i) {
      if (view && i == 0) {
        Use(op.operands[i], false, false);  // its uses are the view's
      } else if (dma && i == 0) {
        Use(op.operands[i], true, false);
      } else if (dma && i == 1) {
        Use(op.operands[i], op.dma_add, true);
      } else {
        Use(op.operands[i], true, true);
      }
    }
    for (const Operand& o : op.index_vectors) Use(o, true, true);
    if (op.mask) Use(*op.mask, true, true);
    for (const Attribute& a : op.attrs) Use(a.value);
    for (const IndexEntry& e : op.map_entries) Use(e);
    if (op.pipeline == nullptr) return;
    for (const Operand& g : op.pipeline->grid) Use(g, true, true);
    for (const PipelineOperand& p : op.pipeline->operands) Use(p.ref, !p.is_output, p.is_output);
  }

  // `o` names its ref, and reads the values of its indexer.
  void Use(const Operand& o, bool reads, bool writes) {
    if (o.is_value() && o.value != nullptr) {
      if (reads) read.insert(ViewRoot(o.value));
      if (writes) written.insert(ViewRoot(o.value));
    }
    for (const IndexEntry& e : o.index) Use(e);
  }
  void Use(const IndexEntry& e) {
    Use(e.start, true, true);
    Use(e.size, true, true);
    if (e.stride) Use(*e.stride, true, true);
    if (e.ignore) Use(*e.ignore, true, true);
  }
  void Use(const AttrValue& a) {
    if (a.kind == AttrValue::Kind::kOperand) Use(a.operand, true, true);
    for (const AttrValue& item : a.list) Use(item);
  }
};

class Planner {
 public:
  Planner(KernelInfo& info, const KernelDef& kernel) : info_(info) {
    RootsOf(OpKind::kFetchAndAdd, kernel.body, &fetch_and_add_targets_);
    RootsOf(OpKind::kViewSubcoreSlice, kernel.body, &subcore_sliced_);
  }

  // Gives `v` (a ref or semaphore type) a slot at the current end of its arena;
  // a data ref's slot holds `copies` consecutive copies of it.
  void Place(const Value* v, Arenas& a, bool poison, int copies = 1) {
    const Type& t = v->type;
    Slot slot;
    if (t.is_semaphore()) {
      slot.space = MemorySpace::kSmem;
      slot.semaphore = a.semaphores;
      a.semaphores += static_cast<int>(t.NumElements());
      // Names for messages: "%s", or "%sems[i, j]" for each element of an array.
      auto& names = info_.layout.semaphore_names;
      if (names.size() < static_cast<size_t>(a.semaphores)) names.resize(a.semaphores);
      for (int64_t i = 0; i < t.NumElements(); ++i) {
        std::string name = Cat("%", v->name);
        if (t.rank() > 0) {
          name += '[';
          int64_t rem = i;
          std::vector<int64_t> idx(t.rank());
          for (int d = t.rank() - 1; d >= 0; --d) {
            idx[d] = rem % t.shape()[d];
            rem /= t.shape()[d];
          }
          for (int d = 0; d < t.rank(); ++d) Append(&name, d ? ", " : "", idx[d]);
          name += ']';
        }
        names[slot.semaphore + i] = name;
      }
    } else {
      slot.space = t.space();
      int64_t bytes = t.NumElements() * ByteWidth(t.element());
      int64_t* end = t.space() == MemorySpace::kSmem          ? &a.smem
                     : t.space() == MemorySpace::kVmemShared ? &a.vmem_shared
                                                             : &a.vmem;
      slot.offset = *end;
      *end = AlignUp(*end + std::max<int64_t>(bytes * copies, 1), kSlotAlign);
      // The subcores write a sliced VMEM_SHARED buffer with plain stores, which
      // the init check does not follow: it starts as zeros, taken as written.
      if (poison && subcore_sliced_.contains(v)) poison = false;
      if (poison) info_.layout.poison.push_back(PoisonRange{t.space(), slot.offset, t.NumElements(), t.element()});
      info_.layout.buffers.push_back(ArenaBuffer{Cat("%", v->name), t.space(), slot.offset, t.element(),
                                                 Shape(t.shape().begin(), t.shape().end()), copies,
                                                 fetch_and_add_targets_.contains(v)});
    }
    info_.slots[v] = slot;
    Grow(a);
  }

  void Grow(const Arenas& a) {
    LaunchLayout& l = info_.layout;
    l.vmem_bytes = std::max(l.vmem_bytes, a.vmem);
    l.smem_bytes = std::max(l.smem_bytes, a.smem);
    l.vmem_shared_bytes = std::max(l.vmem_shared_bytes, a.vmem_shared);
    l.semaphores = std::max(l.semaphores, a.semaphores);
  }

  // Allocs of a region live until the region ends; sibling regions reuse space.
  // A pipeline's block buffers live while it runs, as many as Pallas allocates
  // (pipeline_plan.h); the emitter fills them with the poison pattern itself.
  void WalkRegion(const Region& r, Arenas a) {
    for (const auto& op : r.ops) {
      if (op->kind == OpKind::kAlloc && !op->results.empty()) Place(op->results[0], a, /*poison=*/false);
      Arenas inner = a;
      if (op->kind == OpKind::kPipeline && op->pipeline != nullptr) {
        for (const PipelineOperand& p : op->pipeline->operands) {
          if (p.map != nullptr) WalkRegion(*p.map, a);
        }
        ForEachBlockBuffer(*op, [&](const Value* block, int copies) { Place(block, inner, /*poison=*/false, copies); });
      }
      for (const auto& region : op->regions) WalkRegion(*region, inner);
    }
  }

 private:
  KernelInfo& info_;
  absl::flat_hash_set<const Value*> fetch_and_add_targets_;
  absl::flat_hash_set<const Value*> subcore_sliced_;  // view_subcore_slice's roots
};

}  // namespace

int KernelInfo::AddSite(const Op& op, std::string text, Location loc) {
  Location at = loc.valid() ? loc : op.loc;
  if (op.origin) {  // a generated kernel: the user's line (see origins.h)
    layout.sites.push_back(Site{std::string(op.name()), Location{op.origin->line, std::max(op.origin->col, 1), 1},
                                origins != nullptr ? origins->SourceLine(op.origin->file, op.origin->line) : "",
                                std::move(text), op.origin->file});
    return static_cast<int>(layout.sites.size()) - 1;
  }
  std::string line = source != nullptr && at.valid() ? std::string(source->Line(at.line)) : "";
  layout.sites.push_back(Site{std::string(op.name()), at, std::move(line), std::move(text)});
  return static_cast<int>(layout.sites.size()) - 1;
}

KernelInfo PlanKernel(const Module& module, const KernelDef& kernel, TargetId target) {
  KernelInfo info;
  info.source = module.source;
  info.origins = &module.origins;
  LaunchLayout& l = info.layout;
  l.kernel = kernel.name;
  l.file = module.source != nullptr ? module.source->name() : "";
  l.target = target;
  const TargetInfo& t = Info(target);
  l.lanes = t.lanes;
  l.mesh = kernel.mesh.kind;
  l.cores = static_cast<int>(kernel.mesh.cores.value_or(t.cores));
  for (const DeviceAxis& a : kernel.device_axes()) {
    l.device_axes.push_back(a.name);
    l.device_shape.push_back(a.size);
  }
  l.subcores = kernel.mesh.kind == MeshKind::kScalar ? 1 : static_cast<int>(kernel.mesh.subcores.value_or(t.subcores));

  Planner planner(info, kernel);
  Arenas arenas;
  RefUses uses;
  uses.Walk(kernel.body);
  for (const Param& p : kernel.params) {
    const Type& type = p.value->type;
    ParamLayout pl;
    pl.name = p.value->name;
    pl.direction = p.direction;
    pl.semaphore = type.is_semaphore();
    pl.dtype = type.is_semaphore() ? ElementType::kI32 : type.element();
    pl.shape = type.shape();
    pl.space = type.is_semaphore() ? MemorySpace::kSmem : type.space();
    pl.type_text = type.ToString();
    if (type.is_ref() && OffCore(type.space())) {
      pl.write_only = p.direction == ParamDirection::kOut && !uses.read.contains(p.value);
      pl.read_only = p.direction == ParamDirection::kIn && !uses.written.contains(p.value);
      Slot slot;
      slot.space = type.space();
      slot.param = p.value->index;  // ctx->hbm is indexed by parameter position
      info.slots[p.value] = slot;
    } else {
      // Staged: each subcore (each core for vmem_shared) holds its own copy.
      planner.Place(p.value, arenas, /*poison=*/p.direction == ParamDirection::kOut);
      const Slot& slot = info.slots[p.value];
      pl.offset = type.is_semaphore() ? slot.semaphore : slot.offset;
    }
    l.params.push_back(std::move(pl));
  }
  for (const Value* v : kernel.scratch) {
    if (!v->other_mesh) planner.Place(v, arenas, /*poison=*/true);  // another part's is placed there
  }
  planner.WalkRegion(kernel.body, arenas);
  return info;
}

}  // namespace scjit
