// RecordPool (runtime/record_pool.h): blocks of the race check's records come
// back for reuse, blocks of another size go to the heap, and the std
// containers that use it work as with the default allocator.
#include "runtime/record_pool.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace scjit {
namespace {

#if !defined(__SANITIZE_ADDRESS__)
TEST(RecordPoolTest, FreedBlocksAreReused) {
  RecordPool pool;
  void* a = pool.Allocate(40);
  void* b = pool.Allocate(40);
  EXPECT_NE(a, b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % alignof(std::max_align_t), 0u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(b) % alignof(std::max_align_t), 0u);
  pool.Free(a, 40);
  EXPECT_EQ(pool.Allocate(40), a);  // the last freed comes back first
  pool.Free(a, 40);
  pool.Free(b, 40);
}
#endif

TEST(RecordPoolTest, ManyBlocksStayDistinctAndOtherSizesWork) {
  RecordPool pool;
  std::set<void*> blocks;
  for (int i = 0; i < 1000; ++i) {  // several chunks
    auto* p = static_cast<uint64_t*>(pool.Allocate(24));
    p[0] = p[1] = p[2] = static_cast<uint64_t>(i);  // writable, whole
    EXPECT_TRUE(blocks.insert(p).second);
  }
  void* big = pool.Allocate(4096);  // not the pool's size: the heap's
  static_cast<uint8_t*>(big)[4095] = 1;
  pool.Free(big, 4096);
  for (void* p : blocks) pool.Free(p, 24);
}

struct Record {
  int value;
  explicit Record(int v) : value(v) {}
};

TEST(RecordPoolTest, SharedPointersAndMapsUseIt) {
  RecordPool pool;
  {
    std::map<int, Record, std::less<>, RecordAllocator<std::pair<const int, Record>>> m{
        RecordAllocator<std::pair<const int, Record>>(&pool)};
    for (int i = 0; i < 200; ++i) m.emplace(i, Record(i * 3));
    for (int i = 0; i < 200; i += 2) m.erase(i);
    for (int i = 0; i < 200; i += 2) m.emplace(i, Record(-i));
    ASSERT_EQ(m.size(), 200u);
    for (const auto& [k, r] : m) EXPECT_EQ(r.value, k % 2 == 0 ? -k : k * 3);
  }
  std::vector<std::shared_ptr<Record>> records;
  for (int i = 0; i < 100; ++i) records.push_back(std::allocate_shared<Record>(RecordAllocator<Record>(&pool), i));
  std::shared_ptr<Record> copy = records[42];
  records.clear();
  EXPECT_EQ(copy->value, 42);
}

}  // namespace
}  // namespace scjit
