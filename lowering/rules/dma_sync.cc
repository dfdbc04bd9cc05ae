// SC rules: DMA, SEM, FAA, DBG (sc-errors.md).
#include "lowering/rules/rule.h"

namespace scjit::rules {

const std::vector<OpRule>& DmaSyncRules() {
  static const std::vector<OpRule> kRules = {};
  return kRules;
}

}  // namespace scjit::rules
