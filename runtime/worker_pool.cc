#include "runtime/worker_pool.h"

#include <unistd.h>

#include <system_error>

namespace scjit {

void WorkerPool::Worker::Loop() {
  std::unique_lock<std::mutex> lock(mu);
  while (true) {
    cv.wait(lock, [&] { return job != nullptr || stop; });
    if (job == nullptr) return;
    const std::function<void()>* run = job;
    lock.unlock();
    (*run)();
    lock.lock();
    job = nullptr;
    cv.notify_all();
  }
}

WorkerPool::WorkerPool() : pid_(getpid()) {}

WorkerPool::~WorkerPool() {
  if (getpid() != pid_) ForgetForkedThreads();
  for (const std::unique_ptr<Worker>& w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mu);
      w->stop = true;
    }
    w->cv.notify_all();
    w->thread.join();
  }
}

void WorkerPool::ForgetForkedThreads() {
  // Their std::thread objects may neither be joined nor destroyed (a joinable
  // one terminates the process): kept, unreachable, for the child's lifetime.
  new std::vector<std::unique_ptr<Worker>>(std::move(workers_));
  workers_.clear();
  idle_.clear();
  pid_ = getpid();
}

WorkerPool::Crew WorkerPool::Lease(int n) {
  std::lock_guard<std::mutex> lock(mu_);
  if (getpid() != pid_) ForgetForkedThreads();
  std::vector<Worker*> crew;
  while (static_cast<int>(crew.size()) < n && !idle_.empty()) {
    crew.push_back(idle_.back());
    idle_.pop_back();
  }
  while (static_cast<int>(crew.size()) < n) {
    auto w = std::make_unique<Worker>();
    try {
      w->thread = std::thread([p = w.get()] { p->Loop(); });
    } catch (const std::system_error&) {
      break;  // the host starts no more threads: a smaller crew
    }
    crew.push_back(w.get());
    workers_.push_back(std::move(w));
  }
  return Crew(this, std::move(crew));
}

void WorkerPool::Return(std::vector<Worker*>& workers) {
  std::lock_guard<std::mutex> lock(mu_);
  idle_.insert(idle_.end(), workers.begin(), workers.end());
  workers.clear();
}

WorkerPool::Crew::Crew(Crew&& other) noexcept : pool_(other.pool_), workers_(std::move(other.workers_)) {
  other.workers_.clear();
}

WorkerPool::Crew::~Crew() {
  if (workers_.empty()) return;
  Wait();
  pool_->Return(workers_);
}

void WorkerPool::Crew::Start(const std::function<void()>& job) {
  for (Worker* w : workers_) {
    {
      std::lock_guard<std::mutex> lock(w->mu);
      w->job = &job;
    }
    w->cv.notify_all();
  }
}

void WorkerPool::Crew::Wait() {
  for (Worker* w : workers_) {
    std::unique_lock<std::mutex> lock(w->mu);
    w->cv.wait(lock, [&] { return w->job == nullptr; });
  }
}

}  // namespace scjit
