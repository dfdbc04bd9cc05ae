// The control and kernel rules (lowering/rules/control.cc, kernel.cc): GEN-1, CF,
// PL, PIPE, MESH and the VMEM capacity. Every rule has an exact full-text case
// (location, caret, Pallas' text, note, fix) and legal neighbours that must pass.
#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/rules/rule.h"
#include "lowering/rules/sc_rules.h"
#include "scjit/scjit.h"
#include "tests/kernel_runner.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::Check;
using testing::Checked;


// --- Exact texts ------------------------------------------------------------------

struct FullCase {
  const char* name;
  const char* code;  // the rule the case is about
  const char* target;
  const char* kernel;
  const char* expected;
};

const FullCase kFullCases[] = {
    {"Gen1TcOnly", "GEN-1", "",
     R"scir(kernel @k(in %x: hbm<16xf32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%v: vmem<16xf32>)
{
  %a = get %v[:] : vector<16xf32>
  %b = sin %a : vector<16xf32>
}
)scir",
     R"scir(k.scir:6:8: error[GEN-1]: NotImplementedError: Unimplemented primitive in Pallas TPU lowering for sc_vector_subcore: sin. Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.
    6 |   %b = sin %a : vector<16xf32>
      |        ^~~
note: `sin` has a lowering rule for the TensorCore only; no SparseCore kernel can use it
help: no SparseCore op computes it: evaluate a polynomial with `mul` and `add`, or compute it outside the kernel
)scir"},
    {"Gen1ScalarMesh", "GEN-1", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 2)
{
  %i = iota : vector<16xi32>
}
)scir",
     R"scir(k.scir:4:8: error[GEN-1]: NotImplementedError: Unimplemented primitive in Pallas TPU lowering for sc_scalar_subcore: iota. Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.
    4 |   %i = iota : vector<16xi32>
      |        ^~~~
note: `iota` is lowered for the vector subcore only, and this kernel runs on mesh scalar(cores = 2)
help: do the vector work in a kernel on `mesh vector(...)`; the scalar subcore computes scalars only
)scir"},
    {"Gen1ReduceOrScalar", "GEN-1", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 1)
{
  %z = const dense<1> : vector<16xi32>
  %m = cmp eq %z, %z : vector<16xi1>
  %r = reduce_or %m : i1
}
)scir",
     R"scir(k.scir:6:8: error[GEN-1]: NotImplementedError: Unimplemented primitive in Pallas TPU lowering for sc_scalar_subcore: reduce_max. Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.
    6 |   %r = reduce_or %m : i1
      |        ^~~~~~~~~
note: `reduce_or` lowers through `reduce_max`, which is lowered for the vector subcore only, and this kernel runs on mesh scalar(cores = 1)
help: do the vector work in a kernel on `mesh vector(...)`; the scalar subcore computes scalars only
)scir"},
    {"Cf1", "CF-1", "",
     R"scir(kernel @k(in %n: smem<1xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %hi = get %n[0] : i32
  for %i = 0 to %hi step 1 {unroll = 0} {
  }
}
)scir",
     R"scir(k.scir:5:29: error[CF-1]: ValueError: Cannot fully unroll loop with dynamic number of steps (unroll=0)
    5 |   for %i = 0 to %hi step 1 {unroll = 0} {
      |                             ^~~~~~
note: the trip count is known only at run time (the upper bound %hi is a value)
help: give `unroll` a positive factor or drop it, or write the bounds and step as literals
)scir"},
    {"Cf1Step", "CF-1", "",
     R"scir(kernel @k(in %n: smem<1xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %s = get %n[0] : i32
  for %i = 0 to 64 step %s {unroll = 0} {
  }
}
)scir",
     R"scir(k.scir:5:29: error[CF-1]: ValueError: Cannot fully unroll loop with dynamic number of steps (unroll=0)
    5 |   for %i = 0 to 64 step %s {unroll = 0} {
      |                             ^~~~~~
note: the trip count is known only at run time (the step %s is a value)
help: give `unroll` a positive factor or drop it, or write the bounds and step as literals
)scir"},
    {"Cf6", "CF-6", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 2, subcores = 16)
{
  %p = program_id 2 : i32
}
)scir",
     R"scir(k.scir:4:19: error[CF-6]: ValueError: user passed in program id with axis: 2, but grid only has length: 2
    4 |   %p = program_id 2 : i32
      |                   ^
note: outside a pipeline the grid is the mesh: mesh vector(cores = 2, subcores = 16) has 2 axes (core, subcore)
help: use `program_id 0` (core) or `program_id 1` (subcore), or `axis_index core`/`axis_index subcore`
)scir"},
    {"Cf6ScalarNumPrograms", "CF-6", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 2)
{
  %p = num_programs 1 : i32
}
)scir",
     R"scir(k.scir:4:21: error[CF-6]: ValueError: user passed in program id with axis: 1, but grid only has length: 1
    4 |   %p = num_programs 1 : i32
      |                     ^
note: outside a pipeline the grid is the mesh: mesh scalar(cores = 2) has 1 axis (core)
help: use `program_id 0` or `axis_index core`
)scir"},
    {"Cf6Negative", "CF-6", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %p = program_id -1 : i32
}
)scir",
     R"scir(k.scir:4:19: error[CF-6]: ValueError: user passed in program id with axis: -1, but grid only has length: 2
    4 |   %p = program_id -1 : i32
      |                   ^~
note: outside a pipeline the grid is the mesh: mesh vector(cores = 1, subcores = 1) has 2 axes (core, subcore)
help: use `program_id 0` (core) or `program_id 1` (subcore), or `axis_index core`/`axis_index subcore`
)scir"},
    {"Cf6NegativeInPipeline", "CF-6", "",
     R"scir(kernel @k(in %x: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [16], map (%i) -> (%i))
      body(%xv: vmem<16xi32>) {
    %p = program_id -1 : i32
  }
}
)scir",
     R"scir(k.scir:7:21: error[CF-6]: ValueError: user passed in program id with axis: -1, but grid only has length: 3
    7 |     %p = program_id -1 : i32
      |                     ^~
note: inside a pipeline Pallas' lowering sees the pipeline's grid(4) followed by the 2 axes (core, subcore) of mesh vector(cores = 1, subcores = 1); axes are counted from 0
help: use dimension 0 of the pipeline grid; for this subcore's place in the mesh use `axis_index`
)scir"},
    {"Cf7", "CF-7", "",
     R"scir(kernel @k(in %x: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [16], map (%i) -> (%i))
      body(%xv: vmem<16xi32>) {
    %p = program_id 1 : i32
  }
}
)scir",
     R"scir(k.scir:7:21: error[CF-7]: ValueError: Axis 1 is out of bounds for grid (4,)
    7 |     %p = program_id 1 : i32
      |                     ^
note: `program_id` inside a pipeline counts over the pipeline's grid(4), which has 1 dimension
help: use dimension 0 of the pipeline grid; for this subcore's place in the mesh use `axis_index`
)scir"},
    {"Cf7DynamicGridMap", "CF-7", "",
     R"scir(kernel @k(in %n: smem<1xi32>, in %x: hbm<64x64xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %g = get %n[0] : i32
  pipeline grid(%g, 4)
      in(%x, block [16, 16], map (%i, %j) {
        %q = num_programs 2 : i32
        yield %i, %j
      })
      body(%xv: vmem<16x16xi32>) {
  }
}
)scir",
     R"scir(k.scir:7:27: error[CF-7]: ValueError: Axis 2 is out of bounds for grid (DynamicGridDim, 4)
    7 |         %q = num_programs 2 : i32
      |                           ^
note: `num_programs` inside a pipeline counts over the pipeline's grid(%g, 4), which has 2 dimensions; scjit shows sizes given as values as DynamicGridDim, as Pallas does
help: use a dimension of the pipeline grid (0 to 1); for this subcore's place in the mesh use `axis_index`
)scir"},
    {"Cf8", "CF-8", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 2)
{
  %s = axis_index subcore : i32
}
)scir",
     R"scir(k.scir:4:8: error[CF-8]: ValueError: Mesh context is not set.
    4 |   %s = axis_index subcore : i32
      |        ^~~~~~~~~~
note: `subcore` names no axis of mesh scalar(cores = 2), whose only axis is `core`, and a SparseCore kernel has no device-mesh context
help: on a scalar mesh use `axis_index core`: each SparseCore has one scalar subcore
)scir"},
    {"Pl1", "PL-1", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  %w = view %buf[0:8] : vmem<8xi32>
  %r = parallel_for %i = 0 to 2 step 1 iter(%c = %w) : vmem<8xi32> {
    yield %c
  }
}
)scir",
     R"scir(k.scir:6:50: error[PL-1]: TypeError: When tracing body at line 6 for parallel_loop, TransformedRefs are not allowed, but got a TransformedRef with name i.
    6 |   %r = parallel_for %i = 0 to 2 step 1 iter(%c = %w) : vmem<8xi32> {
      |                                                  ^~
note: carry 0 of the parallel_for starts as %w, a view (vmem<8xi32>) made by `view`; Pallas names a carry after the body's parameter at its flat position, counting the loop index first (hence `i`); scjit names the loop body by its line
help: carry values, not refs: use the view inside the body directly (regions see outer values)
)scir"},
    {"Pl1SeveralCarries", "PL-1", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<2x16xi32>)
{
  %w = view_reshape %buf : vmem<32xi32>
  %r, %s = parallel_for %j = 0 to 2 step 1 iter(%a = 0, %c = %w) : i32, vmem<32xi32> {
    yield %a, %c
  }
}
)scir",
     R"scir(k.scir:6:62: error[PL-1]: TypeError: When tracing body at line 6 for parallel_loop, TransformedRefs are not allowed, but got a TransformedRef with name args[1].
    6 |   %r, %s = parallel_for %j = 0 to 2 step 1 iter(%a = 0, %c = %w) : i32, vmem<32xi32> {
      |                                                              ^~
note: carry 1 of the parallel_for starts as %w, a view (vmem<32xi32>) made by `view_reshape`; Pallas names a carry after the body's parameter at its flat position, counting the loop index first (hence `args[1]`); scjit names the loop body by its line
help: carry values, not refs: use the view inside the body directly (regions see outer values)
)scir"},
    {"Pl1BeforePl2", "PL-1", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  %w = view %buf[0:8] : vmem<8xi32>
  %a, %b = parallel_for %i = 0 to 2 step 1 iter(%r = %buf, %c = %w) : vmem<16xi32>, vmem<8xi32> {
    yield %r, %c
  }
}
)scir",
     R"scir(k.scir:6:65: error[PL-1]: TypeError: When tracing body at line 6 for parallel_loop, TransformedRefs are not allowed, but got a TransformedRef with name args[1].
    6 |   %a, %b = parallel_for %i = 0 to 2 step 1 iter(%r = %buf, %c = %w) : vmem<16xi32>, vmem<8xi32> {
      |                                                                 ^~
note: carry 1 of the parallel_for starts as %w, a view (vmem<8xi32>) made by `view`; Pallas names a carry after the body's parameter at its flat position, counting the loop index first (hence `args[1]`); scjit names the loop body by its line
help: carry values, not refs: use the view inside the body directly (regions see outer values)
)scir"},
    {"Pl2", "PL-2", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem<2>)
{
  %v = get %buf[:] : vector<16xi32>
  %a, %b, %c, %d = parallel_for %i = 0 to 2 step 1 iter(%p = 0, %q = %v, %r = %buf, %s = %sem) : i32, vector<16xi32>, vmem<16xi32>, dma_sem<2> {
    yield %p, %q, %r, %s
  }
}
)scir",
     R"scir(k.scir:6:79: error[PL-2]: TypeError: Carried values may not be refs, but got: [ShapedArray(int32[], weak_type=True), ShapedArray(int32[16]), Ref<vmem>{int32[16]}, Ref<semaphore_mem>{dma_sem[2]}]
    6 |   %a, %b, %c, %d = parallel_for %i = 0 to 2 step 1 iter(%p = 0, %q = %v, %r = %buf, %s = %sem) : i32, vector<16xi32>, vmem<16xi32>, dma_sem<2> {
      |                                                                               ^~~~
note: carry 2 of the parallel_for starts as %buf : vmem<16xi32>, a ref
help: carry values, not refs: use the ref inside the body directly (regions see outer values)
)scir"},
    {"Mesh1", "MESH-1", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 4, subcores = 32)
{
}
)scir",
     R"scir(k.scir:2:25: error[MESH-1]: ValueError: Mesh has 4 cores, but the current TPU chip has only 2 SparseCores
    2 |     mesh vector(cores = 4, subcores = 32)
      |                         ^
note: the mesh asks for 4 cores; v7x has 2 SparseCores of 16 vector subcores each
help: use cores = 2 or fewer, or leave `cores` out to use all of them
)scir"},
    {"Mesh1Scalar", "MESH-1", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 3)
{
}
)scir",
     R"scir(k.scir:2:25: error[MESH-1]: ValueError: Mesh has 3 cores, but the current TPU chip has only 2 SparseCores
    2 |     mesh scalar(cores = 3)
      |                         ^
note: the mesh asks for 3 cores; v7x has 2 SparseCores of 16 vector subcores each
help: use cores = 2 or fewer, or leave `cores` out to use all of them
)scir"},
    {"Mesh2V8i", "MESH-2", "",
     R"scir(target "v8i"
kernel @k(in %x: hbm<16xi32>)
    mesh vector(subcores = 8)
{
}
)scir",
     R"scir(k.scir:3:28: error[MESH-2]: ValueError: Mesh has 8 subcores, but the current TPU chip has only 4 subcores
    3 |     mesh vector(subcores = 8)
      |                            ^
note: the mesh asks for 8 subcores per core; v8i has 1 SparseCore of 4 vector subcores each
help: use subcores = 4 or fewer, or leave `subcores` out to use all of them
)scir"},
    {"Mesh15", "MESH-15", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, inout %y: vmem<16xi32>)
    mesh scalar(cores = 2)
    scratch(%s: smem<16xi32>, %buf: vmem<16xi32>)
{
  scoped {
    %t = alloc vmem<8xi32>
  }
  pipeline grid(4)
      in(%x, block [4], map (%i) -> (%i))
      body(%xv: vmem<4xi32>) {
  }
}
)scir",
     R"scir(k.scir:1:37: error[MESH-15]: ValueError: Memory space vmem is not supported by mesh ScalarSubcoreMesh(axis_name='core', num_cores=2)
    1 | kernel @k(in %x: hbm<16xi32>, inout %y: vmem<16xi32>)
      |                                     ^~
note: the staged parameter %y is vmem<16xi32>, and mesh scalar(cores = 2) has no VMEM (a scalar subcore has SMEM; its SparseCore has VMEM_SHARED)
help: on a scalar mesh keep data in smem (per scalar subcore) or vmem_shared (per SparseCore); vmem needs `mesh vector(...)`
k.scir:3:31: error[MESH-15]: ValueError: Memory space vmem is not supported by mesh ScalarSubcoreMesh(axis_name='core', num_cores=2)
    3 |     scratch(%s: smem<16xi32>, %buf: vmem<16xi32>)
      |                               ^~~~
note: the scratch ref %buf is vmem<16xi32>, and mesh scalar(cores = 2) has no VMEM (a scalar subcore has SMEM; its SparseCore has VMEM_SHARED)
help: on a scalar mesh keep data in smem (per scalar subcore) or vmem_shared (per SparseCore); vmem needs `mesh vector(...)`
k.scir:6:5: error[MESH-15]: ValueError: Memory space vmem is not supported by mesh ScalarSubcoreMesh(axis_name='core', num_cores=2)
    6 |     %t = alloc vmem<8xi32>
      |     ^~
note: the scoped allocation %t is vmem<8xi32>, and mesh scalar(cores = 2) has no VMEM (a scalar subcore has SMEM; its SparseCore has VMEM_SHARED)
help: on a scalar mesh keep data in smem (per scalar subcore) or vmem_shared (per SparseCore); vmem needs `mesh vector(...)`
k.scir:10:12: error[MESH-15]: ValueError: Memory space vmem is not supported by mesh ScalarSubcoreMesh(axis_name='core', num_cores=2)
   10 |       body(%xv: vmem<4xi32>) {
      |            ^~~
note: the block ref %xv is vmem<4xi32>, and mesh scalar(cores = 2) has no VMEM (a scalar subcore has SMEM; its SparseCore has VMEM_SHARED)
help: on a scalar mesh keep data in smem (per scalar subcore) or vmem_shared (per SparseCore); vmem needs `mesh vector(...)`
)scir"},
    {"Mesh16", "MESH-16", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, in %sem: sem<2>)
    mesh vector(cores = 1, subcores = 1)
{
}
)scir",
     R"scir(k.scir:1:34: error[MESH-16]: ValueError: Invalid kernel type for semaphore: sc_vector_subcore
    1 | kernel @k(in %x: hbm<16xi32>, in %sem: sem<2>)
      |                                  ^~~~
note: the parameter %sem is sem<2>, and the kernel runs on mesh vector(cores = 1, subcores = 1)
help: allocate the semaphore inside the kernel (`scratch` or `alloc`)
)scir"},
    {"MeshVmem", "MESH-VMEM", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, inout %y: vmem<1024xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%a: vmem<100000xi32>, %s: smem<16xi32>)
{
  scoped {
    %t = alloc vmem<8xi32>
  }
  scoped {
    %u = alloc vmem<16xi32>
    scoped {
      %w = alloc vmem<30100xi32>
    }
  }
}
)scir",
     R"scir(k.scir:11:7: error[MESH-VMEM]: the kernel needs 524608 bytes of VMEM per subcore; v7x has 524288
   11 |       %w = alloc vmem<30100xi32>
      |       ^~
note: staged vmem parameters take 4096 bytes, vmem scratch 400000 bytes, scoped vmem allocations 120512 bytes at their deepest nesting (each in a 64-byte-aligned slot); %w : vmem<30100xi32> is the first to end past the 512 KiB of a v7x vector subcore
help: keep large data in hbm and stream it through smaller vmem buffers (`dma_start`, `pipeline`), or target a chip with more VMEM
)scir"},
    {"Pipe1", "PIPE-1", "",
     R"scir(kernel @k(in %n: smem<1xi32>, in %x: hbm<64x64xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %g = get %n[0] : i32
  pipeline grid(%g, -2)
      in(%x, block [16, 16], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<16x16xi32>) {
  }
}
)scir",
     R"scir(k.scir:5:21: error[PIPE-1]: ValueError: All elements in the grid must be strictly positive, but got grid=(JitTracer(int32[]), -2)
    5 |   pipeline grid(%g, -2)
      |                     ^~
note: the pipeline's grid(%g, -2) has a dimension of size -2; scjit shows sizes given as values as Pallas shows traced ones
help: give every grid dimension a positive size; skip the pipeline with `if` when there is no work
)scir"},
    {"Pipe9", "PIPE-9", "",
     R"scir(kernel @k(in %x: hbm<64x64xi32>)
    mesh vector(cores = 2, subcores = 16)
{
  pipeline grid(4, 4) partition(core) dims(parallel)
      in(%x, block [16, 16], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<16x16xi32>) {
  }
}
)scir",
     R"scir(k.scir:4:39: error[PIPE-9]: ValueError: dimension_semantics must be the same length as grid.
    4 |   pipeline grid(4, 4) partition(core) dims(parallel)
      |                                       ^~~~
note: dims(...) has 1 entry for the 2-dimensional grid(4, 4); partition(core) splits the grid over 2 workers of mesh vector(cores = 2, subcores = 16)
help: give one semantics per grid dimension (2), or write `parallel`
)scir"},
    {"Pipe10", "PIPE-10", "",
     R"scir(kernel @k(in %x: hbm<64x64xi32>)
    mesh vector(cores = 2, subcores = 16)
{
  pipeline grid(4, 4) partition(core, subcore) dims(arbitrary, arbitrary)
      in(%x, block [16, 16], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<16x16xi32>) {
  }
}
)scir",
     R"scir(k.scir:4:48: error[PIPE-10]: NotImplementedError: Cannot partition over cores without parallel grid dimensions: dimension_semantics=(<GridDimensionSemantics.ARBITRARY: 'arbitrary'>, <GridDimensionSemantics.ARBITRARY: 'arbitrary'>)
    4 |   pipeline grid(4, 4) partition(core, subcore) dims(arbitrary, arbitrary)
      |                                                ^~~~
note: partition(core, subcore) splits the grid over 32 workers of mesh vector(cores = 2, subcores = 16), but every grid dimension is arbitrary
help: mark the dimension to split as parallel: `parallel`, or `dims(parallel, ...)`
)scir"},
    {"Pipe11", "PIPE-11", "",
     R"scir(kernel @k(in %n: smem<2xi32>, in %x: hbm<64x64x64xi32>)
    mesh vector(cores = 2, subcores = 16)
{
  %a = get %n[0] : i32
  %b = get %n[1] : i32
  pipeline grid(%a, 5, %b) partition(core) parallel
      in(%x, block [16, 16, 16], map (%i, %j, %k) -> (%i, %j, %k))
      body(%xv: vmem<16x16x16xi32>) {
  }
}
)scir",
     R"scir(k.scir:6:3: error[PIPE-11]: NotImplementedError: Cannot partition over multiple dynamic parallel dimensions: grid=(JitTracer(int32[]), 5, JitTracer(int32[]))
    6 |   pipeline grid(%a, 5, %b) partition(core) parallel
      |   ^~~~~~~~
note: partition(core) splits the grid over 2 workers of mesh vector(cores = 2, subcores = 16); no parallel dimension of grid(%a, 5, %b) is a constant multiple of 2, and 2 parallel dimensions have sizes known only at run time (Pallas shows traced sizes as JitTracer(int32[]))
help: make at most one parallel dimension's size a run-time value, or give one a constant size that the number of workers divides
)scir"},
    {"Pipe14", "PIPE-14", "",
     R"scir(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      out(%o, block [16], map (%i) -> (%i))
      in(%x, block [16], map (%i) -> (%i))
      body(%ov: vmem_shared<16xi32>, %xv: vmem_shared<16xi32>) {
  }
}
)scir",
     R"scir(k.scir:7:38: error[PIPE-14]: ValueError: Unsupported buffer memory space: vmem_shared
    7 |       body(%ov: vmem_shared<16xi32>, %xv: vmem_shared<16xi32>) {
      |                                      ^~~
note: the block ref %xv of %x is vmem_shared<16xi32>; pipeline buffers live in vmem or smem (or the block is the hbm source itself)
help: declare the block ref in vmem (or smem); stage data through vmem_shared with explicit `copy`/`dma_start` instead
)scir"},
    {"Pipe27", "PIPE-27", "",
     R"scir(kernel @k(in %x: hbm<100xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(7)
      in(%x, block [16], map (%i) -> (%i))
      body(%xv: vmem<16xi32>) {
  }
}
)scir",
     R"scir(k.scir:5:21: error[PIPE-27]: ValueError: Block size must divide tiling: block_size=16, tiling=128
    5 |       in(%x, block [16], map (%i) -> (%i))
      |                     ^~
note: dimension 0 of %x : hbm<100xi32> has 100 elements, not a multiple of the block's 16; Pallas rounds the ragged last block up to the array's tile, 128 elements along this dimension (COMPACT tiling)
help: use a block size that divides 100 or is a multiple of 128, or pad the array to a multiple of the block
)scir"},
    {"Pipe272d", "PIPE-27", "",
     R"scir(kernel @k(in %x: hbm<20x256xi32>, out %o: hbm<8x100xbf16>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(2, 2)
      in(%x, block [16, 128], map (%i, %j) -> (%i, %j))
      out(%o, block [4, 64], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<16x128xi32>, %ov: vmem<4x64xbf16>) {
  }
}
)scir",
     R"scir(k.scir:6:25: error[PIPE-27]: ValueError: Block size must divide tiling: block_size=64, tiling=128
    6 |       out(%o, block [4, 64], map (%i, %j) -> (%i, %j))
      |                         ^~
note: dimension 1 of %o : hbm<8x100xbf16> has 100 elements, not a multiple of the block's 64; Pallas rounds the ragged last block up to the array's tile, 128 elements along this dimension (COMPACT tiling)
help: use a block size that divides 100 or is a multiple of 128, or pad the array to a multiple of the block
)scir"},
    {"Pipe27Tile8", "PIPE-27", "",
     R"scir(kernel @k(in %x: hbm<20x256xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(2, 2)
      in(%x, block [12, 128], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<12x128xi32>) {
  }
}
)scir",
     R"scir(k.scir:5:21: error[PIPE-27]: ValueError: Block size must divide tiling: block_size=12, tiling=8
    5 |       in(%x, block [12, 128], map (%i, %j) -> (%i, %j))
      |                     ^~
note: dimension 0 of %x : hbm<20x256xi32> has 20 elements, not a multiple of the block's 12; Pallas rounds the ragged last block up to the array's tile, 8 elements along this dimension (COMPACT tiling)
help: use a block size that divides 20 or is a multiple of 8, or pad the array to a multiple of the block
)scir"},
    {"MeshVmemOnV6e", "MESH-VMEM", "v6e",
     R"scir(kernel @k(in %x: hbm<16xi32>, inout %y: vmem<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%a: vmem<100000xi32>, %b: vmem<3xi8>, %s: smem<10000xi32>, %sh: vmem_shared<200000xi32>)
{
  scoped {
    %t = alloc vmem<30000xi32>
  }
  scoped {
    %u = alloc vmem<30000xi32>
    scoped {
      %w = alloc smem<1000xi32>
    }
  }
  scoped {
    %z = alloc vmem<31040xi32>
  }
}
)scir",
     R"scir(k.scir:3:13: error[MESH-VMEM]: the kernel needs 524288 bytes of VMEM per subcore; v6e has 262144
    3 |     scratch(%a: vmem<100000xi32>, %b: vmem<3xi8>, %s: smem<10000xi32>, %sh: vmem_shared<200000xi32>)
      |             ^~
note: staged vmem parameters take 64 bytes, vmem scratch 400064 bytes, scoped vmem allocations 124160 bytes at their deepest nesting (each in a 64-byte-aligned slot); %a : vmem<100000xi32> is the first to end past the 256 KiB of a v6e vector subcore
help: keep large data in hbm and stream it through smaller vmem buffers (`dma_start`, `pipeline`), or target a chip with more VMEM
)scir"},
    {"MeshSmemOnAScalarMesh", "MESH-SMEM", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, in %n: smem<1000xi32>)
    mesh scalar(cores = 2)
    scratch(%a: smem<8000xi32>, %sh: vmem_shared<16xi32>)
{
  %t = alloc smem<8000xi32>
}
)scir",
     R"scir(k.scir:5:3: error[MESH-SMEM]: the kernel needs 68032 bytes of SMEM per subcore; v7x has 65536
    5 |   %t = alloc smem<8000xi32>
      |   ^~
note: staged smem parameters take 4032 bytes, smem scratch 32000 bytes, scoped smem allocations 32000 bytes at their deepest nesting (each in a 64-byte-aligned slot); %t : smem<8000xi32> is the first to end past the 64 KiB of a v7x scalar subcore
help: keep large data in hbm (or in vmem on a vector mesh) and copy into smem what a step needs
)scir"},
    {"MeshVmemShared", "MESH-VMEM-SHARED", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, inout %y: vmem_shared<1024x256xi32>)
    mesh vector(cores = 2, subcores = 16)
    scratch(%a: vmem_shared<1024x1536xi32>, %v: vmem<1024xi32>)
{
  scoped {
    %t = alloc vmem_shared<257x1024xi32>
  }
}
)scir",
     R"scir(k.scir:6:5: error[MESH-VMEM-SHARED]: the kernel needs 8392704 bytes of VMEM_SHARED per SparseCore; v7x has 8388608
    6 |     %t = alloc vmem_shared<257x1024xi32>
      |     ^~
note: staged vmem_shared parameters take 1048576 bytes, vmem_shared scratch 6291456 bytes, scoped vmem_shared allocations 1052672 bytes at their deepest nesting (each in a 64-byte-aligned slot); %t : vmem_shared<257x1024xi32> is the first to end past the 8 MiB of a v7x SparseCore
help: keep large data in hbm and move through vmem_shared only what the SparseCore's subcores share at one time
)scir"},
    {"MeshSemaphores", "MESH-SEMAPHORES", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%in: dma_sem<2x250>, %out: dma_sem<2x250>, %done: sem)
{
  scoped {
    %s = alloc sem<20>
  }
  scoped {
    %t = alloc dma_sem<30>
  }
}
)scir",
     R"scir(k.scir:9:5: error[MESH-SEMAPHORES]: the kernel needs 1031 semaphores per subcore; v7x has 1024
    9 |     %t = alloc dma_sem<30>
      |     ^~
note: semaphore parameters hold 0 semaphores, semaphore scratch 1001 semaphores, scoped semaphore allocations 30 semaphores at their deepest nesting; %t : dma_sem<30> is the first to end past the 1024 semaphores of a v7x vector subcore
help: reuse semaphores: a DMA semaphore counts bytes, so one can serve several copies waited together, and a semaphore array can be indexed with a loop variable modulo its size
)scir"},
};

class FullTextTest : public ::testing::TestWithParam<FullCase> {};

TEST_P(FullTextTest, ReportsPallasTextWithLocationNoteAndFix) {
  const FullCase& c = GetParam();
  Checked r = Check(c.kernel, c.target);
  EXPECT_FALSE(r.ok);
  ASSERT_FALSE(r.codes.empty());
  EXPECT_EQ(r.codes[0], c.code);
  EXPECT_EQ(r.diagnostics, c.expected);
}

INSTANTIATE_TEST_SUITE_P(Rules, FullTextTest, ::testing::ValuesIn(kFullCases),
                         [](const ::testing::TestParamInfo<FullCase>& info) { return std::string(info.param.name); });

// Every rule of the control and kernel tables has an exact-text case.
TEST(FullTextTest, EveryRuleHasACase) {
  std::set<std::string> covered;
  for (const FullCase& c : kFullCases) covered.insert(c.code);
  std::set<DiagId> ids;
  for (const rules::OpRule& r : rules::ControlRules()) {
    ids.insert(r.id);
    ids.insert(r.also.begin(), r.also.end());
  }
  for (const rules::KernelRule& r : rules::KernelRules()) {
    ids.insert(r.id);
    ids.insert(r.also.begin(), r.also.end());
  }
  // (A later JAX's rules have theirs in jax_release_test.)
  for (DiagId id : ids) {
    if (!RuleIn(id, kCatalogJax)) continue;
    EXPECT_TRUE(covered.count(std::string(Info(id).code))) << Info(id).code << " has no case";
  }
}

// Found by edge-case inputs run through frontend_fuzzer (docs/fuzzing.md): the
// memory plan counted semaphores in an int, so a kernel with this many wrapped
// the count and had their names written past the plan's table (a heap overflow).
// MESH-SEMAPHORES stops it first; its sums saturate.
TEST(FullTextTest, SemaphoresBeyondAnIntAreACapacityError) {
  Checked r = Check(R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  scoped {
    %t = alloc dma_sem<1099511627776>
  }
}
)");
  ASSERT_EQ(r.codes, std::vector<std::string>{"MESH-SEMAPHORES"});
  EXPECT_EQ(r.diagnostics.substr(0, r.diagnostics.find('\n')),
            "k.scir:5:5: error[MESH-SEMAPHORES]: the kernel needs 1099511627776 semaphores per subcore; v7x has 1024");
}

// Found by frontend_fuzzer (docs/fuzzing.md): the number of workers a pipeline's
// partition splits its grid over was the product of the mesh's sizes, which
// overflowed for a mesh far beyond the target's (MESH-2), so PIPE-10 went
// unreported (and UBSan aborted). The product saturates.
TEST(FullTextTest, HugeMeshesStillSplitPipelines) {
  Checked r = Check(R"(kernel @k(in %x: hbm<4096x128xi32>, out %o: hbm<4096x128xi32>)
    mesh vector(cores = 2, subcores = 4611686018427387904)
{
  pipeline grid(512) partition(core, subcore) dims(arbitrary)
      in(%x, block [8, 128], map (%i) -> (%i, 0))
      out(%o, block [8, 128], map (%i) -> (%i, 0))
      body(%in_v: vmem<8x128xi32>, %out_v: vmem<8x128xi32>) {
  }
}
)");
  EXPECT_EQ(r.codes, (std::vector<std::string>{"MESH-2", "PIPE-10"}));
  EXPECT_NE(r.diagnostics.find("note: partition(core, subcore) splits the grid over 9223372036854775807 workers of "
                               "mesh vector(cores = 2, subcores = 4611686018427387904), but every grid dimension is "
                               "arbitrary\n"),
            std::string::npos)
      << r.diagnostics;
}

// --- Nearest legal neighbours -------------------------------------------------------

struct LegalCase {
  const char* name;
  const char* target;
  const char* kernel;
};

const LegalCase kLegalCases[] = {
    {"GridAxes", "",
     R"scir(kernel @k(in %x: hbm<64x64xi32>)
    mesh vector(cores = 2, subcores = 16)
{
  %c = program_id 0 : i32
  %s = program_id 1 : i32
  %nc = num_programs 1 : i32
  %sub = axis_index subcore : i32
  pipeline grid(4, 4)
      in(%x, block [16, 16], map (%i, %j) {
        %q = num_programs 1 : i32
        yield %i, %j
      })
      body(%xv: vmem<16x16xi32>) {
    %p = program_id 1 : i32
    %n = num_programs 0 : i32
  }
}
)scir"},
    {"Loops", "",
     R"scir(kernel @k(in %n: smem<1xi32>, in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  %hi = get %n[0] : i32
  for %i = 0 to 64 step 4 {unroll = 0} {
  }
  for %i = 0 to %hi step 1 {unroll = 2} {
  }
  parallel_for %i = 0 to %hi step 1 {unroll = 0} {
  }
  %v = get %buf[:] : vector<16xi32>
  %a, %b = parallel_for %i = 0 to %hi step 1 iter(%s = 0, %w = %v) : i32, vector<16xi32> {
    %s2 = add %s, %i : i32
    store %buf[:], %w
    yield %s2, %w
  }
}
)scir"},
    {"MeshDefault", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
{
}
)scir"},
    {"MeshV5p", "",
     R"scir(target "v5p"
kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 4, subcores = 16)
{
}
)scir"},
    {"Pipelines", "",
     R"scir(kernel @k(in %n: smem<2xi32>, in %x: hbm<64x64xi32>, in %y: hbm<1000xi32>, in %z: hbm<20x256xi32>,
          in %b: hbm<1000xi8>, in %v: vmem<100xi32>, out %o: hbm<100xi32>)
    mesh vector(cores = 2, subcores = 1)
{
  %g0 = get %n[0] : i32
  %g1 = get %n[1] : i32
  pipeline grid(1) dims(parallel, parallel)
      in(%x, block [64, 64], map () -> (0, 0))
      body(%xv: vmem<64x64xi32>) {
  }
  pipeline grid(4, 4) partition(subcore) dims(parallel)
      in(%x, block [16, 16], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<16x16xi32>) {
  }
  pipeline grid(4, 4) partition(core) dims(arbitrary, parallel)
      in(%x, block [16, 16], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<16x16xi32>) {
  }
  pipeline grid(%g0, %g1, 16) partition(core) parallel
      in(%x, block [squeezed, 16], map (%i, %j, %k) -> (%i, %j))
      body(%xv: vmem<16xi32>) {
  }
  pipeline grid(%g0, %g1) partition(core) dims(parallel, arbitrary)
      in(%x, block [16, 16], map (%i, %j) -> (%i, %j))
      body(%xv: vmem<16x16xi32>) {
  }
  pipeline grid(4)
      in(%y, block [256], map (%i) -> (%i))
      in(%z, block [16, 128], map (%i) -> (%i, 0))
      in(%b, block [512], map (%i) -> (%i))
      in(%v, block [16], map (%i) -> (%i))
      out(%o, block [16], map (%i) -> (%i))
      body(%yv: vmem<256xi32>, %zv: vmem<16x128xi32>, %bv: smem<512xi8>, %vv: vmem<16xi32>, %ov: hbm<16xi32>) {
  }
}
)scir"},
    {"ScalarOpsOnScalarMesh", "",
     R"scir(kernel @k(inout %s: smem<16xf32>, in %sem: dma_sem)
    mesh scalar(cores = 2)
    scratch(%t: smem<16xi32>, %shared: vmem_shared<16xi32>, %sems: sem<2>)
{
  %c = axis_index core : i32
  %n = axis_size subcore : i32
  %p = program_id 0 : i32
  %q = num_programs 0 : i32
  %a = get %s[0] : f32
  %b = exp %a : f32
  store %s[1], %b
  scoped {
    %u = alloc smem<8xi32>
  }
}
)scir"},
    {"VectorOnlyOpsOnVectorMesh", "",
     R"scir(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%fb: vmem<16xf32>)
{
  %i = iota : vector<16xi32>
  %r = rev %i {axis = 0} : vector<16xi32>
  %s = sort %i : vector<16xi32>
  %a = reduce_sum %i : i32
  %b = reduce_max %i : i32
  %c = reduce_min %i : i32
  %m = cmp lt %i, %r : vector<16xi1>
  %d = reduce_or %m : i1
  %e = reduce_and %m : i1
  %f = get %fb[:] : vector<16xf32>
  %g = sqrt %f : vector<16xf32>
  %h = rsqrt %f : vector<16xf32>
  %t = tanh %f : vector<16xf32>
  %l = log %f : vector<16xf32>
}
)scir"},
    {"VmemExactlyFull", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, inout %y: vmem<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%a: vmem<100000xi32>, %b: vmem<3xi8>, %s: smem<10000xi32>, %sh: vmem_shared<200000xi32>)
{
  scoped {
    %t = alloc vmem<30000xi32>
  }
  scoped {
    %u = alloc vmem<30000xi32>
    scoped {
      %w = alloc smem<1000xi32>
    }
  }
  scoped {
    %z = alloc vmem<31040xi32>
  }
}
)scir"},
    {"SmemExactlyFull", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, in %n: smem<1000xi32>)
    mesh scalar(cores = 2)
    scratch(%a: smem<8000xi32>, %sh: vmem_shared<16xi32>)
{
  scoped {
    %t = alloc smem<7376xi32>
  }
}
)scir"},
    {"VmemSharedExactlyFull", "",
     R"scir(kernel @k(inout %y: vmem_shared<2048x1024xi32>)
    mesh scalar(cores = 2)
{
}
)scir"},
    {"SemaphoresExactlyAtTheLimit", "",
     R"scir(kernel @k(in %x: hbm<16xi32>, in %ready: sem<24>)
    mesh scalar(cores = 1)
    scratch(%sems: dma_sem<2x500>)
{
}
)scir"},
};

class NeighbourTest : public ::testing::TestWithParam<LegalCase> {};

TEST_P(NeighbourTest, Passes) {
  Checked r = Check(GetParam().kernel, GetParam().target);
  EXPECT_TRUE(r.ok) << r.diagnostics;
}

INSTANTIATE_TEST_SUITE_P(Rules, NeighbourTest, ::testing::ValuesIn(kLegalCases),
                         [](const ::testing::TestParamInfo<LegalCase>& info) { return std::string(info.param.name); });

// --- GEN-1 for every op Pallas does not lower on SparseCore ---------------------------

// One statement per op of ops.def flagged kTcOnly or kVectorOnly (plus the two
// reductions that lower through reduce_max/reduce_min), over the values the
// prelude defines; and the Pallas primitive named in the message.
struct Gen1Op {
  const char* op;
  const char* stmt;
  const char* primitive;
};

const Gen1Op kGen1Ops[] = {
    {"exp2", "%r = exp2 %f : vector<16xf32>", "exp2"},
    {"log1p", "%r = log1p %f : vector<16xf32>", "log1p"},
    {"sin", "%r = sin %f : vector<16xf32>", "sin"},
    {"cos", "%r = cos %f : vector<16xf32>", "cos"},
    {"tan", "%r = tan %f : vector<16xf32>", "tan"},
    {"floor", "%r = floor %f : vector<16xf32>", "floor"},
    {"ceil", "%r = ceil %f : vector<16xf32>", "ceil"},
    {"logistic", "%r = logistic %f : vector<16xf32>", "logistic"},
    {"pow", "%r = pow %f, %f : vector<16xf32>", "pow"},
    {"population_count", "%r = population_count %i : vector<16xi32>", "population_count"},
    {"clz", "%r = clz %i : vector<16xi32>", "clz"},
    {"transpose", "%r = transpose %mat {permutation = [1, 0]} : vector<2x8xi32>", "transpose"},
    {"iota", "%r = iota : vector<16xi32>", "iota"},
    {"rev", "%r = rev %i {axis = 0} : vector<16xi32>", "rev"},
    {"sort", "%r = sort %i : vector<16xi32>", "sort"},
    {"reduce_sum", "%r = reduce_sum %i : i32", "reduce_sum"},
    {"reduce_max", "%r = reduce_max %i : i32", "reduce_max"},
    {"reduce_min", "%r = reduce_min %i : i32", "reduce_min"},
    {"sqrt", "%r = sqrt %f : vector<16xf32>", "sqrt"},
    {"rsqrt", "%r = rsqrt %f : vector<16xf32>", "rsqrt"},
    {"tanh", "%r = tanh %f : vector<16xf32>", "tanh"},
    {"log", "%r = log %f : vector<16xf32>", "log"},
    {"log2", "%r = log2 %f : vector<16xf32>", "log2"},
    {"round", "%r = round %f : vector<16xf32>", "round"},
    {"reduce_or", "%r = reduce_or %m : i1", "reduce_max"},
    {"reduce_and", "%r = reduce_and %m : i1", "reduce_min"},
};

std::string Gen1Kernel(bool scalar, const std::string& stmt) {
  return std::string("kernel @k(in %x: hbm<16xi32>)\n    mesh ") +
         (scalar ? "scalar(cores = 2)" : "vector(cores = 1, subcores = 1)") +
         "\n{\n"
         "  %f = const dense<1.0> : vector<16xf32>\n"
         "  %i = const dense<1> : vector<16xi32>\n"
         "  %m = cmp eq %i, %i : vector<16xi1>\n"
         "  %mat = const dense<1> : vector<8x2xi32>\n"
         "  " + stmt + "\n}\n";
}

int Count(const std::vector<std::string>& codes, const std::string& code) {
  return static_cast<int>(std::count(codes.begin(), codes.end(), code));
}

TEST(Gen1Test, EveryFlaggedOpHasACase) {
  std::set<std::string> listed;
  for (const Gen1Op& g : kGen1Ops) listed.insert(g.op);
  for (size_t k = 0; k < NumOpKinds(); ++k) {
    const OpInfo& info = Info(static_cast<OpKind>(k));
    if (info.has(kTcOnly) || info.has(kVectorOnly)) {
      EXPECT_TRUE(listed.count(std::string(info.name))) << info.name << " has no GEN-1 case";
    }
  }
}

TEST(Gen1Test, TensorCoreOnlyOpsFailOnBothSubcores) {
  for (const Gen1Op& g : kGen1Ops) {
    if (!Info(*OpKindFromName(g.op)).has(kTcOnly)) continue;
    for (bool scalar : {false, true}) {
      Checked r = Check(Gen1Kernel(scalar, g.stmt));
      EXPECT_EQ(Count(r.codes, "GEN-1"), 1) << g.op << "\n" << r.diagnostics;
      std::string message = std::string("Unimplemented primitive in Pallas TPU lowering for ") +
                            (scalar ? "sc_scalar_subcore: " : "sc_vector_subcore: ") + g.primitive +
                            ". Please file an issue at https://github.com/jax-ml/jax/issues/new/choose.";
      EXPECT_NE(r.diagnostics.find("k.scir:8:8: error[GEN-1]: NotImplementedError: " + message), std::string::npos)
          << g.op << "\n" << r.diagnostics;
    }
  }
}

TEST(Gen1Test, VectorOnlyOpsFailOnTheScalarSubcoreOnly) {
  for (const Gen1Op& g : kGen1Ops) {
    if (Info(*OpKindFromName(g.op)).has(kTcOnly)) continue;
    Checked scalar = Check(Gen1Kernel(true, g.stmt));
    EXPECT_EQ(Count(scalar.codes, "GEN-1"), 1) << g.op << "\n" << scalar.diagnostics;
    std::string message = std::string("error[GEN-1]: NotImplementedError: Unimplemented primitive in Pallas TPU "
                                      "lowering for sc_scalar_subcore: ") +
                          g.primitive + ".";
    EXPECT_NE(scalar.diagnostics.find(message), std::string::npos) << g.op << "\n" << scalar.diagnostics;
    Checked vector = Check(Gen1Kernel(false, g.stmt), "", "k.scir", kNewestJax.ToString());
    EXPECT_EQ(Count(vector.codes, "GEN-1"), 0) << g.op << "\n" << vector.diagnostics;
  }
}

// Ops whose SparseCore rule a later JAX added are GEN-1 on both subcores before
// that release, with the release in the note, and lowered from it on.
TEST(Gen1Test, OpsJaxLoweredLaterFailBeforeTheirRelease) {
  const struct {
    const char* stmt;
    const char* primitive;
    const char* before;
    const char* since;
  } kLater[] = {
      {"%r = sqrt %f : vector<16xf32>", "sqrt", "0.10.2", "0.11.0"},
      {"%r = rsqrt %f : vector<16xf32>", "rsqrt", "0.10.2", "0.11.0"},
      {"%r = tanh %f : vector<16xf32>", "tanh", "0.11.0", "0.11.1"},
      {"%r = log %f : vector<16xf32>", "log", "0.11.0", "0.11.1"},
      {"%r = log2 %f : vector<16xf32>", "log2", "0.11.1", "0.11.2"},
      {"%r = round %f {rounding_method = \"to_nearest_even\"} : vector<16xf32>", "round", "0.11.1", "0.11.2"},
      {"%r = mulhi %i, %i : vector<16xi32>", "mulhi", "0.11.2", "0.12.0"},
      {"%r = fmuladd %f, %f, %f : vector<16xf32>", "fmuladd", "0.12.0", "0.12.1"},
  };
  for (const auto& l : kLater) {
    EXPECT_EQ(SparseCoreRuleSince(*OpKindFromName(l.primitive)).ToString(), l.since) << l.primitive;
    Checked before = Check(Gen1Kernel(false, l.stmt), "", "k.scir", l.before);
    EXPECT_NE(before.diagnostics.find(std::string("k.scir:8:8: error[GEN-1]: NotImplementedError: Unimplemented "
                                                  "primitive in Pallas TPU lowering for sc_vector_subcore: ") +
                                      l.primitive + "."),
              std::string::npos)
        << l.primitive << "\n" << before.diagnostics;
    EXPECT_NE(before.diagnostics.find(std::string("note: JAX ") + l.before +
                                      " has no SparseCore lowering rule for `" + l.primitive + "`; it came in JAX " +
                                      l.since),
              std::string::npos)
        << before.diagnostics;
    Checked since = Check(Gen1Kernel(false, l.stmt), "", "k.scir", l.since);
    EXPECT_TRUE(since.ok) << l.primitive << "\n" << since.diagnostics;
  }
}

// GEN-1 comes before the op's own rules: iota of the wrong length on the scalar
// subcore is GEN-1, not IOTA-1.
TEST(Gen1Test, FiresBeforeTheOpsOwnRules) {
  Checked r = Check("kernel @k(in %x: hbm<16xi32>)\n    mesh scalar(cores = 1)\n{\n  %i = iota : vector<8xi32>\n}\n");
  EXPECT_EQ(r.codes, (std::vector<std::string>{"GEN-1"})) << r.diagnostics;
}

}  // namespace
}  // namespace scjit
