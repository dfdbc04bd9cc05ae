// SC rules checked once per kernel: MESH (sc-errors.md §2), memory capacity.
#include "lowering/rules/rule.h"

namespace scjit::rules {

const std::vector<KernelRule>& KernelRules() {
  static const std::vector<KernelRule> kRules = {};
  return kRules;
}

}  // namespace scjit::rules
