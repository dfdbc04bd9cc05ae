// RecordPool: storage for the race check's records (SharedDma, made with
// std::allocate_shared and RecordAllocator) and the nodes of its byte-range
// map, cut from chunks and reused once freed. A checked run makes one record
// per DMA, and a node for many; a malloc and a free each were a tenth of the
// time of a kernel of small DMAs.
//
// Under AddressSanitizer every block is its own allocation, so a record used
// after its release is still caught.
//
// Thread safety: none. The machine keeps one pool per subcore, used as that
// subcore's records are: by its fiber during an epoch, by the machine between
// epochs (a subcore holds only its own records); SharedAccesses keeps one for
// its map. A pool must outlive every block it gave.
#ifndef SCJIT_RUNTIME_RECORD_POOL_H_
#define SCJIT_RUNTIME_RECORD_POOL_H_

#include <cstddef>
#include <memory>
#include <vector>

namespace scjit {

class RecordPool {
 public:
  RecordPool() = default;
  RecordPool(const RecordPool&) = delete;
  RecordPool& operator=(const RecordPool&) = delete;

  // A block of `bytes` (aligned for any scalar). Blocks of the size first
  // asked come from the pool; others from the heap.
  void* Allocate(size_t bytes);
  void Free(void* p, size_t bytes);

 private:
  static constexpr size_t kChunkBlocks = 64;
  size_t block_bytes_ = 0;  // the pool's block size, rounded up to the alignment
  size_t asked_bytes_ = 0;  // the size asked for it
  std::vector<std::unique_ptr<std::byte[]>> chunks_;
  std::vector<void*> free_;
};

// A std allocator drawing on a RecordPool.
template <typename T>
class RecordAllocator {
 public:
  using value_type = T;
  explicit RecordAllocator(RecordPool* pool) : pool_(pool) {}
  template <typename U>
  RecordAllocator(const RecordAllocator<U>& other) : pool_(other.pool()) {}  // NOLINT: rebinding

  T* allocate(size_t n) { return static_cast<T*>(pool_->Allocate(n * sizeof(T))); }
  void deallocate(T* p, size_t n) { pool_->Free(p, n * sizeof(T)); }
  RecordPool* pool() const { return pool_; }
  friend bool operator==(const RecordAllocator& a, const RecordAllocator& b) { return a.pool_ == b.pool_; }

 private:
  RecordPool* pool_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_RECORD_POOL_H_
