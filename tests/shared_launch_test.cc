// SharedLaunch (python/src/shared_launch.h): the XLA devices of a jax.shard_map
// calling scjit_launch for one multi-chip launch. Exactly one device runs each
// launch, the others get its outcome, calls of a loop are launches of their own,
// and a run's state goes when every device has taken every launch.
#include "python/src/shared_launch.h"

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace scjit {
namespace {

// One device's call: runs the launch (its result is `device * 100 + k`, a
// different value for each device, so a taker shows whose result it got) or
// takes it. Returns the result it ends with.
int Call(SharedLaunch& s, int64_t run, int device, int k, std::atomic<int>* runners) {
  SharedLaunch::Turn turn = s.Arrive(run, device);
  int result;
  if (turn.runs) {
    runners->fetch_add(1);
    result = device * 100 + k;
    SharedLaunch::Outcome outcome;
    outcome.results.push_back(std::vector<uint8_t>(reinterpret_cast<uint8_t*>(&result),
                                                   reinterpret_cast<uint8_t*>(&result) + sizeof(result)));
    s.Publish(turn, std::move(outcome));
  } else {
    const SharedLaunch::Outcome& o = s.Await(turn);
    std::memcpy(&result, o.results.at(0).data(), sizeof(result));
  }
  s.Leave(run, turn);
  return result;
}

TEST(SharedLaunchTest, OneDeviceRunsEachLaunchTheOthersTakeItsResult) {
  constexpr int kDevices = 4, kCalls = 3;
  SharedLaunch s(kDevices);
  for (int64_t run : {7, 8}) {
    std::atomic<int> runners{0};
    std::vector<std::vector<int>> got(kDevices, std::vector<int>(kCalls));
    std::vector<std::thread> threads;
    for (int d = 0; d < kDevices; ++d) {
      threads.emplace_back([&, d] {
        for (int k = 0; k < kCalls; ++k) got[d][k] = Call(s, run, d, k, &runners);
      });
    }
    for (std::thread& t : threads) t.join();
    EXPECT_EQ(runners.load(), kCalls);  // one runner per launch
    for (int k = 0; k < kCalls; ++k) {
      EXPECT_EQ(got[0][k] % 100, k);  // the k-th call of every device is launch k
      for (int d = 1; d < kDevices; ++d) EXPECT_EQ(got[d][k], got[0][k]) << "device " << d << ", call " << k;
    }
    EXPECT_EQ(s.runs_in_flight(), 0u);
  }
}

// Devices one after another (XLA may run them so): the first runs every
// launch, and no one waits for a device that has not come yet.
TEST(SharedLaunchTest, DevicesOneByOne) {
  SharedLaunch s(3);
  std::atomic<int> runners{0};
  for (int d = 0; d < 3; ++d) {
    for (int k = 0; k < 2; ++k) EXPECT_EQ(Call(s, 1, d, k, &runners), k);
    EXPECT_EQ(s.runs_in_flight(), d < 2 ? 1u : 0u);
  }
  EXPECT_EQ(runners.load(), 2);
}

// A failed launch's error reaches every device.
TEST(SharedLaunchTest, AFailureIsEveryonesOutcome) {
  SharedLaunch s(2);
  SharedLaunch::Turn first = s.Arrive(5, 0);
  ASSERT_TRUE(first.runs);
  SharedLaunch::Outcome failed;
  failed.failed = true;
  failed.error_code = 13;
  failed.message = "error[RT-DEADLOCK]: ...";
  s.Publish(first, std::move(failed));
  s.Leave(5, first);
  SharedLaunch::Turn second = s.Arrive(5, 1);
  ASSERT_FALSE(second.runs);
  const SharedLaunch::Outcome& o = s.Await(second);
  EXPECT_TRUE(o.failed);
  EXPECT_EQ(o.error_code, 13);
  EXPECT_EQ(o.message, "error[RT-DEADLOCK]: ...");
  s.Leave(5, second);
  EXPECT_EQ(s.runs_in_flight(), 0u);
}

}  // namespace
}  // namespace scjit
