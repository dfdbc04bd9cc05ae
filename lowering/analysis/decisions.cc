#include "lowering/analysis/decisions.h"

#include "lowering/base/strings.h"
#include "lowering/ir/printer.h"

namespace scjit {
namespace {

std::string_view UseName(Use use) {
  switch (use) {
    case Use::kIndex: return "the index";
    case Use::kSliceStart: return "the slice start";
    case Use::kSliceSize: return "the slice size";
    case Use::kIndexList: return "the index list";
    case Use::kLaneIndex: return "the lane index";
    case Use::kMask: return "the mask";
    case Use::kCondition: return "the condition";
    case Use::kLowerBound: return "the lower bound";
    case Use::kUpperBound: return "the upper bound";
    case Use::kStep: return "the step";
    case Use::kCount: return "the count";
    case Use::kCore: return "the target core";
    case Use::kSubcore: return "the target subcore";
    case Use::kDevice: return "the target device";
    case Use::kCheck: return "the condition";
    case Use::kChoice: return "the choice";
    case Use::kGridSize: return "the grid size";
    case Use::kBlockIndex: return "the block index";
  }
  return "a use";
}

// The op as the other findings name it: its name and the refs it uses.
std::string OpText(const Op& op) {
  const auto& ops = op.operands;
  switch (op.info().family) {
    case OpFamily::kDma:
      if (ops.size() >= 2) return Cat(op.name(), " ", Print(ops[0]), " -> ", Print(ops[1]));
      break;
    case OpFamily::kMemory:
    case OpFamily::kGatherScatter:
    case OpFamily::kView:
    case OpFamily::kSemaphore:
      if (!ops.empty()) return Cat(op.name(), " ", Print(ops[0]));
      break;
    case OpFamily::kValue:
      if (op.kind == OpKind::kExtract && !ops.empty()) return Cat(op.name(), " ", Print(ops[0]));
      if (op.kind == OpKind::kInsert && ops.size() > 1) return Cat(op.name(), " ", Print(ops[1]));
      break;
    default:
      break;
  }
  return std::string(op.name());
}

}  // namespace

std::optional<int64_t> LoadLaneOffset(const Value* v) {
  int64_t offset = 0;
  while (v != nullptr && v->type.is_vector() && v->type.rank() == 1 && v->def != nullptr) {
    const Op& def = *v->def;
    if (def.kind == OpKind::kGet) return offset;
    if (def.kind != OpKind::kSlice) return std::nullopt;
    const Operand& in = def.operands[0];
    if (!in.index.empty()) offset += in.index[0].lo.value_or(0);
    v = in.value;
  }
  return std::nullopt;
}

std::string UseText(const Op& op, const Operand& value, Use use) {
  return Cat(UseName(use), " of ", OpText(op), " is unwritten: ", Print(value));
}

namespace {

// The values an indexer of a ref uses.
void IndexerUses(const Operand& ref, const std::function<void(const Operand&, Use)>& f) {
  if (!ref.indexed) return;
  for (const IndexEntry& e : ref.index) {
    switch (e.kind) {
      case IndexEntry::Kind::kIndex:
        f(e.start, Use::kIndex);
        break;
      case IndexEntry::Kind::kSlice:
        f(e.start, Use::kSliceStart);
        f(e.size, Use::kSliceSize);
        break;
      case IndexEntry::Kind::kIndirect:
        if (!e.start.type().is_memory()) f(e.start, Use::kIndexList);
        if (e.ignore) f(*e.ignore, Use::kIndexList);
        break;
      case IndexEntry::Kind::kRange:
      case IndexEntry::Kind::kAll:
        break;
    }
  }
}

void AttrUse(const Op& op, std::string_view name, Use use, const std::function<void(const Operand&, Use)>& f) {
  if (const Attribute* a = op.FindAttr(name); a != nullptr && a->value.kind == AttrValue::Kind::kOperand) {
    f(a->value.operand, use);
  }
}

void DeviceUses(const Op& op, const KernelDef& k, const std::function<void(const Operand&, Use)>& f) {
  DeviceTarget t = DeviceTargetOf(op, k);
  if (t.logical != nullptr) f(*t.logical, Use::kDevice);
  for (const Operand* c : t.coords) {
    if (c != nullptr) f(*c, Use::kDevice);
  }
}

}  // namespace

void ForEachUse(const Op& op, const KernelDef& k, const std::function<void(const Operand&, Use)>& each) {
  // Only values: literals are written, refs are not values.
  auto f = [&](const Operand& o, Use use) {
    if (o.is_value() && o.value != nullptr && !o.value->type.is_memory()) each(o, use);
  };
  const auto& ops = op.operands;
  switch (op.info().family) {
    case OpFamily::kMemory:
      IndexerUses(ops[0], f);
      if (op.mask) f(*op.mask, Use::kMask);
      if (op.kind == OpKind::kFetchAndAdd) {
        f(ops[1], Use::kCount);
        AttrUse(op, "subcore", Use::kSubcore, f);
      }
      break;
    case OpFamily::kGatherScatter:
      IndexerUses(ops[0], f);
      if (op.mask) f(*op.mask, Use::kMask);
      for (const Operand& iv : op.index_vectors) f(iv, Use::kLaneIndex);
      break;
    case OpFamily::kDma:
      for (const Operand& o : ops) IndexerUses(o, f);
      DeviceUses(op, k, f);
      break;
    case OpFamily::kSemaphore:
      IndexerUses(ops[0], f);
      if (op.kind != OpKind::kSemRead && ops.size() > 1) f(ops[1], Use::kCount);
      AttrUse(op, "core", Use::kCore, f);
      AttrUse(op, "subcore", Use::kSubcore, f);
      DeviceUses(op, k, f);
      break;
    case OpFamily::kSync:
      if (op.kind == OpKind::kDebugCheck) f(ops[0], Use::kCheck);
      if (op.kind == OpKind::kDebugPrint && !ops.empty()) IndexerUses(ops[0], f);
      break;
    case OpFamily::kView:
      IndexerUses(ops[0], f);
      break;
    case OpFamily::kRefChoice:
      f(ops[0], Use::kChoice);
      break;
    case OpFamily::kValue:
      if (op.kind == OpKind::kExtract || op.kind == OpKind::kInsert) {
        for (const IndexEntry& e : ops[op.kind == OpKind::kExtract ? 0 : 1].index) f(e.start, Use::kIndex);
      }
      break;
    case OpFamily::kControl:
      if (op.kind == OpKind::kIf) f(ops[0], Use::kCondition);
      if (op.kind == OpKind::kFor || op.kind == OpKind::kParallelFor) {
        f(ops[0], Use::kLowerBound);
        f(ops[1], Use::kUpperBound);
        f(ops[2], Use::kStep);
      }
      if (op.kind == OpKind::kPipeline && op.pipeline != nullptr) {
        for (const Operand& g : op.pipeline->grid) f(g, Use::kGridSize);
        for (const PipelineOperand& p : op.pipeline->operands) IndexerUses(p.ref, f);
      }
      break;
    default:
      break;
  }
}

}  // namespace scjit
