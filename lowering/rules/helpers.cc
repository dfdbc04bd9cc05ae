// Helpers shared by the SC rule groups.
#include "lowering/ir/printer.h"
#include "lowering/rules/rule.h"
#include "lowering/base/strings.h"

namespace scjit::rules {

std::string SpaceRepr(const Type& t) {
  if (t.is_semaphore()) return "SEMAPHORE";
  return std::string(scjit::SpaceRepr(t.space()));
}

std::string PyTuple(const std::vector<std::string>& items) {
  std::string out = "(";
  for (size_t i = 0; i < items.size(); ++i) Append(&out, i ? ", " : "", items[i]);
  if (items.size() == 1) out += ",";
  return out + ")";
}

std::string Described(const Operand& o) { return Cat(Print(o), " : ", o.view.ToString()); }

std::string Dtype(ElementType e) { return std::string(NumpyName(e)); }

std::string Aval(const Type& t) {
  std::string out = Cat(NumpyName(t.element()), "[");
  for (int d = 0; d < t.rank(); ++d) Append(&out, d ? "," : "", t.shape()[d]);
  return out + "]";
}

std::string KernelType(const KernelDef& k) {
  return k.mesh.kind == MeshKind::kScalar ? "sc_scalar_subcore" : "sc_vector_subcore";
}

int64_t MeshCores(const KernelDef& k, const TargetInfo& target) { return k.mesh.cores.value_or(target.cores); }

int64_t MeshSubcores(const KernelDef& k, const TargetInfo& target) {
  return k.mesh.kind == MeshKind::kScalar ? 1 : k.mesh.subcores.value_or(target.subcores);
}

std::string MeshText(const KernelDef& k, const TargetInfo& target) {
  if (k.mesh.kind == MeshKind::kScalar) return Cat("mesh scalar(cores = ", MeshCores(k, target), ")");
  return Cat("mesh vector(cores = ", MeshCores(k, target), ", subcores = ", MeshSubcores(k, target), ")");
}

}  // namespace scjit::rules
