// scjit's public API: compile TPU SparseCore kernels written in the Kernel IR
// (.scir) to host code, and launch them on the emulated SparseCore.
//
//   #include "scjit/scjit.h"
//
//   scjit::Compiler compiler;
//   absl::StatusOr<scjit::Kernel> kernel = compiler.CompileFile("add_one.scir");
//   if (!kernel.ok()) { std::cerr << kernel.status().message() << "\n"; return 3; }
//   absl::StatusOr<std::vector<scjit::Buffer>> buffers = kernel->AllocateParams();
//   std::span<int32_t> x = (*buffers)[0].span<int32_t>();
//   std::iota(x.begin(), x.end(), 0);
//   absl::StatusOr<scjit::LaunchResult> run = kernel->Launch(*buffers);
//   if (!run.ok()) { std::cerr << run.status().message() << "\n"; return 2; }
//   if (run->failed()) { std::cerr << run->RenderFindings(); return 1; }
//   std::span<int32_t> o = (*buffers)[1].span<int32_t>();   // x + 1
//
// The pieces, one header each:
//   scjit/compiler.h    Compiler, CompileOptions, Source, Stage
//   scjit/kernel.h      Kernel, Args, ParamInfo, CompileTimes
//   scjit/launch.h      LaunchOptions, Checks, DmaMode, LaunchResult, LaunchStats
//   scjit/buffer.h      Buffer: allocated or wrapping the caller's memory
//   scjit/io.h          .npy files, input generators, elements as text
//   scjit/diagnostic.h  Diagnostic, DiagnosticsOf, Explain
//   scjit/types.h       DType, MemorySpace, ParamDirection, MeshKind, TargetInfo
//   scjit/version.h     kVersionString
//
// Errors are values: every fallible call returns absl::Status or StatusOr, whose
// message is the rendered diagnostics and whose payload carries them
// (DiagnosticsOf). Each class documents its thread safety.
#ifndef SCJIT_INCLUDE_SCJIT_SCJIT_H_
#define SCJIT_INCLUDE_SCJIT_SCJIT_H_

#include "scjit/buffer.h"
#include "scjit/compiler.h"
#include "scjit/diagnostic.h"
#include "scjit/io.h"
#include "scjit/kernel.h"
#include "scjit/launch.h"
#include "scjit/types.h"
#include "scjit/version.h"

#endif  // SCJIT_INCLUDE_SCJIT_SCJIT_H_
