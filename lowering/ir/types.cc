#include "lowering/ir/types.h"

#include "lowering/base/strings.h"

namespace scjit {
namespace {

void AppendDim(std::string* out, int64_t d, std::string_view dynamic) {
  if (d == kDynamic) {
    out->append(dynamic);
  } else {
    Append(out, d);
  }
}

std::string DimsString(const Shape& shape) {
  std::string out;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) out += 'x';
    AppendDim(&out, shape[i], "?");
  }
  return out;
}

}  // namespace

Type Type::Scalar(ElementType e) {
  Type t;
  t.kind_ = Kind::kScalar;
  t.element_ = e;
  return t;
}

Type Type::Vector(ElementType e, Shape shape) {
  Type t;
  t.kind_ = Kind::kVector;
  t.element_ = e;
  t.shape_ = std::move(shape);
  return t;
}

Type Type::Ref(MemorySpace space, ElementType e, Shape shape) {
  Type t;
  t.kind_ = Kind::kRef;
  t.space_ = space;
  t.element_ = e;
  t.shape_ = std::move(shape);
  return t;
}

Type Type::Semaphore(SemaphoreKind kind, Shape shape) {
  Type t;
  t.kind_ = Kind::kSemaphore;
  t.sem_kind_ = kind;
  t.shape_ = std::move(shape);
  return t;
}

bool Type::has_dynamic_dim() const {
  for (int64_t d : shape_) {
    if (d == kDynamic) return true;
  }
  return false;
}

int64_t Type::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape_) {
    if (d == kDynamic) return kDynamic;
    n *= d;
  }
  return n;
}

Type Type::WithShape(Shape shape) const {
  Type t = *this;
  t.shape_ = std::move(shape);
  return t;
}

Type Type::WithElement(ElementType e) const {
  Type t = *this;
  t.element_ = e;
  return t;
}

std::string Type::ToString() const {
  switch (kind_) {
    case Kind::kNone:
      return "<none>";
    case Kind::kScalar:
      return std::string(IrName(element_));
    case Kind::kVector:
      return Cat("vector<", DimsString(shape_), "x", IrName(element_), ">");
    case Kind::kRef:
      if (shape_.empty()) return Cat(SpaceName(space_), "<", IrName(element_), ">");
      return Cat(SpaceName(space_), "<", DimsString(shape_), "x", IrName(element_),
                          ">");
    case Kind::kSemaphore: {
      std::string_view base = sem_kind_ == SemaphoreKind::kDma ? "dma_sem" : "sem";
      if (shape_.empty()) return std::string(base);
      return Cat(base, "<", DimsString(shape_), ">");
    }
  }
  return "<invalid>";
}

std::string Type::ShapeRepr() const { return scjit::ShapeRepr(shape_); }

}  // namespace scjit
