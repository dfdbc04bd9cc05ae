#include "lowering/rules/sc_rules.h"

#include <algorithm>
#include <string>

#include "lowering/rules/rule.h"
#include "lowering/rules/uses.h"

namespace scjit {
namespace {

using rules::OpRule;

// The op rule tables in the order they are consulted: GEN-1 (no lowering rule
// for the op at all) before anything else, then the groups, which apply to
// disjoint ops except where their tables say so.
// The op rule groups in the order they are consulted, with their tests.
struct Group {
  const std::vector<OpRule>* rules;
  std::string_view tests;
};
const Group kOpGroups[] = {
    {&rules::ControlRules(), "tests/rules_control_test.cc"},
    {&rules::GetSwapRules(), "tests/sc_rules_test.cc"},
    {&rules::DmaSyncRules(), "tests/rules_dma_sync_test.cc"},
    {&rules::VectorRules(), "tests/rules_vector_test.cc"},
};
constexpr std::string_view kKernelRuleTests = "tests/rules_control_test.cc";

bool Applies(const OpRule& r, OpKind k) {
  if (r.ops.empty()) return true;
  for (OpKind o : r.ops) {
    if (o == k) return true;
  }
  return false;
}

void Report(const Module& module, const rules::Violation& v, Location fallback, JaxRelease jax,
            DiagnosticSink& sink) {
  Diagnostic d = MakeDiagnostic(v.id, module.source.get(), v.loc.valid() ? v.loc : fallback, {});
  d.exception = std::string(ExceptionFor(v.id, jax));
  // Substitute one argument at a time (FormatTemplate takes an initializer_list).
  std::string message(MessageFor(v.id, jax));
  for (const auto& [name, value] : v.args) message = FormatTemplate(message, {DiagArg{name, value}});
  d.message = std::move(message);
  if (!v.note.empty()) d.notes.push_back(v.note);
  if (!v.help.empty()) d.help = v.help;
  sink.Report(std::move(d));
}

// The rules of one part of a kernel, by its own mesh.
void CheckPart(const Module& module, const KernelDef& kernel, const TargetInfo& t, JaxRelease jax,
               DiagnosticSink& sink) {
  for (const rules::KernelRule& rule : rules::KernelRules()) {
    for (const rules::Violation& v : rule.check(kernel, t)) Report(module, v, kernel.loc, jax, sink);
  }
  rules::PartUses uses(kernel);
  WalkOps(kernel.body, [&](const Op& op) {
    rules::Ctx c{kernel, t, op, uses, jax};
    for (const Group& group : kOpGroups) {
      for (const OpRule& rule : *group.rules) {
        if (!Applies(rule, op.kind) || !RuleIn(rule.id, jax)) continue;
        if (std::optional<rules::Violation> v = rule.check(c)) {
          Report(module, *v, op.loc, jax, sink);
          return;  // the first failure wins
        }
      }
    }
  });
}

}  // namespace

void CheckScRules(const Module& module, TargetId target, DiagnosticSink& sink, JaxRelease jax) {
  const TargetInfo& t = Info(target);
  for (const auto& whole : module.kernels) {
    for (const KernelDef* kernel : whole->Parts()) CheckPart(module, *kernel, t, jax, sink);
  }
}

std::vector<ImplementedRule> ImplementedRules() {
  std::vector<ImplementedRule> out;
  auto add = [&](DiagId id, std::string_view tests) {
    if (!RuleIn(id, kCatalogJax)) tests = "tests/jax_release_test.cc";  // a later JAX's rule
    auto same = [id](const ImplementedRule& r) { return r.id == id; };
    if (std::find_if(out.begin(), out.end(), same) == out.end()) out.push_back({id, tests});
  };
  for (const Group& group : kOpGroups) {
    for (const OpRule& r : *group.rules) {
      add(r.id, group.tests);
      for (DiagId id : r.also) add(id, group.tests);
    }
  }
  for (const rules::KernelRule& r : rules::KernelRules()) {
    add(r.id, kKernelRuleTests);
    for (DiagId id : r.also) add(id, kKernelRuleTests);
  }
  return out;
}

std::vector<NotExpressible> NotExpressibleRules() {
  return {
#define SCJIT_NOT_EXPRESSIBLE(code, reason) NotExpressible{code, reason},
#include "lowering/base/diagnostics.def"
  };
}

}  // namespace scjit
