// A program that embeds scjit through its installed package: compile an
// add-one kernel (x -> o = x + 1), launch it, check the result.
//
//   embed KERNEL.scir      e.g. examples/add_one_manual.scir
#include <cstdint>
#include <iostream>
#include <numeric>

#include "scjit/scjit.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: embed KERNEL.scir (a kernel computing o = x + 1)\n";
    return 2;
  }
  scjit::Compiler compiler;
  absl::StatusOr<scjit::Kernel> kernel = compiler.CompileFile(argv[1]);
  if (!kernel.ok()) {
    std::cerr << kernel.status().message() << "\n";  // every diagnostic, rendered
    return 3;
  }
  const scjit::ParamInfo* x_info = kernel->param("x");
  const scjit::ParamInfo* o_info = kernel->param("o");
  if (x_info == nullptr || o_info == nullptr || x_info->dtype != scjit::DType::kI32) {
    std::cerr << "embed: the kernel needs an int32 %x and an %o\n";
    return 2;
  }
  absl::StatusOr<scjit::Buffer> x = scjit::Buffer::Allocate(x_info->dtype, x_info->shape);
  absl::StatusOr<scjit::Buffer> o = scjit::Buffer::Allocate(o_info->dtype, o_info->shape);
  if (!x.ok() || !o.ok()) return 2;
  std::span<int32_t> xs = x->span<int32_t>(), os = o->span<int32_t>();
  std::iota(xs.begin(), xs.end(), 0);

  absl::StatusOr<scjit::LaunchResult> run = kernel->Launch({{"x", *x}, {"o", *o}});
  if (!run.ok()) {
    std::cerr << run.status().message() << "\n";
    return 2;
  }
  if (run->failed()) {
    std::cerr << run->RenderFindings();
    return 1;
  }
  for (size_t i = 0; i < os.size(); ++i) {
    if (os[i] != xs[i] + 1) {
      std::cerr << "embed: o[" << i << "] = " << os[i] << ", expected " << xs[i] + 1 << "\n";
      return 1;
    }
  }
  std::cout << "@" << kernel->name() << " on " << kernel->target() << ": " << os.size()
            << " elements of x + 1 on " << run->stats.subcores << " subcores, " << run->stats.dma_bytes
            << " bytes moved by DMA (scjit " << scjit::kVersionString << ")\n";
  return 0;
}
