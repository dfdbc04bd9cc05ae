#include "lowering/sc_rules.h"

#include <algorithm>
#include <string>

#include "lowering/rules/rule.h"

namespace scjit {
namespace {

using rules::OpRule;

// The op rule tables in the order they are consulted: GEN-1 (no lowering rule
// for the op at all) before anything else, then the groups, which apply to
// disjoint ops except where their tables say so.
const std::vector<OpRule>* const kOpGroups[] = {
    &rules::ControlRules(),
    &rules::GetSwapRules(),
    &rules::DmaSyncRules(),
    &rules::VectorRules(),
};

bool Applies(const OpRule& r, OpKind k) {
  if (r.ops.empty()) return true;
  for (OpKind o : r.ops) {
    if (o == k) return true;
  }
  return false;
}

void Report(const Module& module, const rules::Violation& v, Location fallback, DiagnosticSink& sink) {
  Diagnostic d = MakeDiagnostic(v.id, module.source.get(), v.loc.valid() ? v.loc : fallback, {});
  // Substitute one argument at a time (FormatTemplate takes an initializer_list).
  std::string message(Info(v.id).message);
  for (const auto& [name, value] : v.args) message = FormatTemplate(message, {DiagArg{name, value}});
  d.message = std::move(message);
  if (!v.note.empty()) d.notes.push_back(v.note);
  if (!v.help.empty()) d.help = v.help;
  sink.Report(std::move(d));
}

}  // namespace

void CheckScRules(const Module& module, TargetId target, DiagnosticSink& sink) {
  const TargetInfo& t = Info(target);
  for (const auto& kernel : module.kernels) {
    for (const rules::KernelRule& rule : rules::KernelRules()) {
      for (const rules::Violation& v : rule.check(*kernel, t)) Report(module, v, kernel->loc, sink);
    }
    WalkOps(kernel->body, [&](const Op& op) {
      rules::Ctx c{*kernel, t, op};
      for (const std::vector<OpRule>* group : kOpGroups) {
        for (const OpRule& rule : *group) {
          if (!Applies(rule, op.kind)) continue;
          if (std::optional<rules::Violation> v = rule.check(c)) {
            Report(module, *v, op.loc, sink);
            return;  // the first failure wins
          }
        }
      }
    });
  }
}

std::vector<DiagId> ImplementedRules() {
  std::vector<DiagId> out;
  auto add = [&](DiagId id) {
    if (std::find(out.begin(), out.end(), id) == out.end()) out.push_back(id);
  };
  for (const std::vector<OpRule>* group : kOpGroups) {
    for (const OpRule& r : *group) {
      add(r.id);
      for (DiagId id : r.also) add(id);
    }
  }
  for (const rules::KernelRule& r : rules::KernelRules()) {
    add(r.id);
    for (DiagId id : r.also) add(id);
  }
  return out;
}

std::vector<NotExpressible> NotExpressibleRules() {
  return {
#define SCJIT_NOT_EXPRESSIBLE(code, reason) NotExpressible{code, reason},
#include "lowering/diagnostics.def"
  };
}

}  // namespace scjit
