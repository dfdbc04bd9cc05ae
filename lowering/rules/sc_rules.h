// The SC rules: what Mosaic's SparseCore lowering refuses, with Pallas' exact
// exception types and messages (sc-rules.md, sc-errors.md).
//
// One table (sc_rules.cc, kRules) lists every implemented rule in the catalog's
// check order: for each op, the trace-time checks of the Pallas primitive first,
// then those of its lowering rule. The first rule an op fails is reported, with
// the location of the operand at fault, a note with the actual values and a fix;
// every op of every kernel is checked, so all errors of a file are reported.
//
// Runs on verified modules only (operand types, literal types and ref views are
// known).
#ifndef SCJIT_LOWERING_RULES_SC_RULES_H_
#define SCJIT_LOWERING_RULES_SC_RULES_H_

#include <vector>

#include "lowering/base/diagnostic.h"
#include "lowering/base/jax_release.h"
#include "lowering/ir/ir.h"
#include "lowering/base/target.h"

namespace scjit {

// `jax`: the release whose words the diagnostics use (lowering/base/jax_release.h).
void CheckScRules(const Module& module, TargetId target, DiagnosticSink& sink, JaxRelease jax = kCatalogJax);

// The first JAX release whose Pallas lowers `op` on SparseCore (sqrt from
// 0.11.0, round from 0.11.2, ...; the oldest for every other op): earlier ones
// reject it as GEN-1.
JaxRelease SparseCoreRuleSince(OpKind op);

// The catalog codes the rule table implements, in table order, each with the
// test file that checks its exact texts (for tests and docs).
struct ImplementedRule {
  DiagId id;
  std::string_view tests;
};
std::vector<ImplementedRule> ImplementedRules();

// The catalog IDs no .scir kernel can trigger, with the reason
// (SCJIT_NOT_EXPRESSIBLE rows of the rule groups' .def files).
struct NotExpressible {
  std::string_view code;
  std::string_view reason;
};
std::vector<NotExpressible> NotExpressibleRules();

}  // namespace scjit

#endif  // SCJIT_LOWERING_RULES_SC_RULES_H_
