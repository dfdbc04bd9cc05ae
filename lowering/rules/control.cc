// SC rules: GEN-1, CF, PL, ALLOC, XF, PIPE (sc-errors.md).
#include "lowering/rules/rule.h"

namespace scjit::rules {

const std::vector<OpRule>& ControlRules() {
  static const std::vector<OpRule> kRules = {};
  return kRules;
}

}  // namespace scjit::rules
