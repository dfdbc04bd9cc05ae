#include "lowering/analysis/indirect_views.h"

#include <vector>

#include "lowering/base/dtype.h"

namespace scjit {

std::optional<std::string> IndirectViewLimit(const Value* v) {
  // The reinterpreting ops from the ref the view starts at, outermost first.
  std::vector<const Op*> chain;
  for (const Value* at = v; at->def != nullptr && at->def->kind != OpKind::kAlloc; at = at->def->operands[0].value) {
    chain.insert(chain.begin(), at->def);
    if (at->def->kind == OpKind::kSelectRef) break;  // its first operand is the choice
  }
  bool reinterprets = false;
  for (const Op* op : chain) {
    reinterprets |= op->kind == OpKind::kViewBitcast || op->kind == OpKind::kViewReshape;
  }
  if (!reinterprets) return std::nullopt;  // plain views: the indirect DMAs' own case
  const char* kForms = " (indirect DMAs move rows through view_reshapes of a whole ref and one view_bitcast to "
                       "an element as wide or wider)";
  bool bitcast_seen = false;
  for (const Op* op : chain) {
    const Operand& from = op->operands[0];
    switch (op->kind) {
      case OpKind::kViewReshape:
        if (bitcast_seen) return std::string("an indirect DMA through a view_reshape of a view_bitcast") + kForms;
        break;
      case OpKind::kViewBitcast:
        if (bitcast_seen) return std::string("an indirect DMA through two view_bitcasts") + kForms;
        if (ByteWidth(op->results[0]->type.element()) < ByteWidth(from.value->type.element())) {
          return std::string("an indirect DMA through a view_bitcast to a narrower element") + kForms;
        }
        bitcast_seen = true;
        break;
      default:
        return "an indirect DMA through a " + std::string(op->name()) + " and a view_bitcast or view_reshape" + kForms;
    }
    if (from.indexed) return std::string("an indirect DMA through a view_bitcast or view_reshape of an indexed ref") + kForms;
  }
  return std::nullopt;
}

}  // namespace scjit
