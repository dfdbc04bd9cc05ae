// The vocabulary of scjit's public API: element types, memory spaces, parameter
// directions, meshes and the target chips.
//
// Thread safety: everything here is immutable data or a pure function.
#ifndef SCJIT_INCLUDE_SCJIT_TYPES_H_
#define SCJIT_INCLUDE_SCJIT_TYPES_H_

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace scjit {

// An element type of the Kernel IR, one enumerator per row of scjit/dtype.def:
// kI1 (bool), kI8, kI16, kI32, kI64, kU8, kU16, kU32, kU64, kBF16, kF16, kF32, kF64.
// The 64-bit types parse (the SC rules reject them) but no kernel computes with
// them.
enum class DType : uint8_t {
#define SCJIT_DTYPE(Enum, ir_name, numpy_name, bits, kind, npy_descr) Enum,
#include "scjit/dtype.def"
};

// numpy's name of `t`: "int32", "bfloat16", "bool".
std::string_view DTypeName(DType t);
// The .scir spelling of `t`: "i32", "bf16", "i1".
std::string_view DTypeIrName(DType t);
// Bytes of one element in memory (bool: 1).
int DTypeBytes(DType t);
// The dtype named `name`, numpy's name or the .scir spelling ("float32", "f32").
std::optional<DType> DTypeFromName(std::string_view name);

// Where a ref's bytes live: HBM (kernel parameters in place), a SparseCore's
// VMEM_SHARED, a subcore's VMEM or SMEM (parameters there are staged copies).
enum class MemorySpace : uint8_t { kHbm, kVmemShared, kVmem, kSmem, kHost };
// The .scir spelling: "hbm", "vmem_shared", "vmem", "smem", "host".
std::string_view MemorySpaceName(MemorySpace s);

// How a kernel uses a parameter: read, written (starts as poison), or both.
enum class ParamDirection : uint8_t { kIn, kOut, kInOut };
// "in", "out", "inout".
std::string_view DirectionName(ParamDirection d);

// What a kernel runs on: every vector subcore, or each SparseCore's scalar subcore.
enum class MeshKind : uint8_t { kVector, kScalar };
// The .scir spelling: "vector", "scalar".
inline constexpr std::string_view MeshKindName(MeshKind k) { return k == MeshKind::kVector ? "vector" : "scalar"; }

// One SparseCore chip scjit emulates. The first five figures are what Pallas'
// plsc.get_sparse_core_info() (pltpu.get_tpu_info().sparse_core) reports as
// SparseCoreInfo(num_cores, num_subcores, num_lanes, vmem_capacity_bytes,
// dma_granule_size_bytes).
struct TargetInfo {
  std::string_view name;      // "v7x"
  int cores;                  // SparseCores per chip
  int subcores;               // vector subcores per SparseCore
  int lanes;                  // 32-bit lanes of a vector register
  int64_t vmem_bytes;         // VMEM of each vector subcore
  int dma_granule_bytes;      // the DMA granule
  int64_t smem_bytes;         // SMEM of each subcore (runtime.md §1's default)
  int64_t vmem_shared_bytes;  // VMEM_SHARED of each SparseCore (the default)
  int semaphores;             // semaphores of each subcore (scjit's limit)
  bool in_jax;                // JAX 0.10.2 knows the chip
};

// Every target: v5p, v6e, v7x, v8i, v8t.
std::span<const TargetInfo> Targets();
// The target named `name`, or null.
const TargetInfo* FindTarget(std::string_view name);
// The chip's geometry, capacities, native vector shapes and SparseCoreInfo as
// text, one fact a line, ending with a newline (`jit-run --target-info`,
// docs/targets.md).
std::string DescribeTarget(const TargetInfo& target);
// The target a kernel gets when neither its file nor the options name one.
inline constexpr std::string_view kDefaultTargetName = "v7x";

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_TYPES_H_
