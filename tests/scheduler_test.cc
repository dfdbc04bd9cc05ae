// Fiber and SubcoreScheduler (runtime/fiber.h, runtime/scheduler.h): a fiber
// that parks hands its thread straight to another (Fiber::SuspendTo), which
// later returns to whoever resumed the first; the scheduler's epochs run every
// runnable task once, in task order on one thread, whichever way control
// passes between them.
#include "runtime/scheduler.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "runtime/fiber.h"
#include "runtime/worker_pool.h"

namespace scjit {
namespace {

std::unique_ptr<Fiber> NewFiber(std::function<void()> body, StackPool& stacks) {
  absl::StatusOr<std::unique_ptr<Fiber>> f = Fiber::Create(std::move(body), stacks);
  EXPECT_TRUE(f.ok()) << f.status();
  return f.ok() ? *std::move(f) : nullptr;
}

TEST(FiberTest, SuspendToRunsTheOtherFiberWhichReturnsToTheResumer) {
  StackPool stacks;
  std::vector<std::string> log;
  std::unique_ptr<Fiber> a, b;
  a = NewFiber([&] { log.push_back("a1"); a->SuspendTo(b.get()); log.push_back("a2"); }, stacks);
  b = NewFiber([&] { log.push_back("b1"); b->Suspend(); log.push_back("b2"); }, stacks);
  a->Resume();  // a1, then b1 in a's place; b's Suspend comes back here
  log.push_back("main");
  EXPECT_FALSE(a->finished());
  EXPECT_FALSE(b->finished());
  b->Resume();  // b2: b finishes, back here
  EXPECT_TRUE(b->finished());
  a->Resume();  // a2
  EXPECT_TRUE(a->finished());
  EXPECT_EQ(log, (std::vector<std::string>{"a1", "b1", "main", "b2", "a2"}));
}

TEST(FiberTest, AFiberHandedTheThreadHandsItOnAndTheLastReturns) {
  StackPool stacks;
  std::vector<std::string> log;
  std::vector<std::unique_ptr<Fiber>> f(3);
  for (int i = 0; i < 3; ++i) {
    f[i] = NewFiber(
        [&, i] {
          log.push_back("run " + std::to_string(i));
          f[i]->SuspendTo(i + 1 < 3 ? f[i + 1].get() : nullptr);  // the last one returns
          log.push_back("end " + std::to_string(i));
        },
        stacks);
  }
  f[0]->Resume();
  log.push_back("main");
  for (int i = 2; i >= 0; --i) f[i]->Resume();
  for (const auto& fiber : f) EXPECT_TRUE(fiber->finished());
  EXPECT_EQ(log, (std::vector<std::string>{"run 0", "run 1", "run 2", "main", "end 2", "end 1", "end 0"}));
}

// Task t parks 1 + t % 3 times, so it runs in epochs 0 to 1 + t % 3; the
// settle step makes every unfinished task runnable again. Returns (epoch,
// task) per segment run, in the order they ran.
std::vector<std::pair<int, int>> RunTasks(int tasks, int threads, int64_t* epochs) {
  StackPool stacks;
  WorkerPool workers;
  SubcoreScheduler scheduler(tasks, threads, stacks, workers);
  std::mutex mu;
  std::vector<std::pair<int, int>> log;
  int epoch = 0;  // written by settle only, with every task parked
  auto note = [&](int t) {
    std::lock_guard<std::mutex> lock(mu);
    log.emplace_back(epoch, t);
  };
  absl::Status status = scheduler.Run(
      [&](int t) {
        for (int k = 0; k <= t % 3; ++k) {
          note(t);
          scheduler.Park(t);
        }
        note(t);
      },
      [&] {
        ++epoch;
        for (int t = 0; t < tasks; ++t) {
          if (!scheduler.finished(t)) scheduler.MakeRunnable(t);
        }
        return absl::OkStatus();
      });
  EXPECT_TRUE(status.ok()) << status;
  *epochs = scheduler.epochs();
  return log;
}

std::vector<std::pair<int, int>> Expected(int tasks) {
  std::vector<std::pair<int, int>> out;
  for (int e = 0; e <= 3; ++e) {
    for (int t = 0; t < tasks; ++t) {
      if (e <= 1 + t % 3) out.emplace_back(e, t);
    }
  }
  return out;
}

TEST(SchedulerTest, OneThreadRunsEachEpochsTasksInTaskOrder) {
  int64_t epochs = 0;
  EXPECT_EQ(RunTasks(8, 1, &epochs), Expected(8));
  EXPECT_EQ(epochs, 4);
}

TEST(SchedulerTest, TwoThreadsRunEveryTaskOncePerEpoch) {
  int64_t epochs = 0;
  std::vector<std::pair<int, int>> log = RunTasks(64, 2, &epochs);
  // Segments of one epoch never run after the next epoch's started.
  EXPECT_TRUE(std::is_sorted(log.begin(), log.end(), [](const auto& a, const auto& b) { return a.first < b.first; }));
  std::sort(log.begin(), log.end());
  EXPECT_EQ(log, Expected(64));
  EXPECT_EQ(epochs, 4);
}

}  // namespace
}  // namespace scjit
