// Buffer: an array a kernel parameter is bound to — a dtype, a shape and
// row-major little-endian bytes, either allocated by scjit or the caller's own
// memory (never copied).
//
//   absl::StatusOr<scjit::Buffer> x = scjit::Buffer::Allocate(scjit::DType::kI32, {4096, 128});
//   std::span<int32_t> xs = x->span<int32_t>();
//
//   std::vector<float> mine(1024);
//   absl::StatusOr<scjit::Buffer> m =
//       scjit::Buffer::Wrap(scjit::DType::kF32, {1024}, mine.data(), mine.size() * sizeof(float));
//
// A Buffer is a handle: copies share the same bytes (an allocated buffer lives
// while any copy does; wrapped memory must outlive every launch that uses it).
//
// Thread safety: handles may be copied and destroyed from any thread. The bytes
// are not synchronized: do not launch two kernels that write the same buffer at
// once, or read a buffer a running launch writes.
#ifndef SCJIT_INCLUDE_SCJIT_BUFFER_H_
#define SCJIT_INCLUDE_SCJIT_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "scjit/types.h"

namespace scjit {

class Buffer {
 public:
  // An empty buffer (no dtype, no bytes); binding it to a parameter is an error.
  Buffer() = default;

  // A new zero-filled buffer of `dtype` and `shape`, 64-byte aligned.
  // InvalidArgument for a negative dimension or a size beyond 2^62 bytes;
  // ResourceExhausted (IO-MEMORY) when it is larger than HostMemoryBytes() or
  // the host has no memory for it. Pages are taken as they are written.
  static absl::StatusOr<Buffer> Allocate(DType dtype, std::vector<int64_t> shape);

  // The host's memory (physical, or its cgroup's limit when lower): the most a
  // buffer may hold, and what jit-run's buffers may hold together.
  static int64_t HostMemoryBytes();

  // The caller's `bytes` bytes at `data`, which must hold exactly the array's
  // bytes (InvalidArgument otherwise). Nothing is copied.
  static absl::StatusOr<Buffer> Wrap(DType dtype, std::vector<int64_t> shape, void* data, size_t bytes);

  // Takes `bytes` (exactly the array's bytes) as the buffer's own storage.
  static absl::StatusOr<Buffer> Adopt(DType dtype, std::vector<int64_t> shape, std::vector<uint8_t> bytes);

  bool empty() const { return !valid_; }
  DType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t num_elements() const;
  size_t bytes() const { return bytes_; }
  uint8_t* data() const { return data_; }
  // True when scjit allocated (or adopted) the bytes.
  bool owned() const { return owner_ != nullptr; }

  // The elements as T, whose size must be the dtype's (else an empty span).
  template <typename T>
  std::span<T> span() const {
    if (sizeof(T) != static_cast<size_t>(DTypeBytes(dtype_))) return {};
    return {reinterpret_cast<T*>(data_), bytes_ / sizeof(T)};
  }

  // "int32 (4096, 128)".
  std::string Describe() const;

 private:
  DType dtype_ = DType::kI32;
  std::vector<int64_t> shape_;
  uint8_t* data_ = nullptr;
  size_t bytes_ = 0;
  bool valid_ = false;            // made by a factory (a 0-byte array is still one)
  std::shared_ptr<void> owner_;   // the storage of allocated and adopted buffers
};

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_BUFFER_H_
