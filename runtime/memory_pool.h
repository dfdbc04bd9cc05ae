// Blocks of host memory the launches of one kernel reuse: the arenas and their
// state bytes. A fresh block of megabytes costs a page fault per 4 KiB page on
// every launch (most of a small kernel's time); a reused one costs only the
// fill each launch does anyway.
//
// Thread-safe: the launches of one kernel may run at once.
#ifndef SCJIT_RUNTIME_MEMORY_POOL_H_
#define SCJIT_RUNTIME_MEMORY_POOL_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace scjit {

class MemoryPool {
 public:
  // Keeps at most `max_free` blocks for reuse, none larger than `max_bytes`.
  explicit MemoryPool(size_t max_free = 4, int64_t max_bytes = int64_t{256} << 20)
      : max_free_(max_free), max_bytes_(max_bytes) {}
  MemoryPool(const MemoryPool&) = delete;
  MemoryPool& operator=(const MemoryPool&) = delete;

  // `bytes` of memory, uninitialised; back to its pool (if any) when destroyed.
  class Block {
   public:
    Block() = default;
    Block(Block&&) = default;
    Block& operator=(Block&& other) noexcept;
    ~Block();
    uint8_t* get() const { return data_.get(); }
    bool operator==(std::nullptr_t) const { return data_ == nullptr; }

   private:
    friend class MemoryPool;
    std::unique_ptr<uint8_t[]> data_;
    int64_t bytes_ = 0;
    MemoryPool* pool_ = nullptr;
  };

  // A block of `bytes` from `pool`, or a new one (`pool` may be null); a null
  // block when the host has no memory for it.
  static Block Acquire(MemoryPool* pool, int64_t bytes);

 private:
  void Release(std::unique_ptr<uint8_t[]> data, int64_t bytes);

  size_t max_free_;
  int64_t max_bytes_;
  std::mutex mu_;
  std::vector<std::pair<int64_t, std::unique_ptr<uint8_t[]>>> free_;  // (bytes, data)
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_MEMORY_POOL_H_
