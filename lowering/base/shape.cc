#include "lowering/base/shape.h"

#include "lowering/base/strings.h"

namespace scjit {

std::string ShapeRepr(const Shape& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += ", ";
    if (shape[i] == kDynamic) {
      out += "None";
    } else {
      Append(&out, shape[i]);
    }
  }
  if (shape.size() == 1) out += ',';
  return out + ")";
}

}  // namespace scjit
