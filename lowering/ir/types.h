// Types of the Kernel IR (kernel-ir.md §2): scalars, vectors, refs into a memory
// space, and semaphore refs.
#ifndef SCJIT_LOWERING_IR_TYPES_H_
#define SCJIT_LOWERING_IR_TYPES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lowering/base/dtype.h"
#include "lowering/base/shape.h"
#include "lowering/base/spaces.h"

namespace scjit {

enum class SemaphoreKind : uint8_t { kDma, kRegular };

// A value type. Small and copyable; compare with ==.
class Type {
 public:
  enum class Kind : uint8_t { kNone, kScalar, kVector, kRef, kSemaphore };

  Type() = default;
  static Type Scalar(ElementType e);
  static Type Vector(ElementType e, Shape shape);
  static Type Ref(MemorySpace space, ElementType e, Shape shape);
  static Type Semaphore(SemaphoreKind kind, Shape shape);

  Kind kind() const { return kind_; }
  bool is_none() const { return kind_ == Kind::kNone; }
  bool is_scalar() const { return kind_ == Kind::kScalar; }
  bool is_vector() const { return kind_ == Kind::kVector; }
  bool is_ref() const { return kind_ == Kind::kRef; }
  bool is_semaphore() const { return kind_ == Kind::kSemaphore; }
  // A value that can be computed with: a scalar or a vector.
  bool is_value() const { return is_scalar() || is_vector(); }
  // Something memory ops and DMAs take: a ref or a semaphore ref.
  bool is_memory() const { return is_ref() || is_semaphore(); }

  ElementType element() const { return element_; }
  MemorySpace space() const { return space_; }
  SemaphoreKind semaphore_kind() const { return sem_kind_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return static_cast<int>(shape_.size()); }
  bool has_dynamic_dim() const;
  // Product of the dims (1 for rank 0); kDynamic if any dim is dynamic.
  int64_t NumElements() const;

  // The same kind of type with another shape or element type.
  Type WithShape(Shape shape) const;
  Type WithElement(ElementType e) const;

  // The .scir spelling: `i32`, `vector<16xi32>`, `hbm<4x128xf32>`, `dma_sem<2>`.
  std::string ToString() const;
  // The shape as JAX prints it: `(16,)`, `(2, 8)`, `()`.
  std::string ShapeRepr() const;

  friend bool operator==(const Type&, const Type&) = default;

 private:
  Kind kind_ = Kind::kNone;
  ElementType element_ = ElementType::kI32;
  MemorySpace space_ = MemorySpace::kHbm;
  SemaphoreKind sem_kind_ = SemaphoreKind::kDma;
  Shape shape_;
};

}  // namespace scjit

#endif  // SCJIT_LOWERING_IR_TYPES_H_
