#include "runtime/memory_pool.h"

#include <new>
#include <utility>

namespace scjit {

MemoryPool::Block& MemoryPool::Block::operator=(Block&& other) noexcept {
  if (this != &other) {
    if (pool_ != nullptr && data_ != nullptr) pool_->Release(std::move(data_), bytes_);
    data_ = std::move(other.data_);
    bytes_ = other.bytes_;
    pool_ = other.pool_;
  }
  return *this;
}

MemoryPool::Block::~Block() {
  if (pool_ != nullptr && data_ != nullptr) pool_->Release(std::move(data_), bytes_);
}

MemoryPool::Block MemoryPool::Acquire(MemoryPool* pool, int64_t bytes) {
  Block b;
  b.bytes_ = bytes;
  b.pool_ = pool;
  if (pool != nullptr) {
    std::lock_guard<std::mutex> lock(pool->mu_);
    for (auto it = pool->free_.begin(); it != pool->free_.end(); ++it) {
      if (it->first != bytes) continue;
      b.data_ = std::move(it->second);
      pool->free_.erase(it);
      return b;
    }
  }
  b.data_.reset(new (std::nothrow) uint8_t[static_cast<size_t>(bytes)]);
  return b;
}

void MemoryPool::Release(std::unique_ptr<uint8_t[]> data, int64_t bytes) {
  if (bytes > max_bytes_) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (free_.size() >= max_free_) free_.erase(free_.begin());  // the oldest goes
  free_.emplace_back(bytes, std::move(data));
}

}  // namespace scjit
