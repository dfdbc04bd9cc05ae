// scjit-docs: prints the reference pages generated from the tables, so that the
// docs cannot drift from the code (tests/docs_test.cc compares them).
//
//   scjit-docs ops     > docs/ops.md          (from lowering/ir/ops.def, attrs.def)
//   scjit-docs codes   > docs/diagnostics.md  (from lowering/base/diagnostics.def)
//   scjit-docs rules   > docs/sc-rules.md     (from the SC rule tables)
//   scjit-docs targets > docs/targets.md      (from lowering/base/target.def)
#include <algorithm>
#include <iostream>
#include <vector>
#include <string>

#include "lowering/base/diagnostic.h"
#include "lowering/base/dtype.h"
#include "lowering/base/target.h"
#include "lowering/ir/ir.h"
#include "lowering/rules/sc_rules.h"
#include "lowering/base/strings.h"

namespace scjit {
namespace {

std::string_view SyntaxName(Syntax s) {
  switch (s) {
    case Syntax::kGeneric: return "operands";
    case Syntax::kConst: return "const";
    case Syntax::kCmp: return "cmp";
    case Syntax::kAxis: return "axis";
    case Syntax::kDma: return "dma";
    case Syntax::kPrint: return "print";
    case Syntax::kCheck: return "check";
    case Syntax::kAlloc: return "alloc";
    case Syntax::kFor: return "region";
    case Syntax::kIf: return "region";
    case Syntax::kWhile: return "region";
    case Syntax::kScoped: return "region";
    case Syntax::kPipeline: return "region";
  }
  return "";
}

std::string_view FamilyName(OpFamily f) {
  switch (f) {
    case OpFamily::kElementwise: return "elementwise";
    case OpFamily::kValue: return "value";
    case OpFamily::kReduction: return "reduction";
    case OpFamily::kScan: return "scan";
    case OpFamily::kMaskReduction: return "mask reduction";
    case OpFamily::kPermute: return "permute";
    case OpFamily::kGrid: return "grid";
    case OpFamily::kView: return "view";
    case OpFamily::kRefChoice: return "ref choice";
    case OpFamily::kMemory: return "memory";
    case OpFamily::kGatherScatter: return "gather/scatter";
    case OpFamily::kDma: return "dma";
    case OpFamily::kSemaphore: return "semaphore";
    case OpFamily::kSync: return "sync";
    case OpFamily::kControl: return "control";
  }
  return "";
}

std::string Count(int lo, int hi) {
  if (lo == hi) return Cat(lo);
  if (hi < 0) return Cat(lo, "+");
  return Cat(lo, "-", hi);
}

// Markdown table cells may not hold '|'.
std::string Cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

// How each op is written, what it takes and the Pallas call it mirrors
// (op_docs.def).
struct OpDoc {
  std::string_view example, pallas, types;
};

std::vector<OpDoc> OpDocs() {
  std::vector<OpDoc> docs(NumOpKinds());
#define SCJIT_OP_DOC(Enum, example, pallas, types) \
  docs[static_cast<size_t>(OpKind::Enum)] = OpDoc{example, pallas, types};
#include "lowering/ir/op_docs.def"
  return docs;
}

// One table per family: each op, how it is written, its operands and result, and
// what it mirrors in Pallas.
bool PrintOpExamples() {
  std::vector<OpDoc> docs = OpDocs();
  std::cout << "\n## Each op, written out\n\n"
               "Every example below parses and verifies as written (tests/op_docs_test.cc runs them)\n"
               "against these names: `%v %w %idx: vector<16xi32>`, `%a %b: vector<16xf32>`, `%m:\n"
               "vector<16xi1>`, `%i %n: i32`, `%c: i1`; refs `%ref %buf: vmem<16xi32>`, `%tab:\n"
               "vmem<64x16xi32>`, `%smem: smem<16xi32>`, `%x %o: hbm<64x16xi32>`; semaphores `%sem:\n"
               "dma_sem`, `%rsem: sem`. Ops separated by `;` may also be written on separate lines.\n"
               "\n"
               "\"Operands and result\" says what each operand must be, in order, and the type of the\n"
               "result (L is the target's lane count); the codes in parentheses are the SC rules\n"
               "that reject the rest, with Pallas' messages ([sc-rules.md](sc-rules.md)).\n";
  for (int f = 0; f <= static_cast<int>(OpFamily::kControl); ++f) {
    std::cout << "\n### " << FamilyName(static_cast<OpFamily>(f))
              << "\n\n| op | written as | operands and result | Pallas |\n|---|---|---|---|\n";
    for (size_t k = 0; k < NumOpKinds(); ++k) {
      const OpInfo& info = Info(static_cast<OpKind>(k));
      if (static_cast<int>(info.family) != f) continue;
      if (docs[k].example.empty()) {
        std::cerr << "scjit-docs: op '" << info.name << "' has no row in lowering/ir/op_docs.def\n";
        return false;
      }
      if (docs[k].types.empty()) {
        std::cerr << "scjit-docs: op '" << info.name << "' has no operand types in lowering/ir/op_docs.def\n";
        return false;
      }
      std::cout << "| `" << info.name << "` | `" << Cell(docs[k].example) << "` | " << Cell(docs[k].types) << " | `"
                << Cell(docs[k].pallas) << "` |\n";
    }
  }
  return true;
}

void PrintOps() {
  std::cout << "# Op reference\n\n"
               "Generated from `lowering/ir/ops.def`, `op_docs.def` and `attrs.def` by `scjit-docs ops`;\n"
               "do not edit by hand. [language.md](language.md) describes the language and\n"
               "[pallas.md](pallas.md) maps Pallas' idioms to it.\n\n"
               "Family: the ops the verifier and the emitter handle together (ops.def documents\n"
               "each). Form: `operands` = `%r = op items ⟨mask %m⟩ ⟨{attrs}⟩ : types`; the others are\n"
               "the special forms (`const`, `cmp`, `axis`, `dma`, `print`,\n"
               "`alloc`, and the region ops). Flags: V = vector subcore only in Pallas, TC =\n"
               "TensorCore only in Pallas (rejected with GEN-1), M = takes `mask %m`, I = takes\n"
               "index vectors `[%i0, ...]`, JAX x.y.z = Pallas lowers it on SparseCore from that\n"
               "release on (GEN-1 before; `jit-run --jax`, docs/jax.md).\n\n"
               "| op | family | form | operands | results | flags | attributes | what it does |\n"
               "|---|---|---|---|---|---|---|---|\n";
  for (size_t k = 0; k < NumOpKinds(); ++k) {
    const OpInfo& info = Info(static_cast<OpKind>(k));
    std::string flags;
    if (info.has(kVectorOnly)) Append(&flags, flags.empty() ? "" : " ", "V");
    if (info.has(kTcOnly)) Append(&flags, flags.empty() ? "" : " ", "TC");
    if (info.has(kHasMask)) Append(&flags, flags.empty() ? "" : " ", "M");
    if (info.has(kIndexVectors)) Append(&flags, flags.empty() ? "" : " ", "I");
    JaxRelease since = SparseCoreRuleSince(static_cast<OpKind>(k));
    if (kOldestJax < since) Append(&flags, flags.empty() ? "" : " ", "JAX ", since.ToString());
    bool counted = info.syntax != Syntax::kFor && info.syntax != Syntax::kIf && info.syntax != Syntax::kWhile &&
                   info.syntax != Syntax::kPipeline;
    std::cout << "| `" << info.name << "` | " << FamilyName(info.family) << " | " << SyntaxName(info.syntax) << " | "
              << (counted ? Count(info.min_operands, info.max_operands) : std::string("-")) << " | "
              << (info.min_results >= 0 ? Count(info.min_results, info.max_results) : std::string("carried")) << " | "
              << flags << " | " << Cell(info.attrs) << " | " << Cell(info.summary) << " |\n";
  }
  std::cout << "\n## Attributes\n\n| attribute | value | where | meaning |\n|---|---|---|---|\n";
  for (const AttrInfo& info : AllAttrs()) {
    const AttrInfo* a = &info;
    std::string_view kind;
    switch (a->kind) {
      case AttrKind::kInt: kind = "integer"; break;
      case AttrKind::kBool: kind = "true/false"; break;
      case AttrKind::kString: kind = "string"; break;
      case AttrKind::kI32: kind = "i32 value or literal"; break;
      case AttrKind::kIntList: kind = "list of integers"; break;
      case AttrKind::kDeviceId: kind = "i32 value or literal, or a list of them"; break;
    }
    std::cout << "| `" << a->name << "` | " << kind << " | " << (a->where == AttrWhere::kOp ? "ops" : "kernel")
              << " | " << Cell(a->summary) << " |\n";
  }
}

void PrintCodes() {
  std::cout << "# Diagnostic codes\n\n"
               "Generated from `lowering/base/diagnostics.def` by `scjit-docs codes`; do not edit by\n"
               "hand. `jit-run --explain CODE` prints the long explanation of each, with a\n"
               "failing kernel and its fix where the code is about a kernel.\n\n"
               "| code | exception | about | message |\n|---|---|---|---|\n";
  for (const DiagInfo& d : AllDiagnostics()) {
    std::cout << "| `" << d.code << "` | " << (d.exception.empty() ? "-" : std::string(d.exception)) << " | "
              << Cell(d.title) << " | `" << Cell(d.message) << "` |\n";
  }
}

// The catalog's sections, in sc-errors.md order.
constexpr std::string_view kFamilies[] = {"AV",   "MESH", "GEN", "XF",  "SHAPE", "GET", "SWAP", "IOTA",
                                          "DMA",  "DEV",  "GS",  "BC",  "PK",    "UP",  "SCAN", "CUM",
                                          "RED",  "SORT", "REV", "PL",  "MR",    "FAA", "DBG",  "SEM",
                                          "ALLOC", "CF",  "EL",  "PIPE", "ST",   "RT",  "HN"};

// (family position, number) of a catalog ID such as "DMA-12".
std::pair<int, int> CatalogOrder(std::string_view code) {
  size_t dash = code.find('-');  // MESH-VMEM-SHARED is of family MESH
  std::string_view family = code.substr(0, dash);
  int position = static_cast<int>(std::size(kFamilies));
  for (size_t i = 0; i < std::size(kFamilies); ++i) {
    if (kFamilies[i] == family) position = static_cast<int>(i);
  }
  int number = 0;
  for (char c : code.substr(dash + 1)) number = c >= '0' && c <= '9' ? number * 10 + (c - '0') : number;
  return {position, number};
}

void PrintRules() {
  struct Row {
    std::string code, status, detail;
  };
  std::vector<Row> rows;
  for (const ImplementedRule& r : ImplementedRules()) {
    const DiagInfo& d = Info(r.id);
    std::string since = RuleIn(r.id, kCatalogJax) ? "" : Cat(" (JAX ", RuleSince(r.id).ToString(), " on)");
    rows.push_back({std::string(d.code), Cat("implemented", since, ": `", r.tests, "`"),
                    Cat("`` ", d.exception.empty() ? std::string() : Cat(d.exception, ": "), Cell(d.message), " ``")});
  }
  for (const NotExpressible& n : NotExpressibleRules()) {
    rows.push_back({std::string(n.code), "not expressible in .scir", Cell(n.reason)});
  }
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return CatalogOrder(a.code) < CatalogOrder(b.code) || (CatalogOrder(a.code) == CatalogOrder(b.code) && a.code < b.code);
  });
  int implemented = 0;
  for (const Row& r : rows) implemented += r.status.rfind("implemented", 0) == 0;
  std::cout << "# SC rules: the catalog, ID by ID\n\n"
               "Generated from the rule tables (`lowering/rules/`) by `scjit-docs rules`; do not\n"
               "edit by hand. Every ID of the catalog of Pallas' SparseCore errors is either\n"
               "implemented, with Pallas' exact message, or listed with the reason no `.scir`\n"
               "kernel can trigger it (`tests/catalog_test.cc` checks that none is missing).\n\n"
               "An implemented rule is tested by its catalog example kernels — the failing one\n"
               "must fail with exactly its code, the fixed one must pass (`sc_rules_test`,\n"
               "CatalogRulesTest) — and by the test file named in its row, which checks its\n"
               "full diagnostic text and a legal neighbour. `jit-run --explain ID` prints both\n"
               "kernels.\n\n"
            << implemented << " IDs implemented, " << rows.size() - implemented << " not expressible.\n\n"
            << "| ID | status | message, or why it cannot occur |\n|---|---|---|\n";
  for (const Row& r : rows) std::cout << "| " << r.code << " | " << r.status << " | " << r.detail << " |\n";
}

// "vector<16xbf16> or vector<2x8xbf16>": the registers of `t` for `e`.
std::string RegisterTypes(const TargetInfo& t, ElementType e) {
  std::string out;
  for (const Shape& s : RegisterShapes(t, ByteWidth(e))) {
    std::string dims;
    for (int64_t d : s) Append(&dims, d, "x");
    Append(&out, out.empty() ? "" : " or ", "`vector<", dims, IrName(e), ">`");
  }
  return out;
}

void PrintTargets() {
  std::cout << "# Targets\n\n"
               "Generated from `lowering/base/target.def` by `scjit-docs targets`; do not edit by\n"
               "hand. `jit-run --target-info CHIP` prints one chip's block of [Each chip](#each-chip),\n"
               "`jit-run --target-info` all of them.\n\n"
               "## Choosing a target\n\n"
               "A kernel is compiled for one chip: the one `jit-run --target CHIP` names (the\n"
               "library's `CompileOptions::target`), else the one its file names with `target \"v6e\"`\n"
               "before its first kernel, else **"
            << kDefaultTargetName
            << "**. The chip decides the mesh a `mesh vector` or `mesh scalar`\n"
               "clause without sizes gets (all its cores and subcores), the lanes of a vector\n"
               "register, and the limits the SC rules check: a mesh larger than the chip (MESH-1,\n"
               "MESH-2), more VMEM or SMEM per subcore than it has (MESH-VMEM, MESH-SMEM), more\n"
               "VMEM_SHARED per SparseCore (MESH-VMEM-SHARED), more semaphores per subcore than\n"
               "scjit allows (MESH-SEMAPHORES), a vector that is not one register with\n"
               "`layout_passes = false` (SHAPE-1).\n\n"
               "## The chips\n\n"
               "| target | SparseCores (cores) per chip | vector subcores per core | lanes (32-bit) | VMEM per "
               "subcore | SMEM per subcore | VMEM_SHARED per core | semaphores per subcore | DMA granule | in JAX 0.10.2 |\n"
               "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const TargetInfo& t : Targets()) {
    std::cout << "| " << t.name << (t.name == kDefaultTargetName ? " (default)" : "") << " | " << t.cores << " | "
              << t.subcores << " | " << t.lanes << " | " << t.vmem_bytes / 1024 << " KiB | " << t.smem_bytes / 1024
              << " KiB | " << t.vmem_shared_bytes / (1 << 20) << " MiB | " << t.semaphores << " | " << t.dma_granule_bytes << " B | "
              << (t.in_jax ? "yes" : "no") << " |\n";
  }
  std::cout << "\nSMEM and VMEM_SHARED are runtime.md §1's default capacities, the same on every\n"
               "chip; the semaphores are scjit's own limit (Pallas states none), large enough for\n"
               "every kernel of JAX's tests. The SC rules check a kernel against each, as they do\n"
               "against VMEM: what a subcore (or a SparseCore, for VMEM_SHARED) holds at once —\n"
               "staged parameters, scratch, the deepest nesting of scoped allocations and\n"
               "pipeline buffers — must fit.\n\n"
               "## Vector registers\n\n"
               "A register holds `lanes` 32-bit lanes: that many elements of a 32-bit type, twice\n"
               "as many of a 16-bit type and four times as many of an 8-bit type, as a flat vector\n"
               "or with the packing as the major dimension. With `attributes { layout_passes =\n"
               "false }` every vector a kernel loads or stores must be exactly one register\n"
               "(SHAPE-1, Pallas' `supported_shapes`); by default the compiler splits other shapes\n"
               "into registers.\n\n| element type |";
  std::vector<const TargetInfo*> by_lanes;  // the first chip of each lane count
  for (const TargetInfo& t : Targets()) {
    bool seen = false;
    for (const TargetInfo* b : by_lanes) seen = seen || b->lanes == t.lanes;
    if (seen) continue;
    by_lanes.push_back(&t);
    std::string chips;
    for (const TargetInfo& u : Targets()) {
      if (u.lanes == t.lanes) Append(&chips, chips.empty() ? "" : ", ", u.name);
    }
    std::cout << " " << t.lanes << " lanes (" << chips << ") |";
  }
  std::cout << "\n|---|";
  for (size_t i = 0; i < by_lanes.size(); ++i) std::cout << "---|";
  std::cout << "\n";
  for (int bytes : {4, 2, 1}) {
    for (ElementType e : AllElementTypes()) {
      if (IsBool(e) || ByteWidth(e) != bytes) continue;
      std::cout << "| " << IrName(e) << " |";
      for (const TargetInfo* t : by_lanes) std::cout << " " << RegisterTypes(*t, e) << " |";
      std::cout << "\n";
    }
  }
  std::cout << "\n## What Pallas reports\n\n"
               "`plsc.get_sparse_core_info()`, the same object as `pltpu.get_tpu_info().sparse_core`,\n"
               "is a `SparseCoreInfo(num_cores, num_subcores, num_lanes, vmem_capacity_bytes,\n"
               "dma_granule_size_bytes)`: SparseCores per chip, vector subcores per core, lanes,\n"
               "VMEM per subcore and the DMA granule of the table above. JAX 0.10.2 reports exactly\n"
               "these figures for every chip it knows (the last column); for the others the row is\n"
               "runtime.md §1's. SMEM and VMEM_SHARED are not in `SparseCoreInfo`; the\n"
               "`vmem_capacity_bytes` and `smem_capacity_bytes` of `pltpu.get_tpu_info()` itself\n"
               "describe a TensorCore, not a SparseCore.\n\n"
               "## Each chip\n\n"
               "`jit-run --target-info CHIP` prints the chip's block; `T` stands for each element\n"
               "type listed after it.\n";
  for (const TargetInfo& t : Targets()) std::cout << "\n```text\n" << DescribeTarget(t) << "```\n";
}

}  // namespace
}  // namespace scjit

int main(int argc, char** argv) {
  std::string what = argc > 1 ? argv[1] : "";
  if (what == "ops") {
    scjit::PrintOps();
    if (!scjit::PrintOpExamples()) return 1;
  } else if (what == "codes") {
    scjit::PrintCodes();
  } else if (what == "rules") {
    scjit::PrintRules();
  } else if (what == "targets") {
    scjit::PrintTargets();
  } else {
    std::cerr << "usage: scjit-docs ops|codes|rules|targets\n";
    return 2;
  }
  return 0;
}
