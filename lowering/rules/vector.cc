// SC rules: IOTA, GS, BC, PK, UP, SCAN, CUM, RED, SORT, REV, MR, EL (sc-errors.md).
#include "lowering/rules/rule.h"

namespace scjit::rules {

const std::vector<OpRule>& VectorRules() {
  static const std::vector<OpRule> kRules = {};
  return kRules;
}

}  // namespace scjit::rules
