// A launch spread over several "processes" through LaunchOptions::link, with
// ranks as threads of this process (ThreadLink, below): the same outputs,
// findings (a deadlock and a bounds error made on another rank's chip) and
// statistics as one launch holding every chip. The same machinery as jit-run
// under mpirun (tests/mpi/over_mpi.sh), here under the sanitizers too.
#include <barrier>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "scjit/scjit.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

// Every rank's slots, and a barrier between the phases of each collective.
struct ThreadWorld {
  explicit ThreadWorld(int n) : ranks(n), meet(n), posts(static_cast<size_t>(n)) {}
  int ranks;
  std::barrier<> meet;
  std::vector<std::vector<std::string>> posts;  // by sender: what it sends each rank
};

class ThreadLink final : public ChipLink {
 public:
  ThreadLink(ThreadWorld* world, int rank) : world_(world), rank_(rank) {}
  int rank() const override { return rank_; }
  int ranks() const override { return world_->ranks; }

  absl::StatusOr<Messages> Exchange(std::vector<std::string> to_each) override {
    world_->posts[static_cast<size_t>(rank_)] = std::move(to_each);
    world_->meet.arrive_and_wait();
    Messages in;
    for (int r = 0; r < world_->ranks; ++r) {
      in.at.push_back(in.bytes.size());
      in.bytes += world_->posts[static_cast<size_t>(r)][static_cast<size_t>(rank_)];
    }
    in.at.push_back(in.bytes.size());
    world_->meet.arrive_and_wait();  // before anyone posts again
    return in;
  }
  absl::StatusOr<Messages> AllGather(std::string_view mine) override {
    return Exchange(std::vector<std::string>(static_cast<size_t>(world_->ranks), std::string(mine)));
  }
  absl::Status AllGatherBlocks(std::span<uint8_t> whole, std::span<const int64_t> at) override {
    auto begin = static_cast<size_t>(at[static_cast<size_t>(rank_)]);
    auto end = static_cast<size_t>(at[static_cast<size_t>(rank_) + 1]);
    absl::StatusOr<Messages> all =
        AllGather(std::string_view(reinterpret_cast<const char*>(whole.data()) + begin, end - begin));
    for (int r = 0; r < world_->ranks; ++r) {
      std::string_view theirs = all->from(r);
      std::memcpy(whole.data() + at[static_cast<size_t>(r)], theirs.data(), theirs.size());
    }
    return absl::OkStatus();
  }
  absl::Status Broadcast(std::span<uint8_t> bytes) override {
    absl::StatusOr<Messages> all =
        AllGather(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    std::memcpy(bytes.data(), all->from(0).data(), bytes.size());
    return absl::OkStatus();
  }

 private:
  ThreadWorld* world_;
  int rank_;
};

struct Outcome {
  absl::Status status;
  std::vector<std::vector<uint8_t>> outputs;  // every parameter's bytes after the launch
  std::string findings;
  int64_t dma_bytes = 0;
  int subcores = 0;
};

// Launches `text` on every parameter's iota bytes, over `ranks` threads linked
// (0: one launch, no link); each rank's outcome.
std::vector<Outcome> Launch(const std::string& text, int ranks, LaunchOptions options = {}) {
  absl::StatusOr<Kernel> k = Compiler().Compile(Source{"k.scir", text});
  EXPECT_TRUE(k.ok()) << k.status();
  if (!k.ok()) return {};
  auto one = [&](ChipLink* link) {
    Outcome out;
    absl::StatusOr<std::vector<Buffer>> buffers = k->AllocateParams();
    if (!buffers.ok()) {
      out.status = buffers.status();
      return out;
    }
    for (Buffer& b : *buffers) {
      for (size_t i = 0; i < b.bytes(); ++i) b.data()[i] = static_cast<uint8_t>(i * 7 + 1);
    }
    LaunchOptions o = options;
    o.link = link;
    absl::StatusOr<LaunchResult> r = k->Launch(*buffers, o);
    out.status = r.status();
    if (!r.ok()) return out;
    for (Buffer& b : *buffers) out.outputs.emplace_back(b.data(), b.data() + b.bytes());
    out.findings = r->RenderFindings();
    out.dma_bytes = r->stats.dma_bytes;
    out.subcores = r->stats.subcores;
    return out;
  };
  if (ranks == 0) return {one(nullptr)};
  ThreadWorld world(ranks);
  std::vector<Outcome> outcomes(static_cast<size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r) {
    threads.emplace_back([&, r] {
      ThreadLink link(&world, r);
      outcomes[static_cast<size_t>(r)] = one(&link);
    });
  }
  for (std::thread& t : threads) t.join();
  return outcomes;
}

// Every rank ends as one process does.
void ExpectSameAsOneProcess(const std::string& text, int ranks, LaunchOptions options = {}) {
  std::vector<Outcome> alone = Launch(text, 0, options);
  ASSERT_EQ(alone.size(), 1u);
  ASSERT_TRUE(alone[0].status.ok()) << alone[0].status;
  for (const Outcome& o : Launch(text, ranks, options)) {
    ASSERT_TRUE(o.status.ok()) << o.status;
    EXPECT_EQ(o.outputs, alone[0].outputs);
    EXPECT_EQ(o.findings, alone[0].findings);
    EXPECT_EQ(o.dma_bytes, alone[0].dma_bytes);
    EXPECT_EQ(o.subcores, alone[0].subcores);
  }
}

std::string Example(const std::string& name) { return testing::ReadFile(testing::SourceDir() + "/examples/" + name); }

LaunchOptions Unraced(int threads = 1) {
  LaunchOptions o;
  o.threads = threads;
  Checks c;
  c.race = false;
  o.checks = c;
  return o;
}

TEST(ChipLinkTest, TheExamplesOverTwoAndFourRanks) {
  for (const char* name :
       {"collective_permute.scir", "collective_permute_2d.scir", "all_to_all.scir", "mpmd_reduce_scatter.scir"}) {
    for (int ranks : {2, 4}) {
      SCOPED_TRACE(std::string(name) + " over " + std::to_string(ranks));
      ExpectSameAsOneProcess(Example(name), ranks, Unraced());
    }
  }
  SCOPED_TRACE("remote_vmem_shared");
  ExpectSameAsOneProcess(Example("remote_vmem_shared.scir"), 2, Unraced(2));
}

TEST(ChipLinkTest, SeedsGiveTheSameOrderEverywhere) {
  LaunchOptions o = Unraced(2);
  o.seed = 11;
  ExpectSameAsOneProcess(Example("all_to_all.scir"), 4, o);
}

TEST(ChipLinkTest, FindingsOfEveryRankReachEveryRank) {
  ExpectSameAsOneProcess(testing::ReadFile(testing::SourceDir() + "/tests/mpi/half_ring.scir"), 2, Unraced());
  ExpectSameAsOneProcess(testing::ReadFile(testing::SourceDir() + "/tests/mpi/off_the_ring.scir"), 4, Unraced());
  std::vector<Outcome> two = Launch(testing::ReadFile(testing::SourceDir() + "/tests/mpi/half_ring.scir"), 2, Unraced());
  ASSERT_EQ(two.size(), 2u);
  EXPECT_NE(two[1].findings.find("error[RT-DEADLOCK]: kernel @half_ring cannot progress: 3 subcores are blocked"),
            std::string::npos)
      << two[1].findings;
}

TEST(ChipLinkTest, RefusesTheRaceCheckAndMoreRanksThanChips) {
  std::vector<Outcome> raced = Launch(Example("collective_permute.scir"), 2);
  ASSERT_EQ(raced.size(), 2u);
  EXPECT_EQ(raced[0].status.message(),
            "error[IO-USAGE]: the race check runs only when one process holds every chip (--check without race, or "
            "no mpirun)\nhelp: run `jit-run --help` for the options");
  std::vector<Outcome> many = Launch(Example("remote_vmem_shared.scir"), 4, Unraced());
  ASSERT_EQ(many.size(), 4u);
  for (const Outcome& o : many) {
    EXPECT_NE(o.status.message().find("kernel @remote_vmem_shared runs on 2 devices, fewer than the 4 processes"),
              std::string::npos)
        << o.status;
  }
}

}  // namespace
}  // namespace scjit
