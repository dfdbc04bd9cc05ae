// WorkerPool: host threads kept between launches. Starting and joining a
// thread costs tens of microseconds, more than a small kernel's whole launch
// (a 2 MiB add-one runs in 0.1-0.2 ms), so a kernel's launches lease their
// helper threads from a pool its compiled code owns, as they take fiber
// stacks from a StackPool.
//
// Thread-safe: launches running at once lease disjoint crews (the pool makes
// threads as needed). A Crew is used by the thread that leased it.
//
// A child process made by fork() has none of its parent's threads: the pool
// forgets them there (they are never joined, their few bytes never freed) and
// makes new ones, so a kernel compiled before a fork launches in the child.
#ifndef SCJIT_RUNTIME_WORKER_POOL_H_
#define SCJIT_RUNTIME_WORKER_POOL_H_

#include <sys/types.h>

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace scjit {

class WorkerPool {
  struct Worker;

 public:
  WorkerPool();
  ~WorkerPool();  // joins every thread (no crew may be leased then)
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  // Up to `n` threads for one launch (fewer when the host will not start
  // more), returned to the pool when the crew is destroyed.
  class Crew {
   public:
    Crew(Crew&& other) noexcept;
    Crew& operator=(Crew&&) = delete;
    ~Crew();
    int size() const { return static_cast<int>(workers_.size()); }
    // Runs job() once on every thread of the crew; the caller may do its own
    // share meanwhile, then Wait()s. `job` must live until Wait returns.
    void Start(const std::function<void()>& job);
    void Wait();

   private:
    friend class WorkerPool;
    Crew(WorkerPool* pool, std::vector<Worker*> workers) : pool_(pool), workers_(std::move(workers)) {}
    WorkerPool* pool_;
    std::vector<Worker*> workers_;
  };
  Crew Lease(int n);

 private:
  struct Worker {
    std::mutex mu;
    std::condition_variable cv;
    const std::function<void()>* job = nullptr;  // set: run it, then clear it
    bool stop = false;
    std::thread thread;
    void Loop();
  };
  void Return(std::vector<Worker*>& workers);
  // In a child of fork(): forgets the parent's threads (mu_ held).
  void ForgetForkedThreads();

  std::mutex mu_;
  pid_t pid_;  // the process whose threads workers_ are
  std::vector<std::unique_ptr<Worker>> workers_;  // every thread made
  std::vector<Worker*> idle_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_WORKER_POOL_H_
