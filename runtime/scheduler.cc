#include "runtime/scheduler.h"

#include <barrier>
#include <chrono>
#include <thread>

namespace scjit {

SubcoreScheduler::SubcoreScheduler(int tasks, int threads, StackPool& stacks)
    : tasks_(tasks), threads_(std::max(1, std::min(threads, tasks))), stacks_(stacks) {}

SubcoreScheduler::~SubcoreScheduler() = default;

void SubcoreScheduler::Park(int task) { fibers_[task]->Suspend(); }

// Each thread takes the next runnable task until the list is exhausted.
void SubcoreScheduler::RunEpochShare(const std::vector<int>& order) {
  while (true) {
    size_t i = next_.fetch_add(1, std::memory_order_relaxed);
    if (i >= order.size()) return;
    fibers_[order[i]]->Resume();
  }
}

absl::Status SubcoreScheduler::Run(std::function<void(int)> body, std::function<absl::Status()> settle) {
  fibers_.clear();
  for (int t = 0; t < tasks_; ++t) {
    absl::StatusOr<std::unique_ptr<Fiber>> f = Fiber::Create([body, t] { body(t); }, stacks_);
    if (!f.ok()) return f.status();
    fibers_.push_back(*std::move(f));
  }
  runnable_.assign(tasks_, 1);

  std::vector<int> order;
  bool stop = false;
  std::barrier start(threads_), end(threads_);
  std::vector<std::thread> workers;
  for (int w = 1; w < threads_; ++w) {
    workers.emplace_back([&] {
      while (true) {
        start.arrive_and_wait();
        if (stop) return;
        RunEpochShare(order);
        end.arrive_and_wait();
      }
    });
  }

  absl::Status status = absl::OkStatus();
  while (true) {
    order.clear();
    for (int t = 0; t < tasks_; ++t) {
      if (runnable_[t] && !finished(t)) order.push_back(t);
      runnable_[t] = 0;
    }
    bool all_done = true;
    for (int t = 0; t < tasks_ && all_done; ++t) all_done = finished(t);
    if (all_done) break;
    if (order.empty()) {
      status = absl::InternalError("the scheduler has unfinished subcores but none to run");
      break;
    }
    ++epochs_;
    next_.store(0, std::memory_order_relaxed);
    // Waking the other threads costs a few microseconds: when the last epoch
    // gave each task less work than that, run this one on this thread alone.
    // (Which thread runs a task never changes the result.)
    bool parallel = threads_ > 1 && order.size() > 1 && last_epoch_ns_per_task_ >= kParallelThresholdNs;
    auto epoch_start = std::chrono::steady_clock::now();
    if (parallel) start.arrive_and_wait();
    RunEpochShare(order);
    if (parallel) end.arrive_and_wait();
    auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - epoch_start);
    last_epoch_ns_per_task_ = ns.count() * (parallel ? threads_ : 1) / static_cast<int64_t>(order.size());
    status = settle();
    if (!status.ok()) break;
  }
  stop = true;
  if (threads_ > 1) start.arrive_and_wait();  // releases the workers to see `stop`
  for (std::thread& w : workers) w.join();
  return status;
}

}  // namespace scjit
