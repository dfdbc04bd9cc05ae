// SharedInit (runtime/shared_init.h): the init state of shared memory (written,
// computed from unwritten bytes, or unwritten), by bits and by each region's
// count of bytes not written, which lets a DMA into a region written in full
// skip its walk.
#include "runtime/shared_init.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/abi.h"

namespace scjit {
namespace {

constexpr uint8_t W = SCJIT_SHADOW_WRITTEN;
constexpr uint8_t C = SCJIT_SHADOW_COMPUTED;

std::vector<uint8_t> States(const SharedInit& init, const uint8_t* p, int64_t n) {
  std::vector<uint8_t> out(static_cast<size_t>(n));
  init.Read(p, n, out.data());
  return out;
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
  EXPECT_TRUE(init.Written(elsewhere.data(), 8));
  EXPECT_EQ(States(init, elsewhere.data(), 2), (std::vector<uint8_t>{W, W}));
}

TEST(SharedInitTest, EveryRegionWrittenInFullIsAllWritten) {
  std::vector<uint8_t> a(100), b(64), c(32);
  std::vector<uint8_t> written_state(32, W);
  SharedInit init;
  EXPECT_TRUE(init.AllWritten());  // no region
  ASSERT_TRUE(init.AddRegion(c.data(), 32, false, written_state.data()));  // written from the start
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

TEST(SharedInitTest, StateBytesSayWhatIsWrittenAlready) {
  std::vector<uint8_t> shared(200), state(200, 0);
  for (int i = 70; i < 140; ++i) state[i] = W;
  state[150] = C;
  uint8_t* lo = shared.data();
  SharedInit init;
  ASSERT_TRUE(init.AddRegion(lo, 200, false, state.data()));
  EXPECT_EQ(init.FirstUnwritten(lo + 70, 70), nullptr);
  EXPECT_EQ(init.FirstUnwritten(lo + 60, 20), lo + 60);
  EXPECT_EQ(init.FirstUnwritten(lo + 70, 71), lo + 140);
  EXPECT_EQ(States(init, lo + 139, 13), (std::vector<uint8_t>{W, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, C, 0}));
  SharedInit::RunMarker marker(&init);
  marker.Mark(lo, 1, 70, 1);
  marker.Mark(lo + 140, 1, 60, 1);
  EXPECT_TRUE(init.AllWritten());
  EXPECT_EQ(States(init, lo + 150, 1), (std::vector<uint8_t>{W}));  // written over the computed byte
}

// A DMA carries states: bytes may become unwritten or computed again, in a
// region that started written too (an inout parameter), whose bits are made
// only then; the counts follow.
TEST(SharedInitTest, WritesCarryEveryState) {
  std::vector<uint8_t> shared(256);
  uint8_t* lo = shared.data();
  SharedInit init;
  ASSERT_TRUE(init.AddRegion(lo, 256, /*written=*/true));
  EXPECT_TRUE(init.AllWritten());
  std::vector<uint8_t> in(70, W);
  in[0] = 0;
  in[69] = C;
  ASSERT_TRUE(init.Write(lo + 60, 70, in.data()));  // across a word boundary
  EXPECT_FALSE(init.AllWritten());
  EXPECT_FALSE(init.Written(lo + 60, 70));
  EXPECT_TRUE(init.Written(lo + 61, 68));
  EXPECT_EQ(States(init, lo + 59, 3), (std::vector<uint8_t>{W, 0, W}));
  EXPECT_EQ(States(init, lo + 128, 3), (std::vector<uint8_t>{W, C, W}));
  const uint8_t* first = nullptr;
  EXPECT_EQ(init.Computed(lo, 256, 1, &first), 1);
  EXPECT_EQ(first, lo + 129);
  EXPECT_EQ(init.Computed(lo, 256, 4, &first), 1);  // elements of 4 bytes: one holds it
  // Written again: the counts reach 0, and nothing is computed.
  std::vector<uint8_t> written(70, W);
  ASSERT_TRUE(init.Write(lo + 60, 70, written.data()));
  EXPECT_TRUE(init.AllWritten());
  EXPECT_EQ(init.Computed(lo, 256, 1, &first), 0);
  EXPECT_EQ(first, nullptr);
}

}  // namespace
}  // namespace scjit
