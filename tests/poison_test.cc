// DeferredPoison (runtime/poison.h): the elements a launch's DMAs wrote are
// kept, every other one gets the fill pattern at the end, across word
// boundaries of its state, for strided runs, and in pieces the time limit can
// stop.
#include "runtime/poison.h"

#include <cstdint>
#include <cstring>
#include <vector>

#include "gtest/gtest.h"

namespace scjit {
namespace {

constexpr uint32_t kPoison = 0xBEBEBEBEu;

TEST(DeferredPoisonTest, FillsOnlyWhatNothingWrote) {
  std::vector<uint32_t> data(300, 7);
  auto* base = reinterpret_cast<uint8_t*>(data.data());
  DeferredPoison poison;
  ASSERT_TRUE(poison.Add(base, 300, ElementType::kI32));
  EXPECT_TRUE(poison.Unwritten(base, 1, 300, 4));
  poison.Written(base + 4 * 3, 1, 190, 4);    // [3, 193): three words, two partial
  poison.Written(base + 4 * 250, 10, 5, 4);   // 250, 260, ..., 290
  poison.Written(base + 4 * 299, 1, 1, 4);    // the last element
  EXPECT_FALSE(poison.Unwritten(base + 4 * 3, 1, 190, 4));
  EXPECT_TRUE(poison.Unwritten(base + 4 * 3, 1, 191, 4));
  EXPECT_FALSE(poison.Unwritten(base + 4 * 250, 10, 5, 4));
  EXPECT_TRUE(poison.Unwritten(base + 4 * 250, 5, 9, 4));
  EXPECT_EQ(poison.Fill([] { return true; }), -1);
  for (int i = 0; i < 300; ++i) {
    bool written = (i >= 3 && i < 193) || (i >= 250 && i <= 290 && i % 10 == 0) || i == 299;
    EXPECT_EQ(data[i], written ? 7u : kPoison) << i;
  }
}

// A write of part of an element (a DMA through a narrower view) gives the rest
// of it the pattern before the write, unless a write has been there already.
TEST(DeferredPoisonTest, APartialWriteFillsTheRestOfItsElementFirst) {
  std::vector<uint32_t> data(4, 7);
  auto* base = reinterpret_cast<uint8_t*>(data.data());
  DeferredPoison poison;
  ASSERT_TRUE(poison.Add(base, 4, ElementType::kI32));
  auto write = [&](int at, std::vector<uint8_t> bytes) {  // as a DMA of 2-byte units
    poison.Written(base + at, 1, static_cast<int64_t>(bytes.size()) / 2, 2);
    std::memcpy(base + at, bytes.data(), bytes.size());
  };
  write(2, {0x11, 0x22});  // the high half of element 0
  write(4, {0x33, 0x44});  // element 1, low half, then high half
  write(6, {0x55, 0x66});
  poison.Written(base + 8, 2, 2, 2);  // the low halves of elements 2 and 3 (units 2 apart)
  std::memcpy(base + 8, "\x77\x77", 2);
  std::memcpy(base + 12, "\x77\x77", 2);
  EXPECT_FALSE(poison.Unwritten(base, 1, 16, 1));
  EXPECT_EQ(poison.Fill([] { return true; }), -1);
  EXPECT_EQ(data[0], 0x2211BEBEu);
  EXPECT_EQ(data[1], 0x66554433u);
  EXPECT_EQ(data[2], 0xBEBE7777u);
  EXPECT_EQ(data[3], 0xBEBE7777u);
}

TEST(DeferredPoisonTest, IgnoresBytesOutsideItsRegions) {
  std::vector<uint32_t> data(64, 7);
  auto* base = reinterpret_cast<uint8_t*>(data.data());
  DeferredPoison poison;
  ASSERT_TRUE(poison.Add(base, 32, ElementType::kI32));  // the first half only
  poison.Written(base + 4 * 40, 1, 8, 4);
  EXPECT_FALSE(poison.Unwritten(base + 4 * 40, 1, 8, 4));
  EXPECT_EQ(poison.Fill([] { return true; }), -1);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(data[i], i < 32 ? kPoison : 7u) << i;
}

TEST(DeferredPoisonTest, TheTimeLimitStopsTheFillBetweenPieces) {
  // Two regions of 32 MiB: the fill asks after each 16 MiB whether to go on.
  std::vector<uint8_t> a(32 << 20, 7), b(32 << 20, 7);
  DeferredPoison poison;
  ASSERT_TRUE(poison.Add(a.data(), static_cast<int64_t>(a.size()), ElementType::kU8));
  ASSERT_TRUE(poison.Add(b.data(), static_cast<int64_t>(b.size()), ElementType::kU8));
  int asked = 0;
  EXPECT_EQ(poison.Fill([&] { return ++asked < 3; }), 1);  // stopped in the second
  EXPECT_EQ(asked, 3);
  EXPECT_EQ(a.back(), 0xBE);
  EXPECT_EQ(b.front(), 0xBE);
  EXPECT_EQ(b.back(), 7);
}

}  // namespace
}  // namespace scjit
