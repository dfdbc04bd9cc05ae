// One multi-chip launch shared by the XLA devices of a jax.shard_map (scjit.jax).
//
// A kernel with a device mesh runs every chip in one launch. Under shard_map each
// XLA device executes the program with its own shard, so the lowering gathers the
// shards (every device then holds the whole launch's operands) and every device
// calls scjit_launch with the same operands. A SharedLaunch, one per call site,
// lets the first device to come run the launch while the others wait for it and
// take copies of its results: the kernel runs once, prints once and reports once,
// whatever the number of devices.
//
// Calls are matched by XLA's run id (one execution of the program on all its
// devices) and by their rank among the calls a device makes in that run (the
// site may be inside a loop): the k-th call of every device in one run is one
// launch. A run's state is dropped when every device has taken every launch
// made so far.
//
// Thread-safe: devices call from XLA's threads, concurrently or one by one.
#ifndef SCJIT_PYTHON_SRC_SHARED_LAUNCH_H_
#define SCJIT_PYTHON_SRC_SHARED_LAUNCH_H_

#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace scjit {

class SharedLaunch {
 public:
  // What one launch left for the devices that did not run it.
  struct Outcome {
    bool done = false;
    bool failed = false;
    int error_code = 0;  // an xla::ffi::ErrorCode when failed
    std::string message;
    std::vector<std::vector<uint8_t>> results;  // each result's bytes, as XLA holds them
    int waiting = 0;  // devices that have not taken it yet
  };

  // A device's part in one launch: it runs it (`runs`) or takes its outcome.
  struct Turn {
    std::shared_ptr<Outcome> outcome;
    bool runs = false;
  };

  explicit SharedLaunch(int devices) : devices_(devices) {}
  SharedLaunch(const SharedLaunch&) = delete;
  SharedLaunch& operator=(const SharedLaunch&) = delete;

  int devices() const { return devices_; }

  // Device `device`'s next call in run `run`.
  Turn Arrive(int64_t run, int64_t device);
  // The runner's outcome, for the others (wakes them).
  void Publish(const Turn& turn, Outcome outcome);
  // Blocks until the runner has published.
  const Outcome& Await(const Turn& turn);
  // This device is done with the launch (after Publish or Await).
  void Leave(int64_t run, const Turn& turn);
  // Runs with launches not yet taken by every device (for tests).
  size_t runs_in_flight();

 private:
  struct Run {
    std::map<int64_t, int64_t> calls;                      // device -> calls so far
    std::map<int64_t, std::shared_ptr<Outcome>> launches;  // k -> the k-th launch
  };

  const int devices_;
  std::mutex mu_;
  std::condition_variable published_;
  std::map<int64_t, Run> runs_;
};

}  // namespace scjit

#endif  // SCJIT_PYTHON_SRC_SHARED_LAUNCH_H_
