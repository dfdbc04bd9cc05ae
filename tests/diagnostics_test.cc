// The front end's diagnostics: one or more cases per IR-* code, each checking the
// full rendered text (location, code, message, source line, caret, note, help).
#include <string>

#include "gtest/gtest.h"
#include "lowering/base/diagnostic.h"
#include "tests/ir_loader.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::Load;

// Bodies are placed in this kernel (so line numbers start at 5).
constexpr const char kHeader[] = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem)
{
)";

enum Form { kBody, kFile };

struct Case {
  const char* name;
  Form form;
  const char* text;
  const char* expected;  // every diagnostic, rendered; "" when the file is valid
};

const Case kCases[] = {
    {"arity_dma", kBody,
     R"(  dma_start %x -> %buf)",
     R"(arity_dma.scir:5:23: error[IR-SYNTAX]: expected ',' and the semaphore, found the end of the line
    5 |   dma_start %x -> %buf
      |                       ^
help: a copy is written `dma_start %src -> %dst, %sem` (Pallas' `pltpu.async_copy(src, dst, sem)`)
)"},
    {"arity_operands", kBody,
     R"(  %a = const 3 : i32
  %b = add %a, %a, %a : i32)",
     R"(arity_operands.scir:6:8: error[IR-ARITY]: 'add' expects 2 operands, got 3
    6 |   %b = add %a, %a, %a : i32
      |        ^~~
)"},
    {"arity_results", kBody,
     R"(  %v = get %buf[:] : vector<16xi32>
  %c = scan_count %v : vector<16xi32>)",
     R"(arity_results.scir:6:8: error[IR-ARITY]: 'scan_count' defines 2 results, got 1
    6 |   %c = scan_count %v : vector<16xi32>
      |        ^~~~~~~~~~
)"},
    {"arity_skv", kBody,
     R"(  %v = get %buf[:] : vector<16xi32>
  %m = cmp gt %v, %v : vector<16xi1>
  %k, %w = sort_key_val %v, %v mask %m : vector<16xi32>, vector<16xi32>)",
     R"(arity_skv.scir:7:12: error[IR-ARITY]: 'sort_key_val' with a mask defines 3 results (keys, values, mask), got 2
    7 |   %k, %w = sort_key_val %v, %v mask %m : vector<16xi32>, vector<16xi32>
      |            ^~~~~~~~~~~~
)"},
    {"attr_kernel", kFile,
     R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    attributes {layout = true}
{
}
)",
     R"(attr_kernel.scir:3:17: error[IR-ATTR]: the kernel has no attribute 'layout'
    3 |     attributes {layout = true}
      |                 ^~~~~~
help: the kernel takes: layout_passes
)"},
    {"attr_kind", kBody,
     R"(  for %i = 0 to 4 step 1 {unroll = "two"} {
  })",
     R"(attr_kind.scir:5:36: error[IR-ATTR]: attribute 'unroll' of 'for' must be an integer
    5 |   for %i = 0 to 4 step 1 {unroll = "two"} {
      |                                    ^~~~~
)"},
    {"attr_missing", kBody,
     R"(  %v = get %buf[:] : vector<16xi32>
  %f = convert %v : vector<16xf32>
  %p = pack %f, %f : vector<32xbf16>)",
     R"(attr_missing.scir:7:8: error[IR-ATTR]: 'pack' needs attribute 'format'
    7 |   %p = pack %f, %f : vector<32xbf16>
      |        ^~~~
)"},
    {"attr_unknown", kBody,
     R"(  for %i = 0 to 4 step 1 {unrol = 2} {
  })",
     R"(attr_unknown.scir:5:27: error[IR-ATTR]: 'for' has no attribute 'unrol'
    5 |   for %i = 0 to 4 step 1 {unrol = 2} {
      |                           ^~~~~
help: 'for' takes: unroll
)"},
    {"index_dynamic_size", kBody,
     R"(  %n = axis_index subcore : i32
  %w = get %buf[ds(0, %n)] : vector<16xi32>)",
     R"(index_dynamic_size.scir:6:17: error[IR-INDEX]: the dynamically sized slice ds(0, %n) is only allowed in views and DMA operands; values have static shapes
    6 |   %w = get %buf[ds(0, %n)] : vector<16xi32>
      |                 ^~~~~~~~~
)"},
    {"index_idx_in_get", kBody,
     R"(  %v = get %buf[:] : vector<16xi32>
  %w = get %buf[idx(%v)] : vector<16xi32>)",
     R"(index_idx_in_get.scir:6:17: error[IR-INDEX]: idx(...) is only allowed in DMA operands and views
    6 |   %w = get %buf[idx(%v)] : vector<16xi32>
      |                 ^~~~~~~
)"},
    {"index_oob", kBody,
     R"(  %v = get %buf[8:24] : vector<16xi32>)",
     R"(index_oob.scir:5:17: error[IR-INDEX]: slice 8:24 is out of bounds for dimension 0 of %buf (size 16)
    5 |   %v = get %buf[8:24] : vector<16xi32>
      |                 ^~~~
)"},
    {"index_rank", kBody,
     R"(  %v = get %buf[0, 1] : i32)",
     R"(index_rank.scir:5:12: error[IR-INDEX]: the indexer of %buf has 2 entries but vmem<16xi32> has rank 1
    5 |   %v = get %buf[0, 1] : i32
      |            ^~~~~~~~~~
)"},
    {"index_window_block", kBody,
     R"(  pipeline grid(1)
      in(%x, block [32], map (%i) -> (%i))
      body(%xv: hbm<32xi32>) {
  })",
     R"(index_window_block.scir:6:21: error[IR-INDEX]: the block's 32 elements do not fit dimension 0 of %x : hbm<16xi32> (size 16); the block ref %xv is hbm<32xi32>, a window of the operand, not a buffer
    6 |       in(%x, block [32], map (%i) -> (%i))
      |                     ^~
)"},
    {"kernel_duplicate", kFile,
     R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)",
     R"(kernel_duplicate.scir:5:8: error[IR-KERNEL]: kernel @k is defined twice
    5 | kernel @k(in %x: hbm<16xi32>)
      |        ^~
note: @k is first defined at kernel_duplicate.scir:1:8
)"},
    {"kernel_empty", kFile,
     R"(// nothing here
)",
     R"(kernel_empty.scir: error[IR-KERNEL]: the file defines no kernel
)"},
    {"kernel_mesh", kFile,
     R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 0, subcores = 1)
{
}
)",
     R"(kernel_mesh.scir:2:25: error[IR-KERNEL]: a mesh needs at least one core, got 0
    2 |     mesh vector(cores = 0, subcores = 1)
      |                         ^
)"},
    {"kernel_scalar_mesh", kFile,
     R"(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 1, subcores = 2)
{
}
)",
     R"(kernel_scalar_mesh.scir:2:28: error[IR-KERNEL]: a scalar mesh has one scalar subcore per core; it takes no 'subcores'
    2 |     mesh scalar(cores = 1, subcores = 2)
      |                            ^~~~~~~~
)"},
    {"kernel_scalar_param", kFile,
     R"(kernel @k(in %n: i32, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)",
     R"(kernel_scalar_param.scir:1:14: error[IR-KERNEL]: parameter %n must be a ref such as hbm<16xi32> or a semaphore, got i32
    1 | kernel @k(in %n: i32, out %o: hbm<16xi32>)
      |              ^~
)"},
    {"lex_binary", kBody,
     "  %a = const 3 : i32 \x01" "",
     R"(lex_binary.scir:5:22: error[IR-LEX]: unexpected byte 0x01
    5 |   %a = const 3 : i32 ?
      |                      ^
)"},
    {"lex_char", kBody,
     R"(  %a = const 3 : i32  # three)",
     R"(lex_char.scir:5:23: error[IR-LEX]: unexpected character '#'
    5 |   %a = const 3 : i32  # three
      |                       ^
)"},
    {"lex_escape", kBody,
     R"(  debug_print "a\qb")",
     R"(lex_escape.scir:5:17: error[IR-LEX]: invalid escape sequence '\q' in string literal (use \n, \" or \\)
    5 |   debug_print "a\qb"
      |                 ^~
)"},
    {"lex_number", kBody,
     R"(  %a = const 12ab : i32)",
     R"(lex_number.scir:5:14: error[IR-LEX]: malformed number '12ab'
    5 |   %a = const 12ab : i32
      |              ^~~~
)"},
    {"lex_percent", kBody,
     R"(  % = const 1 : i32)",
     R"(lex_percent.scir:5:3: error[IR-LEX]: '%' must be followed by a name
    5 |   % = const 1 : i32
      |   ^
)"},
    {"lex_unterminated", kBody,
     R"(  debug_print "abc)",
     R"(lex_unterminated.scir:5:15: error[IR-LEX]: unterminated string literal
    5 |   debug_print "abc
      |               ^~~~
)"},
    {"limit_literal", kBody,
     R"(  %a = const 99999999999999999999 : i32)",
     R"(limit_literal.scir:5:14: error[IR-LIMIT]: integer literal 99999999999999999999 does not fit in 64 bits
    5 |   %a = const 99999999999999999999 : i32
      |              ^~~~~~~~~~~~~~~~~~~~
)"},
    {"limit_type", kFile,
     R"(kernel @k(in %x: hbm<1099511627776x2xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)",
     R"(limit_type.scir:1:22: error[IR-LIMIT]: type hbm<1099511627776x2xi32> has more than 2^40 elements
    1 | kernel @k(in %x: hbm<1099511627776x2xi32>)
      |                      ^~~~~~~~~~~~~~~~~~~
)"},
    {"literal_dense", kBody,
     R"(  %v = const dense<[1, 2, 3]> : vector<16xi32>)",
     R"(literal_dense.scir:5:8: error[IR-LITERAL]: dense<[...]> has 3 elements, but vector<16xi32> has 16
    5 |   %v = const dense<[1, 2, 3]> : vector<16xi32>
      |        ^~~~~
)"},
    {"literal_float", kBody,
     R"(  %i = axis_index core : i32
  %a = add %i, 1.5 : i32)",
     R"(literal_float.scir:6:16: error[IR-LITERAL]: float literal 1.5 where i32 is expected
    6 |   %a = add %i, 1.5 : i32
      |                ^~~
)"},
    {"literal_range", kBody,
     R"(  %a = const 300 : i8)",
     R"(literal_range.scir:5:14: error[IR-LITERAL]: literal 300 does not fit in i8
    5 |   %a = const 300 : i8
      |              ^~~
)"},
    {"literal_step", kBody,
     R"(  for %i = 0 to 4 step 0 {
  })",
     R"(literal_step.scir:5:24: error[IR-LITERAL]: loop step 0 must be positive
    5 |   for %i = 0 to 4 step 0 {
      |                        ^
)"},
    {"operand_get_value", kBody,
     R"(  %v = get %buf[:] : vector<16xi32>
  %w = get %v[0:16] : vector<16xi32>)",
     R"(operand_get_value.scir:6:12: error[IR-OPERAND]: 'get' needs a ref, got %v, a vector (vector<16xi32>)
    6 |   %w = get %v[0:16] : vector<16xi32>
      |            ^~~~~~~~
help: a value is already loaded; use it directly
)"},
    {"operand_no_mask", kBody,
     R"(  %v = load_expanded %buf[:] : vector<16xi32>)",
     R"(operand_no_mask.scir:5:8: error[IR-OPERAND]: 'load_expanded' needs 'mask %m' (an unmasked load is 'get')
    5 |   %v = load_expanded %buf[:] : vector<16xi32>
      |        ^~~~~~~~~~~~~
)"},
    {"operand_ref", kBody,
     R"(  %b = add %buf, %buf : vector<16xi32>)",
     R"(operand_ref.scir:5:12: error[IR-OPERAND]: 'add' operand %buf must be a scalar or vector value, got a ref (vmem<16xi32>)
    5 |   %b = add %buf, %buf : vector<16xi32>
      |            ^~~~
help: load it first: %v = get %buf[...] : ...
)"},
    {"operand_vector_literal", kBody,
     R"(  %w = cumsum 1 : vector<16xi32>)",
     R"(operand_vector_literal.scir:5:15: error[IR-OPERAND]: 'cumsum' scans a vector value
    5 |   %w = cumsum 1 : vector<16xi32>
      |               ^
)"},
    {"redefined_shadow", kBody,
     R"(  %a = const 3 : i32
  for %i = 0 to 4 step 1 {
    %a = add %i, 1 : i32
  })",
     R"(redefined_shadow.scir:7:5: error[IR-REDEFINED]: redefinition of %a
    7 |     %a = add %i, 1 : i32
      |     ^~
note: %a is first defined at redefined_shadow.scir:5:3
)"},
    {"redefined_sibling_ok", kBody,
     R"(  for %i = 0 to 4 step 1 {
    %a = add %i, 1 : i32
  }
  for %i = 0 to 4 step 1 {
    %a = add %i, 2 : i32
  })",
     ""},
    {"region_if_else", kBody,
     R"(  %c = const true : i1
  %r = if %c : i32 {
    %a = const 1 : i32
    yield %a
  })",
     R"(region_if_else.scir:6:8: error[IR-REGION]: an 'if' with results needs an 'else' region
    6 |   %r = if %c : i32 {
      |        ^~
)"},
    {"region_no_yield", kBody,
     R"(  %z = const 0 : i32
  %s = for %i = 0 to 4 step 1 iter(%acc = %z) : i32 {
    %n = add %acc, %i : i32
  })",
     R"(region_no_yield.scir:8:3: error[IR-REGION]: the body of 'for' must end with 'yield' of 1 value (i32)
    8 |   }
      |   ^
)"},
    {"region_stray_yield", kBody,
     R"(  %z = const 0 : i32
  yield %z)",
     R"(region_stray_yield.scir:6:3: error[IR-REGION]: 'yield' ends a loop body, an if branch, a while body or a pipeline map, nothing else
    6 |   yield %z
      |   ^~~~~
)"},
    {"region_while_cond", kBody,
     R"(  %z = const 0 : i32
  %r = while iter(%x0 = %z) : i32 cond {
    %c = cmp lt %x0, 4 : i1
  } body {
    %n = add %x0, 1 : i32
    yield %n
  })",
     R"(region_while_cond.scir:7:10: error[IR-REGION]: the cond region of 'while' must end with 'condition %c'
    7 |     %c = cmp lt %x0, 4 : i1
      |          ^~~
)"},
    {"syntax_comma", kBody,
     R"(  %a = const 3 : i32
  %b = add %a %a : i32)",
     R"(syntax_comma.scir:6:15: error[IR-SYNTAX]: expected ',' or ':', found %a
    6 |   %b = add %a %a : i32
      |               ^~
)"},
    {"syntax_eof", kFile,
     R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem)
{
  for %i = 0 to 4 step 1 {
)",
     R"(syntax_eof.scir:6:1: error[IR-SYNTAX]: expected '}' to close the region opened at line 5, found end of file
    6 | 
      | ^
)"},
    {"syntax_shape", kBody,
     R"(  %a = const dense<1> : vector<16xi33>)",
     R"(syntax_shape.scir:5:32: error[IR-SYNTAX]: expected a shape such as 16x128xi32 (it must end with an element type), found '16xi33'
    5 |   %a = const dense<1> : vector<16xi33>
      |                                ^~~~~~
)"},
    {"syntax_top", kFile,
     R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
func @g() {}
)",
     R"(syntax_top.scir:5:1: error[IR-SYNTAX]: expected 'kernel', 'target' or 'jax', found 'func'
    5 | func @g() {}
      | ^~~~
)"},
    {"syntax_types", kBody,
     R"(  %a = iota)",
     R"(syntax_types.scir:5:12: error[IR-SYNTAX]: expected ':' and the result types, found the end of the line
    5 |   %a = iota
      |            ^
help: every op that defines a value writes its type after ':' (`%v = get %buf[...] : vector<16xi32>`)
)"},
    {"syntax_continued_line", kBody,
     R"(  %a = const 1 : i32
  %b = add %a,
      , %a : i32)",
     R"(syntax_continued_line.scir:7:7: error[IR-SYNTAX]: expected an operand, found ','
    7 |       , %a : i32
      |       ^
)"},
    {"syntax_copy_without_arrow", kBody,
     R"(  copy %x, %buf)",
     R"(syntax_copy_without_arrow.scir:5:10: error[IR-SYNTAX]: expected '->' and the destination, found ','
    5 |   copy %x, %buf
      |          ^
help: a copy is written `copy %src -> %dst` (Pallas' `pltpu.sync_copy(src, dst)`)
)"},
    {"syntax_dma_wait_without_copy", kBody,
     R"(  dma_start %x -> %buf, %sem
  dma_wait %sem
  barrier)",
     R"(syntax_dma_wait_without_copy.scir:6:16: error[IR-SYNTAX]: expected '->' and the destination, found the end of the line
    6 |   dma_wait %sem
      |                ^
help: dma_wait names the copy it waits for with the operands of its dma_start: `dma_wait %src -> %dst, %sem` (Pallas' `copy.wait()`); it waits for the destination's bytes
)"},
    {"syntax_ellipsis_twice", kBody,
     R"(  %v = get %buf[..., ...] : vector<16xi32>)",
     R"(syntax_ellipsis_twice.scir:5:22: error[IR-SYNTAX]: expected an index, a slice (a:b, ds(...)), ':' or idx(...), found '...'
    5 |   %v = get %buf[..., ...] : vector<16xi32>
      |                      ^~~
help: '...' may appear once in an indexer: it stands for every dimension the other entries do not name
)"},
    {"syntax_missing_i1", kBody,
     R"(  %i = axis_index subcore : i32
  %c = cmp lt %i, 3
  if %c {
    barrier
  })",
     R"(syntax_missing_i1.scir:6:20: error[IR-SYNTAX]: expected ':' and the result types, found the end of the line
    6 |   %c = cmp lt %i, 3
      |                    ^
help: every op that defines a value writes its type: end this one with `: i1`
)"},
    {"syntax_param_list_line_end", kFile,
     R"(kernel @k(in %x: hbm<16xi32>
    mesh vector(cores = 1, subcores = 1)
{
}
)",
     R"(syntax_param_list_line_end.scir:1:29: error[IR-SYNTAX]: expected ',' or ')', found the end of the line
    1 | kernel @k(in %x: hbm<16xi32>
      |                             ^
)"},
    {"syntax_print_type", kBody,
     R"(  %v = get %buf : vector<16xi32>
  debug_print "v" %v : vector<16xi32>)",
     R"(syntax_print_type.scir:6:22: error[IR-SYNTAX]: expected the end of the operation, found ':'
    6 |   debug_print "v" %v : vector<16xi32>
      |                      ^
help: debug_print has no result, so no type is written: `debug_print "v" %v` prints %v with the type it was defined with
)"},
    {"syntax_check_message", kBody,
     R"(  %ok = cmp lt 1, 2 : i1
  debug_check %ok)",
     R"(syntax_check_message.scir:6:18: error[IR-SYNTAX]: expected ',' and the message, found the end of the line
    6 |   debug_check %ok
      |                  ^
)"},
    {"syntax_pl_ds", kBody,
     R"(  copy %x[pl.ds(0, 16)] -> %buf)",
     R"(syntax_pl_ds.scir:5:11: error[IR-SYNTAX]: expected an index, a slice (a:b, ds(...)), ':' or idx(...), found 'pl.ds'
    5 |   copy %x[pl.ds(0, 16)] -> %buf
      |           ^~~~~
help: Pallas' pl.ds(start, size) is written `ds(%start, 16)`
)"},
    {"target", kFile,
     R"(target "v9"
kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)",
     R"(target.scir:1:8: error[IR-TARGET]: unknown target "v9"; expected one of v5p, v6e, v7x, v8i, v8t
    1 | target "v9"
      |        ^~~~
)"},
    {"jax_release", kFile,
     R"(jax "0.9.0"
kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)",
     R"(jax_release.scir:1:5: error[IR-KERNEL]: '0.9.0' is not a JAX release scjit answers for (0.10.2 to 0.12.1)
    1 | jax "0.9.0"
      |     ^~~~~~~
)"},
    {"jax_release_after_kernel", kFile,
     R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
jax "0.12.1"
)",
     R"(jax_release_after_kernel.scir:5:1: error[IR-KERNEL]: 'jax' must come before the first kernel
    5 | jax "0.12.1"
      | ^~~
)"},
    {"type_add", kBody,
     R"(  %a = const 3 : i32
  %f = const 1.5 : f32
  %b = add %a, %f : i32)",
     R"(type_add.scir:7:16: error[IR-TYPE]: 'add' operands must have the same type, got i32 and f32
    7 |   %b = add %a, %f : i32
      |                ^~
)"},
    {"type_check_mask", kBody,
     R"(  %v = get %buf[:] : vector<16xi32>
  %m = cmp gt %v, 0 : vector<16xi1>
  debug_check %m, "every lane positive")",
     R"(type_check_mask.scir:7:15: error[IR-TYPE]: 'debug_check' condition %m must be an i1 scalar, got vector<16xi1>
    7 |   debug_check %m, "every lane positive"
      |               ^~
help: pl.debug_check takes a scalar condition: reduce the mask first, `%all = reduce_and %m : i1`
)"},
    {"type_float_only", kBody,
     R"(  %v = get %buf[:] : vector<16xi32>
  %e = exp %v : vector<16xi32>)",
     R"(type_float_only.scir:6:8: error[IR-TYPE]: 'exp' needs float operands, got vector<16xi32>; `convert` them first
    6 |   %e = exp %v : vector<16xi32>
      |        ^~~
)"},
    {"type_get_result", kBody,
     R"(  %v = get %buf[0:8] : vector<16xi32>)",
     R"(type_get_result.scir:5:3: error[IR-TYPE]: 'get' result has type vector<16xi32>, but the op produces vector<8xi32>
    5 |   %v = get %buf[0:8] : vector<16xi32>
      |   ^~
)"},
    {"type_pipeline", kBody,
     R"(  pipeline grid(2)
      in(%x, block [8], map (%i) -> (%i))
      body(%xv: vmem<16xi32>) {
  })",
     R"(type_pipeline.scir:7:12: error[IR-TYPE]: 'pipeline' block ref %xv has type vmem<16xi32>, but the block of %x is vmem<8xi32>
    7 |       body(%xv: vmem<16xi32>) {
      |            ^~~
)"},
    {"type_store_value", kBody,
     R"(  %f = const dense<1.0> : vector<16xf32>
  store %buf[:], %f)",
     R"(type_store_value.scir:6:18: error[IR-TYPE]: 'store' stores vector<16xi32> into %buf[:], got %f : vector<16xf32>
    6 |   store %buf[:], %f
      |                  ^~
)"},
    {"type_yield", kBody,
     R"(  %z = const 0 : i32
  %s = for %i = 0 to 4 step 1 iter(%acc = %z) : i32 {
    %f = const 1.0 : f32
    yield %f
  })",
     R"(type_yield.scir:8:11: error[IR-TYPE]: 'yield' value 0 (%f) has type f32, but the body of 'for' carries i32
    8 |     yield %f
      |           ^~
)"},
    {"undefined_scope", kBody,
     R"(  for %i = 0 to 4 step 1 {
    %t = mul %i, 2 : i32
  }
  %u = add %t, 1 : i32)",
     R"(undefined_scope.scir:8:12: error[IR-UNDEFINED]: use of undefined value %t
    8 |   %u = add %t, 1 : i32
      |            ^~
note: %t is defined at undefined_scope.scir:6:5, inside a region that has ended before this use
help: pass the value out of the region with 'yield' and use the op's result
)"},
    {"undefined_ref_at", kBody,
     R"(  copy %x.at[0] -> %buf)",
     R"(undefined_ref_at.scir:5:8: error[IR-UNDEFINED]: use of undefined value %x.at
    5 |   copy %x.at[0] -> %buf
      |        ^~~~~
help: Pallas' x.at[...] is a view in .scir: `%row = view %x[...] : <type>`, or index the operand in place: `copy %x[%i] -> %buf`
)"},
    {"unknown_op", kBody,
     R"(  %a = const 3 : i32
  %b = addi %a, %a : i32)",
     R"(unknown_op.scir:6:8: error[IR-UNKNOWN-OP]: unknown operation 'addi'
    6 |   %b = addi %a, %a : i32
      |        ^~~~
help: did you mean 'add'?
)"},
    {"unknown_op_pallas", kBody,
     R"(  pltpu.sync_copy %x -> %buf)",
     R"(unknown_op_pallas.scir:5:3: error[IR-UNKNOWN-OP]: unknown operation 'pltpu.sync_copy'
    5 |   pltpu.sync_copy %x -> %buf
      |   ^~~~~~~~~~~~~~~
help: Pallas' pltpu.sync_copy is the op 'copy': `copy %x[%i] -> %ref`
)"},
};

// gtest prints a parameter by its name.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

std::string SourceOf(const Case& c) {
  if (c.form == kFile) return c.text;
  return std::string(kHeader) + c.text + "\n}\n";
}

class DiagnosticTextTest : public ::testing::TestWithParam<Case> {};

TEST_P(DiagnosticTextTest, RendersExactly) {
  const Case& c = GetParam();
  testing::Loaded loaded = Load(SourceOf(c), std::string(c.name) + ".scir");
  EXPECT_EQ(loaded.diagnostics, c.expected);
  EXPECT_EQ(loaded.module == nullptr, std::string(c.expected).size() > 0);
}

INSTANTIATE_TEST_SUITE_P(Cases, DiagnosticTextTest, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) { return std::string(info.param.name); });

// Every IR-* code of the catalog has at least one exact-text case above.
TEST(DiagnosticTextTest, EveryIrCodeHasACase) {
  for (const DiagInfo& info : AllDiagnostics()) {
    if (info.code.substr(0, 3) != "IR-") continue;
    std::string needle = "error[" + std::string(info.code) + "]";
    bool found = false;
    for (const Case& c : kCases) found = found || std::string(c.expected).find(needle) != std::string::npos;
    EXPECT_TRUE(found) << info.code << " has no exact-text case";
  }
}

// The catalog's example kernels: `bad` fails with exactly its code first, `good`
// loads cleanly. (SC-rule rows are checked by the SC rule tests.)
TEST(CatalogExamplesTest, BadFailsWithItsCodeAndGoodLoads) {
  for (const DiagInfo& info : AllDiagnostics()) {
    if (info.bad.empty() || info.code.substr(0, 3) != "IR-") continue;
    testing::Loaded bad = Load(std::string(info.bad), "bad.scir");
    ASSERT_FALSE(bad.codes.empty()) << info.code;
    EXPECT_EQ(bad.codes[0], info.code) << bad.diagnostics;
    testing::Loaded good = Load(std::string(info.good), "good.scir");
    EXPECT_NE(good.module, nullptr) << info.code << ":\n" << good.diagnostics;
  }
}

TEST(DiagnosticSinkTest, StopsRecordingAtTheLimit) {
  std::string body;
  for (int i = 0; i < 60; ++i) body += "  %v" + std::to_string(i) + " = add %nope, 1 : i32\n";
  testing::Loaded loaded = Load(std::string(kHeader) + body + "}\n");
  EXPECT_EQ(loaded.codes.size(), 50u);
  EXPECT_NE(loaded.diagnostics.find("... 10 more diagnostics not shown\n"), std::string::npos);
}

TEST(DiagnosticTest, ExplainHasTheCatalogEntry) {
  std::string text = Explain(*DiagIdFromCode("IR-UNDEFINED"));
  EXPECT_EQ(text.substr(0, text.find('\n')), "IR-UNDEFINED: use of a value that is not defined here");
  EXPECT_NE(text.find("message:\n    use of undefined value {name}\n"), std::string::npos);
  EXPECT_NE(text.find("A kernel that triggers it:\n\n    kernel @k("), std::string::npos);
  EXPECT_NE(text.find("The fixed kernel:\n\n    kernel @k("), std::string::npos);
}

TEST(DiagnosticTest, CodesAreUnique) {
  for (const DiagInfo& a : AllDiagnostics()) {
    int n = 0;
    for (const DiagInfo& b : AllDiagnostics()) n += a.code == b.code;
    EXPECT_EQ(n, 1) << a.code;
  }
}

TEST(DiagnosticTest, FormatTemplateKeepsUnknownPlaceholders) {
  EXPECT_EQ(FormatTemplate("got {strides} and {x}", {{"x", "3"}}), "got {strides} and 3");
}

}  // namespace
}  // namespace scjit
