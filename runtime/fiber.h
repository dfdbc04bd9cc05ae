// Fiber: a subcore's own stack, so that a kernel blocked in the runtime (barrier,
// semaphore and DMA waits) parks without holding a host thread.
#ifndef SCJIT_RUNTIME_FIBER_H_
#define SCJIT_RUNTIME_FIBER_H_

#include <ucontext.h>

#include <cstddef>
#include <functional>

#include "absl/status/statusor.h"

namespace scjit {

// A body run on its own stack. Resume() runs it until it calls Suspend() or
// returns; Suspend() goes back to whoever called Resume(). A fiber may be
// resumed from a different thread each time, never from two at once. Not
// thread-safe otherwise.
class Fiber {
 public:
  // Reserves `stack_bytes` of stack (lazily committed) below a guard page.
  static absl::StatusOr<std::unique_ptr<Fiber>> Create(std::function<void()> body, size_t stack_bytes);
  ~Fiber();
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Runs the fiber until it suspends or finishes. Must not be called on a
  // finished fiber.
  void Resume();
  // From inside the fiber: returns to the Resume() caller.
  void Suspend();
  bool finished() const { return finished_; }

 private:
  Fiber(std::function<void()> body, void* stack, size_t mapped);
  static void Entry(unsigned hi, unsigned lo);

  std::function<void()> body_;
  void* mapping_;         // the mmap'ed region, guard page first
  size_t mapped_bytes_;
  ucontext_t context_;    // the fiber's
  ucontext_t caller_;     // the Resume() caller's
  bool finished_ = false;
  // AddressSanitizer's bookkeeping of the stack being left.
  void* fake_stack_ = nullptr;
  const void* caller_stack_bottom_ = nullptr;
  size_t caller_stack_size_ = 0;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_FIBER_H_
