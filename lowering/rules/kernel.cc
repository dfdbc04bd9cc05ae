// SC rules checked once per kernel: the mesh against the target (MESH-1/2), the
// memory spaces the mesh supports (MESH-15, MESH-16; sc-errors.md §2), and the
// VMEM capacity of a subcore (MESH-VMEM, scjit's own code).
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

// MESH-VMEM: the VMEM a vector subcore needs, laid out as PlanKernel lays it out
// (kernel_info.cc): staged vmem parameters, then vmem scratch, then scoped vmem
// allocations (sibling regions reuse space), each in a 64-byte-aligned slot.
class VmemPlan {
 public:
  explicit VmemPlan(int64_t capacity) : capacity_(capacity) {}

  void Place(const Value* v, int64_t& end, int copies = 1) {
    const Type& t = v->type;
    if (!t.is_ref() || t.space() != MemorySpace::kVmem) return;
    int64_t bytes = std::max<int64_t>(t.NumElements() * ByteWidth(t.element()) * copies, 1);
    end = (end + bytes + kSlotAlign - 1) / kSlotAlign * kSlotAlign;
    need = std::max(need, end);
    if (end > capacity_ && over == nullptr) over = v;
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
          if (block->type.space() != MemorySpace::kVmem) return;
          Place(block, inner, copies);
          pipeline_buffers = true;
        });
      }
      for (const auto& region : op->regions) Walk(*region, inner);
    }
  }

  int64_t need = 0;
  bool pipeline_buffers = false;  // some pipeline has a vmem block buffer
  const Value* over = nullptr;  // the first value whose slot ends past the capacity

 private:
  int64_t capacity_;
};

std::vector<Violation> VmemCapacity(const KernelDef& k, const TargetInfo& t) {
  if (k.mesh.kind != MeshKind::kVector) return {};  // a scalar mesh has no VMEM (MESH-15)
  VmemPlan plan(t.vmem_bytes);
  int64_t end = 0;
  for (const Param& p : k.params) plan.Place(p.value, end);
  int64_t params_end = end;
  for (const Value* v : k.scratch) plan.Place(v, end);
  int64_t scratch_end = end;
  plan.Walk(k.body, end);
  if (plan.over == nullptr) return {};
  std::string parts = Cat("staged vmem parameters take ", params_end, " bytes, vmem scratch ", scratch_end - params_end,
                          " bytes");
  if (plan.need > scratch_end) {
    Append(&parts,
           plan.pipeline_buffers
               ? ", scoped vmem allocations and pipeline block buffers (two per moving block, as Pallas allocates) "
               : ", scoped vmem allocations ",
           plan.need - scratch_end, " bytes at their deepest nesting");
  }
  return {Violation{DiagId::kMeshVmem,
                    plan.over->loc,
                    {{"need", Cat(plan.need)}, {"target", std::string(t.name)}, {"capacity", Cat(t.vmem_bytes)}},
                    Cat(parts, " (each in a ", kSlotAlign, "-byte-aligned slot); %", plan.over->name, " : ",
                        plan.over->type.ToString(), " is the first to end past the ", t.vmem_bytes / 1024, " KiB of a ",
                        t.name, " vector subcore"),
                    ""}};
}

const std::vector<KernelRule> kRules = {
    {DiagId::kMesh1, MeshSize, {DiagId::kMesh2}},
    {DiagId::kMesh15, MeshMemorySpaces},
    {DiagId::kMesh16, SemaphoreParams},
    {DiagId::kMeshVmem, VmemCapacity},
};

}  // namespace

const std::vector<KernelRule>& KernelRules() { return kRules; }

}  // namespace scjit::rules
