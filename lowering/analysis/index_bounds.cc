#include "lowering/analysis/index_bounds.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"

namespace scjit {
namespace {

using Params = std::vector<const Value*>;

// The ref a chain of views starts from. Views keep the values of their
// elements; a view_bitcast only when it keeps the element type.
const Value* Root(const Value* v) {
  while (v != nullptr && v->kind == Value::Kind::kResult && v->def != nullptr && !v->def->operands.empty()) {
    const Op& op = *v->def;
    const Value* from = op.operands[0].value;
    bool same_values = op.kind == OpKind::kView || op.kind == OpKind::kViewReshape ||
                       (op.kind == OpKind::kViewBitcast && from != nullptr &&
                        from->type.element() == v->type.element());
    if (!same_values) break;
    v = from;
  }
  return v;
}

bool IsStagingCopy(const Op& op) { return (op.kind == OpKind::kCopy || op.kind == OpKind::kDmaStart) && !op.dma_add; }

class Finder {
 public:
  explicit Finder(const KernelDef& kernel) : bounds_(kernel.params.size()) {
    WalkOps(kernel.body, [&](const Op& op) { NoteWrites(op); });
    WalkOps(kernel.body, [&](const Op& op) { FindUses(op); });
  }

  std::vector<std::optional<IndexBound>> Take() { return std::move(bounds_); }

 private:
  // Records which ops write each root ref, and which refs may be written
  // unseen (through select_ref, or as a pipeline's output).
  void NoteWrites(const Op& op) {
    if (op.kind == OpKind::kSelectRef) {
      for (const Operand& o : op.operands) untraceable_.insert(Root(o.value));
    } else if (op.kind == OpKind::kCopy || op.kind == OpKind::kDmaStart) {
      if (op.operands.size() > 1) writers_[Root(op.operands[1].value)].push_back(&op);
    } else if ((op.info().family == OpFamily::kMemory || op.info().family == OpFamily::kGatherScatter) &&
               op.info().has(kSideEffect) && !op.operands.empty()) {
      writers_[Root(op.operands[0].value)].push_back(&op);
    } else if (op.kind == OpKind::kPipeline && op.pipeline != nullptr) {
      for (const PipelineOperand& p : op.pipeline->operands) {
        if (p.is_output) untraceable_.insert(Root(p.ref.value));
      }
    }
  }

  bool Written(const Value* ref) const { return untraceable_.contains(ref) || writers_.contains(ref); }

  // A parameter nothing in the kernel writes.
  std::optional<Params> Unwritten(const Value* root) const {
    if (root == nullptr || root->kind != Value::Kind::kParam || Written(root)) return std::nullopt;
    return Params{root};
  }

  // The parameters whose values the ref `v` holds, when that is certain.
  std::optional<Params> Sources(const Value* v) const {
    const Value* root = Root(v);
    if (root == nullptr || untraceable_.contains(root)) return std::nullopt;
    switch (root->kind) {
      case Value::Kind::kParam:
        return Unwritten(root);
      case Value::Kind::kRegionArg:
        return PipelineBlockSource(root);
      case Value::Kind::kScratch:
        return StagedSources(root);
      case Value::Kind::kResult:
        if (root->def != nullptr && root->def->kind == OpKind::kAlloc) return StagedSources(root);
        return std::nullopt;
    }
    return std::nullopt;
  }

  // An `in` block ref of a pipeline body holds the blocks of its operand.
  std::optional<Params> PipelineBlockSource(const Value* block) const {
    const Region* body = block->region;
    const Op* pipeline = body != nullptr ? body->parent : nullptr;
    if (pipeline == nullptr || pipeline->kind != OpKind::kPipeline || pipeline->pipeline == nullptr ||
        pipeline->regions.empty() || pipeline->regions[0].get() != body || Written(block)) {
      return std::nullopt;
    }
    const auto& operands = pipeline->pipeline->operands;
    size_t k = static_cast<size_t>(block->index);
    if (k >= operands.size() || operands[k].is_output) return std::nullopt;
    return Unwritten(Root(operands[k].ref.value));
  }

  // A scratch ref or alloc written only by plain DMAs from parameters.
  std::optional<Params> StagedSources(const Value* ref) const {
    auto it = writers_.find(ref);
    if (it == writers_.end()) return std::nullopt;
    Params out;
    for (const Op* w : it->second) {
      if (!IsStagingCopy(*w)) return std::nullopt;
      std::optional<Params> from = Unwritten(Root(w->operands[0].value));
      if (!from) return std::nullopt;
      if (std::find(out.begin(), out.end(), (*from)[0]) == out.end()) out.push_back((*from)[0]);
    }
    return out;
  }

  // The parameters whose values an index list or index vector holds.
  std::optional<Params> IndexSources(const Operand& indices) const {
    const Value* v = indices.value;
    if (v == nullptr) return std::nullopt;
    if (v->type.is_ref()) return Sources(v);
    if (v->kind != Value::Kind::kResult || v->def == nullptr || v->def->operands.empty()) return std::nullopt;
    OpKind k = v->def->kind;
    if (k != OpKind::kGet && k != OpKind::kLoadExpanded && k != OpKind::kLoadGather) return std::nullopt;
    return Sources(v->def->operands[0].value);
  }

  // `indices` index dimension `dim` of `type`, the type of `ref`.
  void Use(const Operand& indices, const Type& type, size_t dim, const Value* ref) {
    if (ref == nullptr || !type.is_ref() || dim >= type.shape().size()) return;
    int64_t size = type.shape()[dim];
    if (size <= 0) return;  // dynamic
    std::optional<Params> params = IndexSources(indices);
    if (!params) return;
    for (const Value* p : *params) {
      if (!IsInteger(p->type.element())) continue;
      std::optional<IndexBound>& b = bounds_[static_cast<size_t>(p->index)];
      if (!b || size < b->size) b = IndexBound{size, ref->name};
    }
  }

  static const Type& Viewed(const Operand& ref) { return ref.indexed ? ref.view : ref.value->type; }

  void FindUses(const Op& op) {
    // idx(...) entries of DMA operands and views: entry d indexes dimension d.
    for (const Operand& o : op.operands) {
      if (o.value == nullptr) continue;
      for (size_t d = 0; d < o.index.size(); ++d) {
        if (o.index[d].kind == IndexEntry::Kind::kIndirect) Use(o.index[d].start, o.value->type, d, o.value);
      }
    }
    // Index vector k of a gather/scatter indexes dimension k of its ref view.
    if (op.info().has(kIndexVectors) && !op.operands.empty() && op.operands[0].value != nullptr) {
      const Operand& ref = op.operands[0];
      for (size_t k = 0; k < op.index_vectors.size(); ++k) Use(op.index_vectors[k], Viewed(ref), k, ref.value);
    }
    // A pipeline map's idx(...) entry d gathers along dimension d of its operand.
    if (op.kind == OpKind::kPipeline && op.pipeline != nullptr) {
      for (const PipelineOperand& p : op.pipeline->operands) {
        if (p.map == nullptr || p.map->ops.empty() || p.ref.value == nullptr) continue;
        const Op& yield = *p.map->ops.back();
        for (size_t d = 0; d < yield.map_entries.size(); ++d) {
          const IndexEntry& e = yield.map_entries[d];
          if (e.kind == IndexEntry::Kind::kIndirect) Use(e.start, Viewed(p.ref), d, p.ref.value);
        }
      }
    }
  }

  std::vector<std::optional<IndexBound>> bounds_;
  absl::flat_hash_map<const Value*, std::vector<const Op*>> writers_;
  absl::flat_hash_set<const Value*> untraceable_;
};

}  // namespace

std::vector<std::optional<IndexBound>> IndexBounds(const KernelDef& kernel) { return Finder(kernel).Take(); }

}  // namespace scjit
