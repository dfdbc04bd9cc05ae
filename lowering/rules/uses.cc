#include "lowering/rules/uses.h"

#include <algorithm>

namespace scjit::rules {
namespace {

using K = OpKind;

// Appends `v` to `out` unless it is null or there already.
void AddDistinct(std::vector<const Value*>& out, const Value* v) {
  if (v != nullptr && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
}

// The values an operand's indexer entries use, each once.
std::vector<const Value*> EntryValues(const Operand& o) {
  std::vector<const Value*> out;
  for (const IndexEntry& e : o.index) {
    AddDistinct(out, e.start.value);
    AddDistinct(out, e.size.value);
    if (e.stride) AddDistinct(out, e.stride->value);
    if (e.ignore) AddDistinct(out, e.ignore->value);
  }
  return out;
}

// The values `op` uses other than by its operands, each once.
std::vector<const Value*> OtherValues(const Op& op) {
  std::vector<const Value*> out;
  for (const Operand& o : op.index_vectors) AddDistinct(out, o.value);
  if (op.mask) AddDistinct(out, op.mask->value);
  for (const Attribute& a : op.attrs) AddDistinct(out, a.value.operand.value);
  for (const IndexEntry& e : op.map_entries) AddDistinct(out, e.start.value);
  if (op.pipeline != nullptr) {
    for (const PipelineOperand& p : op.pipeline->operands) {
      AddDistinct(out, p.ref.value);
      for (const Value* v : EntryValues(p.ref)) AddDistinct(out, v);
    }
    for (const Operand& g : op.pipeline->grid) AddDistinct(out, g.value);
  }
  return out;
}

UseKind OperandUse(const Op& op, size_t i) {
  if (IsDma(op.kind)) return i < 2 ? UseKind::kDmaData : UseKind::kDmaSem;
  if ((IsViewOp(op.kind) && i == 0) || (op.kind == K::kSelectRef && i >= 1)) return UseKind::kTransparent;
  return UseKind::kOther;
}

}  // namespace

bool IsDma(OpKind k) { return k == K::kDmaStart || k == K::kDmaWait || k == K::kCopy; }
bool IsViewOp(OpKind k) {
  return k == K::kView || k == K::kViewBitcast || k == K::kViewReshape || k == K::kViewSubcoreSlice;
}

const std::vector<Use>& PartUses::Of(const Value* v) {
  if (!built_) Build();
  static const std::vector<Use> kNone;
  auto it = uses_.find(v);
  return it == uses_.end() ? kNone : it->second;
}

void PartUses::Build() {
  built_ = true;
  WalkOps(kernel_.body, [&](const Op& op) { AddUses(op); });
}

void PartUses::AddUses(const Op& op) {
  for (size_t i = 0; i < op.operands.size(); ++i) {
    const Operand& o = op.operands[i];
    for (const Value* v : EntryValues(o)) uses_[v].push_back({&op, UseKind::kOther});
    if (o.value != nullptr) uses_[o.value].push_back({&op, OperandUse(op, i)});
  }
  for (const Value* v : OtherValues(op)) uses_[v].push_back({&op, UseKind::kOther});
}

const Op* PartUses::FirstBadUse(const Value* v, const std::function<bool(UseKind)>& ok) {
  absl::flat_hash_map<const Value*, int> explored;
  return FirstBadUse(v, ok, 0, explored);
}

// `explored`: the least depth each value was explored at and found no bad use;
// reached again no shallower, it has nothing more to give (without this, values
// used twice by each next select_ref made the search exponential).
const Op* PartUses::FirstBadUse(const Value* v, const std::function<bool(UseKind)>& ok, int depth,
                                absl::flat_hash_map<const Value*, int>& explored) {
  if (depth > 64) return nullptr;
  if (auto it = explored.find(v); it != explored.end() && it->second <= depth) return nullptr;
  for (const Use& u : Of(v)) {
    if (u.kind == UseKind::kTransparent) {
      if (const Op* bad = FirstBadUse(u.op->results[0], ok, depth + 1, explored)) return bad;
      continue;
    }
    if (!ok(u.kind)) return u.op;
  }
  explored[v] = depth;
  return nullptr;
}

}  // namespace scjit::rules
