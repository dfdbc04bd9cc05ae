// SharedAccesses (runtime/shared_races.h): which DMA accesses to shared memory
// race, found the same whether a region's accesses are held (all reads, all
// adds, or each outside the bytes of those before) or in the byte-range map.
#include "runtime/shared_races.h"

#include <cstdint>
#include <memory>
#include <vector>

#include "gtest/gtest.h"

namespace scjit {
namespace {

constexpr int kSubcores = 4;
constexpr uintptr_t kLo = 0x10000, kHi = 0x20000;  // one buffer all subcores reach

// A DMA of `subcore`, in flight (unordered with every other subcore's), with
// one run of `kind` over [lo, hi), which it changed when a write.
std::shared_ptr<SharedDma> Dma(int subcore, int site, SharedDma::Kind kind, uintptr_t lo, uintptr_t hi) {
  auto d = std::make_shared<SharedDma>();
  d->subcore = subcore;
  d->site = site;
  d->start.assign(kSubcores, 0);
  d->runs.push_back(SharedDma::Run{lo, hi, kind});
  if (kind == SharedDma::kWrite) {
    d->changed.emplace_back(lo, hi);
    d->moved = true;
  }
  return d;
}

// The (earlier site, later site) of each race the DMAs make, added in order.
std::vector<std::pair<int, int>> Races(const std::vector<std::shared_ptr<SharedDma>>& dmas) {
  SharedAccesses accesses;
  accesses.AddRegion(kLo, kHi, 0, kSubcores);
  std::vector<SharedRace> races;
  for (const auto& d : dmas) accesses.Add(d, &races);
  accesses.Resolve(&races);
  std::vector<std::pair<int, int>> sites;
  for (const SharedRace& r : races) sites.emplace_back(r.earlier->site, r.later->site);
  return sites;
}

using Sites = std::vector<std::pair<int, int>>;

TEST(SharedRacesTest, DisjointWritesInEitherOrderDoNotRace) {
  // A pipeline's output: block after block, subcore after subcore.
  std::vector<std::shared_ptr<SharedDma>> up, down;
  for (int i = 0; i < 8; ++i) {
    up.push_back(Dma(i % kSubcores, i, SharedDma::kWrite, kLo + i * 0x100, kLo + (i + 1) * 0x100));
    down.push_back(Dma(i % kSubcores, i, SharedDma::kWrite, kHi - (i + 1) * 0x100, kHi - i * 0x100));
  }
  EXPECT_EQ(Races(up), Sites{});
  EXPECT_EQ(Races(down), Sites{});
}

TEST(SharedRacesTest, AWriteOverAnEarlierHeldWriteRaces) {
  // Disjoint, ascending writes are held; the fourth overlaps the first.
  EXPECT_EQ(Races({Dma(0, 10, SharedDma::kWrite, kLo, kLo + 0x100),
                   Dma(1, 11, SharedDma::kWrite, kLo + 0x100, kLo + 0x200),
                   Dma(2, 12, SharedDma::kWrite, kLo + 0x200, kLo + 0x300),
                   Dma(3, 13, SharedDma::kWrite, kLo + 0x80, kLo + 0xc0)}),
            (Sites{{10, 13}}));
}

TEST(SharedRacesTest, AReadBetweenHeldWritesRacesWithTheOneItMeets) {
  // The read lies inside the span of the held writes, on the second one only.
  EXPECT_EQ(Races({Dma(0, 20, SharedDma::kWrite, kLo, kLo + 0x100),
                   Dma(1, 21, SharedDma::kWrite, kLo + 0x100, kLo + 0x200),
                   Dma(2, 22, SharedDma::kWrite, kLo + 0x300, kLo + 0x400),
                   Dma(3, 23, SharedDma::kRead, kLo + 0x180, kLo + 0x190)}),
            (Sites{{21, 23}}));
}

TEST(SharedRacesTest, AWriteOrderedAfterTheOneItOverlapsDoesNotRace) {
  auto first = Dma(0, 30, SharedDma::kWrite, kLo, kLo + 0x100);
  first->end = 5;  // retired at subcore 0's clock 5 ...
  auto second = Dma(1, 31, SharedDma::kWrite, kLo + 0x100, kLo + 0x200);
  auto third = Dma(1, 32, SharedDma::kWrite, kLo + 0x40, kLo + 0x80);
  third->start[0] = 5;  // ... which subcore 1 had seen when it started this one
  EXPECT_EQ(Races({first, second, third}), Sites{});
}

TEST(SharedRacesTest, IdenticalBytesWrittenTwiceAreNoRace) {
  auto first = Dma(0, 40, SharedDma::kWrite, kLo, kLo + 0x100);
  auto second = Dma(1, 41, SharedDma::kWrite, kLo + 0x200, kLo + 0x300);
  auto third = Dma(2, 42, SharedDma::kWrite, kLo, kLo + 0x100);
  third->changed.clear();  // it wrote what was there
  EXPECT_EQ(Races({first, second, third}), Sites{});
}

// A scatter-add of rows 5, 1 and 3 (16 bytes each, 64 apart), kept as its
// list until something it might race with arrives.
std::shared_ptr<SharedDma> ScatterAdd(int subcore, int site) {
  auto d = std::make_shared<SharedDma>();
  d->subcore = subcore;
  d->site = site;
  d->start.assign(kSubcores, 0);
  SharedDma::Rows& rows = d->rows.emplace();
  rows.base = kLo;
  rows.stride = 64;
  rows.bytes = 16;
  rows.kind = SharedDma::kAdd;
  rows.list = {5, 1, 3};
  rows.lo = kLo + 64;
  rows.hi = kLo + 5 * 64 + 16;
  return d;
}

TEST(SharedRacesTest, RowsKeptAsAListRaceOnlyWhereARowIs) {
  // Adds do not race each other; a write between the rows meets none of them.
  EXPECT_EQ(Races({ScatterAdd(0, 50), ScatterAdd(1, 51), Dma(2, 52, SharedDma::kWrite, kLo + 16, kLo + 64)}),
            Sites{});
  // A read of row 3 meets both adds (one finding per DMA checked).
  EXPECT_EQ(Races({ScatterAdd(0, 60), ScatterAdd(1, 61), Dma(2, 62, SharedDma::kRead, kLo + 3 * 64, kLo + 3 * 64 + 4)}),
            (Sites{{60, 62}}));
}

TEST(SharedRacesTest, RowsExpandToARunPerRowMergingAdjacentOnes) {
  auto d = ScatterAdd(0, 70);
  d->rows->stride = 16;  // rows of 16 bytes, back to back
  d->rows->list = {1, 2, 3, 7};
  d->ExpandRows();
  EXPECT_FALSE(d->rows.has_value());
  ASSERT_EQ(d->runs.size(), 2u);
  EXPECT_EQ(d->runs[0].lo, kLo + 16);
  EXPECT_EQ(d->runs[0].hi, kLo + 64);
  EXPECT_EQ(d->runs[1].lo, kLo + 7 * 16);
  EXPECT_EQ(d->runs[1].hi, kLo + 8 * 16);
  EXPECT_EQ(d->runs[1].kind, SharedDma::kAdd);
}

}  // namespace
}  // namespace scjit
