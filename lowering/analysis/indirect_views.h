// The views an indirect DMA (an idx(...) list, kernel-ir.md §4.2) moves rows
// through: packed rows gathered and scattered as 32-bit words
// (`x_bf16.bitcast(jnp.int32).at[idx]`), a table reshaped so that its rows
// are the list's. Both engines move them with strides, in units of the
// narrower element (docs/language.md "Indirect DMAs through views").
#ifndef SCJIT_LOWERING_ANALYSIS_INDIRECT_VIEWS_H_
#define SCJIT_LOWERING_ANALYSIS_INDIRECT_VIEWS_H_

#include <optional>
#include <string>

#include "lowering/ir/ir.h"

namespace scjit {

// Null when the ref `v`, an operand of a DMA with an idx(...) list, is a
// view an indirect DMA moves through: a whole ref, or view_reshapes of a
// whole ref followed by at most one view_bitcast to an element as wide or
// wider. Otherwise what is not implemented, for the "not implemented yet"
// error of both engines.
std::optional<std::string> IndirectViewLimit(const Value* v);

}  // namespace scjit

#endif  // SCJIT_LOWERING_ANALYSIS_INDIRECT_VIEWS_H_
