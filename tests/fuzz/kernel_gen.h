// A generator of random valid kernels for differential testing
// (tests/fuzz/differential.cc, docs/fuzzing.md "Differential testing").
//
// GenerateKernel(seed, options) is a .scir kernel that the front end, the
// verifier and the SC rules accept and that runs without a finding: no index out
// of bounds, no race, every DMA waited, every semaphore back at zero; and, but
// in kernels with partial writes (GenOptions::partial_writes), no read of
// unwritten bytes. It is the same text for the same seed and options.
// Each of its cores x subcores workers w reads its own slice [w] of every HBM
// input and writes its own slice [w] of every output; subcores of one core also
// exchange rows through VMEM_SHARED between barriers and signal each other's
// semaphores.
#ifndef SCJIT_TESTS_FUZZ_KERNEL_GEN_H_
#define SCJIT_TESTS_FUZZ_KERNEL_GEN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "scjit/types.h"
#include "tests/fuzz/gen_types.h"

namespace scjit::fuzz {

struct GenOptions {
  int statements = 14;        // top-level statements of the body
  int max_depth = 2;          // nesting of for / while / parallel_for / if
  int block_statements = 4;   // at most this many statements in a nested region
  std::vector<std::string> targets = {"v7x", "v6e", "v8i"};
  int max_cores = 2;
  int max_subcores = 4;       // a power of two
  ESet types = kAll;          // the element types values may have
  // The percentage of kernels with partial writes (decided by the seed alone:
  // the other kernels are what the generator wrote before it had them).
  // Such a kernel writes scratch buffers in part (a prefix DMA, a row, a
  // compressed store, a store of a slice, an addupdate of unwritten bytes) and
  // reads them whole; the values flow into its ops, outputs and, sometimes,
  // decisions (indices, conditions, masks). It may raise RT-INIT errors and
  // warnings, which every configuration must report alike.
  int partial_writes = 30;
};

// A parameter of the generated kernel, in order.
struct GenParam {
  std::string name;  // without '%'
  ParamDirection direction = ParamDirection::kIn;
  DType dtype = DType::kI32;
  std::vector<int64_t> shape;
};

// The first line of a kernel with partial writes: differential accepts its
// RT-INIT findings (a saved or minimised kernel keeps it).
inline constexpr char kPartialWritesMarker[] = "// differential: partial writes (RT-INIT findings expected)";

struct GeneratedKernel {
  std::string text;
  bool partial_writes = false;  // the text starts with kPartialWritesMarker
  std::string target;
  std::vector<GenParam> params;
};

GeneratedKernel Generate(uint64_t seed, const GenOptions& options = {});
inline std::string GenerateKernel(uint64_t seed, const GenOptions& options = {}) {
  return Generate(seed, options).text;
}

}  // namespace scjit::fuzz

#endif  // SCJIT_TESTS_FUZZ_KERNEL_GEN_H_
