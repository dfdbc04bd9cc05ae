#include "runtime/scheduler.h"

#include <chrono>

namespace scjit {

SubcoreScheduler::SubcoreScheduler(int tasks, int threads, StackPool& stacks, WorkerPool& workers)
    : tasks_(tasks), threads_(std::max(1, std::min(threads, tasks))), stacks_(stacks), workers_(workers) {}

SubcoreScheduler::~SubcoreScheduler() = default;

void SubcoreScheduler::Park(int task) { fibers_[task]->SuspendTo(TakeNext()); }

Fiber* SubcoreScheduler::TakeNext() {
  size_t i = parallel_ ? next_.fetch_add(1, std::memory_order_relaxed) : next_alone_++;
  return i < order_.size() ? fibers_[order_[i]].get() : nullptr;
}

// Each thread takes the next runnable task until the list is exhausted (a
// task that parks hands its thread to the next one itself).
void SubcoreScheduler::RunEpochShare() {
  while (Fiber* f = TakeNext()) f->Resume();
}

absl::Status SubcoreScheduler::Run(std::function<void(int)> body, std::function<absl::Status()> settle,
                                   std::function<bool()> others_running) {
  fibers_.clear();
  for (int t = 0; t < tasks_; ++t) {
    absl::StatusOr<std::unique_ptr<Fiber>> f = Fiber::Create([body, t] { body(t); }, stacks_);
    if (!f.ok()) return f.status();
    fibers_.push_back(*std::move(f));
  }
  runnable_.assign(tasks_, 1);

  WorkerPool::Crew crew = workers_.Lease(threads_ - 1);
  threads_ = 1 + crew.size();
  const std::function<void()> share = [&] { RunEpochShare(); };

  absl::Status status = absl::OkStatus();
  while (true) {
    order_.clear();
    for (int t = 0; t < tasks_; ++t) {
      if (runnable_[t] && !finished(t)) order_.push_back(t);
      runnable_[t] = 0;
    }
    bool all_done = true;
    for (int t = 0; t < tasks_ && all_done; ++t) all_done = finished(t);
    bool others = others_running != nullptr && others_running();
    if (all_done && !others) break;
    if (order_.empty() && !others) {
      status = absl::InternalError("the scheduler has unfinished subcores but none to run");
      break;
    }
    ++epochs_;
    next_.store(0, std::memory_order_relaxed);
    next_alone_ = 0;
    // Waking the other threads costs a few microseconds: when the last epoch
    // gave each task less work than that, run this one on this thread alone.
    // (Which thread runs a task never changes the result.)
    parallel_ = threads_ > 1 && order_.size() > 1 && last_epoch_ns_per_task_ >= kParallelThresholdNs;
    auto epoch_start = std::chrono::steady_clock::now();
    if (parallel_) crew.Start(share);
    RunEpochShare();
    if (parallel_) crew.Wait();
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_start);
    if (!order_.empty()) {
      last_epoch_ns_per_task_ = ns.count() * (parallel_ ? threads_ : 1) / static_cast<int64_t>(order_.size());
    }
    status = settle();
    if (!status.ok()) break;
  }
  return status;
}

}  // namespace scjit
