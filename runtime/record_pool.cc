#include "runtime/record_pool.h"

#include <new>

namespace scjit {
namespace {

#if defined(__SANITIZE_ADDRESS__)
constexpr bool kPooled = false;
#else
constexpr bool kPooled = true;
#endif

}  // namespace

void* RecordPool::Allocate(size_t bytes) {
  if (!kPooled || (asked_bytes_ != 0 && bytes != asked_bytes_)) return ::operator new(bytes);
  if (asked_bytes_ == 0) {
    asked_bytes_ = bytes;
    constexpr size_t kAlign = alignof(std::max_align_t);
    block_bytes_ = (bytes + kAlign - 1) / kAlign * kAlign;
  }
  if (free_.empty()) {
    // new[] of bytes is aligned for any scalar; blocks are multiples of that.
    std::byte* chunk = chunks_.emplace_back(new std::byte[block_bytes_ * kChunkBlocks]).get();
    for (size_t i = kChunkBlocks; i > 0; --i) free_.push_back(chunk + (i - 1) * block_bytes_);
  }
  void* p = free_.back();
  free_.pop_back();
  return p;
}

void RecordPool::Free(void* p, size_t bytes) {
  if (!kPooled || bytes != asked_bytes_) {
    ::operator delete(p);
    return;
  }
  free_.push_back(p);
}

}  // namespace scjit
