// The DMA, semaphore, fetch_and_add, debug_print and ref-transform rules
// (lowering/rules/dma_sync.cc): for every rule (and every sibling code and GEN-3
// variant it reports), a kernel that fails it first, with the full diagnostic
// (location, caret, note, help), and the nearest legal neighbour, which passes.
#include <chrono>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/rules/rule.h"
#include "lowering/rules/sc_rules.h"
#include "scjit/scjit.h"
#include "tests/kernel_runner.h"

namespace scjit {
namespace {

using testing::Check;
using testing::Checked;


// The scratch most cases use (cases are `VECTOR_KERNEL R"(<body>)"`): the body starts on line 7.
#define VECTOR_KERNEL \
  "kernel @k(in %x: hbm<64xi32>, in %t: hbm<64x8xi32>, in %hi: hbm<16xi32>, out %o: hbm<64xi32>)\n" \
  "    mesh vector(cores = 1, subcores = 1)\n" \
  "    scratch(%buf: vmem<16xi32>, %f: vmem<16xf32>, %u: vmem<16xu32>, %rows: vmem<16x8xi32>, %ids: vmem<16xi32>,\n" \
  "            %ids2: vmem<2x8xi32>, %ids16: vmem<16xi16>, %sh: vmem_shared<64xi32>, %s: smem<16xi32>, %h: smem<i16>,\n" \
  "            %w: vmem<1x16xi32>, %m: vmem<2x8xi32>, %q: vmem<3x16xi16>, %s2: smem<1x16xi32>, %sem: dma_sem, %sems: dma_sem<2>, %rs: sem, %rss: sem<2>)\n" \
  "{\n"

struct Case {
  const char* name;
  const char* kernel;     // fails
  const char* expected;   // its diagnostics, exactly
  const char* neighbour;  // the nearest legal kernel (nullptr: none in this row)
};

// clang-format off
const Case kCases[] = {
{"Dma1SrcSem",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem src_sem %sems[0]
}
)",
R"(k.scir:7:44: error[DMA-1]: ValueError: Either both or neither `src_sem` and `device_id` can be set.
    7 |   dma_start %x[0:16] -> %buf, %sem src_sem %sems[0]
      |                                            ^~~~~~~~
note: `src_sem %sems[0]` makes this a remote copy (make_async_remote_copy), but it names no device
help: name the target device (`{device = %d}` or its mesh coordinates), or drop `src_sem`: a local copy signals only its destination semaphore
)",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem
}
)"},
{"Dma3NegativePriority",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem {priority = -1}
}
)",
R"(k.scir:7:37: error[DMA-3]: ValueError: DMA start priority must be non-negative: -1
    7 |   dma_start %x[0:16] -> %buf, %sem {priority = -1}
      |                                     ^~~~~~~~
note: priority = -1
help: use priority 0 (the default, highest) or 1
)",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem {priority = 0}
}
)"},
{"Dma4ValueSource",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %i -> %o[0:16]
}
)",
R"(k.scir:8:8: error[DMA-4]: ValueError: DMA source/destination/semaphore arguments must be Refs.
    8 |   copy %i -> %o[0:16]
      |        ^~
note: the source %i is a vector value (vector<16xi32>), not a ref
help: DMAs copy between refs: `store` the value into a vmem scratch ref and copy that
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  store %buf[:], %i
  copy %buf -> %o[0:16]
}
)"},
{"Dma4ValueSemaphore",
VECTOR_KERNEL R"(  %n = const 0 : i32
  dma_start %x[0:16] -> %buf, %n
}
)",
R"(k.scir:8:31: error[DMA-4]: ValueError: DMA source/destination/semaphore arguments must be Refs.
    8 |   dma_start %x[0:16] -> %buf, %n
      |                               ^~
note: the semaphore %n is a scalar value (i32), not a ref
help: pass a DMA semaphore ref, e.g. `%sem` or `%sems[%i]`
)",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem
}
)"},
{"Dma5SemaphoreArray",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sems
}
)",
R"(k.scir:7:31: error[DMA-5]: ValueError: Cannot signal on a non-()-shaped semaphore: (2,)
    7 |   dma_start %x[0:16] -> %buf, %sems
      |                               ^~~~~
note: the semaphore %sems : dma_sem<2> is an array
help: index the semaphore array down to one semaphore, e.g. `%sems[0]`
)",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sems[1]
}
)"},
{"Dma5DataRefArray",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %ids
}
)",
R"(k.scir:7:31: error[DMA-5]: ValueError: Cannot signal on a non-()-shaped semaphore: (16,)
    7 |   dma_start %x[0:16] -> %buf, %ids
      |                               ^~~~
note: %ids : vmem<16xi32> is a data ref of shape (16,), not a semaphore
help: pass one DMA semaphore, e.g. `%sem` or `%sems[%i]`
)",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sems[1]
}
)"},
{"Dma7ValueSemaphore",
VECTOR_KERNEL R"(  %n = const 0 : i32
  dma_wait %x[0:16] -> %buf, %n
}
)",
R"(k.scir:8:30: error[DMA-7]: ValueError: Expected the destination semaphore to be a reference
    8 |   dma_wait %x[0:16] -> %buf, %n
      |                              ^~
note: the semaphore %n is a scalar value (i32)
help: pass the DMA semaphore ref the copy was started with
)",
VECTOR_KERNEL R"(  dma_wait %x[0:16] -> %buf, %sem
}
)"},
{"Dma8RegularSemaphore",
VECTOR_KERNEL R"(  dma_wait %x[0:16] -> %buf, %rs
}
)",
R"(k.scir:7:30: error[DMA-8]: ValueError: dma_wait requires a DMA semaphore, but got a regular semaphore. Use pl.semaphore_wait() instead.
    7 |   dma_wait %x[0:16] -> %buf, %rs
      |                              ^~~
note: the semaphore %rs : sem is a regular semaphore
help: allocate the copy's semaphore as `dma_sem` (a `sem` is waited with `sem_wait`)
)",
VECTOR_KERNEL R"(  dma_wait %x[0:16] -> %buf, %sem
}
)"},
{"Dma8DataRef",
VECTOR_KERNEL R"(  dma_wait %x[0:16] -> %buf, %s[0]
}
)",
R"(k.scir:7:30: error[DMA-8]: ValueError: dma_wait requires a DMA semaphore, but got a regular semaphore. Use pl.semaphore_wait() instead.
    7 |   dma_wait %x[0:16] -> %buf, %s[0]
      |                              ^~~~~
note: %s[0] : smem<i32> is a data ref of dtype int32, not a DMA semaphore (Pallas' message says "regular semaphore" for any non-DMA dtype)
help: allocate the copy's semaphore as `dma_sem` (a `sem` is waited with `sem_wait`)
)",
VECTOR_KERNEL R"(  dma_wait %x[0:16] -> %buf, %sems[0]
}
)"},
{"Dma9IndexedGatherDestination",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[0:16] -> %buf[idx(%i)]
}
)",
R"(k.scir:8:25: error[DMA-9]: ValueError: Only the source ref can be indexed when doing a gather via `pltpu.async_copy`
    8 |   copy %x[0:16] -> %buf[idx(%i)]
      |                         ^~~~~~~
note: a copy from HBM to VMEM is a gather, but its destination %buf[idx(%i)] is indexed with %i
help: index only the source (`copy %x[idx(%ids)] -> %buf`); scatter with a separate VMEM-to-HBM copy
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[idx(%i)] -> %buf
}
)"},
{"Dma9FromVmemShared",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %sh[0:16] -> %buf[idx(%i)]
}
)",
R"(k.scir:8:26: error[DMA-9]: ValueError: Only the source ref can be indexed when doing a gather via `pltpu.async_copy`
    8 |   copy %sh[0:16] -> %buf[idx(%i)]
      |                          ^~~~~~~
note: a copy from VMEM_SHARED to VMEM is a gather, but its destination %buf[idx(%i)] is indexed with %i
help: index only the source (`copy %x[idx(%ids)] -> %buf`); scatter with a separate VMEM-to-HBM copy
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %sh[idx(%i)] -> %buf
}
)"},
{"Dma10IndexedScatterSource",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %buf[idx(%i)] -> %sh[0:16]
}
)",
R"(k.scir:8:13: error[DMA-10]: ValueError: Only the destination ref can be indexed when doing a scatter via `pltpu.async_copy`
    8 |   copy %buf[idx(%i)] -> %sh[0:16]
      |             ^~~~~~~
note: a copy from VMEM to VMEM_SHARED is a scatter, but its source %buf[idx(%i)] is indexed with %i
help: index only the destination (`copy %buf -> %o[idx(%ids)]`)
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %buf -> %sh[idx(%i)]
}
)"},
{"Dma11HbmToHbm",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[idx(%i)] -> %o[0:16]
}
)",
R"(k.scir:8:11: error[DMA-11]: NotImplementedError: Scatter/gather via `pltpu.async_copy` from HBM to HBM is not supported
    8 |   copy %x[idx(%i)] -> %o[0:16]
      |           ^~~~~~~
note: %x[idx(%i)] carries an idx(...) index list, but the copy goes from HBM to HBM
help: stage through VMEM: an indirect copy has VMEM on exactly one side and HBM or VMEM_SHARED on the other
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[idx(%i)] -> %buf
}
)"},
{"Dma11VmemToVmem",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %ids -> %buf[idx(%i)]
}
)",
R"(k.scir:8:21: error[DMA-11]: NotImplementedError: Scatter/gather via `pltpu.async_copy` from VMEM to VMEM is not supported
    8 |   copy %ids -> %buf[idx(%i)]
      |                     ^~~~~~~
note: %buf[idx(%i)] carries an idx(...) index list, but the copy goes from VMEM to VMEM
help: stage through VMEM: an indirect copy has VMEM on exactly one side and HBM or VMEM_SHARED on the other
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %ids -> %buf
}
)"},
{"Dma11ToSmem",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[idx(%i)] -> %s
}
)",
R"(k.scir:8:11: error[DMA-11]: NotImplementedError: Scatter/gather via `pltpu.async_copy` from HBM to SMEM is not supported
    8 |   copy %x[idx(%i)] -> %s
      |           ^~~~~~~
note: %x[idx(%i)] carries an idx(...) index list, but the copy goes from HBM to SMEM
help: stage through VMEM: an indirect copy has VMEM on exactly one side and HBM or VMEM_SHARED on the other
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[0:16] -> %s
}
)"},
{"Dma12VmemToVmem",
VECTOR_KERNEL R"(  copy %ids -> %buf add
}
)",
R"(k.scir:7:3: error[DMA-12]: ValueError: DMAs with `add=True` are only supported between VMEM and HBM/VMEM_SHARED.Got (src, dst)=(VMEM, VMEM)
    7 |   copy %ids -> %buf add
      |   ^~~~
note: `add` copies from VMEM to VMEM
help: make one side VMEM and the other HBM or VMEM_SHARED, and give the HBM side an idx(...) list
)",
VECTOR_KERNEL R"(  copy %ids -> %buf
}
)"},
{"Dma12HbmToHbm",
VECTOR_KERNEL R"(  copy %x[0:16] -> %o[0:16] add
}
)",
R"(k.scir:7:3: error[DMA-12]: ValueError: DMAs with `add=True` are only supported between VMEM and HBM/VMEM_SHARED.Got (src, dst)=(HBM, HBM)
    7 |   copy %x[0:16] -> %o[0:16] add
      |   ^~~~
note: `add` copies from HBM to HBM
help: make one side VMEM and the other HBM or VMEM_SHARED, and give the HBM side an idx(...) list
)",
VECTOR_KERNEL R"(  copy %x[0:16] -> %o[0:16]
}
)"},
{"Dma13ScatterWithoutIndices",
VECTOR_KERNEL R"(  copy %buf -> %o[0:16] add
}
)",
R"(k.scir:7:3: error[DMA-13]: NotImplementedError: DMAs with `add=True` must (for now) specify offsets of the majormost dimension. You can do this by writing `pltpu.async_copy(..., dst_ref=dst_ref.at[jnp.arange(vec_dim)], ...)` or `pltpu.async_copy(..., dst_ref=dst_ref.at[indices_ref], ...)`.
    7 |   copy %buf -> %o[0:16] add
      |   ^~~~
note: `add` copies from VMEM to HBM, but %o[0:16] has no idx(...) index list
help: index the first dimension of %o with idx(%ids), %ids a vector of row numbers (an iota for all rows) or an i32 vmem ref
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %buf -> %o[idx(%i)] add
}
)"},
{"Dma13GatherWithoutIndices",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem add
}
)",
R"(k.scir:7:3: error[DMA-13]: NotImplementedError: DMAs with `add=True` must (for now) specify offsets of the majormost dimension. You can do this by writing `pltpu.async_copy(..., src_ref=src_ref.at[jnp.arange(vec_dim)], ...)` or `pltpu.async_copy(..., src_ref=src_ref.at[indices_ref], ...)`.
    7 |   dma_start %x[0:16] -> %buf, %sem add
      |   ^~~~~~~~~
note: `add` copies from HBM to VMEM, but %x[0:16] has no idx(...) index list
help: index the first dimension of %x with idx(%ids), %ids a vector of row numbers (an iota for all rows) or an i32 vmem ref
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  dma_start %x[idx(%i)] -> %buf, %sem add
}
)"},
{"Dma18RefRank2",
VECTOR_KERNEL R"(  copy %x[idx(%ids2)] -> %buf[0:2]
}
)",
R"(k.scir:7:11: error[DMA-18]: NotImplementedError: Only 1D indices are supported by scatter/gather via `pltpu.async_copy` on SparseCore, got rank 2
    7 |   copy %x[idx(%ids2)] -> %buf[0:2]
      |           ^~~~~~~~~~
note: the index list %ids2 : vmem<2x8xi32> has rank 2
help: flatten the index list to 1-D, or take one row of it with a `view` (`view %ids[%r, :]`)
)",
VECTOR_KERNEL R"(  copy %x[idx(%ids)] -> %buf
}
)"},
{"Dma18VectorRank2",
VECTOR_KERNEL R"(  %i2 = const dense<0> : vector<2x8xi32>
  copy %x[idx(%i2)] -> %buf[0:2]
}
)",
R"(k.scir:8:11: error[DMA-18]: NotImplementedError: Only 1D indices are supported by scatter/gather via `pltpu.async_copy` on SparseCore, got rank 2
    8 |   copy %x[idx(%i2)] -> %buf[0:2]
      |           ^~~~~~~~
note: the index list %i2 : vector<2x8xi32> has rank 2
help: flatten the index list to 1-D, or take one row of it with a `view` (`view %ids[%r, :]`)
)",
VECTOR_KERNEL R"(  %i2 = const dense<0> : vector<16xi32>
  copy %x[idx(%i2)] -> %buf
}
)"},
{"Dma18ScalarIndex",
VECTOR_KERNEL R"(  %j = const 3 : i32
  copy %x[idx(%j)] -> %buf
}
)",
R"(k.scir:8:11: error[DMA-18]: NotImplementedError: Only 1D indices are supported by scatter/gather via `pltpu.async_copy` on SparseCore, got rank 0
    8 |   copy %x[idx(%j)] -> %buf
      |           ^~~~~~~
note: the index list %j : i32 has rank 0
help: flatten the index list to 1-D, or take one row of it with a `view` (`view %ids[%r, :]`)
)",
VECTOR_KERNEL R"(  %j = const 3 : i32
  copy %x[ds(%j, 16)] -> %buf
}
)"},
{"Dma18BeforeDma9",
VECTOR_KERNEL R"(  copy %x[0:2] -> %buf[idx(%ids2)]
}
)",
R"(k.scir:7:24: error[DMA-18]: NotImplementedError: Only 1D indices are supported by scatter/gather via `pltpu.async_copy` on SparseCore, got rank 2
    7 |   copy %x[0:2] -> %buf[idx(%ids2)]
      |                        ^~~~~~~~~~
note: the index list %ids2 : vmem<2x8xi32> has rank 2
help: flatten the index list to 1-D, or take one row of it with a `view` (`view %ids[%r, :]`)
)",
VECTOR_KERNEL R"(  copy %x[0:16] -> %buf
}
)"},
{"Dma19ShapeMismatch",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %t[idx(%i)] -> %buf
}
)",
R"(k.scir:8:11: error[DMA-19]: NotImplementedError: The indexer shape in scatter/gather via `pltpu.async_copy` does not match the expected shape. Want: (16,), got: (16, 8).
    8 |   copy %t[idx(%i)] -> %buf
      |           ^~~~~~~
note: the indexed side %t[idx(%i)] selects hbm<16x8xi32>, but the other side of the copy has shape (16,)
help: give the other side the shape (number of indices, *row shape), e.g. slice the VMEM buffer to the number of indices
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %t[idx(%i)] -> %rows
}
)"},
{"Dma19DynamicOtherSide",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %n = get %s[0] : i32
  copy %x[idx(%i)] -> %ids[ds(0, %n)]
}
)",
R"(k.scir:9:11: error[DMA-19]: NotImplementedError: The indexer shape in scatter/gather via `pltpu.async_copy` does not match the expected shape. Want: (-9223372036854775808,), got: (16,).
    9 |   copy %x[idx(%i)] -> %ids[ds(0, %n)]
      |           ^~~~~~~
note: the indexed side %x[idx(%i)] selects hbm<16xi32>, but the other side of the copy has shape (?,); Mosaic's static shape gives a dynamic dimension the size -9223372036854775808
help: give the other side the shape (number of indices, *row shape), e.g. slice the VMEM buffer to the number of indices
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[idx(%i)] -> %buf
}
)"},
{"Dma20ViewNotInt32",
VECTOR_KERNEL R"(  %iv = view %ids16[0:8] : vmem<8xi16>
  copy %x[idx(%iv)] -> %buf[0:8]
}
)",
R"(k.scir:8:11: error[DMA-20]: NotImplementedError: Only int32 indices are supported by scatter/gather via `pltpu.async_copy` with a dynamically-shaped indexer
    8 |   copy %x[idx(%iv)] -> %buf[0:8]
      |           ^~~~~~~~
note: the index list %iv : vmem<8xi16> has dtype int16
help: keep index lists in i32 refs
)",
VECTOR_KERNEL R"(  %iv = view %ids[0:8] : vmem<8xi32>
  copy %x[idx(%iv)] -> %buf[0:8]
}
)"},
{"Dma21HbmIndexRef",
VECTOR_KERNEL R"(  copy %x[idx(%hi)] -> %buf
}
)",
R"(k.scir:7:11: error[DMA-21]: NotImplementedError: Indices for scatter/gather via `pltpu.async_copy` must be in VMEM, got HBM
    7 |   copy %x[idx(%hi)] -> %buf
      |           ^~~~~~~~
note: the index list %hi : hbm<16xi32> is in HBM
help: `copy` the indices into a vmem scratch ref first
)",
VECTOR_KERNEL R"(  copy %hi -> %ids
  copy %x[idx(%ids)] -> %buf
}
)"},
{"Dma21SmemIndexRef",
VECTOR_KERNEL R"(  copy %x[idx(%s)] -> %buf
}
)",
R"(k.scir:7:11: error[DMA-21]: NotImplementedError: Indices for scatter/gather via `pltpu.async_copy` must be in VMEM, got SMEM
    7 |   copy %x[idx(%s)] -> %buf
      |           ^~~~~~~
note: the index list %s : smem<16xi32> is in SMEM
help: `copy` the indices into a vmem scratch ref first
)",
VECTOR_KERNEL R"(  copy %x[idx(%ids)] -> %buf
}
)"},
{"Dma21BeforeDma9",
VECTOR_KERNEL R"(  copy %x[0:16] -> %buf[idx(%hi)]
}
)",
R"(k.scir:7:25: error[DMA-21]: NotImplementedError: Indices for scatter/gather via `pltpu.async_copy` must be in VMEM, got HBM
    7 |   copy %x[0:16] -> %buf[idx(%hi)]
      |                         ^~~~~~~~
note: the index list %hi : hbm<16xi32> is in HBM
help: `copy` the indices into a vmem scratch ref first
)",
VECTOR_KERNEL R"(  copy %x[0:16] -> %buf
}
)"},
{"Dma21PipelineIndexRef",
VECTOR_KERNEL R"(  pipeline grid(4)
      in(%t, block [indirect(16), 8], map (%j) -> (idx(%hi), 0))
      body(%tv: vmem<16x8xi32>) {
  }
}
)",
R"(k.scir:8:52: error[DMA-21]: NotImplementedError: Indices for scatter/gather via `pltpu.async_copy` must be in VMEM, got HBM
    8 |       in(%t, block [indirect(16), 8], map (%j) -> (idx(%hi), 0))
      |                                                    ^~~~~~~~
note: the index list %hi : hbm<16xi32> is in HBM
help: `copy` the indices into a vmem scratch ref first
)",
VECTOR_KERNEL R"(  pipeline grid(4)
      in(%t, block [indirect(16), 8], map (%j) -> (idx(%ids), 0))
      body(%tv: vmem<16x8xi32>) {
  }
}
)"},
{"Dma18PipelineIndexRef",
VECTOR_KERNEL R"(  pipeline grid(4)
      out(%t, block [indirect(8), 8], map (%j) -> (idx(%m), 0))
      body(%tv: vmem<8x8xi32>) {
  }
}
)",
R"(k.scir:8:52: error[DMA-18]: NotImplementedError: Only 1D indices are supported by scatter/gather via `pltpu.async_copy` on SparseCore, got rank 2
    8 |       out(%t, block [indirect(8), 8], map (%j) -> (idx(%m), 0))
      |                                                    ^~~~~~~
note: the index list %m : vmem<2x8xi32> has rank 2
help: flatten the index list to 1-D, or take one row of it with a `view` (`view %ids[%r, :]`)
)",
VECTOR_KERNEL R"(  %row = view %m[0] : vmem<8xi32>
  pipeline grid(4)
      out(%t, block [indirect(8), 8], map (%j) -> (idx(%row), 0))
      body(%tv: vmem<8x8xi32>) {
  }
}
)"},
{"Gen3PipelineIndexVector",
VECTOR_KERNEL R"(  pipeline grid(4)
      in(%t, block [indirect(16), 8], map (%j) {
        %l = iota : vector<16xf32>
        yield idx(%l), 0
      })
      body(%tv: vmem<16x8xi32>) {
  }
}
)",
R"(k.scir:10:15: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_indirect_dma' op operand #2 must be memref of 32-bit signless integer values or vector of 32-bit signless integer values of ranks 1, but got 'vector<16xf32>'
   10 |         yield idx(%l), 0
      |               ^~~~~~~
note: the index list %l is vector<16xf32> (MLIR's `see current operation` note is not reproduced)
help: use an i32 index list (`convert` a vector, or copy the indices into an i32 vmem ref)
)",
VECTOR_KERNEL R"(  pipeline grid(4)
      in(%t, block [indirect(16), 8], map (%j) {
        %l = iota : vector<16xi32>
        yield idx(%l), 0
      })
      body(%tv: vmem<16x8xi32>) {
  }
}
)"},
{"Dma22ViewThenIndexer",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %t[idx(%i)] : hbm<16x8xi32>
  copy %g[:, :] -> %rows
}
)",
R"(k.scir:9:8: error[DMA-22]: NotImplementedError: The indexed ref in scatter/gather via `pltpu.async_copy` cannot have any transforms following the indexer
    9 |   copy %g[:, :] -> %rows
      |        ^~~~~~~~
note: the idx(...) indexer of %t[idx(%i)] (made by the `view` on line 8) is followed by the indexer of %g[:, :]
help: apply slices, bitcasts and reshapes before the idx(...) view (`%x[%a]` then `[idx(...)]`), or to the other side
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %t[idx(%i)] : hbm<16x8xi32>
  copy %g -> %rows
}
)"},
{"Dma22ReshapeAfterIndexer",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %t[idx(%i)] : hbm<16x8xi32>
  %r = view_reshape %g : hbm<8x16xi32>
  copy %r -> %rows
}
)",
R"(k.scir:10:8: error[DMA-22]: NotImplementedError: The indexed ref in scatter/gather via `pltpu.async_copy` cannot have any transforms following the indexer
   10 |   copy %r -> %rows
      |        ^~
note: the idx(...) indexer of %t[idx(%i)] (made by the `view` on line 8) is followed by `view_reshape` on line 9
help: apply slices, bitcasts and reshapes before the idx(...) view (`%x[%a]` then `[idx(...)]`), or to the other side
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %t[idx(%i)] : hbm<16x8xi32>
  copy %g -> %rows
}
)"},
// Pallas lowers a ref's transforms where a DMA uses it, after DMA-22's check:
// reshaping a 1-D gathered ref is DMA-22, not XF-6 (upstream
// test_invalid_gather_1d_with_extra_transforms).
{"Dma22ReshapeOfA1dGatheredRef",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %x[idx(%i)] : hbm<16xi32>
  %r = view_reshape %g : hbm<16xi32>
  copy %r -> %buf
}
)",
R"(k.scir:10:8: error[DMA-22]: NotImplementedError: The indexed ref in scatter/gather via `pltpu.async_copy` cannot have any transforms following the indexer
   10 |   copy %r -> %buf
      |        ^~
note: the idx(...) indexer of %x[idx(%i)] (made by the `view` on line 8) is followed by `view_reshape` on line 9
help: apply slices, bitcasts and reshapes before the idx(...) view (`%x[%a]` then `[idx(...)]`), or to the other side
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %x[idx(%i)] : hbm<16xi32>
  copy %g -> %buf
}
)"},
{"Xf1DmaOperand",
VECTOR_KERNEL R"(  copy %x[ds(0, 16, stride = 2)] -> %buf
}
)",
R"(k.scir:7:11: error[XF-1]: NotImplementedError: Strided slices of references are unsupported.
    7 |   copy %x[ds(0, 16, stride = 2)] -> %buf
      |           ^~~~~~~~~~~~~~~~~~~~~
note: the slice in %x[ds(0, 16, stride = 2)] has stride 2
help: use unit strides, or gather the elements with `load_gather` and strided indices
)",
VECTOR_KERNEL R"(  copy %x[ds(0, 16)] -> %buf
}
)"},
{"Xf9GatherDirection",
VECTOR_KERNEL R"(  %k = axis_index subcore : i32
  %sel = select_ref %k, %buf, %ids : vmem<16xi32>
  copy %x[0:16] -> %sel
}
)",
R"(k.scir:9:20: error[XF-9]: NotImplementedError: _transform_ref() only supports single ref transforms. Got: ref = (%buf, %ids), ref_ty = (Ref<vmem>{int32[16]}, Ref<vmem>{int32[16]}), ref_block_shape = ((16,), (16,)), transforms = (SelectTransform(idx=JitTracer(int32[])),)
    9 |   copy %x[0:16] -> %sel
      |                    ^~~~
note: %sel is chosen by the `select_ref` on line 8; a gather/scatter-direction DMA transforms its operands one ref at a time (scjit shows the refs by their .scir names)
help: select_ref works for DMAs between other memory spaces (e.g. HBM to HBM); otherwise choose the ref with `if` and write one DMA per branch
)",
VECTOR_KERNEL R"(  %k = axis_index subcore : i32
  %sel = select_ref %k, %x, %o : hbm<64xi32>
  copy %sel -> %o
}
)"},
{"Gen3ShapeMismatch",
VECTOR_KERNEL R"(  copy %x[0:8] -> %buf
}
)",
R"(k.scir:7:3: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op DMA source and target shape mismatch.
    7 |   copy %x[0:8] -> %buf
      |   ^~~~
note: the source %x[0:8] : hbm<8xi32> is memref<8xi32, #tpu.memory_space<hbm>> and the destination %buf : vmem<16xi32> is memref<16xi32, #tpu.memory_space<vmem>> (MLIR's `see current operation` note is not reproduced)
help: make both sides the same shape after their indexers (a dynamic size matches only another dynamic size)
)",
VECTOR_KERNEL R"(  copy %x[0:16] -> %buf
}
)"},
{"Gen3RankMismatch",
VECTOR_KERNEL R"(  copy %t[0:2, :] -> %buf
}
)",
R"(k.scir:7:3: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op DMA source and target shape mismatch.
    7 |   copy %t[0:2, :] -> %buf
      |   ^~~~
note: the source %t[0:2, :] : hbm<2x8xi32> is memref<2x8xi32, #tpu.memory_space<hbm>> and the destination %buf : vmem<16xi32> is memref<16xi32, #tpu.memory_space<vmem>> (MLIR's `see current operation` note is not reproduced)
help: make both sides the same shape after their indexers (a dynamic size matches only another dynamic size)
)",
VECTOR_KERNEL R"(  copy %t[0:2, :] -> %m
}
)"},
{"Gen3DynamicAgainstStatic",
VECTOR_KERNEL R"(  %n = get %s[0] : i32
  copy %x[ds(0, %n)] -> %buf
}
)",
R"(k.scir:8:3: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op DMA source and target shape mismatch.
    8 |   copy %x[ds(0, %n)] -> %buf
      |   ^~~~
note: the source %x[ds(0, %n)] : hbm<?xi32> is memref<?xi32, #tpu.memory_space<hbm>> and the destination %buf : vmem<16xi32> is memref<16xi32, #tpu.memory_space<vmem>> (MLIR's `see current operation` note is not reproduced)
help: make both sides the same shape after their indexers (a dynamic size matches only another dynamic size)
)",
VECTOR_KERNEL R"(  %n = get %s[0] : i32
  copy %x[ds(0, %n)] -> %ids[ds(0, %n)]
}
)"},
{"Gen3ElementTypeMismatch",
VECTOR_KERNEL R"(  copy %x[0:16] -> %f
}
)",
R"(k.scir:7:3: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op DMA source and target element type mismatch
    7 |   copy %x[0:16] -> %f
      |   ^~~~
note: the source %x[0:16] : hbm<16xi32> is memref<16xi32, #tpu.memory_space<hbm>> and the destination %f : vmem<16xf32> is memref<16xf32, #tpu.memory_space<vmem>> (MLIR's `see current operation` note is not reproduced)
help: copy between refs of one element type (convert values with `get`, `convert`, `store`)
)",
VECTOR_KERNEL R"(  copy %x[0:16] -> %u
}
)"},
{"Gen3Priority2",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem {priority = 2}
}
)",
R"(k.scir:7:37: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op Not implemented: only support priority 0 or 1, but got 2
    7 |   dma_start %x[0:16] -> %buf, %sem {priority = 2}
      |                                     ^~~~~~~~
note: priority = 2 (MLIR's `see current operation` note is not reproduced)
help: use priority 0 (the default) or 1
)",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sem {priority = 1}
}
)"},
{"Gen3StartDataRefSemaphore",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %s[0]
}
)",
R"(k.scir:7:31: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_dma' op operand #2 must be memref of  or  values, but got 'memref<i32, #tpu.memory_space<smem>>'
    7 |   dma_start %x[0:16] -> %buf, %s[0]
      |                               ^~~~~
note: %s[0] : smem<i32> is a data ref, not a semaphore (MLIR's `see current operation` note is not reproduced)
help: pass a `dma_sem` semaphore
)",
VECTOR_KERNEL R"(  dma_start %x[0:16] -> %buf, %sems[0]
}
)"},
{"Gen3WaitSemaphoreArray",
VECTOR_KERNEL R"(  dma_wait %x[0:16] -> %buf, %sems
}
)",
R"(k.scir:7:30: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.wait_dma2' op DMA wait semaphore must be rank 0
    7 |   dma_wait %x[0:16] -> %buf, %sems
      |                              ^~~~~
note: the semaphore %sems : dma_sem<2> is an array (MLIR's `see current operation` note is not reproduced)
help: index it down to one semaphore, e.g. `%sems[0]`
)",
VECTOR_KERNEL R"(  dma_wait %x[0:16] -> %buf, %sems[0]
}
)"},
{"Gen3WaitIsNotShapeChecked",
VECTOR_KERNEL R"(  dma_wait %x[0:8] -> %buf, %sem
}
)",
R"()",
nullptr},
{"Gen3IdxNotFirst",
VECTOR_KERNEL R"(  %i8 = const dense<0> : vector<8xi32>
  copy %t[0:16, idx(%i8)] -> %rows
}
)",
R"(k.scir:8:17: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.memref_slice' op operand #2 must be variadic of 32-bit signless integer, but got 'vector<8xi32>'
    8 |   copy %t[0:16, idx(%i8)] -> %rows
      |                 ^~~~~~~~
note: in the source %t[0:16, idx(%i8)], idx(%i8) indexes dimension 1: Pallas treats only an index list in the first dimension as a gather/scatter, and lowers this one as a slice start (MLIR's `see current operation` note is not reproduced)
help: put the idx(...) list first (`view` away the leading dimensions first, e.g. %x[%i] then [idx(...)])
)",
VECTOR_KERNEL R"(  %i8 = const dense<0> : vector<16xi32>
  copy %t[idx(%i8), :] -> %rows
}
)"},
{"Gen3IdxWithIntegerIndex",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %t[idx(%i), 3] -> %buf
}
)",
R"(k.scir:8:20: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.memref_slice' op operand #2 must be variadic of 32-bit signless integer, but got 'vector<16xi32>'
    8 |   copy %t[idx(%i), 3] -> %buf
      |                    ^
note: in the source %t[idx(%i), 3], the integer index 3 shares an indexer with an idx(...) list; Pallas broadcasts it to the list's shape (MLIR's `see current operation` note is not reproduced)
help: apply integer indices in a `view` before the one with idx(...) (e.g. %x[%i] then [idx(...)])
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %col = view %t[:, 3] : hbm<64xi32>
  copy %col[idx(%i)] -> %buf
}
)"},
{"Gen3IndirectRegularSemaphore",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  dma_start %x[idx(%i)] -> %buf, %rs
}
)",
R"(k.scir:8:34: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_indirect_dma' op operand #3 must be memref of  values, but got 'memref<!tpu.semaphore, #tpu.memory_space<semaphore_mem>>'
    8 |   dma_start %x[idx(%i)] -> %buf, %rs
      |                                  ^~~
note: an indirect DMA signals a DMA semaphore; %rs : sem is not one (MLIR's `see current operation` note is not reproduced)
help: allocate the semaphore as `dma_sem`
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  dma_start %x[idx(%i)] -> %buf, %sem
}
)"},
{"Gen3IndirectNonI32Ref",
VECTOR_KERNEL R"(  copy %x[idx(%ids16)] -> %buf
}
)",
R"(k.scir:7:11: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_indirect_dma' op operand #2 must be memref of 32-bit signless integer values or vector of 32-bit signless integer values of ranks 1, but got 'memref<16xi16, #tpu.memory_space<vmem>>'
    7 |   copy %x[idx(%ids16)] -> %buf
      |           ^~~~~~~~~~~
note: the index list %ids16 is vmem<16xi16> (MLIR's `see current operation` note is not reproduced)
help: use an i32 index list (`convert` a vector, or copy the indices into an i32 vmem ref)
)",
VECTOR_KERNEL R"(  copy %x[idx(%u)] -> %buf
}
)"},
{"Gen3IndirectIgnoreNotI32",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %z = const -1 : i16
  copy %x[idx(%i, ignore = %z)] -> %buf
}
)",
R"(k.scir:9:28: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_indirect_dma' op operand #4 must be 32-bit signless integer, but got 'i16'
    9 |   copy %x[idx(%i, ignore = %z)] -> %buf
      |                            ^~
note: the ignore value %z is i16 (MLIR's `see current operation` note is not reproduced)
help: `convert` the ignore value to i32
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %z = const -1 : i32
  copy %x[idx(%i, ignore = %z)] -> %buf
}
)"},
{"Gen3IndirectElementTypeMismatch",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[idx(%i)] -> %f
}
)",
R"(k.scir:8:3: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_indirect_dma' op Source and target element type mismatch
    8 |   copy %x[idx(%i)] -> %f
      |   ^~~~
note: the source %x[idx(%i)] : hbm<16xi32> and the destination %f : vmem<16xf32> hold different types (MLIR's `see current operation` note is not reproduced)
help: copy between refs of one element type (convert values with `get`, `convert`, `store`)
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  copy %x[idx(%i)] -> %u
}
)"},
{"Gen3GatherOffsetsFromView",
VECTOR_KERNEL R"(  %iv = view %ids2[0, :] : vmem<8xi32>
  copy %x[idx(%iv)] -> %buf
}
)",
R"(k.scir:8:3: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_indirect_dma' op Offsets shape (8) must match the majormost dimensions of the target (gather result) shape (16)
    8 |   copy %x[idx(%iv)] -> %buf
      |   ^~~~
note: the indexed side %x[idx(%iv)] is memref<64xi32, #tpu.memory_space<hbm>> with offsets of shape (8), the other side %buf : vmem<16xi32> (MLIR's `see current operation` note is not reproduced)
help: make the shapes and dtypes consistent
)",
VECTOR_KERNEL R"(  %iv = view %ids2[0, :] : vmem<8xi32>
  copy %x[idx(%iv)] -> %buf[0:8]
}
)"},
{"Gen3ScatterOffsetsFromView",
VECTOR_KERNEL R"(  %iv = view %ids[0:8] : vmem<8xi32>
  copy %rows -> %t[idx(%iv)]
}
)",
R"(k.scir:8:3: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.enqueue_indirect_dma' op Offsets shape (8) must match the majormost dimensions of the source (scatter updates) shape (16, 8)
    8 |   copy %rows -> %t[idx(%iv)]
      |   ^~~~
note: the indexed side %t[idx(%iv)] is memref<64x8xi32, #tpu.memory_space<hbm>> with offsets of shape (8), the other side %rows : vmem<16x8xi32> (MLIR's `see current operation` note is not reproduced)
help: make the shapes and dtypes consistent
)",
VECTOR_KERNEL R"(  %iv = view %ids[0:16] : vmem<16xi32>
  copy %rows -> %t[idx(%iv)]
}
)"},
{"Gen3IndirectWaitSemaphoreArray",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  dma_wait %x[idx(%i)] -> %buf, %sems
}
)",
R"(k.scir:8:33: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.wait_indirect_dma' op Indirect DMA wait semaphore must be rank 0
    8 |   dma_wait %x[idx(%i)] -> %buf, %sems
      |                                 ^~~~~
note: the semaphore %sems : dma_sem<2> is an array (MLIR's `see current operation` note is not reproduced)
help: index it down to one semaphore, e.g. `%sems[0]`
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  dma_wait %x[idx(%i)] -> %buf, %sems[0]
}
)"},
{"Gen3IdxViewUsedByGet",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %buf[idx(%i)] : vmem<16xi32>
  %v = get %g[:] : vector<16xi32>
}
)",
R"(k.scir:8:18: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.memref_slice' op operand #1 must be variadic of 32-bit signless integer, but got 'vector<16xi32>'
    8 |   %g = view %buf[idx(%i)] : vmem<16xi32>
      |                  ^~~~~~~
note: the view %buf[idx(%i)] is used by the `get` on line 9, which slices it like a ref: only a DMA's source or destination takes an idx(...) list (MLIR's `see current operation` note is not reproduced)
help: use idx(...) views only as DMA operands; load the rows with `load_gather` instead
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %g = view %x[idx(%i)] : hbm<16xi32>
  copy %g -> %buf
}
)"},
{"Xf1View",
VECTOR_KERNEL R"(  %v = view %buf[ds(0, 8, stride = 2)] : vmem<8xi32>
}
)",
R"(k.scir:7:18: error[XF-1]: NotImplementedError: Strided slices of references are unsupported.
    7 |   %v = view %buf[ds(0, 8, stride = 2)] : vmem<8xi32>
      |                  ^~~~~~~~~~~~~~~~~~~~
note: the slice in %buf[ds(0, 8, stride = 2)] has stride 2
help: use unit strides, or gather the elements with `load_gather` and strided indices
)",
VECTOR_KERNEL R"(  %v = view %buf[ds(0, 8)] : vmem<8xi32>
}
)"},
{"Xf2Bitcast1D",
VECTOR_KERNEL R"(  %b = view_bitcast %buf : vmem<32xi16>
}
)",
R"(k.scir:7:8: error[XF-2]: NotImplementedError: Bitcast 1D ref with bitwidth change is not supported.
    7 |   %b = view_bitcast %buf : vmem<32xi16>
      |        ^~~~~~~~~~~~
note: %buf is vmem<16xi32>, viewed as vmem<32xi16>
help: declare the ref 2-D (vmem<1x16xi32>; a 1-D ref cannot be reshaped either, XF-6), or bitcast loaded values with `bitcast`
)",
VECTOR_KERNEL R"(  %b = view_bitcast %w : vmem<2x16xi16>
}
)"},
{"Xf4BitcastUneven",
VECTOR_KERNEL R"(  %b = view_bitcast %q : vmem<1x16xi32>
}
)",
R"(k.scir:7:8: error[XF-4]: ValueError: Expected input and output shapes are the same after multiplying the second-minor dimension by the bitwidths.
    7 |   %b = view_bitcast %q : vmem<1x16xi32>
      |        ^~~~~~~~~~~~
note: %q is vmem<3x16xi16>, viewed as vmem<1x16xi32>: the second-minor dimension 3 times 16 bits is not a multiple of 32 bits
help: make the second-minor dimension times the old width a multiple of the new width
)",
VECTOR_KERNEL R"(  %b = view_bitcast %m : vmem<4x8xi16>
}
)"},
{"Xf5BitcastSameWidth1D",
VECTOR_KERNEL R"(  %b = view_bitcast %buf : vmem<16xf32>
}
)",
R"(k.scir:7:8: error[XF-5]: IndexError: list index out of range
    7 |   %b = view_bitcast %buf : vmem<16xf32>
      |        ^~~~~~~~~~~~
note: %buf is vmem<16xi32>, viewed as vmem<16xf32>; Pallas' ref bitcast always rescales the second-minor dimension, which a 1-D ref does not have
help: bitcast the loaded value instead (`bitcast` keeps the shape for equal widths), or declare the ref 2-D
)",
VECTOR_KERNEL R"(  %b = view_bitcast %w : vmem<1x16xf32>
}
)"},
{"Xf6Reshape1D",
VECTOR_KERNEL R"(  %r = view_reshape %buf : vmem<2x8xi32>
}
)",
R"(k.scir:7:8: error[XF-6]: NotImplementedError: Reshape 1D ref is not supported.
    7 |   %r = view_reshape %buf : vmem<2x8xi32>
      |        ^~~~~~~~~~~~
note: %buf : vmem<16xi32> is viewed as vmem<2x8xi32>; the ref has rank 1
help: reshape the loaded value instead (`reshape`), or start from a ref of rank 2 or more
)",
VECTOR_KERNEL R"(  %r = view_reshape %m : vmem<16x1xi32>
}
)"},
{"Xf8ReshapeCount",
VECTOR_KERNEL R"(  %r = view_reshape %m : vmem<4x8xi32>
}
)",
R"(k.scir:7:8: error[XF-8]: ValueError: Reshape a ref with different number of elements: (2, 8) vs (4, 8)
    7 |   %r = view_reshape %m : vmem<4x8xi32>
      |        ^~~~~~~~~~~~
note: %m : vmem<2x8xi32> is viewed as vmem<4x8xi32>: 16 elements vs 32 (Pallas' ref.reshape itself rejects this first, with `cannot reshape ref of shape ...`)
help: keep the element count
)",
VECTOR_KERNEL R"(  %r = view_reshape %m : vmem<4x4xi32>
}
)"},
{"Xf8ReshapeDynamic",
VECTOR_KERNEL R"(  %n = get %s[0] : i32
  %d = view %m[ds(0, %n), :] : vmem<?x8xi32>
  %r = view_reshape %d : vmem<8x1xi32>
}
)",
R"(k.scir:9:8: error[XF-8]: ValueError: Reshape a ref with different number of elements: (JitTracer(int32[]), 8) vs (8, 1)
    9 |   %r = view_reshape %d : vmem<8x1xi32>
      |        ^~~~~~~~~~~~
note: %d : vmem<?x8xi32> is viewed as vmem<8x1xi32>; the element count of a dynamically sized ref is not known when the kernel is compiled (Pallas: `Reshape ref with dynamic size is not supported.`)
help: keep the element count
)",
nullptr},
{"Xf9SelectToSemaphoreOp",
VECTOR_KERNEL R"(  %k = axis_index subcore : i32
  %sel = select_ref %k, %rss, %rss : sem<2>
  sem_signal %sel[0], 1
}
)",
R"(k.scir:8:10: error[XF-9]: NotImplementedError: _transform_ref() only supports single ref transforms. Got: ref = (%rss, %rss), ref_ty = (Ref<semaphore_mem>{semaphore[2]}, Ref<semaphore_mem>{semaphore[2]}), ref_block_shape = ((2,), (2,)), transforms = (SelectTransform(idx=JitTracer(int32[])),)
    8 |   %sel = select_ref %k, %rss, %rss : sem<2>
      |          ^~~~~~~~~~
note: %sel is used by the `sem_signal` on line 9, which takes a single ref (scjit shows the refs by their .scir names)
help: choose with `if` and use each ref in its own branch; select_ref serves only DMA operands
)",
VECTOR_KERNEL R"(  %k = axis_index subcore : i32
  sem_signal %rss[%k], 1
}
)"},
{"Xf9SelectOfSemaphoresForDma",
VECTOR_KERNEL R"(  %k = axis_index subcore : i32
  %sel = select_ref %k, %sems, %sems : dma_sem<2>
  %one = view %sel[0] : dma_sem
  %r = sem_read %one : i32
}
)",
R"(k.scir:8:10: error[XF-9]: NotImplementedError: _transform_ref() only supports single ref transforms. Got: ref = (%sems, %sems), ref_ty = (Ref<semaphore_mem>{dma_sem[2]}, Ref<semaphore_mem>{dma_sem[2]}), ref_block_shape = ((2,), (2,)), transforms = (SelectTransform(idx=JitTracer(int32[])),)
    8 |   %sel = select_ref %k, %sems, %sems : dma_sem<2>
      |          ^~~~~~~~~~
note: %sel is used by the `sem_read` on line 10, which takes a single ref (scjit shows the refs by their .scir names)
help: choose with `if` and use each ref in its own branch; select_ref serves only DMA operands
)",
VECTOR_KERNEL R"(  %k = axis_index subcore : i32
  %sel = select_ref %k, %sems, %sems : dma_sem<2>
  %one = view %sel[0] : dma_sem
  dma_start %x[0:16] -> %buf, %one
}
)"},
{"Xf3BitcastSqueezedBlockDim",
R"(kernel @k(in %x: hbm<8x4x16xi32>, out %o: hbm<8x4x16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [8, squeezed, 16], map (%i) -> (0, %i, 0))
      out(%o, block [8, squeezed, 16], map (%i) -> (0, %i, 0))
      body(%xv: vmem<8x16xi32>, %ov: vmem<8x16xi32>) {
    %b = view_bitcast %xv : vmem<16x16xi16>
  }
}
)",
R"(k.scir:8:10: error[XF-3]: NotImplementedError: Bitcast a ref whose 2nd minormost dimension is squeezed when bitwidth changes.
    8 |     %b = view_bitcast %xv : vmem<16x16xi16>
      |          ^~~~~~~~~~~~
note: %xv is a pipeline block ref of block shape (8, Squeezed(), 16): its second-minor block dimension is squeezed
help: do not squeeze that dimension: give it block size 1
)",
R"(kernel @k(in %x: hbm<8x4x16xi32>, out %o: hbm<8x4x16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [8, 1, 16], map (%i) -> (0, %i, 0))
      out(%o, block [8, 1, 16], map (%i) -> (0, %i, 0))
      body(%xv: vmem<8x1x16xi32>, %ov: vmem<8x1x16xi32>) {
    %b = view_bitcast %xv : vmem<8x2x16xi16>
  }
}
)"},
{"Xf7ReshapeSqueezedBlockDim",
R"(kernel @k(in %x: hbm<8x4x16xi32>, out %o: hbm<8x4x16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [8, squeezed, 16], map (%i) -> (0, %i, 0))
      out(%o, block [8, squeezed, 16], map (%i) -> (0, %i, 0))
      body(%xv: vmem<8x16xi32>, %ov: vmem<8x16xi32>) {
    %r = view_reshape %xv : vmem<128xi32>
  }
}
)",
R"(k.scir:8:10: error[XF-7]: NotImplementedError: Reshape a ref with squeezed dimension on last two dimensions.
    8 |     %r = view_reshape %xv : vmem<128xi32>
      |          ^~~~~~~~~~~~
note: %xv : vmem<8x16xi32> is viewed as vmem<128xi32>; its block shape is (8, Squeezed(), 16)
help: do not squeeze the last two block dimensions: give them block size 1
)",
R"(kernel @k(in %x: hbm<8x4x16xi32>, out %o: hbm<8x4x16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [8, 1, 16], map (%i) -> (0, %i, 0))
      out(%o, block [8, 1, 16], map (%i) -> (0, %i, 0))
      body(%xv: vmem<8x1x16xi32>, %ov: vmem<8x1x16xi32>) {
    %r = view_reshape %xv : vmem<8x16xi32>
  }
}
)"},
{"Xf6SqueezedBlockRefIsXf7",
R"(kernel @k(in %x: hbm<8x4x16xi32>, out %o: hbm<8x4x16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [squeezed, squeezed, 16], map (%i) -> (0, %i, 0))
      out(%o, block [8, 1, 16], map (%i) -> (0, %i, 0))
      body(%xv: vmem<16xi32>, %ov: vmem<8x1x16xi32>) {
    %r = view_reshape %xv : vmem<2x8xi32>
  }
}
)",
R"(k.scir:8:10: error[XF-7]: NotImplementedError: Reshape a ref with squeezed dimension on last two dimensions.
    8 |     %r = view_reshape %xv : vmem<2x8xi32>
      |          ^~~~~~~~~~~~
note: %xv : vmem<16xi32> is viewed as vmem<2x8xi32>; its block shape is (Squeezed(), Squeezed(), 16)
help: do not squeeze the last two block dimensions: give them block size 1
)",
nullptr},
{"Sem1Signal",
VECTOR_KERNEL R"(  %n = const 0 : i32
  sem_signal %n, 1
}
)",
R"(k.scir:8:14: error[SEM-1]: ValueError: Cannot signal on a non-semaphore Ref: int32[]
    8 |   sem_signal %n, 1
      |              ^~
note: %n is a scalar value (i32)
help: pass a semaphore ref (`sem` scratch or alloc, indexed down to one semaphore)
)",
VECTOR_KERNEL R"(  sem_signal %rs, 1
}
)"},
{"Sem1Read",
VECTOR_KERNEL R"(  %n = const 0 : i32
  %r = sem_read %n : i32
}
)",
R"(k.scir:8:17: error[SEM-1]: ValueError: Cannot read on a non-semaphore Ref: int32[]
    8 |   %r = sem_read %n : i32
      |                 ^~
note: %n is a scalar value (i32)
help: pass a semaphore ref (`sem` scratch or alloc, indexed down to one semaphore)
)",
VECTOR_KERNEL R"(  %r = sem_read %rs : i32
}
)"},
{"Sem2Wait",
VECTOR_KERNEL R"(  sem_wait %rss, 1
}
)",
R"(k.scir:7:12: error[SEM-2]: ValueError: Cannot wait on a non-()-shaped semaphore: (2,)
    7 |   sem_wait %rss, 1
      |            ^~~~
note: the semaphore %rss : sem<2> is an array
help: index the semaphore array down to one semaphore, e.g. `%rss[0]`
)",
VECTOR_KERNEL R"(  sem_wait %rss[1], 1
}
)"},
{"Sem2Read",
VECTOR_KERNEL R"(  %r = sem_read %sems : i32
}
)",
R"(k.scir:7:17: error[SEM-2]: ValueError: Cannot read on a non-()-shaped semaphore: (2,)
    7 |   %r = sem_read %sems : i32
      |                 ^~~~~
note: the semaphore %sems : dma_sem<2> is an array
help: index the semaphore array down to one semaphore, e.g. `%sems[0]`
)",
VECTOR_KERNEL R"(  %r = sem_read %sems[1] : i32
}
)"},
{"Sem3SignalDma",
VECTOR_KERNEL R"(  sem_signal %sem, 1
}
)",
R"(k.scir:7:14: error[SEM-3]: ValueError: Must signal semaphores of the following types: {<class 'jax._src.pallas.core.semaphore'>, <class 'jax._src.pallas.core.barrier_semaphore'>, <class 'jax.numpy.int16'>}. Got dma_sem.
    7 |   sem_signal %sem, 1
      |              ^~~~
note: %sem : dma_sem is a DMA semaphore (Python prints the set in an arbitrary order)
help: a DMA semaphore is waited by `dma_wait` and read by `sem_read`; signal and wait a `sem` semaphore instead
)",
VECTOR_KERNEL R"(  sem_signal %rs, 1
}
)"},
{"Sem3WaitDma",
VECTOR_KERNEL R"(  sem_wait %sems[0], 1
}
)",
R"(k.scir:7:12: error[SEM-3]: ValueError: Must wait semaphores of the following types: {<class 'jax._src.pallas.core.semaphore'>, <class 'jax._src.pallas.core.barrier_semaphore'>, <class 'jax.numpy.int16'>}. Got dma_sem.
    7 |   sem_wait %sems[0], 1
      |            ^~~~~~~~
note: %sems[0] : dma_sem is a DMA semaphore (Python prints the set in an arbitrary order)
help: a DMA semaphore is waited by `dma_wait` and read by `sem_read`; signal and wait a `sem` semaphore instead
)",
VECTOR_KERNEL R"(  sem_wait %rss[0], 1
}
)"},
{"Sem3ReadDataRef",
VECTOR_KERNEL R"(  %r = sem_read %s[0] : i32
}
)",
R"(k.scir:7:17: error[SEM-3]: ValueError: Must read semaphores of the following types: {<class 'jax._src.pallas.mosaic.core.dma_semaphore'>, <class 'jax._src.pallas.core.semaphore'>, <class 'jax._src.pallas.core.barrier_semaphore'>, <class 'jax.numpy.int16'>}. Got int32.
    7 |   %r = sem_read %s[0] : i32
      |                 ^~~~~
note: %s[0] : smem<i32> is a data ref (Python prints the set in an arbitrary order)
help: pass a `sem` semaphore
)",
VECTOR_KERNEL R"(  %r = sem_read %sem : i32
}
)"},
{"Sem4",
VECTOR_KERNEL R"(  %n = const 1 : u32
  sem_signal %rs, %n
}
)",
R"(k.scir:8:19: error[SEM-4]: ValueError: Must signal an int32 value, but got uint32
    8 |   sem_signal %rs, %n
      |                   ^~
note: the increment %n is u32
help: `convert` %n to i32 first
)",
VECTOR_KERNEL R"(  %n = const 1 : i32
  sem_signal %rs, %n
}
)"},
{"Sem5Core",
VECTOR_KERNEL R"(  %c = const 0 : u32
  sem_signal %rs, 1 {core = %c, subcore = 0}
}
)",
R"(k.scir:8:29: error[SEM-5]: ValueError: `device_id`s must be an int32 value, but got uint32
    8 |   sem_signal %rs, 1 {core = %c, subcore = 0}
      |                             ^~
note: `core = %c` is u32 (sem_signal's core and subcore are Pallas' device_id)
help: `convert` %c to i32 first
)",
VECTOR_KERNEL R"(  %c = const 0 : i32
  sem_signal %rs, 1 {core = %c, subcore = 0}
}
)"},
{"Sem6",
VECTOR_KERNEL R"(  %n = const 1 : f32
  sem_wait %rs, %n
}
)",
R"(k.scir:8:17: error[SEM-6]: ValueError: Must wait an int32 value.
    8 |   sem_wait %rs, %n
      |                 ^~
note: the count %n is f32
help: `convert` %n to i32 first
)",
VECTOR_KERNEL R"(  %n = const 1 : i32
  sem_wait %rs, %n
}
)"},
{"Sem8",
VECTOR_KERNEL R"(  sem_wait %rs, 1 {decrement = false}
}
)",
R"(k.scir:7:20: error[SEM-8]: NotImplementedError: Non-decrementing wait is not supported.
    7 |   sem_wait %rs, 1 {decrement = false}
      |                    ^~~~~~~~~
note: decrement = false
help: drop `decrement = false`; to look at a semaphore without consuming it, use `sem_read`
)",
VECTOR_KERNEL R"(  sem_wait %rs, 1 {decrement = true}
}
)"},
{"Gen3SemVectorCount",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  sem_signal %rs, %i
}
)",
R"(k.scir:8:19: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.sem_signal' op operand #1 must be 32-bit signless integer, but got 'vector<16xi32>'
    8 |   sem_signal %rs, %i
      |                   ^~
note: the increment %i is vector<16xi32> (MLIR's `see current operation` note is not reproduced)
help: pass one i32 scalar (`extract` a lane, or `reduce_sum` the vector)
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %e = extract %i[3] : i32
  sem_signal %rs, %e
}
)"},
{"Gen3SemInt16DataRef",
VECTOR_KERNEL R"(  sem_signal %h, 1
}
)",
R"(k.scir:7:14: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.sem_signal' op operand #0 must be memref of  values, but got 'memref<i16, #tpu.memory_space<smem>>'
    7 |   sem_signal %h, 1
      |              ^~
note: %h : smem<i16> is a data ref; its int16 dtype passes Pallas' check (it is the interpret-mode semaphore dtype), Mosaic's op takes semaphores only (MLIR's `see current operation` note is not reproduced)
help: pass a `sem` semaphore
)",
VECTOR_KERNEL R"(  sem_signal %rs, 1
}
)"},
{"Gen3SemReadInt16DataRef",
VECTOR_KERNEL R"(  %r = sem_read %h : i32
}
)",
R"(k.scir:7:17: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.sem_read' op operand #0 must be memref of  or  values, but got 'memref<i16, #tpu.memory_space<smem>>'
    7 |   %r = sem_read %h : i32
      |                 ^~
note: %h : smem<i16> is a data ref; its int16 dtype passes Pallas' check (it is the interpret-mode semaphore dtype), Mosaic's op takes semaphores only (MLIR's `see current operation` note is not reproduced)
help: pass a `sem` semaphore
)",
VECTOR_KERNEL R"(  %r = sem_read %rs : i32
}
)"},
{"Dma6SendSemNotRef",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    devices(x = 2)
    scratch(%send: dma_sem, %recv: dma_sem)
{
  %me = axis_index x : i32
  dma_start %x -> %o, %recv src_sem %me {device = 1}
}
)",
R"(k.scir:7:37: error[DMA-6]: ValueError: DMA source semaphore must be a Ref.
    7 |   dma_start %x -> %o, %recv src_sem %me {device = 1}
      |                                     ^~~
note: the send semaphore %me is a scalar value (i32), not a ref
help: pass a DMA semaphore ref, e.g. `src_sem %send`
)",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    devices(x = 2)
    scratch(%send: dma_sem, %recv: dma_sem)
{
  dma_start %x -> %o, %recv src_sem %send {device = 1}
  dma_wait %x -> %o, %recv src_sem %send {device = 1}
}
)"},
{"Dma15RemoteScatter",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
    devices(x = 2)
    scratch(%buf: vmem<16xi32>, %ids: vmem<16xi32>, %send: dma_sem, %recv: dma_sem)
{
  dma_start %buf -> %o[idx(%ids)], %recv src_sem %send {x = 1}
}
)",
R"(k.scir:6:21: error[DMA-15]: NotImplementedError: Scatter/gather to or from a remote device via `pltpu.async_copy` is not supported
    6 |   dma_start %buf -> %o[idx(%ids)], %recv src_sem %send {x = 1}
      |                     ^~~~~~~~~~~~~
note: the destination %o[idx(%ids)] is indexed by an idx(...) list and the copy goes to another device
help: gather or scatter locally, then copy the rows to the other device with a plain remote copy
)",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh vector(cores = 1, subcores = 1)
    devices(x = 2)
    scratch(%buf: vmem<16xi32>, %ids: vmem<16xi32>, %send: dma_sem, %recv: dma_sem)
{
  dma_start %buf -> %o[0:16], %recv src_sem %send {x = 1}
}
)"},
{"Dev6DeviceIdRank",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    devices(y = 2, x = 2)
    scratch(%rs: sem)
{
  sem_signal %rs, 1 {device = [1]}
}
)",
R"(k.scir:6:22: error[DEV-6]: ValueError: Number of device ids must match the number of mesh axes, but got 1 ids for a 2D mesh.
    6 |   sem_signal %rs, 1 {device = [1]}
      |                      ^~~~~~
note: kernel @k's device mesh has 2 axes
help: give 2 coordinates in the order of the 'devices' clause, or name the axes: `{y = %i}`
)",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    devices(y = 2, x = 2)
    scratch(%rs: sem)
{
  sem_signal %rs, 1 {device = [1, 0]}
}
)"},
{"Dev2ScalarPartSignalsVectorPartWithoutSubcore",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 2)
    scratch(%go: sem @vector)
{
  %c = axis_index core : i32
  sem_signal %go, 1 {core = %c}
}
    mesh vector(cores = 2, subcores = 1)
    scratch(%go: sem)
{
  sem_wait %go, 1
}
)",
R"(k.scir:6:14: error[DEV-2]: ValueError: When addressing sc_vector_subcore from sc_scalar_subcore and specifying axes={'core'} the following axes are missing from the mesh: {'subcore'}. My own grid names are ('core',).
    6 |   sem_signal %go, 1 {core = %c}
      |              ^~~
note: %go is a semaphore of the vector part, and this scalar subcore does not say which vector subcore of the core to signal
help: give `subcore`, as in `{subcore = 0}`
)",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 2)
    scratch(%go: sem @vector)
{
  %c = axis_index core : i32
  sem_signal %go, 1 {core = %c, subcore = 0}
}
    mesh vector(cores = 2, subcores = 1)
    scratch(%go: sem)
{
  sem_wait %go, 1
}
)"},
{"Dev3SubcoreOnScalarMesh",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    scratch(%s: smem<16xi32>, %sem: dma_sem, %rs: sem)
{
  %c = const 0 : i32
  sem_signal %rs, 1 {core = %c, subcore = %c}
}
)",
R"(k.scir:6:33: error[DEV-3]: ValueError: Unrecognized axes in device_id: {'subcore': JitTracer(int32[])}
    6 |   sem_signal %rs, 1 {core = %c, subcore = %c}
      |                                 ^~~~~~~
note: this kernel runs on a scalar mesh, whose only axis is the core; `subcore` names an axis it does not have
help: drop `subcore`: a scalar mesh has one subcore per core
)",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    scratch(%s: smem<16xi32>, %sem: dma_sem, %rs: sem)
{
  %c = const 0 : i32
  sem_signal %rs, 1 {core = %c}
}
)"},
{"Faa1",
VECTOR_KERNEL R"(  %o1 = fetch_and_add %s[0:2], 1 {subcore = 0} : i32
}
)",
R"(k.scir:7:23: error[FAA-1]: ValueError: Expected a scalar ref, but got x_ref.shape=(2,).
    7 |   %o1 = fetch_and_add %s[0:2], 1 {subcore = 0} : i32
      |                       ^~~~~~~
note: the target %s[0:2] : smem<2xi32> has 2 elements
help: index every dimension of %s with an integer, e.g. `%s[0]`
)",
VECTOR_KERNEL R"(  %o1 = fetch_and_add %s[1], 1 {subcore = 0} : i32
}
)"},
{"Faa2",
VECTOR_KERNEL R"(  %j = axis_index subcore : i32
  %o1 = fetch_and_add %s[ds(%j, 1)], 1 {subcore = 0} : i32
}
)",
R"(k.scir:8:23: error[FAA-2]: ValueError: fetch_and_add only supports refs indexed with non-slice indices, but got (Slice(start=JitTracer(int32[]), size=1, stride=1),)
    8 |   %o1 = fetch_and_add %s[ds(%j, 1)], 1 {subcore = 0} : i32
      |                       ^~~~~~~~~~~~~
note: the target %s[ds(%j, 1)] is sliced; scjit renders literal integers as JAX's weak-typed tracers and SSA values as tracers
help: index every dimension of %s with an integer, e.g. `%s[0]`
)",
VECTOR_KERNEL R"(  %j = axis_index subcore : i32
  %o1 = fetch_and_add %s[%j], 1 {subcore = 0} : i32
}
)"},
{"Faa3Bitcast",
VECTOR_KERNEL R"(  %b = view_bitcast %s2 : smem<1x16xu32>
  %o1 = fetch_and_add %b[0, 0], 1 {subcore = 0} : u32
}
)",
R"(k.scir:8:23: error[FAA-3]: ValueError: fetch_and_add requires a scalar ref with a single non-slice indexer, but got (BitcastTransform(dtype=dtype('uint32')), NDIndexer(indices=(JitTracer(~int32[]), JitTracer(~int32[])), shape=(1, 16), int_indexer_shape=(), validate=True))
    8 |   %o1 = fetch_and_add %b[0, 0], 1 {subcore = 0} : u32
      |                       ^~~~~~~~
note: the target %b[0, 0] is reached through 2 transforms (views, bitcasts, reshapes and its own indexer)
help: index the SMEM ref itself, once: `fetch_and_add %s2[...]`
)",
VECTOR_KERNEL R"(  %o1 = fetch_and_add %s2[0, 0], 1 {subcore = 0} : i32
}
)"},
{"Faa3Select",
VECTOR_KERNEL R"(  %k = axis_index subcore : i32
  %sel = select_ref %k, %h, %h : smem<i16>
  %o1 = fetch_and_add %sel, 1 {subcore = 0} : i16
}
)",
R"(k.scir:8:10: error[XF-9]: NotImplementedError: _transform_ref() only supports single ref transforms. Got: ref = (%h, %h), ref_ty = (Ref<smem>{int16[]}, Ref<smem>{int16[]}), ref_block_shape = ((), ()), transforms = (SelectTransform(idx=JitTracer(int32[])),)
    8 |   %sel = select_ref %k, %h, %h : smem<i16>
      |          ^~~~~~~~~~
note: %sel is used by the `fetch_and_add` on line 9, which takes a single ref (scjit shows the refs by their .scir names)
help: choose with `if` and use each ref in its own branch; select_ref serves only DMA operands
k.scir:9:23: error[FAA-3]: ValueError: fetch_and_add requires a scalar ref with a single non-slice indexer, but got (SelectTransform(idx=JitTracer(int32[])),)
    9 |   %o1 = fetch_and_add %sel, 1 {subcore = 0} : i16
      |                       ^~~~
note: the target %sel is chosen by the `select_ref` on line 8
help: choose the target with `if`, one fetch_and_add per branch
)",
nullptr},
{"Faa4Semaphore",
VECTOR_KERNEL R"(  %o1 = fetch_and_add %sems[0], 1 {subcore = 0} : i32
}
)",
R"(k.scir:7:23: error[FAA-4]: NotImplementedError: Only int32 refs are supported, but got dma_sem
    7 |   %o1 = fetch_and_add %sems[0], 1 {subcore = 0} : i32
      |                       ^~~~~~~~
note: the target ref is dma_sem<2>
help: keep the counters in an i32 smem ref
)",
VECTOR_KERNEL R"(  %o1 = fetch_and_add %s[0], 1 {subcore = 0} : i32
}
)"},
{"Faa5",
VECTOR_KERNEL R"(  %o1 = fetch_and_add %buf[0], 1 {subcore = 0} : i32
}
)",
R"(k.scir:7:23: error[FAA-5]: ValueError: Only refs in SMEM memory space are supported, but got Ref<vmem>{int32[16]}
    7 |   %o1 = fetch_and_add %buf[0], 1 {subcore = 0} : i32
      |                       ^~~~~~~
note: the target ref is vmem<16xi32>
help: keep the counters in an smem ref
)",
VECTOR_KERNEL R"(  %o1 = fetch_and_add %s[0], 1 {subcore = 0} : i32
}
)"},
{"Faa6Vector",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %o1 = fetch_and_add %s[0], %i {subcore = 0} : i32
}
)",
R"(k.scir:8:30: error[FAA-6]: ValueError: The value must be a scalar of the same type as the ref (int32), but got int32[16].
    8 |   %o1 = fetch_and_add %s[0], %i {subcore = 0} : i32
      |                              ^~
note: the increment %i is vector<16xi32>
help: add an i32 scalar (`convert` it, or `extract` a lane of a vector)
)",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  %e = extract %i[0] : i32
  %o1 = fetch_and_add %s[0], %e {subcore = 0} : i32
}
)"},
{"Faa7",
VECTOR_KERNEL R"(  %j = const 2 : u32
  %o1 = fetch_and_add %s[%j], 1 {subcore = 0} : i32
}
)",
R"(k.scir:8:23: error[FAA-7]: ValueError: All indices must be scalars of type int32, but got [ShapedArray(uint32[])].
    8 |   %o1 = fetch_and_add %s[%j], 1 {subcore = 0} : i32
      |                       ^~~~~~
note: the target is %s[%j]
help: index with i32 scalars (`convert` other integers first)
)",
VECTOR_KERNEL R"(  %j = const 2 : i32
  %o1 = fetch_and_add %s[%j], 1 {subcore = 0} : i32
}
)"},
{"Faa8",
VECTOR_KERNEL R"(  %n = const 0 : i8
  %o1 = fetch_and_add %s[0], 1 {subcore = %n} : i32
}
)",
R"(k.scir:8:43: error[FAA-8]: ValueError: subcore_id= must be a scalar of type int32, but got int8[].
    8 |   %o1 = fetch_and_add %s[0], 1 {subcore = %n} : i32
      |                                           ^~
note: `subcore = %n` is i8
help: `convert` %n to i32 first
)",
VECTOR_KERNEL R"(  %n = const 0 : i32
  %o1 = fetch_and_add %s[0], 1 {subcore = %n} : i32
}
)"},
{"Gen3FaaScalarSubcore",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    scratch(%s: smem<16xi32>, %sem: dma_sem, %rs: sem)
{
  %o1 = fetch_and_add %s[0], 1 {subcore = 0} : i32
}
)",
R"(k.scir:5:9: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.fetch_and_add_sync' op SC scalar subcore target not supported yet
    5 |   %o1 = fetch_and_add %s[0], 1 {subcore = 0} : i32
      |         ^~~~~~~~~~~~~
note: this kernel runs on scalar subcores, whose SMEM fetch_and_add cannot target (MLIR's `see current operation` note is not reproduced)
help: run the kernel on a vector mesh
)",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    scratch(%s: smem<16xi32>, %sem: dma_sem, %rs: sem)
{
  %o1 = get %s[0] : i32
}
)"},
{"Dbg1",
VECTOR_KERNEL R"(  debug_print "x" {ordered = true}
}
)",
R"(k.scir:7:20: error[DBG-1]: NotImplementedError: pl.debug_print() does not support ordered print when lowering to SparseCore
    7 |   debug_print "x" {ordered = true}
      |                    ^~~~~~~
note: ordered = true
help: drop `ordered = true`
)",
VECTOR_KERNEL R"(  debug_print "x" {ordered = false}
}
)"},
{"Dbg2",
VECTOR_KERNEL R"(  %e = get %s[0] : i32
  debug_print "e={}" %e
}
)",
R"(k.scir:8:3: error[DBG-2]: NotImplementedError: pl.debug_print() does not support placeholders when lowering to SparseCore
    8 |   debug_print "e={}" %e
      |   ^~~~~~~~~~~
note: the format string "e={}" has a replacement field
help: drop the `{...}`: the value is printed after the text
)",
VECTOR_KERNEL R"(  %e = get %s[0] : i32
  debug_print "{{e}}={}" %e
}
)"},
{"Dbg2NamedField",
VECTOR_KERNEL R"(  debug_print "{x!r} later"
}
)",
R"(k.scir:7:3: error[DBG-2]: NotImplementedError: pl.debug_print() does not support placeholders when lowering to SparseCore
    7 |   debug_print "{x!r} later"
      |   ^~~~~~~~~~~
note: the format string "{x!r} later" has a replacement field
help: drop the `{...}`: the value is printed after the text
)",
VECTOR_KERNEL R"(  debug_print "x later"
}
)"},
{"Dbg3",
VECTOR_KERNEL R"(  %e = get %s[0] : i32
  debug_print "e" %e, %e
}
)",
R"(k.scir:8:23: error[DBG-3]: NotImplementedError: pl.debug_print() does not support multiple inputs when lowering to SparseCore
    8 |   debug_print "e" %e, %e
      |                       ^~
note: debug_print has 2 values
help: use one `debug_print` per value
)",
VECTOR_KERNEL R"(  %e = get %s[0] : i32
  debug_print "e" %e
}
)"},
{"Gen3PrintVectorOnScalar",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    scratch(%s: smem<16xi32>, %sem: dma_sem, %rs: sem)
{
  %vv = const dense<1> : vector<16xi32>
  debug_print "v" %vv
}
)",
R"(k.scir:6:19: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.log' op SC scalar subcore does not support logging vectors
    6 |   debug_print "v" %vv
      |                   ^~~
note: %vv is vector<16xi32> and this kernel runs on scalar subcores (MLIR's `see current operation` note is not reproduced)
help: print the vector from a vector-subcore kernel, or print its elements one at a time
)",
R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    scratch(%s: smem<16xi32>, %sem: dma_sem, %rs: sem)
{
  debug_print "s" %s
}
)"},
{"IrSemaphoreAsDmaSource",
VECTOR_KERNEL R"(  copy %sems -> %buf
}
)",
R"(k.scir:7:8: error[IR-OPERAND]: 'copy' source %sems is a semaphore (dma_sem<2>); DMAs copy between data refs
    7 |   copy %sems -> %buf
      |        ^~~~~
)",
nullptr},
{"IrWaitValueSource",
VECTOR_KERNEL R"(  %i = iota : vector<16xi32>
  dma_wait %i -> %buf, %sem
}
)",
R"(k.scir:8:12: error[IR-OPERAND]: 'dma_wait' source %i must be a ref, got a vector (vector<16xi32>)
    8 |   dma_wait %i -> %buf, %sem
      |            ^~
)",
nullptr},
};
// clang-format on

class DmaSyncRuleTest : public ::testing::TestWithParam<Case> {};

TEST_P(DmaSyncRuleTest, RendersExactly) {
  const Case& c = GetParam();
  Checked r = Check(c.kernel);
  EXPECT_EQ(r.ok, std::string(c.expected).empty());  // an empty text: the kernel passes
  EXPECT_EQ(r.diagnostics, c.expected);
}

TEST_P(DmaSyncRuleTest, NeighbourPasses) {
  const Case& c = GetParam();
  if (c.neighbour == nullptr) GTEST_SKIP() << "no neighbour in this row";
  Checked r = Check(c.neighbour);
  EXPECT_TRUE(r.ok) << r.diagnostics;
}

INSTANTIATE_TEST_SUITE_P(Rules, DmaSyncRuleTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// Every code the group's table can report has a case that shows its full text.
TEST(DmaSyncRuleCoverageTest, EveryCodeHasAnExactTextCase) {
  std::set<std::string> codes;
  for (const rules::OpRule& r : rules::DmaSyncRules()) {
    codes.insert(std::string(Info(r.id).code));
    for (DiagId id : r.also) codes.insert(std::string(Info(id).code));
  }
  // (A later JAX's rules have theirs in jax_release_test.)
  std::erase_if(codes, [](const std::string& code) { return !RuleIn(*DiagIdFromCode(code), kCatalogJax); });
  for (const std::string& code : codes) {
    bool found = false;
    for (const Case& c : kCases) {
      found = found || std::string(c.expected).find("error[" + code + "]") != std::string::npos;
    }
    EXPECT_TRUE(found) << code << " has no exact-text case";
  }
}

// The catalog's not-expressible rows of this group are real catalog IDs and are
// not also implemented.
TEST(DmaSyncRuleCoverageTest, NotExpressibleRowsAreNotImplemented) {
  std::set<std::string> implemented;
  for (const ImplementedRule& r : ImplementedRules()) implemented.insert(std::string(Info(r.id).code));
  for (const NotExpressible& n : NotExpressibleRules()) {
    std::string code(n.code);
    for (const char* prefix : {"DMA-", "DEV-", "SEM-", "FAA-", "DBG-", "XF-"}) {
      if (code.rfind(prefix, 0) == 0) EXPECT_EQ(implemented.count(code), 0u) << code;
    }
  }
}

// Found while fuzzing the front end: XF-9 and GEN-3 follow a select_ref's (or an
// idx(...) view's) result through the views and select_refs made of it. Each
// step walked the whole kernel for the uses of one value, and a value reached
// twice was searched twice, so a chain of 30 select_refs, each choosing between
// two copies of the last, took hours (2^30 walks), and 20000 select_refs took
// quadratic time. The uses are now found once per kernel part and each value
// is searched once.
std::string SelectRefChain(int length, const std::string& end) {
  std::string text =
      "kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)\n    mesh vector(cores = 1, subcores = 1)\n{\n"
      "  %k = axis_index subcore : i32\n  %s0 = select_ref %k, %x, %o : hbm<16xi32>\n";
  for (int i = 1; i < length; ++i) {
    std::string last = "%s" + std::to_string(i - 1);
    text += "  %s" + std::to_string(i) + " = select_ref %k, " + last + ", " + last + " : hbm<16xi32>\n";
  }
  return text + end + "}\n";
}

TEST(DmaSyncRuleScaleTest, SelectRefsAreFollowedInLinearTime) {
  std::string many;
  for (int i = 0; i < 20000; ++i) {
    std::string t = "%t" + std::to_string(i);
    many += "  " + t + " = select_ref %k, %x, %o : hbm<16xi32>\n  copy " + t + " -> %o\n";
  }
  auto start = std::chrono::steady_clock::now();
  Checked ok = Check(SelectRefChain(30, "  copy %s29 -> %o\n" + many));
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 60) << "seconds";  // about 0.2 s; a few under ASan
  EXPECT_TRUE(ok.ok) << ok.diagnostics.substr(0, 2000);

  // A bad use at the end of the chain is found from each of its select_refs.
  Checked bad = Check(SelectRefChain(30, "  copy %s29 -> %o\n  %w = get %s29 : vector<16xi32>\n"));
  std::vector<std::string> want(30, "XF-9");
  want.push_back("GET-1");
  EXPECT_EQ(bad.codes, want);
  EXPECT_NE(bad.diagnostics.find("k.scir:5:9: error[XF-9]: NotImplementedError: _transform_ref() only supports "
                                 "single ref transforms. Got: ref = (%x, %o), "),
            std::string::npos)
      << bad.diagnostics.substr(0, 2000);
  EXPECT_NE(bad.diagnostics.find("note: %s0 is used by the `get` on line 36, which takes a single ref"),
            std::string::npos)
      << bad.diagnostics.substr(0, 2000);
}

}  // namespace
}  // namespace scjit
