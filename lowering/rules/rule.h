// The framework of the SC rules (lowering/rules/sc_rules.h): what a rule sees, what
// it reports, the rule tables of each group, and helpers shared by the groups.
//
// A rule is a row {catalog ID, the ops it applies to, a check}. Each group of
// the catalog has its own table in lowering/rules/<group>.cc (with its catalog
// rows in lowering/base/diagnostics/<group>.def); CheckScRules consults the tables in the
// order of kOpGroups (sc_rules.cc) and, within a table, row by row: that order
// must be the catalog's check order for each op (trace-time checks of the
// Pallas primitive first, then its lowering rule's). The first failing rule of
// an op is reported; kernel-level rules (mesh, memory) run once per kernel.
#ifndef SCJIT_LOWERING_RULES_RULE_H_
#define SCJIT_LOWERING_RULES_RULE_H_

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lowering/base/diagnostic.h"
#include "lowering/base/jax_release.h"
#include "lowering/ir/ir.h"
#include "lowering/base/target.h"

namespace scjit::rules {

class PartUses;  // uses.h

// What an op rule sees: the op, its kernel and the target, the uses of the
// kernel part's values (found once per part), and the JAX release whose
// lowering the rules answer for (a rule some releases lack is not consulted for
// them: jax_messages.def's SCJIT_JAX_RULE rows).
struct Ctx {
  const KernelDef& kernel;
  const TargetInfo& target;
  const Op& op;
  PartUses& uses;
  JaxRelease jax = kCatalogJax;
};

// A failed rule: its code (a check may fail with a sibling code, as SHAPE-1's
// does with SHAPE-2), the location at fault (an operand, or the op), the
// catalog template's arguments by placeholder text (`ref_memory_space!r`), and
// scjit's own note (the actual values) and fix ("" keeps the catalog's help).
struct Violation {
  DiagId id;
  Location loc;
  std::vector<std::pair<std::string, std::string>> args;
  std::string note;
  std::string help;
};

using OpCheck = std::optional<Violation> (*)(const Ctx&);

struct OpRule {
  DiagId id;
  std::vector<OpKind> ops;  // empty: every op
  OpCheck check;
  std::vector<DiagId> also = {};  // sibling codes the check may report instead
};

// Kernel-level rules (mesh sizes, memory spaces of the mesh, capacities) may
// report several violations.
using KernelCheck = std::vector<Violation> (*)(const KernelDef& kernel, const TargetInfo& target);

struct KernelRule {
  DiagId id;
  KernelCheck check;
  std::vector<DiagId> also = {};  // sibling codes the check may report instead
};

// The groups' tables.
const std::vector<OpRule>& ControlRules();  // GEN-1 (first of all), CF, PL, ALLOC, PIPE
const std::vector<OpRule>& GetSwapRules();  // GET, SWAP, SHAPE
const std::vector<OpRule>& DmaSyncRules();  // DMA, DEV-3, SEM, FAA, DBG, XF (ref views), GEN-3 of these ops
const std::vector<OpRule>& VectorRules();   // IOTA, GS, BC, PK, UP, SCAN, CUM, RED, SORT, REV, MR, EL
const std::vector<KernelRule>& KernelRules();  // MESH, memory capacity

// --- Helpers shared by the groups --------------------------------------------------

// A memory space as Pallas' repr() prints it (`HBM`, `VMEM_SHARED`, `SEMAPHORE`).
std::string SpaceRepr(const Type& t);
// `%ref[...] : vmem<16xi32>` (the operand as written and its view type).
std::string Described(const Operand& o);
// A dtype as JAX names it (`int32`, `bfloat16`, `bool`).
std::string Dtype(ElementType e);
// A Python tuple of already rendered items: `()`, `(16,)`, `(2, 8)`.
std::string PyTuple(const std::vector<std::string>& items);
// An aval as JAX prints it: `int32[16]`, `float32[2,8]`, `int32[]`.
std::string Aval(const Type& t);
// "Pallas' kernel type": `sc_vector_subcore` or `sc_scalar_subcore`.
std::string KernelType(const KernelDef& k);

// The mesh as it runs on `target`: cores (written or the target's), vector
// subcores per core (1 on a scalar mesh), and scjit's spelling of it with the
// sizes filled in: `mesh vector(cores = 2, subcores = 16)`, `mesh scalar(cores = 2)`.
int64_t MeshCores(const KernelDef& k, const TargetInfo& target);
int64_t MeshSubcores(const KernelDef& k, const TargetInfo& target);
std::string MeshText(const KernelDef& k, const TargetInfo& target);

// --- MLIR renderings (GEN-3: Mosaic's verifier messages) -----------------------------

// Mosaic's static size of a dynamic dimension (ShapedType::kDynamic), as MLIR
// shapes print it from Python.
inline constexpr std::string_view kMlirDynamic = "-9223372036854775808";

// An element type as Pallas lowers it (signless integers: `i32`; `i1`; `bf16`).
std::string MlirElement(ElementType e);
// `16x128x` (the dims of a shaped MLIR type, each followed by `x`).
std::string MlirDims(const Shape& s);
// `memref<16x128xi32, #tpu.memory_space<hbm>>`, `vector<16xi32>`, `i32`.
std::string MlirType(const Type& t);
// `16, ?` (a shape as MLIR attributes print it).
std::string MlirShape(const Shape& s);
// A GEN-3 violation: Mosaic's verifier message `message` for `mlir_op`.
Violation Gen3(Location loc, std::string_view mlir_op, std::string message, std::string note, std::string help = "");
// An ODS operand type-constraint failure, as mlir-tblgen words it.
std::string OperandMustBe(int index, std::string_view summary, const Type& got);

}  // namespace scjit::rules

#endif  // SCJIT_LOWERING_RULES_RULE_H_
