// The uses of the values of one kernel part, for the rules that follow a ref
// through the views and select_refs made of it (dma_sync.cc's XF-9 and GEN-3).
#ifndef SCJIT_LOWERING_RULES_USES_H_
#define SCJIT_LOWERING_RULES_USES_H_

#include <functional>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lowering/ir/ir.h"

namespace scjit::rules {

// How an op uses a value: as a DMA's source or destination, as its semaphore,
// as the ref a view or select_ref is made of (its result carries the value on),
// or otherwise.
enum class UseKind { kDmaData, kDmaSem, kTransparent, kOther };

struct Use {
  const Op* op;
  UseKind kind;
};

bool IsDma(OpKind k);
bool IsViewOp(OpKind k);

// Every use of every value of a kernel part, in the order the ops are walked,
// found by one walk of the part on the first question (CheckPart makes one per
// part), so rules that ask about every op's result cost one walk, not one per op.
class PartUses {
 public:
  explicit PartUses(const KernelDef& kernel) : kernel_(kernel) {}

  // The uses of `v`: per op, the uses in its operands' indexers and by the
  // operands themselves in operand order, then any other use (at most one).
  const std::vector<Use>& Of(const Value* v);

  // The first use of `v`, following transparent uses at most 64 deep, that `ok`
  // rejects; null if none. Each value is explored once per depth at most.
  const Op* FirstBadUse(const Value* v, const std::function<bool(UseKind)>& ok);

 private:
  void Build();
  void AddUses(const Op& op);
  const Op* FirstBadUse(const Value* v, const std::function<bool(UseKind)>& ok, int depth,
                        absl::flat_hash_map<const Value*, int>& explored);

  const KernelDef& kernel_;
  bool built_ = false;
  absl::flat_hash_map<const Value*, std::vector<Use>> uses_;
};

}  // namespace scjit::rules

#endif  // SCJIT_LOWERING_RULES_USES_H_
