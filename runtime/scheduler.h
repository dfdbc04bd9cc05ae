// SubcoreScheduler: runs every subcore of a launch as a fiber, in epochs, on a
// fixed number of host threads.
//
// An epoch runs every runnable subcore until it parks (blocks in the runtime,
// or yields at a tick) or finishes; subcores are taken from a shared list by
// the threads, so a parked subcore never holds a thread and 64 subcores run
// on one. Between epochs, with every fiber parked, `settle` runs alone: it
// applies the effects subcores have on each other (signals, fetch_and_adds,
// barrier releases) in a fixed order and decides who runs next. Because those
// effects only take place between epochs, in an order that does not depend on
// thread timing, a launch is deterministic at any thread count (for kernels
// without data races, which checked mode reports).
#ifndef SCJIT_RUNTIME_SCHEDULER_H_
#define SCJIT_RUNTIME_SCHEDULER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "absl/status/status.h"
#include "runtime/fiber.h"
#include "runtime/worker_pool.h"

namespace scjit {

// Not thread-safe, except as documented: Park() is called from inside a task
// (on a worker thread); everything else from the thread that called Run().
class SubcoreScheduler {
 public:
  // Fiber stacks come from `stacks`, the threads beside the caller's from
  // `workers` (which must outlive the scheduler).
  SubcoreScheduler(int tasks, int threads, StackPool& stacks, WorkerPool& workers);
  ~SubcoreScheduler();

  // Runs `body(task)` for every task, all runnable at first. After each epoch,
  // `settle()` runs with every task parked or finished and must make at least
  // one unfinished task runnable (MakeRunnable) while any is unfinished;
  // returning an error aborts the launch. Returns when all tasks finished.
  // With `others_running` (tasks of other processes, ChipLink), epochs go on,
  // empty if need be, while it returns true after a settle; settle may then
  // leave no task runnable.
  absl::Status Run(std::function<void(int task)> body, std::function<absl::Status()> settle,
                   std::function<bool()> others_running = nullptr);

  // From inside task `task`: suspends it until MakeRunnable(task). The
  // epoch's next task, if any is left, runs in its place on this thread.
  void Park(int task);
  void MakeRunnable(int task) { runnable_[task] = true; }
  bool finished(int task) const { return fibers_[task] == nullptr || fibers_[task]->finished(); }
  int64_t epochs() const { return epochs_; }
  // True while the epoch runs on more than one thread (from inside a task:
  // when false, nothing else runs beside it until the epoch ends).
  bool parallel() const { return parallel_; }
  // (Fewer than asked for when the host would not start more.)
  int threads() const { return threads_; }

 private:
  void RunEpochShare();
  // The fiber of the epoch's next task not yet taken by any thread, or null.
  Fiber* TakeNext();

  int tasks_;
  int threads_;
  StackPool& stacks_;
  WorkerPool& workers_;
  std::vector<std::unique_ptr<Fiber>> fibers_;
  std::vector<char> runnable_;  // written between epochs only
  std::vector<int> order_;      // the epoch's tasks, written between epochs only
  bool parallel_ = false;       // the epoch runs on several threads
  std::atomic<size_t> next_{0};  // the first of order_ not taken (shared)
  size_t next_alone_ = 0;        // the same when one thread runs the epoch
  int64_t epochs_ = 0;
  // Per-task cost of the last epoch (thread time): below the threshold, epochs
  // run on one thread. The first epoch is always shared.
  static constexpr int64_t kParallelThresholdNs = 20000;
  int64_t last_epoch_ns_per_task_ = kParallelThresholdNs;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_SCHEDULER_H_
