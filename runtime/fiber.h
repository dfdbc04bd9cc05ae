// Fiber: a subcore's own stack, so that a kernel blocked in the runtime (barrier,
// semaphore and DMA waits) parks without holding a host thread.
//
// Switching saves and restores only what the x86-64 System V ABI says a call
// preserves (rbx, rbp, r12-r15, the stack pointer, MXCSR and the x87 control
// word): a few nanoseconds, with no system call (ucontext's swapcontext makes
// two, and AddressSanitizer does not support it).
#ifndef SCJIT_RUNTIME_FIBER_H_
#define SCJIT_RUNTIME_FIBER_H_

#include <cstddef>
#include <functional>
#include <mutex>
#include <vector>

#include "absl/status/statusor.h"

namespace scjit {

// Fiber stacks, kept for reuse: mapping and unmapping a stack per subcore per
// launch costs more than a small kernel. Thread-safe.
class StackPool {
 public:
  explicit StackPool(size_t stack_bytes = size_t{1} << 20) : stack_bytes_(stack_bytes) {}
  ~StackPool();
  StackPool(const StackPool&) = delete;
  StackPool& operator=(const StackPool&) = delete;

  struct Stack {
    void* mapping = nullptr;  // guard page first
    size_t bytes = 0;
  };
  size_t stack_bytes() const { return stack_bytes_; }
  absl::StatusOr<Stack> Acquire();
  void Release(Stack stack);

 private:
  size_t stack_bytes_;
  std::mutex mu_;
  std::vector<Stack> free_;
};

// A body run on its own stack. Resume() runs it until it calls Suspend() or
// returns; Suspend() goes back to whoever called Resume(). A fiber may be
// resumed from a different thread each time, never from two at once. Not
// thread-safe otherwise.
class Fiber {
 public:
  // Takes a stack from `pool` (returned when the fiber is destroyed).
  static absl::StatusOr<std::unique_ptr<Fiber>> Create(std::function<void()> body, StackPool& pool);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the fiber until it suspends or finishes. Must not be called on a
  // finished fiber.
  void Resume();
  // From inside the fiber: returns to the Resume() caller.
  void Suspend();
  // From inside the fiber: runs `next` (not finished, and not running) in its
  // place, as if its Resume() caller had resumed it: one switch instead of
  // two through the caller. Null `next`: Suspend().
  void SuspendTo(Fiber* next);
  bool finished() const { return finished_; }

 private:
  Fiber(std::function<void()> body, StackPool& pool, StackPool::Stack stack);
  static void Entry(Fiber* fiber);
  // After a switch into this fiber: ASan's record of the stack it came from
  // is the fiber that handed over, if one did; its caller's is what to keep.
  void TakeHandOver();

  std::function<void()> body_;
  StackPool& pool_;
  StackPool::Stack stack_;
  void* sp_ = nullptr;         // the fiber's saved stack pointer
  void* caller_sp_ = nullptr;  // the Resume() caller's
  void* stack_bottom_ = nullptr;
  size_t stack_size_ = 0;
  bool finished_ = false;
  // AddressSanitizer's bookkeeping of the stack being left.
  void* fake_stack_ = nullptr;
  const void* caller_stack_bottom_ = nullptr;
  size_t caller_stack_size_ = 0;
  bool handed_over_ = false;  // SuspendTo ran this one: keep the caller's stack
  const void* handed_bottom_ = nullptr;
  size_t handed_size_ = 0;
  // ThreadSanitizer's fibers: this one, and the one that resumed it.
  void* tsan_fiber_ = nullptr;
  void* tsan_caller_ = nullptr;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_FIBER_H_
