// The public Buffer (scjit/buffer.h).
#include "scjit/buffer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "lowering/base/diagnostic.h"
#include "lowering/base/shape.h"
#include "lowering/base/strings.h"
#include "runtime/host_memory.h"

namespace scjit {
namespace {

constexpr size_t kAlign = 64;
constexpr int64_t kMaxBytes = int64_t{1} << 62;

absl::Status ParamError(std::string detail) {
  return DiagnosticStatus(MakeDiagnostic(DiagId::kIoParam, nullptr, Location{}, {{"detail", std::move(detail)}}));
}

// The dimensions as written: "(-1,)", "(2, 3)".
std::string DimsText(const std::vector<int64_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) Append(&out, i ? ", " : "", shape[i]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// The array's bytes, or an error for a shape no buffer can have.
absl::StatusOr<size_t> ArrayBytes(DType dtype, const std::vector<int64_t>& shape) {
  int64_t bytes = DTypeBytes(dtype);
  for (int64_t d : shape) {
    if (d < 0) return ParamError(Cat("a buffer's dimensions must be >= 0, got ", DimsText(shape)));
    if (d > 0 && bytes > kMaxBytes / d) {
      return ParamError(Cat("a buffer of ", DTypeName(dtype), " ", DimsText(shape), " exceeds 2^62 bytes"));
    }
    bytes *= d;
  }
  return static_cast<size_t>(bytes);
}

}  // namespace

absl::StatusOr<Buffer> Buffer::Allocate(DType dtype, std::vector<int64_t> shape) {
  absl::StatusOr<size_t> bytes = ArrayBytes(dtype, shape);
  if (!bytes.ok()) return bytes.status();
  std::string what = Cat("a buffer of ", DTypeName(dtype), " ", DimsText(shape));
  if (absl::Status s = CheckHostMemory(static_cast<int64_t>(*bytes), what); !s.ok()) return s;
  // calloc: zeros without touching the pages (large blocks are fresh mappings),
  // so a buffer costs memory only where it is written. Aligned by hand.
  void* block = std::calloc(*bytes + kAlign, 1);
  if (block == nullptr) return HostMemoryError(static_cast<int64_t>(*bytes), what, "the host is out of memory");
  auto address = reinterpret_cast<uintptr_t>(block);
  Buffer b;
  b.dtype_ = dtype;
  b.shape_ = std::move(shape);
  b.data_ = reinterpret_cast<uint8_t*>((address + kAlign - 1) / kAlign * kAlign);
  b.bytes_ = *bytes;
  b.valid_ = true;
  b.owner_ = std::shared_ptr<void>(block, [](void* q) { std::free(q); });
  return b;
}

int64_t Buffer::HostMemoryBytes() { return scjit::HostMemoryBytes(); }

absl::StatusOr<Buffer> Buffer::Wrap(DType dtype, std::vector<int64_t> shape, void* data, size_t bytes) {
  absl::StatusOr<size_t> want = ArrayBytes(dtype, shape);
  if (!want.ok()) return want.status();
  if (bytes != *want) {
    return ParamError(Cat("a ", DTypeName(dtype), " ", ShapeRepr(shape), " buffer holds ", *want, " bytes, got ", bytes));
  }
  if (data == nullptr && bytes > 0) return ParamError("a buffer wraps null memory");
  Buffer b;
  b.dtype_ = dtype;
  b.shape_ = std::move(shape);
  b.data_ = static_cast<uint8_t*>(data);
  b.bytes_ = bytes;
  b.valid_ = true;
  return b;
}

absl::StatusOr<Buffer> Buffer::Adopt(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes) {
  auto storage = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  absl::StatusOr<Buffer> b = Wrap(dtype, std::move(shape), storage->data(), storage->size());
  if (!b.ok()) return b.status();
  b->owner_ = std::move(storage);
  return b;
}

int64_t Buffer::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

std::string Buffer::Describe() const {
  if (!valid_) return "an empty buffer";
  return Cat(DTypeName(dtype_), " ", ShapeRepr(shape_));
}

}  // namespace scjit
