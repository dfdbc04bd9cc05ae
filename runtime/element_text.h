// One element of memory as text, for debug_print and jit-run's summaries.
#ifndef SCJIT_RUNTIME_ELEMENT_TEXT_H_
#define SCJIT_RUNTIME_ELEMENT_TEXT_H_

#include <cstdint>
#include <string>

#include "lowering/base/dtype.h"

namespace scjit {

// The element of type `e` at `p`: integers in decimal, i1 as 0 or 1, floats with
// `float_digits` significant digits (`nan`, `inf`, `-inf` spelled out).
std::string ElementText(const uint8_t* p, ElementType e, int float_digits);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_ELEMENT_TEXT_H_
