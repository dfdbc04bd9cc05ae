// SharedInit (runtime/shared_init.h): which bytes of shared memory hold
// something written, by bits and by each region's count of unwritten bytes,
// which lets a DMA into a region written in full skip its walk.
#include "runtime/shared_init.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/abi.h"

namespace scjit {
namespace {

// A DMA of `n` bytes from `src` to `dst` (rank 1, 1-byte elements), adding when `add`.
scjit_dma Dma(uint8_t* src, uint8_t* dst, int64_t n, bool add = false) {
  scjit_dma d{};
  d.src.base = src;
  d.dst.base = dst;
  d.src.rank = d.dst.rank = 1;
  d.src.sizes[0] = d.dst.sizes[0] = n;
  d.src.strides[0] = d.dst.strides[0] = 1;
  d.elem_bytes = 1;
  d.sem = -1;
  d.add = add ? 1 : 0;
  d.indexed = SCJIT_DMA_PLAIN;
  return d;
}

TEST(SharedInitTest, RunsMarkExactlyTheirBytes) {
  std::vector<uint8_t> memory(300);
  uint8_t* lo = memory.data();
  SharedInit init;
  ASSERT_TRUE(init.AddRegion(lo, 300));
  EXPECT_EQ(init.FirstUnwritten(lo, 300), lo);
  SharedInit::RunMarker marker(&init);
  marker.Mark(lo + 10, 1, 190, 1);  // [10, 200): part of a word, whole words, part of one
  EXPECT_EQ(init.FirstUnwritten(lo, 10), lo);
  EXPECT_EQ(init.FirstUnwritten(lo + 10, 190), nullptr);
  EXPECT_EQ(init.FirstUnwritten(lo + 10, 191), lo + 200);
  marker.Mark(lo + 250, 3, 5, 2);  // 5 elements of 2 bytes, 3 elements apart: 250, 256, ..., 274
  EXPECT_EQ(init.FirstUnwritten(lo + 250, 2), nullptr);
  EXPECT_EQ(init.FirstUnwritten(lo + 250, 3), lo + 252);
  EXPECT_EQ(init.FirstUnwritten(lo + 274, 2), nullptr);
  // Bytes in no region count as written.
  std::vector<uint8_t> elsewhere(8);
  EXPECT_EQ(init.FirstUnwritten(elsewhere.data(), 8), nullptr);
}

TEST(SharedInitTest, AReadSeesTheFirstUnwrittenByteUntilTheRegionIsWrittenInFull) {
  std::vector<uint8_t> shared(256), local(256);
  uint8_t* lo = shared.data();
  SharedInit init;
  ASSERT_TRUE(init.AddRegion(lo, 256));
  SharedInit::RunMarker marker(&init);
  bool destination = false;
  scjit_dma read = Dma(lo, local.data(), 256);
  EXPECT_EQ(init.FirstUnwrittenRead(read, nullptr, &destination), lo);
  // Written in overlapping pieces, the last byte last.
  marker.Mark(lo, 1, 100, 1);
  marker.Mark(lo + 50, 1, 150, 1);
  EXPECT_EQ(init.FirstUnwrittenRead(read, nullptr, &destination), lo + 200);
  // 56 bytes are left; writing 56 written ones again leaves them so.
  marker.Mark(lo + 100, 1, 56, 1);
  EXPECT_EQ(init.FirstUnwrittenRead(read, nullptr, &destination), lo + 200);
  marker.Mark(lo + 200, 1, 55, 1);
  EXPECT_EQ(init.FirstUnwrittenRead(read, nullptr, &destination), lo + 255);
  marker.Mark(lo + 255, 1, 1, 1);
  EXPECT_EQ(init.FirstUnwrittenRead(read, nullptr, &destination), nullptr);
  // An adding DMA reads its destination.
  scjit_dma add = Dma(local.data(), lo, 256, /*add=*/true);
  EXPECT_EQ(init.FirstUnwrittenRead(add, nullptr, &destination), nullptr);
}

TEST(SharedInitTest, EveryRegionWrittenInFullIsAllWritten) {
  std::vector<uint8_t> a(100), b(64), c(32);
  std::vector<uint8_t> written_state(32, SCJIT_SHADOW_WRITTEN);
  SharedInit init;
  EXPECT_TRUE(init.AllWritten());  // no region
  ASSERT_TRUE(init.AddRegion(c.data(), 32, written_state.data()));  // written from the start
  EXPECT_TRUE(init.AllWritten());
  ASSERT_TRUE(init.AddRegion(a.data(), 100));
  ASSERT_TRUE(init.AddRegion(b.data(), 64));
  SharedInit::RunMarker marker(&init);
  marker.Mark(a.data(), 1, 100, 1);
  EXPECT_FALSE(init.AllWritten());
  EXPECT_TRUE(init.NoneWritten(b.data(), 64));
  marker.Mark(b.data(), 1, 63, 1);
  EXPECT_FALSE(init.AllWritten());
  marker.Mark(b.data(), 1, 63, 1);  // again: still one byte left
  EXPECT_FALSE(init.AllWritten());
  EXPECT_EQ(init.FirstUnwritten(b.data(), 64), b.data() + 63);
  marker.Mark(b.data() + 63, 1, 1, 1);
  EXPECT_TRUE(init.AllWritten());
  EXPECT_FALSE(init.NoneWritten(b.data(), 64));
}

TEST(SharedInitTest, AnAddIntoUnwrittenBytesReadsThem) {
  std::vector<uint8_t> shared(128), local(128);
  uint8_t* lo = shared.data();
  SharedInit init;
  ASSERT_TRUE(init.AddRegion(lo, 128));
  SharedInit::RunMarker(&init).Mark(lo, 1, 64, 1);
  bool destination = false;
  scjit_dma add = Dma(local.data(), lo + 32, 64, /*add=*/true);
  EXPECT_EQ(init.FirstUnwrittenRead(add, nullptr, &destination), lo + 64);
  EXPECT_TRUE(destination);
}

TEST(SharedInitTest, StateBytesSayWhatIsWrittenAlready) {
  std::vector<uint8_t> shared(200), state(200, 0), local(200);
  for (int i = 70; i < 140; ++i) state[i] = SCJIT_SHADOW_WRITTEN;
  uint8_t* lo = shared.data();
  SharedInit init;
  ASSERT_TRUE(init.AddRegion(lo, 200, state.data()));
  EXPECT_EQ(init.FirstUnwritten(lo + 70, 70), nullptr);
  EXPECT_EQ(init.FirstUnwritten(lo + 60, 20), lo + 60);
  EXPECT_EQ(init.FirstUnwritten(lo + 70, 71), lo + 140);
  bool destination = false;
  SharedInit::RunMarker marker(&init);
  marker.Mark(lo, 1, 70, 1);
  marker.Mark(lo + 140, 1, 60, 1);
  EXPECT_EQ(init.FirstUnwrittenRead(Dma(lo, local.data(), 200), nullptr, &destination), nullptr);
}

}  // namespace
}  // namespace scjit
