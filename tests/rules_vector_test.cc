// The vector rules (lowering/rules/vector.cc): IOTA, GS, BC, PK, UP, SCAN, CUM,
// RED, SORT, REV, MR and EL of sc-errors.md, plus SHAPE-1 ("Gather") and GET-8
// for gather/scatter masks. One table: for every rule an exact full-text case
// (location, caret, note, help) and the nearest legal neighbour, which must pass.
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
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


// Every case's kernel: the body starts on line 7.
constexpr const char kHeader[] = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %f: vmem<16xf32>, %h: vmem<32xbf16>, %m: vmem<4x16xi32>,
            %w: vmem<32xi32>, %sh: vmem_shared<16xi32>, %s: smem<16xi32>, %sems: sem<2>,
            %sh2: vmem_shared<2x16xi32>)
{
)";

std::string Kernel(const std::string& body) { return std::string(kHeader) + body + "}\n"; }

struct Case {
  const char* name;
  const char* code;
  const char* bad;       // body lines of a kernel that fails with `code`
  const char* expected;  // its full diagnostic text
  const char* good;      // the nearest legal neighbour: passes the front end
};

const Case kCases[] = {
    // --- IOTA ---
    {"Iota", "IOTA-1", "  %i = iota : vector<32xi32>\n", R"(k.scir:7:8: error[IOTA-1]: ValueError: Unsupported iota shape for SC vector subcore. Got (32,), supported shape is (16,).
    7 |   %i = iota : vector<32xi32>
      |        ^~~~
note: the iota has type vector<32xi32>; a v7x register has 16 lanes
help: build iotas of exactly 16 elements (`iota : vector<16xi32>`) and `add` an offset for the other rows
)", "  %i = iota : vector<16xi32>\n"},
    {"IotaTwoD", "IOTA-1", "  %i = iota : vector<2x16xi16>\n", R"(k.scir:7:8: error[IOTA-1]: ValueError: Unsupported iota shape for SC vector subcore. Got (2, 16), supported shape is (16,).
    7 |   %i = iota : vector<2x16xi16>
      |        ^~~~
note: the iota has type vector<2x16xi16>; a v7x register has 16 lanes
help: build iotas of exactly 16 elements (`iota : vector<16xi16>`) and `add` an offset for the other rows
)", "  %i = iota : vector<16xi16>\n"},

    // --- GS: load_gather ---
    {"GatherFromValue", "GS-1",
     "  %v = get %buf[:] : vector<16xi32>\n  %i = iota : vector<16xi32>\n  %g = load_gather %v[:] [%i] : vector<16xi32>\n",
     R"(k.scir:9:20: error[GS-1]: ValueError: Can only call `load_gather` on a `Ref`: Traced<int32[16]>with<DynamicJaxprTrace>.
    9 |   %g = load_gather %v[:] [%i] : vector<16xi32>
      |                    ^~~~~
note: %v[:] is a vector<16xi32> value, not a ref (scjit prints it as JAX prints the traced value)
help: pass the vmem ref (or a view of it) that holds the data, e.g. `load_gather %buf[:] [%i]`; a value is indexed with `gather`
)", "  %i = iota : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},
    {"ScatterToValue", "GS-1",
     "  %v = get %buf[:] : vector<16xi32>\n  %i = iota : vector<16xi32>\n  addupdate_scatter %v[:] [%i], %v\n",
     R"(k.scir:9:21: error[GS-1]: ValueError: Can only call `addupdate_scatter` on a `Ref`: Traced<int32[16]>with<DynamicJaxprTrace>.
    9 |   addupdate_scatter %v[:] [%i], %v
      |                     ^~~~~
note: %v[:] is a vector<16xi32> value, not a ref (scjit prints it as JAX prints the traced value)
help: pass the vmem ref (or a view of it) that holds the data, e.g. `addupdate_scatter %buf[:] [%i], %v`; a value is indexed with `gather`
)",
     "  %v = get %buf[:] : vector<16xi32>\n  %i = iota : vector<16xi32>\n  addupdate_scatter %buf[:] [%i], %v\n"},
    {"ScatterNoIndices", "GS-2", "  %v = get %buf[:] : vector<16xi32>\n  store_scatter %buf, %v\n", R"(k.scir:8:17: error[GS-2]: ValueError: Indices must not be empty
    8 |   store_scatter %buf, %v
      |                 ^~~~
note: `store_scatter` has no index vectors after %buf
help: give one index vector per dimension of the ref: `store_scatter %buf[:] [%i], %v`
)",
     "  %v = get %buf[:] : vector<16xi32>\n  %i = iota : vector<16xi32>\n  store_scatter %buf[:] [%i], %v\n"},
    {"GatherBf16", "GS-3", "  %i = iota : vector<16xi32>\n  %g = load_gather %h[0:16] [%i] : vector<16xbf16>\n", R"(k.scir:8:20: error[GS-3]: TypeError: ref.dtype=bfloat16 must be int32 or float32
    8 |   %g = load_gather %h[0:16] [%i] : vector<16xbf16>
      |                    ^~~~~~~~
note: the ref view %h[0:16] : vmem<16xbf16> has dtype bfloat16
help: gather from and scatter to i32 or f32 refs: `convert` the data before it is stored, or `view_bitcast` a 2-D ref of another 32-bit type to i32
)",
     "  %i = iota : vector<16xi32>\n  %g = load_gather %f[:] [%i] : vector<16xf32>\n"},
    {"GatherSemaphore", "GS-3", "  %i = const dense<0> : vector<2xi32>\n  %g = load_gather %sems[:] [%i] : vector<2xi32>\n",
     R"(k.scir:8:20: error[GS-3]: TypeError: ref.dtype=sem must be int32 or float32
    8 |   %g = load_gather %sems[:] [%i] : vector<2xi32>
      |                    ^~~~~~~~
note: the ref view %sems[:] : sem<2> has dtype sem
help: gather from and scatter to i32 or f32 refs: `convert` the data before it is stored, or `view_bitcast` a 2-D ref of another 32-bit type to i32
)", "  %i = iota : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},
    {"ScatterIndexCount", "GS-4",
     "  %i = iota : vector<16xi32>\n  %v = get %buf[:] : vector<16xi32>\n  store_scatter %m[:, :] [%i], %v\n", R"(k.scir:9:27: error[GS-4]: ValueError: The number of indices does not match ref.ndim=2
    9 |   store_scatter %m[:, :] [%i], %v
      |                           ^~
note: 1 index vector for the ref view %m[:, :] : vmem<4x16xi32> of rank 2
help: give exactly one index vector per dimension of the ref view (2)
)",
     "  %i = iota : vector<16xi32>\n  %v = get %buf[:] : vector<16xi32>\n  store_scatter %m[1] [%i], %v\n"},
    {"GatherNoIndices", "GS-4", "  %g = load_gather %buf[:] : vector<16xi32>\n", R"(k.scir:7:20: error[GS-4]: ValueError: The number of indices does not match ref.ndim=1
    7 |   %g = load_gather %buf[:] : vector<16xi32>
      |                    ^~~~~~~
note: 0 index vectors for the ref view %buf[:] : vmem<16xi32> of rank 1
help: give exactly one index vector per dimension of the ref view (1)
)",
     "  %i = iota : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},
    {"GatherIndexRank", "GS-5",
     "  %i = iota : vector<16xi32>\n  %i2 = reshape %i : vector<2x8xi32>\n  %g = load_gather %buf[:] [%i2] : "
     "vector<16xi32>\n",
     R"(k.scir:9:29: error[GS-5]: ValueError: Indices must be a 1-D array, got an index with shape (2, 8)
    9 |   %g = load_gather %buf[:] [%i2] : vector<16xi32>
      |                             ^~~
note: index vector 0 is %i2 : vector<2x8xi32>
help: `reshape` the indices to vector<16xi32>
)", "  %i = iota : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},
    {"GatherScalarIndex", "GS-5", "  %k = axis_index subcore : i32\n  %g = load_gather %buf[:] [%k] : vector<16xi32>\n",
     R"(k.scir:8:29: error[GS-5]: ValueError: Indices must be a 1-D array, got an index with shape ()
    8 |   %g = load_gather %buf[:] [%k] : vector<16xi32>
      |                             ^~
note: index vector 0 is %k : i32
help: `broadcast` the scalar index to a vector<16xi32>
)", "  %k = axis_index subcore : i32\n  %i = broadcast %k : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},
    {"GatherIndexSizes", "GS-6",
     "  %i = iota : vector<16xi32>\n  %z = const dense<0> : vector<8xi32>\n  %g = load_gather %m[:, :] [%i, %z] : "
     "vector<16xi32>\n",
     R"(k.scir:9:34: error[GS-6]: ValueError: Indices must have the same size, got 16 and 8
    9 |   %g = load_gather %m[:, :] [%i, %z] : vector<16xi32>
      |                                  ^~
note: index vector 0 is %i : vector<16xi32>; index vector 1 is %z : vector<8xi32>
help: give every index vector the same length
)",
     "  %i = iota : vector<16xi32>\n  %z = const dense<0> : vector<16xi32>\n  %g = load_gather %m[:, :] [%z, %i] : "
     "vector<16xi32>\n"},
    {"GatherShape", "SHAPE-1",
     "  %i = const dense<0> : vector<8xi32>\n  %g = load_gather %buf[:] [%i] : vector<8xi32>\n", R"(k.scir:8:8: error[SHAPE-1]: NotImplementedError: Gather only supports int32 arrays of shapes [(16,)], got (8,)
    8 |   %g = load_gather %buf[:] [%i] : vector<8xi32>
      |        ^~~~~~~~~~~
note: the index vectors have 8 lanes, so the gather gives vector<8xi32>; a v7x register holds 16 32-bit lanes
help: gather exactly one register (16 indices) at a time
)",
     "  %i = const dense<0> : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},
    {"GatherMaskShape", "GS-7",
     "  %i = iota : vector<16xi32>\n  %k = const dense<1> : vector<8xi32>\n  %g = load_gather %buf[:] [%i] mask %k : "
     "vector<16xi32>\n",
     R"(k.scir:9:38: error[GS-7]: ValueError: mask.shape=(8,) does not match the expected shape (16,)
    9 |   %g = load_gather %buf[:] [%i] mask %k : vector<16xi32>
      |                                      ^~
note: the mask is %k : vector<8xi32>; the gather gives 16 lanes
help: use a mask with one lane per index
)",
     "  %i = iota : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n  %g = load_gather %buf[:] [%i] mask %k : "
     "vector<16xi32>\n"},
    {"GatherMaskDtype", "GET-8",
     "  %i = iota : vector<16xi32>\n  %g = load_gather %buf[:] [%i] mask %i : vector<16xi32>\n", R"(k.scir:8:38: error[GET-8]: TypeError: Mask must be a boolean array, got int32
    8 |   %g = load_gather %buf[:] [%i] mask %i : vector<16xi32>
      |                                      ^~
note: the mask is %i : vector<16xi32>
help: pass an i1 mask, e.g. `%m = cmp gt %v, %zero : vector<16xi1>`
)",
     "  %i = iota : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n  %g = load_gather %buf[:] [%i] mask %k : "
     "vector<16xi32>\n"},
    {"GatherFromHbm", "GS-8", "  %i = iota : vector<16xi32>\n  %g = load_gather %x[:] [%i] : vector<16xi32>\n", R"(k.scir:8:20: error[GS-8]: ValueError: Gather only supports loading from VMEM, got hbm
    8 |   %g = load_gather %x[:] [%i] : vector<16xi32>
      |                    ^~~~~
note: %x is hbm<16xi32>
help: copy the table into a vmem scratch ref (`copy` or `dma_start`) and gather from that, or gather rows from HBM with an indirect `copy %table[idx(%i)] -> %rows`
)",
     "  copy %x -> %buf\n  %i = iota : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},
    {"GatherFromSmem", "GS-8", "  %i = iota : vector<16xi32>\n  %g = load_gather %s[:] [%i] : vector<16xi32>\n", R"(k.scir:8:20: error[GS-8]: ValueError: Gather only supports loading from VMEM, got smem
    8 |   %g = load_gather %s[:] [%i] : vector<16xi32>
      |                    ^~~~~
note: %s is smem<16xi32>
help: copy the table into a vmem scratch ref (`copy` or `dma_start`) and gather from that, or gather rows from HBM with an indirect `copy %table[idx(%i)] -> %rows`
)",
     "  %i = iota : vector<16xi32>\n  %g = load_gather %buf[:] [%i] : vector<16xi32>\n"},

    // --- GS: store_scatter / addupdate_scatter ---
    {"ScatterValueShape", "GS-9",
     "  %i = iota : vector<16xi32>\n  %v = const dense<1> : vector<8xi32>\n  store_scatter %buf[:] [%i], %v\n", R"(k.scir:9:31: error[GS-9]: ValueError: x.shape=(8,) does not match expected shape (16,)
    9 |   store_scatter %buf[:] [%i], %v
      |                               ^~
note: the value is %v : vector<8xi32>; the index vectors have 16 lanes
help: scatter a 1-D value with one lane per index
)",
     "  %i = iota : vector<16xi32>\n  %v = const dense<1> : vector<16xi32>\n  store_scatter %buf[:] [%i], %v\n"},
    {"ScatterValueDtype", "GS-10",
     "  %i = iota : vector<16xi32>\n  %v = const dense<1.0> : vector<16xf32>\n  addupdate_scatter %buf[:] [%i], %v\n",
     R"(k.scir:9:35: error[GS-10]: TypeError: val.dtype=float32 != ref.dtype=int32
    9 |   addupdate_scatter %buf[:] [%i], %v
      |                                   ^~
note: the value is %v : vector<16xf32>; the ref view %buf[:] : vmem<16xi32>
help: `convert` the value to vector<16xi32> first
)", "  %i = iota : vector<16xi32>\n  %v = const dense<1.0> : vector<16xf32>\n  addupdate_scatter %f[:] [%i], %v\n"},
    {"ScatterMaskShape", "GS-11",
     "  %i = iota : vector<16xi32>\n  %k = const dense<true> : vector<8xi1>\n  store_scatter %buf[:] [%i], %i mask %k\n",
     R"(k.scir:9:39: error[GS-11]: ValueError: mask.shape=(8,) does not match expected shape (16,)
    9 |   store_scatter %buf[:] [%i], %i mask %k
      |                                       ^~
note: the mask is %k : vector<8xi1>; the index vectors have 16 lanes
help: use a mask with one lane per index
)",
     "  %i = iota : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n  store_scatter %buf[:] [%i], %i mask %k\n"},
    {"ScatterMaskDtype", "GET-8", "  %i = iota : vector<16xi32>\n  store_scatter %buf[:] [%i], %i mask %i\n", R"(k.scir:8:39: error[GET-8]: TypeError: Mask must be a boolean array, got int32
    8 |   store_scatter %buf[:] [%i], %i mask %i
      |                                       ^~
note: the mask is %i : vector<16xi32>
help: pass an i1 mask, e.g. `%m = cmp gt %v, %zero : vector<16xi1>`
)",
     "  %i = iota : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n  store_scatter %buf[:] [%i], %i mask %k\n"},
    {"ScatterToShared", "GS-13", "  %i = iota : vector<16xi32>\n  addupdate_scatter %sh[:] [%i], %i\n", R"(k.scir:8:21: error[GS-13]: ValueError: Scatter only supports storing to VMEM, got vmem_shared
    8 |   addupdate_scatter %sh[:] [%i], %i
      |                     ^~~~~~
note: %sh is vmem_shared<16xi32>
help: scatter into a vmem ref and copy it out, or scatter rows into HBM/VMEM_SHARED with an indirect `copy %rows -> %dst[idx(%i)]`
)",
     "  %i = iota : vector<16xi32>\n  addupdate_scatter %buf[:] [%i], %i\n  copy %buf -> %sh\n"},

    // --- BC ---
    {"ScalarBitcast", "BC-1", "  %a = const 1.5 : f32\n  %b = bitcast %a : i16\n", R"(k.scir:8:8: error[BC-1]: ValueError: Cannot bitcast a ()-shaped array to a dtype with a different bitwidth: old_bitwidth=32 vs new_bitwidth=16
    8 |   %b = bitcast %a : i16
      |        ^~~~~~~
note: the operand is %a : f32; the result is i16
help: bitcast a vector (`broadcast` the scalar first), or pick a type of the same width
)",
     "  %a = const 1.5 : f32\n  %b = bitcast %a : u32\n"},
    {"BitcastMinor", "BC-2", "  %a = const dense<1> : vector<4x3xi8>\n  %b = bitcast %a : vector<4x1xi32>\n", R"(k.scir:8:8: error[BC-2]: ValueError: Cannot bitcast from int8 (8 bits) to int32 (32 bits), because x.shape[-1]=3 * 8 is not divisible by 32
    8 |   %b = bitcast %a : vector<4x1xi32>
      |        ^~~~~~~
note: the operand is %a : vector<4x3xi8>: its minor dimension holds 24 bits, not a multiple of 32
help: make the minor dimension's bit size a multiple of the new width (bitcast rescales the last dimension)
)",
     "  %a = const dense<1> : vector<3x4xi8>\n  %b = bitcast %a : vector<3x1xi32>\n"},

    // --- PK / UP ---
    {"PackShapes", "PK-1",
     "  %a = const dense<1.0> : vector<16xf32>\n  %b = const dense<1.0> : vector<8xf32>\n"
     "  %p = pack %a, %b {format = \"interleaved\"} : vector<32xbf16>\n",
     R"(k.scir:9:17: error[PK-1]: ValueError: Packed arrays must have the same shape, got (16,) and (8,)
    9 |   %p = pack %a, %b {format = "interleaved"} : vector<32xbf16>
      |                 ^~
note: the operands are %a : vector<16xf32> and %b : vector<8xf32>
help: pack two vectors of the same shape
)",
     "  %a = const dense<1.0> : vector<16xf32>\n  %b = const dense<1.0> : vector<16xf32>\n"
     "  %p = pack %a, %b {format = \"interleaved\"} : vector<32xbf16>\n"},
    {"PackRank", "PK-2",
     "  %a = const dense<1> : vector<2x8xi32>\n  %p = pack %a, %a {format = \"compressed\"} : vector<16x2xi16>\n", R"(k.scir:8:13: error[PK-2]: ValueError: Packed arrays must be 1-D, got 2
    8 |   %p = pack %a, %a {format = "compressed"} : vector<16x2xi16>
      |             ^~
note: the operands are vector<2x8xi32> (rank 2)
help: pack 1-D vectors (`reshape` them first)
)",
     "  %a = const dense<1> : vector<16xi32>\n  %p = pack %a, %a {format = \"compressed\"} : vector<16x2xi16>\n"},
    {"PackScalar", "PK-2", "  %a = const 1 : i32\n  %p = pack %a, %a {format = \"interleaved\"} : vector<2xi16>\n", R"(k.scir:8:13: error[PK-2]: ValueError: Packed arrays must be 1-D, got 0
    8 |   %p = pack %a, %a {format = "interleaved"} : vector<2xi16>
      |             ^~
note: the operands are i32 (rank 0)
help: pack 1-D vectors (`reshape` them first)
)",
     "  %a = const dense<1> : vector<1xi32>\n  %p = pack %a, %a {format = \"interleaved\"} : vector<2xi16>\n"},
    {"PackDtypes", "PK-3",
     "  %a = const dense<1.0> : vector<16xf32>\n  %b = const dense<1> : vector<16xi32>\n"
     "  %p = pack %a, %b {format = \"interleaved\"} : vector<32xbf16>\n",
     R"(k.scir:9:17: error[PK-3]: TypeError: Packed arrays must have the same dtype, got float32 and int32
    9 |   %p = pack %a, %b {format = "interleaved"} : vector<32xbf16>
      |                 ^~
note: the operands are %a : vector<16xf32> and %b : vector<16xi32>
help: `convert` both operands to one element type
)",
     "  %a = const dense<1.0> : vector<16xf32>\n  %b = const dense<1.0> : vector<16xf32>\n"
     "  %p = pack %a, %b {format = \"interleaved\"} : vector<32xbf16>\n"},
    {"PackUnsigned", "PK-4",
     "  %a = const dense<1> : vector<16xu32>\n  %p = pack %a, %a {format = \"interleaved\"} : vector<32xu32>\n", R"(k.scir:8:8: error[PK-4]: NotImplementedError: Only packing of float32 and int32 is supported, got uint32
    8 |   %p = pack %a, %a {format = "interleaved"} : vector<32xu32>
      |        ^~~~
note: the operands are u32 and the result vector<32xu32> is not 16-bit, so it names no preferred_element_type: scjit reports what Pallas says without one
help: pack f32 (to bf16) or i32 (to i16) vectors, or write a result of half the operands' width (preferred_element_type)
)",
     "  %a = const dense<1> : vector<16xu32>\n  %p = pack %a, %a {format = \"interleaved\"} : vector<32xu16>\n"},
    {"PackPreferredWidth", "PK-5",
     "  %a = const dense<1> : vector<16xi32>\n  %p = pack %a, %a {format = \"interleaved\"} : vector<32xi8>\n", R"(k.scir:8:8: error[PK-5]: ValueError: preferred_element_type= must have bitwidth 16, got 8
    8 |   %p = pack %a, %a {format = "interleaved"} : vector<32xi8>
      |        ^~~~
note: the result vector<32xi8> asks for i8 (preferred_element_type); i32 operands pack to 16-bit elements
help: write a result of 16-bit elements, e.g. i16
)",
     "  %a = const dense<1> : vector<16xi32>\n  %p = pack %a, %a {format = \"interleaved\"} : vector<32xf16>\n"},
    {"PackFormat", "PK-6",
     "  %a = const dense<1.0> : vector<16xf32>\n  %p = pack %a, %a {format = \"INTERLEAVED\"} : vector<32xbf16>\n", R"(k.scir:8:21: error[PK-6]: TypeError: Unexpected format: INTERLEAVED
    8 |   %p = pack %a, %a {format = "INTERLEAVED"} : vector<32xbf16>
      |                     ^~~~~~
note: format = "INTERLEAVED" is not a PackFormat
help: use format = "interleaved" or format = "compressed"
)",
     "  %a = const dense<1.0> : vector<16xf32>\n  %p = pack %a, %a {format = \"interleaved\"} : vector<32xbf16>\n"},
    {"UnpackInterleaved", "UP-1",
     "  %ab = const dense<1.0> : vector<16x2xbf16>\n"
     "  %a, %b = unpack %ab {format = \"interleaved\"} : vector<16xf32>, vector<16xf32>\n",
     R"(k.scir:8:19: error[UP-1]: ValueError: Interleaved unpack requires a 1-D array with an even size, got (16, 2)
    8 |   %a, %b = unpack %ab {format = "interleaved"} : vector<16xf32>, vector<16xf32>
      |                   ^~~
note: the operand is %ab : vector<16x2xbf16>
help: unpack a 1-D vector of even length (what an interleaved `pack` produces)
)",
     "  %ab = const dense<1.0> : vector<16x2xbf16>\n"
     "  %a, %b = unpack %ab {format = \"compressed\"} : vector<16xf32>, vector<16xf32>\n"},
    {"UnpackCompressed", "UP-2",
     "  %ab = const dense<1> : vector<2x16xi16>\n"
     "  %a, %b = unpack %ab {format = \"compressed\"} : vector<16xi32>, vector<16xi32>\n",
     R"(k.scir:8:19: error[UP-2]: ValueError: Compressed unpack requires an array with shape (N, 2), got (2, 16)
    8 |   %a, %b = unpack %ab {format = "compressed"} : vector<16xi32>, vector<16xi32>
      |                   ^~~
note: the operand is %ab : vector<2x16xi16>
help: unpack a vector<Nx2x...> (what a compressed `pack` produces)
)",
     "  %ab = const dense<1> : vector<16x2xi16>\n"
     "  %a, %b = unpack %ab {format = \"compressed\"} : vector<16xi32>, vector<16xi32>\n"},
    {"UnpackDtype", "UP-3",
     "  %ab = const dense<1> : vector<32xu16>\n"
     "  %a, %b = unpack %ab {format = \"interleaved\"} : vector<16xu16>, vector<16xu16>\n",
     R"(k.scir:8:12: error[UP-3]: NotImplementedError: Only unpacking of bloat16 and int16 is supported, got uint16
    8 |   %a, %b = unpack %ab {format = "interleaved"} : vector<16xu16>, vector<16xu16>
      |            ^~~~~~
note: the operand is u16 and the results vector<16xu16> are not 32-bit, so they name no preferred_element_type: scjit reports what Pallas says without one
help: unpack bf16 (to f32) or i16 (to i32) vectors, or write results of twice the operand's width (preferred_element_type)
)",
     "  %ab = const dense<1> : vector<32xu16>\n"
     "  %a, %b = unpack %ab {format = \"interleaved\"} : vector<16xu32>, vector<16xu32>\n"},
    {"UnpackPreferredWidth", "UP-4",
     "  %ab = const dense<1> : vector<32xi16>\n"
     "  %a, %b = unpack %ab {format = \"interleaved\"} : vector<16xi16>, vector<16xi16>\n",
     R"(k.scir:8:12: error[UP-4]: ValueError: preferred_element_type= must have bitwidth 32, got 16
    8 |   %a, %b = unpack %ab {format = "interleaved"} : vector<16xi16>, vector<16xi16>
      |            ^~~~~~
note: the results vector<16xi16> ask for i16 (preferred_element_type); an operand of i16 unpacks to 32-bit elements
help: write results of 32-bit elements, e.g. i32
)",
     "  %ab = const dense<1> : vector<32xi16>\n"
     "  %a, %b = unpack %ab {format = \"interleaved\"} : vector<16xf32>, vector<16xf32>\n"},

    // --- SCAN ---
    {"ScanCountDtype", "SCAN-1",
     "  %v = const dense<1> : vector<16xi8>\n  %c, %l = scan_count %v : vector<16xi32>, vector<16xi1>\n", R"(k.scir:8:23: error[SCAN-1]: NotImplementedError: x.dtype=int8 must be uint32, int32 or float32
    8 |   %c, %l = scan_count %v : vector<16xi32>, vector<16xi1>
      |                       ^~
note: the operand is %v : vector<16xi8>
help: `convert` the operand to i32, u32 or f32 before `scan_count`
)",
     "  %v = const dense<1> : vector<16xu32>\n  %c, %l = scan_count %v : vector<16xi32>, vector<16xi1>\n"},
    {"CummaxDtype", "SCAN-1", "  %v = const dense<1.0> : vector<32xbf16>\n  %c = cummax %v : vector<32xbf16>\n", R"(k.scir:8:15: error[SCAN-1]: NotImplementedError: x.dtype=bfloat16 must be uint32, int32 or float32
    8 |   %c = cummax %v : vector<32xbf16>
      |               ^~
note: the operand is %v : vector<32xbf16>
help: `convert` the operand to i32, u32 or f32 before `cummax`
)",
     "  %v = const dense<1.0> : vector<16xf32>\n  %c = cummax %v : vector<16xf32>\n"},
    {"ScanMaskDtype", "SCAN-2",
     "  %v = get %buf[:] : vector<16xi32>\n  %c = cumsum %v mask %v : vector<16xi32>\n", R"(k.scir:8:23: error[SCAN-2]: TypeError: mask.dtype=int32 is not a boolean dtype
    8 |   %c = cumsum %v mask %v : vector<16xi32>
      |                       ^~
note: the mask is %v : vector<16xi32>
help: pass an i1 mask, e.g. `%m = cmp gt %v, %zero : vector<16xi1>`
)",
     "  %v = get %buf[:] : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n  %c = cumsum %v mask %k : vector<16xi32>\n"},
    {"ScanMaskShape", "SCAN-3",
     "  %v = get %buf[:] : vector<16xi32>\n  %k = const dense<true> : vector<8xi1>\n"
     "  %c, %l = scan_count %v mask %k : vector<16xi32>, vector<16xi1>\n",
     R"(k.scir:9:31: error[SCAN-3]: ValueError: x.shape=(16,) != mask.shape=(8,)
    9 |   %c, %l = scan_count %v mask %k : vector<16xi32>, vector<16xi1>
      |                               ^~
note: the operand is %v : vector<16xi32>; the mask is %k : vector<8xi1>
help: use a mask of the operand's shape
)",
     "  %v = get %buf[:] : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n"
     "  %c, %l = scan_count %v mask %k : vector<16xi32>, vector<16xi1>\n"},

    // --- CUM ---
    {"MaskedCumsumRank", "CUM-1",
     "  %v = const dense<1> : vector<2x8xi32>\n  %k = const dense<true> : vector<2x8xi1>\n"
     "  %c = cumsum %v mask %k : vector<2x8xi32>\n",
     R"(k.scir:9:15: error[CUM-1]: NotImplementedError: cumsum: x=int32[2,8] must be rank 1
    9 |   %c = cumsum %v mask %k : vector<2x8xi32>
      |               ^~
note: the operand is %v : vector<2x8xi32>
help: apply `cumsum` to 1-D vectors, one row at a time (`slice` + `reshape`)
)",
     "  %v = const dense<1> : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n"
     "  %c = cumsum %v mask %k : vector<16xi32>\n"},
    {"CummaxRank", "CUM-2", "  %v = const dense<1> : vector<2x8xi32>\n  %c = cummax %v : vector<2x8xi32>\n", R"(k.scir:8:15: error[CUM-2]: NotImplementedError: cummax: x=int32[2,8] must be rank 1
    8 |   %c = cummax %v : vector<2x8xi32>
      |               ^~
note: the operand is %v : vector<2x8xi32>
help: apply `cummax` to 1-D vectors, one row at a time (`slice` + `reshape`)
)",
     "  %v = const dense<1> : vector<16xi32>\n  %c = cummax %v : vector<16xi32>\n"},
    {"CumminScalar", "CUM-3", "  %v = const 1.0 : f32\n  %c = cummin %v : f32\n", R"(k.scir:8:15: error[CUM-3]: NotImplementedError: cummin: x=float32[] must be rank 1
    8 |   %c = cummin %v : f32
      |               ^~
note: the operand is %v : f32
help: apply `cummin` to 1-D vectors, one row at a time (`slice` + `reshape`)
)",
     "  %v = const dense<1.0> : vector<1xf32>\n  %c = cummin %v : vector<1xf32>\n"},
    {"CumsumAxis", "CUM-4", "  %v = const dense<1> : vector<2x8xi32>\n  %c = cumsum %v {axis = -1} : vector<2x8xi32>\n",
     R"(k.scir:8:19: error[CUM-4]: NotImplementedError: SC cumsum: axis=1 must be 0.
    8 |   %c = cumsum %v {axis = -1} : vector<2x8xi32>
      |                   ^~~~
note: the cumsum runs along axis 1 of %v : vector<2x8xi32>
help: cumsum 1-D vectors along axis 0, one row at a time
)", "  %v = const dense<1> : vector<16xi32>\n  %c = cumsum %v {axis = -1} : vector<16xi32>\n"},
    {"CumsumRank", "CUM-5", "  %v = const dense<1> : vector<2x8xi32>\n  %c = cumsum %v {axis = 0} : vector<2x8xi32>\n",
     R"(k.scir:8:15: error[CUM-5]: NotImplementedError: SC cumsum: x=int32[2,8] must be rank 1
    8 |   %c = cumsum %v {axis = 0} : vector<2x8xi32>
      |               ^~
note: the operand is %v : vector<2x8xi32>
help: cumsum 1-D vectors, one row at a time (`slice` + `reshape`)
)", "  %v = const dense<1> : vector<16xi32>\n  %c = cumsum %v {axis = 0} : vector<16xi32>\n"},
    {"CumsumReverse", "CUM-6", "  %v = get %buf[:] : vector<16xi32>\n  %c = cumsum %v {reverse = true} : vector<16xi32>\n",
     R"(k.scir:8:19: error[CUM-6]: NotImplementedError: SC cumsum: reverse=True is not yet supported
    8 |   %c = cumsum %v {reverse = true} : vector<16xi32>
      |                   ^~~~~~~
note: the cumsum has {reverse = true}
help: reverse the vector with `rev`, cumsum it, and `rev` the result
)", "  %v = get %buf[:] : vector<16xi32>\n  %c = cumsum %v {reverse = false} : vector<16xi32>\n"},

    // --- RED ---
    {"ReduceTwoD", "RED-1", "  %v = const dense<1> : vector<2x8xi32>\n  %r = reduce_max %v : i32\n", R"(k.scir:8:19: error[RED-1]: NotImplementedError: reductions require axes to be (0,) on SparseCore, but got (0, 1).
    8 |   %r = reduce_max %v : i32
      |                   ^~
note: `reduce_max` reduces every axis of %v : vector<2x8xi32>
help: reduce 1-D vectors: `reshape` to 1-D first, or reduce row by row
)",
     "  %v = const dense<1> : vector<16xi32>\n  %r = reduce_max %v : i32\n"},
    {"ReduceScalar", "RED-1", "  %v = const 1.0 : f32\n  %r = reduce_sum %v : f32\n", R"(k.scir:8:19: error[RED-1]: NotImplementedError: reductions require axes to be (0,) on SparseCore, but got ().
    8 |   %r = reduce_sum %v : f32
      |                   ^~
note: `reduce_sum` reduces every axis of %v : f32
help: reduce 1-D vectors: `reshape` to 1-D first, or reduce row by row
)",
     "  %v = const dense<1.0> : vector<1xf32>\n  %r = reduce_sum %v : f32\n"},
    {"ReduceOrThreeD", "RED-1", "  %v = const dense<true> : vector<2x2x4xi1>\n  %r = reduce_or %v : i1\n", R"(k.scir:8:18: error[RED-1]: NotImplementedError: reductions require axes to be (0,) on SparseCore, but got (0, 1, 2).
    8 |   %r = reduce_or %v : i1
      |                  ^~
note: `reduce_or` reduces every axis of %v : vector<2x2x4xi1>
help: reduce 1-D vectors: `reshape` to 1-D first, or reduce row by row
)",
     "  %v = const dense<true> : vector<16xi1>\n  %r = reduce_or %v : i1\n"},

    // --- SORT ---
    {"SortDefaultDimension", "SORT-1", "  %v = const dense<1> : vector<2x16xi32>\n  %r = sort %v : vector<2x16xi32>\n",
     R"(k.scir:8:8: error[SORT-1]: ValueError: Unsupported dimension: 1
    8 |   %r = sort %v : vector<2x16xi32>
      |        ^~~~
note: the sort runs along dimension 1 of %v : vector<2x16xi32> (lax.sort's default is the last dimension)
help: sort 1-D vectors, one row at a time
)", "  %v = const dense<1> : vector<16xi32>\n  %r = sort %v : vector<16xi32>\n"},
    {"SortKeys", "SORT-2",
     "  %v = get %buf[:] : vector<16xi32>\n  %a, %b = sort %v, %v {num_keys = 2} : vector<16xi32>, vector<16xi32>\n", R"(k.scir:8:25: error[SORT-2]: NotImplementedError: Multiple sort keys not supported
    8 |   %a, %b = sort %v, %v {num_keys = 2} : vector<16xi32>, vector<16xi32>
      |                         ^~~~~~~~
note: the sort has {num_keys = 2}
help: sort by one key: combine the keys into one i32 key (e.g. `shl` and `or`)
)",
     "  %v = get %buf[:] : vector<16xi32>\n  %a, %b = sort %v, %v {num_keys = 1} : vector<16xi32>, vector<16xi32>\n"},
    {"SortShape", "SORT-3",
     "  %k = get %buf[:] : vector<16xi32>\n  %v = get %w[:] : vector<32xi32>\n"
     "  %a, %b = sort %k, %v : vector<16xi32>, vector<32xi32>\n",
     R"(k.scir:9:21: error[SORT-3]: NotImplementedError: Unsupported shape for operand 1 of SC sort: Got (32,), expected (16,)
    9 |   %a, %b = sort %k, %v : vector<16xi32>, vector<32xi32>
      |                     ^~
note: operand 1 is %v : vector<32xi32>; a v7x register has 16 lanes
help: sort exactly 16 elements at a time
)",
     "  %k = get %buf[:] : vector<16xi32>\n  %v = get %w[0:16] : vector<16xi32>\n"
     "  %a, %b = sort %k, %v : vector<16xi32>, vector<16xi32>\n"},
    // Before JAX 0.12.1 (SORT-10 from then on: jax_release_test), Mosaic's verifier.
    {"SortKeysOf16Bits", "GEN-3",
     "  %k = const dense<1> : vector<16xi16>\n  %a = sort %k : vector<16xi16>\n",
     R"(k.scir:8:13: error[GEN-3]: error_handling.VerificationError: Pallas encountered an internal verification error. Please file a bug at https://github.com/jax-ml/jax/issues/new/choose. Error details: 'tpu.sort' op operand #0 must be vector of 32-bit signless integer or 32-bit float values, but got 'vector<16xi16>'
    8 |   %a = sort %k : vector<16xi16>
      |             ^~
note: the keys are %k : vector<16xi16> (MLIR's `see current operation` note is not reproduced)
help: sort f32, i32 or u32 keys (`convert` them first)
)",
     "  %k = const dense<1> : vector<16xi32>\n  %a = sort %k : vector<16xi32>\n"},
    {"SortKeyValKeysDtype", "SORT-4",
     "  %k = const dense<1> : vector<16xu16>\n  %v = get %buf[:] : vector<16xi32>\n"
     "  %a, %b = sort_key_val %k, %v : vector<16xu16>, vector<16xi32>\n",
     R"(k.scir:9:25: error[SORT-4]: NotImplementedError: sort_key_val: keys dtype uint16 should be uint32, int32 or float32
    9 |   %a, %b = sort_key_val %k, %v : vector<16xu16>, vector<16xi32>
      |                         ^~
note: the keys are %k : vector<16xu16>
help: sort u32, i32 or f32 keys (`convert` them first)
)",
     "  %k = const dense<1> : vector<16xu32>\n  %v = get %buf[:] : vector<16xi32>\n"
     "  %a, %b = sort_key_val %k, %v : vector<16xu32>, vector<16xi32>\n"},
    {"SortKeyValKeysShape", "SORT-5",
     "  %k = const 1 : i32\n  %v = get %buf[:] : vector<16xi32>\n  %a, %b = sort_key_val %k, %v : i32, vector<16xi32>\n",
     R"(k.scir:9:25: error[SORT-5]: ValueError: keys shape () must be (16,)
    9 |   %a, %b = sort_key_val %k, %v : i32, vector<16xi32>
      |                         ^~
note: the keys are %k : i32; a v7x register has 16 lanes
help: sort exactly 16 keys at a time
)",
     "  %k = const dense<1> : vector<16xi32>\n  %v = get %buf[:] : vector<16xi32>\n"
     "  %a, %b = sort_key_val %k, %v : vector<16xi32>, vector<16xi32>\n"},
    {"SortKeyValValuesDtype", "SORT-6",
     "  %k = get %buf[:] : vector<16xi32>\n  %v = const dense<true> : vector<16xi1>\n"
     "  %a, %b = sort_key_val %k, %v : vector<16xi32>, vector<16xi1>\n",
     R"(k.scir:9:29: error[SORT-6]: NotImplementedError: sort_key_val: values dtype bool should be 32 bits
    9 |   %a, %b = sort_key_val %k, %v : vector<16xi32>, vector<16xi1>
      |                             ^~
note: the values are %v : vector<16xi1>
help: sort 32-bit values (`convert` them, or `bitcast` packed data to a 32-bit type)
)",
     "  %k = get %buf[:] : vector<16xi32>\n  %v = const dense<1.0> : vector<16xf32>\n"
     "  %a, %b = sort_key_val %k, %v : vector<16xi32>, vector<16xf32>\n"},
    {"SortKeyValValuesShape", "SORT-7",
     "  %k = get %buf[:] : vector<16xi32>\n  %v = get %w[:] : vector<32xi32>\n"
     "  %a, %b = sort_key_val %k, %v : vector<16xi32>, vector<32xi32>\n",
     R"(k.scir:9:29: error[SORT-7]: ValueError: values shape (32,) must be (16,)
    9 |   %a, %b = sort_key_val %k, %v : vector<16xi32>, vector<32xi32>
      |                             ^~
note: the values are %v : vector<32xi32>; a v7x register has 16 lanes
help: sort exactly 16 values at a time
)",
     "  %k = get %buf[:] : vector<16xi32>\n  %v = get %w[16:32] : vector<16xi32>\n"
     "  %a, %b = sort_key_val %k, %v : vector<16xi32>, vector<16xi32>\n"},
    {"SortKeyValMaskDtype", "SORT-8",
     "  %k = get %buf[:] : vector<16xi32>\n"
     "  %a, %b, %c = sort_key_val %k, %k mask %k : vector<16xi32>, vector<16xi32>, vector<16xi32>\n",
     R"(k.scir:8:41: error[SORT-8]: TypeError: mask dtype int32 is not boolean
    8 |   %a, %b, %c = sort_key_val %k, %k mask %k : vector<16xi32>, vector<16xi32>, vector<16xi32>
      |                                         ^~
note: the mask is %k : vector<16xi32>
help: pass an i1 mask, e.g. `%m = cmp gt %v, %zero : vector<16xi1>`
)",
     "  %k = get %buf[:] : vector<16xi32>\n  %n = convert %k : vector<16xi1>\n"
     "  %a, %b, %c = sort_key_val %k, %k mask %n : vector<16xi32>, vector<16xi32>, vector<16xi1>\n"},
    {"SortKeyValMaskShape", "SORT-9",
     "  %k = get %buf[:] : vector<16xi32>\n  %n = const true : i1\n"
     "  %a, %b, %c = sort_key_val %k, %k mask %n : vector<16xi32>, vector<16xi32>, i1\n",
     R"(k.scir:9:41: error[SORT-9]: ValueError: mask shape () must be (16,)
    9 |   %a, %b, %c = sort_key_val %k, %k mask %n : vector<16xi32>, vector<16xi32>, i1
      |                                         ^~
note: the mask is %n : i1; a v7x register has 16 lanes
help: use a vector<16xi1> mask
)",
     "  %k = get %buf[:] : vector<16xi32>\n  %n = const dense<true> : vector<16xi1>\n"
     "  %a, %b, %c = sort_key_val %k, %k mask %n : vector<16xi32>, vector<16xi32>, vector<16xi1>\n"},

    // --- REV ---
    {"RevAxis", "REV-1", "  %v = const dense<1> : vector<2x16xi32>\n  %r = rev %v {axis = 1} : vector<2x16xi32>\n", R"(k.scir:8:16: error[REV-1]: NotImplementedError: Invalid dimensions for SC lax.rev: (1,)
    8 |   %r = rev %v {axis = 1} : vector<2x16xi32>
      |                ^~~~
note: the rev reverses axis 1 of %v : vector<2x16xi32>
help: reverse 1-D vectors (axis 0), one row at a time
)",
     "  %v = const dense<1> : vector<16xi32>\n  %r = rev %v {axis = 0} : vector<16xi32>\n"},

    // --- MR ---
    {"PopcountDtype", "MR-1", "  %v = get %buf[:] : vector<16xi32>\n  %p = popcount_all %v : vector<16xi32>\n", R"(k.scir:8:21: error[MR-1]: TypeError: Mask all-reduce only supports bool arrays, got int32
    8 |   %p = popcount_all %v : vector<16xi32>
      |                     ^~
note: the operand is %v : vector<16xi32>
help: pass an i1 mask, e.g. `%m = cmp ne %v, %zero : vector<16xi1>`
)",
     "  %v = get %buf[:] : vector<16xi32>\n  %n = convert %v : vector<16xi1>\n  %p = popcount_all %n : vector<16xi32>\n"},
    {"FfsReduceZero", "MR-2", "  %k = const dense<true> : vector<16xi1>\n  %p = ffs_all %k {reduce = 0} : vector<16xi32>\n",
     R"(k.scir:8:20: error[MR-2]: ValueError: reduce must be >=1, got 0
    8 |   %p = ffs_all %k {reduce = 0} : vector<16xi32>
      |                    ^~~~~~
note: the op has {reduce = 0}
help: use reduce = 1 (or another divisor of the mask length)
)", "  %k = const dense<true> : vector<16xi1>\n  %p = ffs_all %k {reduce = 1} : vector<16xi32>\n"},
    {"PopcountReduceDivides", "MR-3",
     "  %k = const dense<true> : vector<16xi1>\n  %p = popcount_all %k {reduce = 3} : vector<5xi32>\n", R"(k.scir:8:25: error[MR-3]: ValueError: reduce=3 must divide the dimension size 16
    8 |   %p = popcount_all %k {reduce = 3} : vector<5xi32>
      |                         ^~~~~~
note: the mask is %k : vector<16xi1> and 3 does not divide 16
help: use a reduce that divides 16 (e.g. reduce = 1)
)",
     "  %k = const dense<true> : vector<16xi1>\n  %p = popcount_all %k {reduce = 2} : vector<8xi32>\n"},
    {"PopcountScalar", "MR-4", "  %k = const true : i1\n  %p = popcount_all %k : vector<1xi32>\n", R"(k.scir:8:21: error[MR-4]: ValueError: Mask all-reduce only supports 1D arrays
    8 |   %p = popcount_all %k : vector<1xi32>
      |                     ^~
note: the operand is %k : i1
help: pass a 1-D mask
)",
     "  %k = const dense<true> : vector<1xi1>\n  %p = popcount_all %k : vector<1xi32>\n"},

    // --- EL ---
    {"ConvertTo64", "EL-1", "  %v = get %buf[:] : vector<16xi32>\n  %c = convert %v : vector<16xu64>\n", R"(k.scir:8:8: error[EL-1]: NotImplementedError: 64-bit types are not supported
    8 |   %c = convert %v : vector<16xu64>
      |        ^~~~~~~
note: the cast is i32 -> u64 (%v : vector<16xi32>)
help: stay at 32 bits or below
)",
     "  %v = get %buf[:] : vector<16xi32>\n  %c = convert %v : vector<16xu32>\n"},
    {"ConvertHalfFormats", "EL-2", "  %v = const dense<1.0> : vector<32xf16>\n  %c = convert %v : vector<32xbf16>\n",
     R"(k.scir:8:8: error[EL-2]: NotImplementedError: Unsupported cast: float16 -> bfloat16
    8 |   %c = convert %v : vector<32xbf16>
      |        ^~~~~~~
note: the cast is f16 -> bf16 (%v : vector<32xf16>)
help: convert through f32 (`convert` twice)
)",
     "  %v = const dense<1.0> : vector<32xf16>\n  %t = convert %v : vector<32xf32>\n  %c = convert %t : vector<32xbf16>\n"},
    {"ConvertNarrowUnsigned", "EL-2", "  %v = const dense<1> : vector<32xu16>\n  %c = convert %v : vector<32xf32>\n", R"(k.scir:8:8: error[EL-2]: NotImplementedError: Unsupported cast: uint16 -> uint32
    8 |   %c = convert %v : vector<32xf32>
      |        ^~~~~~~
note: the cast is u16 -> f32 (%v : vector<32xu16>); Pallas lowers it through u16 -> u32, which has no direct conversion
help: convert through i16, the signed type of u16's width (`convert` twice; the values must fit in i16)
)",
     "  %v = const dense<1> : vector<32xi16>\n  %c = convert %v : vector<32xf32>\n"},
    {"ExtractBool", "EL-3", "  %k = const dense<true> : vector<16xi1>\n  %e = extract %k[3] : i1\n", R"(k.scir:8:16: error[EL-3]: ValueError: Only arrays with 32-bit element types can be converted to scalars, but got: bool. Try casting the input before squeezing the scalar.
    8 |   %e = extract %k[3] : i1
      |                ^~~~~
note: the vector is vector<16xi1>; the scalar would be i1
help: `convert` the vector to vector<16xi32> first, then `extract` from that
)",
     "  %k = const dense<true> : vector<16xi1>\n  %n = convert %k : vector<16xi32>\n  %e = extract %n[3] : i32\n"},
    {"GatherRank", "EL-5",
     "  %v = const dense<1> : vector<2x8xi32>\n  %i = iota : vector<16xi32>\n  %g = gather %v, %i {axis = 1} : "
     "vector<16xi32>\n",
     R"(k.scir:9:19: error[EL-5]: NotImplementedError: Only take_along_axis-like gathers supported
    9 |   %g = gather %v, %i {axis = 1} : vector<16xi32>
      |                   ^~
note: the source is %v : vector<2x8xi32> (rank 2); the indices are %i : vector<16xi32> (rank 1)
help: give the indices the source's rank (take_along_axis), or gather from a ref with `load_gather`
)",
     "  %v = const dense<1> : vector<2x8xi32>\n  %i = const dense<3> : vector<2x8xi32>\n  %g = gather %v, %i {axis = 1} : "
     "vector<2x8xi32>\n"},
    {"GatherBatchDims", "EL-6",
     "  %v = const dense<1> : vector<2x8xi32>\n  %i = const dense<3> : vector<1x8xi32>\n  %g = gather %v, %i {axis = 1} : "
     "vector<1x8xi32>\n",
     R"(k.scir:9:19: error[EL-6]: NotImplementedError: Unsupported gather
    9 |   %g = gather %v, %i {axis = 1} : vector<1x8xi32>
      |                   ^~
note: the source is %v : vector<2x8xi32> and the indices are %i : vector<1x8xi32>: dimension 0 differs (2 vs 1) but is not the gather axis 1
help: give the indices the source's size in every dimension but the gather axis
)",
     "  %v = const dense<1> : vector<2x8xi32>\n  %i = const dense<3> : vector<2x4xi32>\n  %g = gather %v, %i {axis = 1} : "
     "vector<2x4xi32>\n"},
    {"CmpMixed", "EL-7",
     "  %a = axis_index core : i32\n  %b = const 2 : u32\n  %c = cmp lt %a, %b : i1\n", R"(k.scir:9:19: error[EL-7]: ValueError: Mixed dtype operands in cmp: int32, uint32
    9 |   %c = cmp lt %a, %b : i1
      |                   ^~
note: the operands are %a : i32 and %b : u32
help: `convert` one operand to the other's element type
)",
     "  %a = axis_index core : i32\n  %c = cmp lt %a, 2 : i1\n"},
    {"TanhAccuracy", "EL-10",
     "  %v = const dense<1.0> : vector<16xf32>\n  %t = tanh %v {accuracy = \"highest\"} : vector<16xf32>\n", R"(k.scir:8:17: error[EL-10]: NotImplementedError: Not implemented: accuracy
    8 |   %t = tanh %v {accuracy = "highest"} : vector<16xf32>
      |                 ^~~~~~~~
note: `tanh` has {accuracy = "highest"}
help: drop the accuracy attribute
)",
     "  %v = const dense<1.0> : vector<16xf32>\n  %t = tanh %v : vector<16xf32>\n"},
    {"MaxBool", "EL-11", "  %a = const true : i1\n  %b = max %a, false : i1\n", R"(k.scir:8:8: error[EL-11]: NotImplementedError: bool
    8 |   %b = max %a, false : i1
      |        ^~~
note: `max` on i1 (a boolean)
help: use `and`/`or`/`xor`/`not` on i1, or `convert` to i32 and compute there
)",
     "  %a = const true : i1\n  %b = or %a, false : i1\n"},
    {"NegBool", "EL-11", "  %k = const dense<true> : vector<16xi1>\n  %n = neg %k : vector<16xi1>\n", R"(k.scir:8:8: error[EL-11]: NotImplementedError: bool
    8 |   %n = neg %k : vector<16xi1>
      |        ^~~
note: `neg` on vector<16xi1> (a boolean)
help: use `and`/`or`/`xor`/`not` on i1, or `convert` to i32 and compute there
)",
     "  %k = const dense<true> : vector<16xi1>\n  %n = not %k : vector<16xi1>\n"},
    {"SignBool", "EL-12", "  %k = const dense<true> : vector<16xi1>\n  %n = sign %k : vector<16xi1>\n", R"(k.scir:8:13: error[EL-12]: ValueError: Unsupported dtype for sign: bool
    8 |   %n = sign %k : vector<16xi1>
      |             ^~
note: the operand is %k : vector<16xi1>
help: `convert` the operand to i32 or f32 first
)",
     "  %k = const dense<1> : vector<16xi32>\n  %n = sign %k : vector<16xi32>\n"},
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class VectorRuleTest : public ::testing::TestWithParam<Case> {};

TEST_P(VectorRuleTest, RendersExactly) {
  const Case& c = GetParam();
  Checked bad = Check(Kernel(c.bad));
  EXPECT_FALSE(bad.ok);
  ASSERT_EQ(bad.codes.size(), 1u) << bad.diagnostics;
  EXPECT_EQ(bad.codes[0], c.code) << bad.diagnostics;
  EXPECT_EQ(bad.diagnostics, c.expected);
}

TEST_P(VectorRuleTest, NearestLegalNeighbourPasses) {
  const Case& c = GetParam();
  Checked good = Check(Kernel(c.good));
  EXPECT_TRUE(good.ok) << good.diagnostics;
}

INSTANTIATE_TEST_SUITE_P(Rules, VectorRuleTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// Every code the vector table can report has a case above.
TEST(VectorRuleTest, EveryRuleHasACase) {
  std::set<std::string> covered;
  for (const Case& c : kCases) covered.insert(c.code);
  for (const rules::OpRule& r : rules::VectorRules()) {
    if (!RuleIn(r.id, kCatalogJax)) continue;  // a later JAX's rule: jax_release_test
    EXPECT_TRUE(covered.count(std::string(Info(r.id).code))) << Info(r.id).code;
    for (DiagId id : r.also) EXPECT_TRUE(covered.count(std::string(Info(id).code))) << Info(id).code;
  }
}


// --- Check order: the first failing check of the catalog's order wins ------------------

struct OrderCase {
  const char* name;
  const char* body;
  const char* first;  // the code reported (and the only one: one per op)
};

const OrderCase kOrder[] = {
    // Trace-time checks (abstract eval) precede the lowering rule's.
    {"Gs3BeforeGs8", "  %u = view_bitcast %sh2 : vmem_shared<2x16xu32>\n  %i = iota : vector<16xi32>\n"
                     "  %g = load_gather %u[0] [%i] mask %i : vector<16xu32>\n", "GS-3"},
    {"Gs7BeforeGet8", "  %i = iota : vector<16xi32>\n  %k = const dense<1> : vector<8xi32>\n"
                      "  %g = load_gather %x[:] [%i] mask %k : vector<16xi32>\n", "GS-7"},
    {"Shape1BeforeGs7", "  %i = const dense<0> : vector<8xi32>\n  %g = load_gather %buf[:] [%i] mask %i : vector<8xi32>\n",
     "SHAPE-1"},
    {"Gs4BeforeShape1", "  %i = const dense<0> : vector<8xi32>\n  %g = load_gather %m[:, :] [%i] : vector<8xi32>\n", "GS-4"},
    {"Gs2BeforeGs1", "  %v = get %buf[:] : vector<16xi32>\n  store_scatter %v, %v\n", "GS-2"},
    {"Gs1BeforeGs3", "  %v = const dense<1.0> : vector<32xbf16>\n  %i = iota : vector<16xi32>\n"
                     "  %g = load_gather %v[:] [%i] : vector<16xbf16>\n", "GS-1"},
    {"Gs9BeforeGs10", "  %i = iota : vector<16xi32>\n  %v = const dense<1.0> : vector<8xf32>\n  store_scatter %x[:] [%i], %v\n",
     "GS-9"},
    {"Gs11BeforeGet8", "  %i = iota : vector<16xi32>\n  %k = const dense<1> : vector<8xi32>\n"
                       "  store_scatter %x[:] [%i], %i mask %k\n", "GS-11"},
    {"Get8BeforeGs13", "  %i = iota : vector<16xi32>\n  store_scatter %x[:] [%i], %i mask %i\n", "GET-8"},
    {"Pk1BeforePk2", "  %a = const dense<1> : vector<2x8xi32>\n  %b = const dense<1> : vector<16xi32>\n"
                     "  %p = pack %a, %b {format = \"bad\"} : vector<32xi16>\n", "PK-1"},
    {"Pk5BeforePk6", "  %a = const dense<1> : vector<16xi32>\n  %p = pack %a, %a {format = \"bad\"} : vector<32xi32>\n",
     "PK-5"},
    {"Up1BeforeUp3", "  %ab = const dense<1> : vector<15xu8>\n"
                     "  %a, %b = unpack %ab {format = \"interleaved\"} : vector<7xu8>, vector<7xu8>\n", "UP-1"},
    {"Cum2BeforeScan1", "  %v = const dense<1.0> : vector<2x16xbf16>\n  %c = cummax %v : vector<2x16xbf16>\n", "CUM-2"},
    {"Scan1BeforeScan2", "  %v = const dense<1> : vector<16xi16>\n  %c = cummin %v mask %v : vector<16xi16>\n", "SCAN-1"},
    {"Scan2BeforeScan3", "  %v = get %buf[:] : vector<16xi32>\n  %k = const dense<1> : vector<8xi32>\n"
                         "  %c, %l = scan_count %v mask %k : vector<16xi32>, vector<16xi1>\n", "SCAN-2"},
    {"Cum4BeforeCum5", "  %v = const dense<1> : vector<2x8xi32>\n  %c = cumsum %v {axis = 1, reverse = true} : vector<2x8xi32>\n",
     "CUM-4"},
    {"Cum5BeforeCum6", "  %v = const dense<1> : vector<2x8xi32>\n  %c = cumsum %v {reverse = true} : vector<2x8xi32>\n",
     "CUM-5"},
    {"Sort1BeforeSort2", "  %v = const dense<1> : vector<2x8xi32>\n"
                         "  %a, %b = sort %v, %v {num_keys = 2, dimension = 1} : vector<2x8xi32>, vector<2x8xi32>\n", "SORT-1"},
    {"Sort2BeforeSort3", "  %v = const dense<1> : vector<8xi32>\n"
                         "  %a, %b = sort %v, %v {num_keys = 2} : vector<8xi32>, vector<8xi32>\n", "SORT-2"},
    {"Sort4BeforeSort5", "  %k = const dense<1> : vector<8xi16>\n  %a, %b = sort_key_val %k, %k : vector<8xi16>, vector<8xi16>\n",
     "SORT-4"},
    {"Sort7BeforeSort8", "  %k = get %buf[:] : vector<16xi32>\n  %v = const dense<1> : vector<8xi32>\n"
                         "  %a, %b, %c = sort_key_val %k, %v mask %v : vector<16xi32>, vector<8xi32>, vector<8xi32>\n", "SORT-7"},
    {"Mr1BeforeMr2", "  %v = const dense<1> : vector<2x8xi32>\n  %p = popcount_all %v {reduce = 0} : vector<16xi32>\n", "MR-1"},
    {"Mr2BeforeMr4", "  %k = const dense<true> : vector<2x8xi1>\n  %p = popcount_all %k {reduce = -1} : vector<16xi32>\n",
     "MR-2"},
    {"Bc1NotForVectors", "  %a = const dense<1> : vector<16xi32>\n  %b = bitcast %a : vector<32xi16>\n  %c = bitcast %b : vector<32xu16>\n",
     ""},
};

void PrintTo(const OrderCase& c, std::ostream* os) { *os << c.name; }

class VectorRuleOrderTest : public ::testing::TestWithParam<OrderCase> {};

TEST_P(VectorRuleOrderTest, FirstFailingCheckWins) {
  const OrderCase& c = GetParam();
  Checked r = Check(Kernel(c.body));
  if (std::string(c.first).empty()) {
    EXPECT_TRUE(r.ok) << r.diagnostics;
    return;
  }
  EXPECT_EQ(r.codes, std::vector<std::string>{c.first}) << r.diagnostics;
}

INSTANTIATE_TEST_SUITE_P(Order, VectorRuleOrderTest, ::testing::ValuesIn(kOrder),
                         [](const ::testing::TestParamInfo<OrderCase>& info) { return std::string(info.param.name); });

// --- convert: Pallas' _convert_element_type_lowering_rule and _convert_helper ----------

struct CastCase {
  const char* from;
  const char* to;
  const char* expect;  // "" (lowers), "EL-1", or the EL-2 message's cast
};

const CastCase kCasts[] = {
    {"i32", "f32", ""},       {"f32", "i32", ""},       {"f32", "bf16", ""},      {"bf16", "f32", ""},
    {"f16", "f32", ""},       {"f32", "f16", ""},       {"i32", "u32", ""},       {"u32", "i32", ""},
    {"i32", "i8", ""},        {"i8", "i32", ""},        {"i8", "i16", ""},        {"i16", "u8", ""},
    {"u32", "u16", ""},       {"u32", "i8", ""},        {"i1", "i32", ""},        {"i1", "bf16", ""},
    {"i1", "u8", ""},         {"f16", "i1", ""},        {"i32", "i1", ""},        {"u32", "i1", ""},
    {"bf16", "i8", ""},       {"i16", "bf16", ""},      {"f32", "u8", "float32 -> uint8"},
    {"f32", "u32", "float32 -> uint32"},                {"u32", "f32", "uint32 -> float32"},
    {"u8", "u32", "uint8 -> uint32"},                   {"u8", "i32", "uint8 -> int32"},
    {"i8", "u32", "int8 -> uint32"},                    {"u8", "u16", "uint8 -> uint32"},
    {"u16", "u8", "uint16 -> uint32"},                  {"u16", "i1", "uint16 -> int32"},
    {"u8", "f32", "uint8 -> uint32"},                   {"bf16", "f16", "bfloat16 -> float16"},
    {"f64", "f32", "float64 -> float32"},               {"u64", "f32", "uint64 -> float32"},
    {"i32", "i64", "EL-1"},   {"f32", "f64", "EL-1"},   {"i64", "i32", "EL-1"},   {"u64", "u32", "EL-1"},
    {"i64", "f32", ""},       {"f64", "i32", ""},
};

TEST(VectorRuleConvertTest, FollowsPallasConversionRules) {
  for (const CastCase& c : kCasts) {
    std::string body = std::string("  %a = const dense<1> : vector<16x") + c.from + ">\n  %b = convert %a : vector<16x" +
                       c.to + ">\n";
    if (std::string(c.from) == "i1") body = "  %a = const dense<true> : vector<16xi1>\n  %b = convert %a : vector<16x" +
                                            std::string(c.to) + ">\n";
    Checked r = Check(Kernel(body));
    std::string expect = c.expect;
    std::string what = std::string(c.from) + " -> " + c.to;
    if (expect.empty()) {
      EXPECT_TRUE(r.ok) << what << "\n" << r.diagnostics;
    } else if (expect == "EL-1") {
      EXPECT_EQ(r.codes, std::vector<std::string>{"EL-1"}) << what << "\n" << r.diagnostics;
    } else {
      EXPECT_EQ(r.codes, std::vector<std::string>{"EL-2"}) << what << "\n" << r.diagnostics;
      EXPECT_NE(r.diagnostics.find("NotImplementedError: Unsupported cast: " + expect + "\n"), std::string::npos)
          << what << "\n" << r.diagnostics;
    }
  }
}

// --- Register shapes follow the target; vector-only ops leave the scalar subcore to GEN-1 ---

TEST(VectorRuleTargetTest, LanesFollowTheTarget) {
  std::string body =
      "  %i = iota : vector<8xi32>\n  %t = sort %i : vector<8xi32>\n  %g = load_gather %buf[:] [%i] : vector<8xi32>\n"
      "  %k, %v = sort_key_val %i, %i : vector<8xi32>, vector<8xi32>\n";
  Checked v5p = Check(Kernel(body), "v5p");
  EXPECT_TRUE(v5p.ok) << v5p.diagnostics;
  Checked v7x = Check(Kernel(body), "v7x");
  EXPECT_EQ(v7x.codes, (std::vector<std::string>{"IOTA-1", "SORT-3", "SHAPE-1", "SORT-5"})) << v7x.diagnostics;
  EXPECT_NE(v7x.diagnostics.find("supported shape is (16,).\n"), std::string::npos);
  EXPECT_NE(v5p.diagnostics.find("IOTA-1"), 0u);
}

TEST(VectorRuleTargetTest, VectorOnlyOpsOnTheScalarSubcoreAreNotJudgedHere) {
  std::string text = R"(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 1)
{
  %i = iota : vector<32xi32>
  %r = rev %i {axis = 0} : vector<32xi32>
  %v = const dense<1> : vector<2x16xi32>
  %s = reduce_sum %v : i32
  %t = sort %v {dimension = 1} : vector<2x16xi32>
}
)";
  Checked r = Check(text);
  for (const std::string& code : r.codes) {
    EXPECT_TRUE(code != "IOTA-1" && code != "RED-1" && code != "SORT-1" && code != "REV-1") << r.diagnostics;
  }
}

// --- What the verifier leaves to these rules, and what it still rejects -------------------

TEST(VectorRuleVerifierTest, MeaninglessFormsStayIrErrors) {
  struct {
    const char* body;
    const char* code;
    const char* text;
  } cases[] = {
      {"  %ab = const dense<1.0> : vector<32xbf16>\n"
       "  %a, %b = unpack %ab {format = \"packed\"} : vector<16xf32>, vector<16xf32>\n",
       "IR-ATTR", "'unpack' has format \"packed\"; the formats are \"interleaved\" and \"compressed\""},
      {"  %g = load_gather %buf[3] : vector<16xi32>\n", "IR-OPERAND", "gathers from the 0-d view %buf[3] without index vectors"},
      {"  %v = get %buf[:] : vector<16xi32>\n  %k = const dense<true> : vector<16xi1>\n"
       "  %c = cumsum %v mask %k {reverse = true} : vector<16xi32>\n",
       "IR-ATTR", "a masked cumsum (plsc.cumsum) takes no 'axis' or 'reverse'"},
      {"  %v = get %buf[:] : vector<16xi32>\n  %c = cumsum %v {axis = 1} : vector<16xi32>\n", "IR-ATTR",
       "axis 1 is out of range for vector<16xi32>"},
      {"  %v = get %buf[:] : vector<16xi32>\n  %t = sort %v {dimension = -2} : vector<16xi32>\n", "IR-ATTR",
       "dimension -2 is out of range for vector<16xi32>"},
      {"  %v = get %buf[:] : vector<16xi32>\n  %t = sort %v {num_keys = 2} : vector<16xi32>\n", "IR-ATTR",
       "num_keys = 2 must be between 1 and the number of operands (1)"},
      {"  %v = const 1 : i32\n  %t = sort %v : i32\n", "IR-OPERAND", "sorts vector values"},
      {"  %v = const 1 : i32\n  %c, %l = scan_count %v : i32, i1\n", "IR-OPERAND", "scans a vector value"},
  };
  for (const auto& c : cases) {
    Checked r = Check(Kernel(c.body));
    EXPECT_EQ(r.codes, std::vector<std::string>{c.code}) << r.diagnostics;
    EXPECT_NE(r.diagnostics.find(c.text), std::string::npos) << r.diagnostics;
  }
}

// The catalog's templates, verbatim: every message of this group's rows appears in
// sc-errors.md as written (but those of rules a later JAX added, which it predates).
TEST(VectorRuleCatalogTest, TemplatesAreVerbatim) {
  std::string path = testing::SourceDir() + "/../shared/spec/sc-errors.md";
  if (const char* env = std::getenv("SCJIT_SPEC_DIR")) path = std::string(env) + "/sc-errors.md";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << "the spec is not at " << path;
  std::stringstream ss;
  ss << in.rdbuf();
  std::string spec = ss.str();
  for (const rules::OpRule& r : rules::VectorRules()) {
    std::vector<DiagId> ids = {r.id};
    ids.insert(ids.end(), r.also.begin(), r.also.end());
    for (DiagId id : ids) {
      if (!RuleIn(id, kCatalogJax)) continue;
      std::string line = "\n" + std::string(Info(id).message) + "\n";
      EXPECT_NE(spec.find(line), std::string::npos) << Info(id).code << ": " << Info(id).message;
    }
  }
}

}  // namespace
}  // namespace scjit
