// SC rules checked once per kernel: the mesh against the target (MESH-1/2), the
// memory spaces the mesh supports (MESH-15, MESH-16; sc-errors.md §2), and the
// capacities of the target's memories (scjit's own codes): VMEM and SMEM per
// subcore (MESH-VMEM, MESH-SMEM), VMEM_SHARED per SparseCore (MESH-VMEM-SHARED)
// and semaphores per subcore (MESH-SEMAPHORES).
#include <algorithm>
#include <string>
#include <vector>

#include "lowering/analysis/kernel_info.h"
#include "lowering/analysis/pipeline_plan.h"
#include "lowering/rules/rule.h"
#include "lowering/base/strings.h"

namespace scjit::rules {
namespace {

// The mesh as Pallas' dataclass repr prints it (sc_core.py), with scjit's axis
// names and the sizes it runs with.
std::string MeshRepr(const KernelDef& k, const TargetInfo& t) {
  if (k.mesh.kind == MeshKind::kScalar) {
    return Cat("ScalarSubcoreMesh(axis_name='core', num_cores=", MeshCores(k, t), ")");
  }
  return Cat("VectorSubcoreMesh(core_axis_name='core', subcore_axis_name='subcore', num_cores=", MeshCores(k, t),
             ", num_subcores=", MeshSubcores(k, t), ")");
}

std::string TargetText(const TargetInfo& t) {
  return Cat(t.name, " has ", t.cores, t.cores == 1 ? " SparseCore" : " SparseCores", " of ", t.subcores,
             " vector subcores each");
}

// MESH-1, then MESH-2 (VectorSubcoreMesh.__post_init__ checks them in this order).
std::vector<Violation> MeshSize(const KernelDef& k, const TargetInfo& t) {
  const Mesh& m = k.mesh;
  if (m.cores && *m.cores > t.cores) {
    return {Violation{DiagId::kMesh1, m.cores_loc,
                      {{"self.num_cores", Cat(*m.cores)}, {"sc_info.num_cores", Cat(t.cores)}},
                      Cat("the mesh asks for ", *m.cores, " cores; ", TargetText(t)),
                      Cat("use cores = ", t.cores, " or fewer, or leave `cores` out to use all of them")}};
  }
  if (m.kind == MeshKind::kVector && m.subcores && *m.subcores > t.subcores) {
    return {Violation{DiagId::kMesh2, m.subcores_loc,
                      {{"self.num_subcores", Cat(*m.subcores)}, {"sc_info.num_subcores", Cat(t.subcores)}},
                      Cat("the mesh asks for ", *m.subcores, " subcores per core; ", TargetText(t)),
                      Cat("use subcores = ", t.subcores, " or fewer, or leave `subcores` out to use all of them")}};
  }
  return {};
}

// MESH-15: VMEM on a scalar mesh (ScalarSubcoreMesh.supported_memory_spaces is
// VMEM_SHARED, SMEM, SEMAPHORE), for staged parameters and scratch; scoped
// allocations and pipeline blocks are checked by the control rules.
std::vector<Violation> MeshMemorySpaces(const KernelDef& k, const TargetInfo& t) {
  std::vector<Violation> out;
  if (k.mesh.kind != MeshKind::kScalar) return out;
  auto check = [&](const Value* v, std::string_view what) {
    if (!v->type.is_ref() || v->type.space() != MemorySpace::kVmem) return;
    out.push_back(Violation{DiagId::kMesh15, v->loc, {{"self.memory_space", "vmem"}, {"self.mesh", MeshRepr(k, t)}},
                            Cat(what, " %", v->name, " is ", v->type.ToString(), ", and ", MeshText(k, t),
                                " has no VMEM (a scalar subcore has SMEM; its SparseCore has VMEM_SHARED)"),
                            ""});
  };
  for (const Param& p : k.params) check(p.value, "the staged parameter");
  for (const Value* v : k.scratch) check(v, "the scratch ref");
  return out;
}

// MESH-16: a semaphore parameter of a vector-subcore kernel.
std::vector<Violation> SemaphoreParams(const KernelDef& k, const TargetInfo& t) {
  std::vector<Violation> out;
  if (k.mesh.kind != MeshKind::kVector) return out;
  for (const Param& p : k.params) {
    if (!p.value->type.is_semaphore()) continue;
    out.push_back(Violation{DiagId::kMesh16, p.value->loc, {{"kernel_type", KernelType(k)}},
                            Cat("the parameter %", p.value->name, " is ", p.value->type.ToString(), ", and the kernel runs on ",
                                MeshText(k, t)),
                            ""});
  }
  return out;
}

// The capacity rules (scjit's own codes): what one subcore (one SparseCore for
// VMEM_SHARED) needs of a memory, laid out as PlanKernel lays it out
// (kernel_info.cc): staged parameters, then scratch, then scoped allocations
// (sibling regions reuse space) and pipeline block buffers, each in a
// 64-byte-aligned slot; semaphores are counted one by one.
struct Capacity {
  DiagId id;
  std::string_view space;  // the IR's name of the memory: "vmem", "smem", "vmem_shared"; "" for semaphores
  int64_t (*limit)(const TargetInfo&);
  std::string_view holder;  // what has one: "subcore" or "SparseCore"
  std::string_view unit;    // "bytes", or "semaphores"
};

constexpr Capacity kVmem{DiagId::kMeshVmem, "vmem", [](const TargetInfo& t) { return t.vmem_bytes; }, "subcore",
                         "bytes"};
constexpr Capacity kSmem{DiagId::kMeshSmem, "smem", [](const TargetInfo& t) { return t.smem_bytes; }, "subcore",
                         "bytes"};
constexpr Capacity kVmemShared{DiagId::kMeshVmemShared, "vmem_shared",
                               [](const TargetInfo& t) { return t.vmem_shared_bytes; }, "SparseCore", "bytes"};
constexpr Capacity kSemaphores{DiagId::kMeshSemaphores, "",
                               [](const TargetInfo& t) { return int64_t{t.semaphores}; }, "subcore", "semaphores"};

// Sums saturate here, far above any capacity, so that no kernel overflows them.
constexpr int64_t kSaturated = int64_t{1} << 62;

class ArenaPlan {
 public:
  ArenaPlan(const Capacity& c, int64_t limit) : c_(c), limit_(limit) {}

  // Whether `v` (a parameter, scratch ref, alloc or block ref) lives in this arena.
  bool Holds(const Value* v) const {
    const Type& t = v->type;
    if (c_.space.empty()) return t.is_semaphore();
    return t.is_ref() && SpaceName(t.space()) == c_.space;
  }

  void Place(const Value* v, int64_t& end, int copies = 1) {
    if (!Holds(v)) return;
    const Type& t = v->type;
    if (c_.space.empty()) {
      end = std::min(end + t.NumElements(), kSaturated);
    } else {
      int64_t bytes = std::max<int64_t>(t.NumElements() * ByteWidth(t.element()) * copies, 1);
      end = std::min((end + bytes + kSlotAlign - 1) / kSlotAlign * kSlotAlign, kSaturated);
    }
    need = std::max(need, end);
    if (end > limit_ && over == nullptr) over = v;
  }

  // Allocs of a region live until it ends; sibling regions reuse the space. A
  // pipeline's block buffers live while it runs, as many as Pallas allocates.
  void Walk(const Region& r, int64_t end) {
    for (const auto& op : r.ops) {
      if (op->kind == OpKind::kAlloc && !op->results.empty()) Place(op->results[0], end);
      int64_t inner = end;
      if (op->kind == OpKind::kPipeline && op->pipeline != nullptr) {
        for (const PipelineOperand& p : op->pipeline->operands) {
          if (p.map != nullptr) Walk(*p.map, end);
        }
        ForEachBlockBuffer(*op, [&](const Value* block, int copies) {
          if (!Holds(block)) return;
          Place(block, inner, copies);
          pipeline_buffers = true;
        });
      }
      for (const auto& region : op->regions) Walk(*region, inner);
    }
  }

  int64_t need = 0;
  bool pipeline_buffers = false;  // some pipeline has a block buffer here
  const Value* over = nullptr;    // the first value whose slot ends past the capacity

 private:
  const Capacity& c_;
  int64_t limit_;
};

// "512 KiB", "8 MiB", "1024 semaphores".
std::string CapacityText(const Capacity& c, int64_t limit) {
  if (!c.space.empty()) return limit % (1 << 20) == 0 ? Cat(limit >> 20, " MiB") : Cat(limit >> 10, " KiB");
  return Cat(limit, " ", c.unit);
}

// The subcore (or SparseCore) that holds the memory, as the note names it.
std::string HolderText(const Capacity& c, const KernelDef& k) {
  if (c.holder != "subcore") return std::string(c.holder);
  return k.mesh.kind == MeshKind::kScalar ? "scalar subcore" : "vector subcore";
}

std::vector<Violation> CheckCapacity(const Capacity& c, const KernelDef& k, const TargetInfo& t) {
  int64_t limit = c.limit(t);
  ArenaPlan plan(c, limit);
  int64_t end = 0;
  for (const Param& p : k.params) plan.Place(p.value, end);
  int64_t params_end = end;
  for (const Value* v : k.scratch) plan.Place(v, end);
  int64_t scratch_end = end;
  plan.Walk(k.body, end);
  if (plan.over == nullptr) return {};
  std::string what = c.space.empty() ? std::string("semaphore") : std::string(c.space);
  std::string parts = Cat(c.space.empty() ? "semaphore parameters hold " : Cat("staged ", what, " parameters take "),
                          params_end, " ", c.unit, ", ", what, " scratch ", scratch_end - params_end, " ", c.unit);
  if (plan.need > scratch_end) {
    Append(&parts,
           plan.pipeline_buffers
               ? Cat(", scoped ", what,
                     " allocations and pipeline block buffers (two per moving block, as Pallas allocates) ")
               : Cat(", scoped ", what, " allocations "),
           plan.need - scratch_end, " ", c.unit, " at their deepest nesting");
  }
  if (!c.space.empty()) Append(&parts, " (each in a ", kSlotAlign, "-byte-aligned slot)");
  return {Violation{c.id,
                    plan.over->loc,
                    {{"need", Cat(plan.need)}, {"target", std::string(t.name)}, {"capacity", Cat(limit)}},
                    Cat(parts, "; %", plan.over->name, " : ", plan.over->type.ToString(), " is the first to end past the ",
                        CapacityText(c, limit), " of a ", t.name, " ", HolderText(c, k)),
                    ""}};
}

std::vector<Violation> VmemCapacity(const KernelDef& k, const TargetInfo& t) {
  if (k.mesh.kind != MeshKind::kVector) return {};  // a scalar mesh has no VMEM (MESH-15)
  return CheckCapacity(kVmem, k, t);
}
std::vector<Violation> SmemCapacity(const KernelDef& k, const TargetInfo& t) { return CheckCapacity(kSmem, k, t); }
std::vector<Violation> VmemSharedCapacity(const KernelDef& k, const TargetInfo& t) {
  return CheckCapacity(kVmemShared, k, t);
}
std::vector<Violation> SemaphoreCount(const KernelDef& k, const TargetInfo& t) {
  return CheckCapacity(kSemaphores, k, t);
}

const std::vector<KernelRule> kRules = {
    {DiagId::kMesh1, MeshSize, {DiagId::kMesh2}},
    {DiagId::kMesh15, MeshMemorySpaces},
    {DiagId::kMesh16, SemaphoreParams},
    {DiagId::kMeshVmem, VmemCapacity},
    {DiagId::kMeshSmem, SmemCapacity},
    {DiagId::kMeshVmemShared, VmemSharedCapacity},
    {DiagId::kMeshSemaphores, SemaphoreCount},
};

}  // namespace

const std::vector<KernelRule>& KernelRules() { return kRules; }

}  // namespace scjit::rules
