#include "lowering/base/target.h"

#include <array>

#include "lowering/base/dtype.h"
#include "lowering/base/strings.h"

namespace scjit {
namespace {

constexpr std::array kTargets = {
#define SCJIT_TARGET(Enum, name, cores, subcores, lanes, vmem, granule, smem, vmem_shared, semaphores, in_jax) \
  TargetInfo{name, cores, subcores, lanes, vmem, granule, smem, vmem_shared, semaphores, in_jax},
#include "lowering/base/target.def"
};

static_assert(kTargets[static_cast<size_t>(kDefaultTarget)].name == kDefaultTargetName);

// "524288 bytes (512 KiB)"; `note` goes inside the parentheses.
std::string Capacity(int64_t bytes, std::string_view note = "") {
  std::string unit = bytes % (1 << 20) == 0 ? Cat(bytes >> 20, " MiB")
                     : bytes % 1024 == 0    ? Cat(bytes >> 10, " KiB")
                                            : std::string();
  std::string inside = unit;
  if (!note.empty()) Append(&inside, inside.empty() ? "" : ", ", note);
  return inside.empty() ? Cat(bytes, " bytes") : Cat(bytes, " bytes (", inside, ")");
}

// "vector<32xT> or vector<2x16xT>, T = i16 u16 bf16 f16"
std::string RegisterLine(const TargetInfo& t, int bytes) {
  std::string shapes;
  for (const Shape& s : RegisterShapes(t, bytes)) {
    std::string dims;
    for (int64_t d : s) Append(&dims, d, "x");
    Append(&shapes, shapes.empty() ? "" : " or ", "vector<", dims, "T>");
  }
  std::string types;
  for (ElementType e : AllElementTypes()) {
    if (!IsBool(e) && ByteWidth(e) == bytes) Append(&types, " ", IrName(e));
  }
  return Cat(shapes, ", T =", types);
}

}  // namespace

const TargetInfo& Info(TargetId id) { return kTargets[static_cast<size_t>(id)]; }

std::span<const TargetInfo> Targets() { return kTargets; }

const TargetInfo* FindTarget(std::string_view name) {
  std::optional<TargetId> id = TargetFromName(name);
  return id ? &Info(*id) : nullptr;
}

std::optional<TargetId> TargetFromName(std::string_view name) {
  for (size_t i = 0; i < kTargets.size(); ++i) {
    if (kTargets[i].name == name) return static_cast<TargetId>(i);
  }
  return std::nullopt;
}

std::string TargetNameList() {
  std::string out;
  for (const TargetInfo& t : kTargets) Append(&out, out.empty() ? "" : ", ", t.name);
  return out;
}

std::vector<Shape> RegisterShapes(const TargetInfo& t, int bytes) {
  int64_t pack = 4 / bytes;
  std::vector<Shape> shapes = {{t.lanes * pack}};
  if (pack > 1) shapes.push_back({pack, t.lanes});
  return shapes;
}

std::string DescribeTarget(const TargetInfo& t) {
  std::string out = Cat(t.name, t.name == kDefaultTargetName ? " (the default target)" : "", "\n");
  auto line = [&out](std::string_view label, const std::string& value) {
    Append(&out, "  ", label, std::string(label.size() < 30 ? 30 - label.size() : 1, ' '), value, "\n");
  };
  line("SparseCores (cores) per chip", Cat(t.cores));
  line("vector subcores per core", Cat(t.subcores));
  line("lanes (32-bit)", Cat(t.lanes));
  line("VMEM per subcore", Capacity(t.vmem_bytes));
  line("SMEM per subcore", Capacity(t.smem_bytes, "default"));
  line("VMEM_SHARED per core", Capacity(t.vmem_shared_bytes, "default"));
  line("semaphores per subcore", Cat(t.semaphores, " (scjit's limit)"));
  line("DMA granule", Cat(t.dma_granule_bytes, " bytes"));
  line("32-bit vector register", RegisterLine(t, 4));
  line("16-bit vector register", RegisterLine(t, 2));
  line("8-bit vector register", RegisterLine(t, 1));
  line("plsc.get_sparse_core_info()",
       Cat("SparseCoreInfo(num_cores=", t.cores, ", num_subcores=", t.subcores, ", num_lanes=", t.lanes,
           ", vmem_capacity_bytes=", t.vmem_bytes, ", dma_granule_size_bytes=", t.dma_granule_bytes, ")",
           t.in_jax ? "" : "; not in JAX 0.10.2"));
  return out;
}

}  // namespace scjit
