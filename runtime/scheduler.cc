#include "runtime/scheduler.h"

#include <barrier>
#include <thread>

namespace scjit {

SubcoreScheduler::SubcoreScheduler(int tasks, int threads, size_t stack_bytes)
    : tasks_(tasks), threads_(std::max(1, std::min(threads, tasks))), stack_bytes_(stack_bytes) {}

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
    absl::StatusOr<std::unique_ptr<Fiber>> f = Fiber::Create([body, t] { body(t); }, stack_bytes_);
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
    if (threads_ > 1) start.arrive_and_wait();
    RunEpochShare(order);
    if (threads_ > 1) end.arrive_and_wait();
    status = settle();
    if (!status.ok()) break;
  }
  stop = true;
  if (threads_ > 1) start.arrive_and_wait();
  for (std::thread& w : workers) w.join();
  return status;
}

}  // namespace scjit
