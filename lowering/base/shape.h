// Shapes of arrays, refs and values: dimensions in row-major order.
#ifndef SCJIT_LOWERING_BASE_SHAPE_H_
#define SCJIT_LOWERING_BASE_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace scjit {

using Shape = std::vector<int64_t>;

// A dimension of unknown (run-time) size, written `?`.
inline constexpr int64_t kDynamic = -1;

// JAX's rendering of a shape: `(16,)`, `(2, 8)`, `()`; `None` for dynamic dims.
std::string ShapeRepr(const Shape& shape);

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_SHAPE_H_
