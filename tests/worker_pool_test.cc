// WorkerPool (runtime/worker_pool.h): a crew runs a job once on each of its
// threads, the threads come back for the next lease instead of new ones, and
// crews leased at once do not share a thread.
#include "runtime/worker_pool.h"

#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "gtest/gtest.h"

namespace scjit {
namespace {

// The ids of the threads that ran `crew`'s job, over `rounds` starts.
std::multiset<std::thread::id> RunJob(WorkerPool::Crew& crew, int rounds) {
  std::mutex mu;
  std::multiset<std::thread::id> ids;
  const std::function<void()> job = [&] {
    std::lock_guard<std::mutex> lock(mu);
    ids.insert(std::this_thread::get_id());
  };
  for (int r = 0; r < rounds; ++r) {
    crew.Start(job);
    crew.Wait();
  }
  return ids;
}

TEST(WorkerPoolTest, ACrewRunsTheJobOncePerThreadEachTime) {
  WorkerPool pool;
  WorkerPool::Crew crew = pool.Lease(3);
  ASSERT_EQ(crew.size(), 3);
  std::multiset<std::thread::id> ids = RunJob(crew, 5);
  EXPECT_EQ(ids.size(), 15u);
  std::set<std::thread::id> distinct(ids.begin(), ids.end());
  EXPECT_EQ(distinct.size(), 3u);
  for (std::thread::id id : distinct) EXPECT_EQ(ids.count(id), 5u);
  EXPECT_EQ(distinct.count(std::this_thread::get_id()), 0u);
}

TEST(WorkerPoolTest, ThreadsAreReusedByTheNextLease) {
  WorkerPool pool;
  std::multiset<std::thread::id> first, second;
  {
    WorkerPool::Crew crew = pool.Lease(2);
    first = RunJob(crew, 1);
  }
  {
    WorkerPool::Crew crew = pool.Lease(2);
    second = RunJob(crew, 1);
  }
  EXPECT_EQ(first, second);
}

TEST(WorkerPoolTest, CrewsLeasedAtOnceShareNoThread) {
  WorkerPool pool;
  WorkerPool::Crew a = pool.Lease(2);
  WorkerPool::Crew b = pool.Lease(2);
  std::multiset<std::thread::id> ids_a = RunJob(a, 1), ids_b = RunJob(b, 1);
  for (std::thread::id id : ids_a) EXPECT_EQ(ids_b.count(id), 0u);
}

TEST(WorkerPoolTest, AnEmptyCrewRunsNothing) {
  WorkerPool pool;
  WorkerPool::Crew crew = pool.Lease(0);
  EXPECT_EQ(crew.size(), 0);
  EXPECT_TRUE(RunJob(crew, 3).empty());
}

#if !defined(__SANITIZE_THREAD__)  // (ThreadSanitizer does not follow threads made after a fork)
TEST(WorkerPoolTest, AChildOfForkMakesThreadsOfItsOwn) {
  WorkerPool pool;
  {
    // The parent's threads, idle now: each has run a job, so none is still
    // starting when the fork comes (a thread mid-start can hold a lock of the
    // C library's or a sanitizer's that the child would then wait on forever).
    WorkerPool::Crew crew = pool.Lease(2);
    ASSERT_EQ(RunJob(crew, 1).size(), 2u);
  }
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The parent's threads do not exist here: a crew of them would never run.
    alarm(20);
    WorkerPool::Crew crew = pool.Lease(2);
    bool ok = crew.size() == 2 && RunJob(crew, 3).size() == 6;
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status)) << "the child did not exit (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}
#endif

}  // namespace
}  // namespace scjit
