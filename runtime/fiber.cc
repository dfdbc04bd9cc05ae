#include "runtime/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "lowering/strings.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define SCJIT_ASAN 1
#else
#define SCJIT_ASAN 0
#endif

namespace scjit {

StackPool::~StackPool() {
  for (const Stack& s : free_) munmap(s.mapping, s.bytes);
}

absl::StatusOr<StackPool::Stack> StackPool::Acquire() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!free_.empty()) {
      Stack s = free_.back();
      free_.pop_back();
      return s;
    }
  }
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  size_t size = (stack_bytes_ + page - 1) / page * page + page;
  void* mapping = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (mapping == MAP_FAILED) {
    return absl::ResourceExhaustedError(Cat("cannot map a fiber stack of ", size, " bytes: ", std::strerror(errno)));
  }
  // The lowest page guards against overflow: the stack grows down into it.
  mprotect(mapping, page, PROT_NONE);
  return Stack{mapping, size};
}

void StackPool::Release(Stack stack) {
  std::lock_guard<std::mutex> lock(mu_);
  free_.push_back(stack);
}

absl::StatusOr<std::unique_ptr<Fiber>> Fiber::Create(std::function<void()> body, StackPool& pool) {
  absl::StatusOr<StackPool::Stack> stack = pool.Acquire();
  if (!stack.ok()) return stack.status();
  return std::unique_ptr<Fiber>(new Fiber(std::move(body), pool, *stack));
}

Fiber::Fiber(std::function<void()> body, StackPool& pool, StackPool::Stack stack)
    : body_(std::move(body)), pool_(pool), stack_(stack) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  getcontext(&context_);
  context_.uc_stack.ss_sp = static_cast<char*>(stack_.mapping) + page;
  context_.uc_stack.ss_size = stack_.bytes - page;
  context_.uc_link = &caller_;
  // makecontext passes int arguments: the pointer travels in two halves.
  auto self = reinterpret_cast<uintptr_t>(this);
  makecontext(&context_, reinterpret_cast<void (*)()>(&Fiber::Entry), 2, static_cast<unsigned>(self >> 32),
              static_cast<unsigned>(self & 0xffffffffu));
}

Fiber::~Fiber() { pool_.Release(stack_); }

void Fiber::Entry(unsigned hi, unsigned lo) {
  auto* fiber = reinterpret_cast<Fiber*>((static_cast<uintptr_t>(hi) << 32) | lo);
#if SCJIT_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &fiber->caller_stack_bottom_, &fiber->caller_stack_size_);
#endif
  fiber->body_();
  fiber->finished_ = true;
#if SCJIT_ASAN
  // Leaving for good: ASan may free this stack's fake frames.
  __sanitizer_start_switch_fiber(nullptr, fiber->caller_stack_bottom_, fiber->caller_stack_size_);
#endif
  // Returning switches to uc_link, the caller of Resume().
}

void Fiber::Resume() {
#if SCJIT_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, context_.uc_stack.ss_sp, context_.uc_stack.ss_size);
#endif
  swapcontext(&caller_, &context_);
#if SCJIT_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

void Fiber::Suspend() {
#if SCJIT_ASAN
  __sanitizer_start_switch_fiber(&fake_stack_, caller_stack_bottom_, caller_stack_size_);
#endif
  swapcontext(&context_, &caller_);
#if SCJIT_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_stack_bottom_, &caller_stack_size_);
#endif
}

}  // namespace scjit
