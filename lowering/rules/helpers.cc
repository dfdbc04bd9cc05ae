// Helpers shared by the SC rule groups.
#include <algorithm>
#include <cctype>

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

// --- MLIR renderings (for GEN-3, Mosaic's verifier messages) ---------------------------

// Pallas lowers every integer to a signless MLIR integer (_dtype_to_ir_type).
std::string MlirElement(ElementType e) {
  if (IsFloat(e)) {
    std::string name(IrName(e));
    // MLIR spells 8-bit floats with capitals: f8E5M2, f8E4M3FN.
    if (name.starts_with("f8")) std::transform(name.begin() + 2, name.end(), name.begin() + 2, ::toupper);
    return name;
  }
  if (IsBool(e)) return "i1";
  return Cat("i", ValueBits(e));  // i4 for int4, as in Mosaic
}

std::string MlirDims(const Shape& s) {
  std::string out;
  for (int64_t d : s) Append(&out, d == kDynamic ? std::string("?") : Cat(d), "x");
  return out;
}

// `memref<16x128xi32, #tpu.memory_space<hbm>>`, `memref<!tpu.dma_semaphore, ...>`;
// `vector<16xi32>`, `i32` for values.
std::string MlirType(const Type& t) {
  if (t.is_semaphore()) {
    return Cat("memref<", MlirDims(t.shape()),
               t.semaphore_kind() == SemaphoreKind::kDma ? "!tpu.dma_semaphore" : "!tpu.semaphore",
               ", #tpu.memory_space<semaphore_mem>>");
  }
  if (t.is_ref()) {
    return Cat("memref<", MlirDims(t.shape()), MlirElement(t.element()), ", #tpu.memory_space<", SpaceName(t.space()),
               ">>");
  }
  if (t.is_vector()) return Cat("vector<", MlirDims(t.shape()), MlirElement(t.element()), ">");
  return MlirElement(t.element());
}

std::string MlirShape(const Shape& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) Append(&out, i ? ", " : "", s[i] == kDynamic ? std::string(kMlirDynamic) : Cat(s[i]));
  return out;
}

// A GEN-3 violation: Mosaic's verifier message for `mlir_op`.
Violation Gen3(Location loc, std::string_view mlir_op, std::string message, std::string note, std::string help) {
  return Violation{DiagId::kGen3,
                   loc,
                   {{R"(diagnostic message + "\n " + notes)", Cat("'", mlir_op, "' op ", message)}},
                   Cat(note, " (MLIR's `see current operation` note is not reproduced)"),
                   std::move(help)};
}

// An ODS operand type-constraint failure, as mlir-tblgen words it.
std::string OperandMustBe(int index, std::string_view summary, const Type& got) {
  return Cat("operand #", index, " must be ", summary, ", but got '", MlirType(got), "'");
}

}  // namespace scjit::rules
