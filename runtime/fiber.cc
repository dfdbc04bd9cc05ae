#include "runtime/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "lowering/base/strings.h"
#include "runtime/host_memory.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#define SCJIT_ASAN 1
#else
#define SCJIT_ASAN 0
#endif
// ThreadSanitizer must be told of every switch, or it sees one thread's stack
// jump (and crashes on many-subcore launches); a switch also orders what the
// two sides did, as the scheduler's hand-over does.
#if defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface.h>
#define SCJIT_TSAN 1
#else
#define SCJIT_TSAN 0
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
    return HostMemoryError(static_cast<int64_t>(size), "a subcore's stack", std::strerror(errno));
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

// scjit_fiber_switch(save, load): pushes the callee-saved state on the current
// stack, stores the stack pointer in *save, switches to `load` and pops the
// state saved there. scjit_fiber_start is where a new fiber's first switch
// "returns" to: it calls Fiber::Entry(rbx) held in r12.
extern "C" void scjit_fiber_switch(void** save, void* load);
extern "C" void scjit_fiber_start();
asm(R"(
  .text
  .p2align 4
  .globl scjit_fiber_switch
  .type scjit_fiber_switch, @function
scjit_fiber_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size scjit_fiber_switch, .-scjit_fiber_switch

  .p2align 4
  .globl scjit_fiber_start
  .type scjit_fiber_start, @function
scjit_fiber_start:
  movq %rbx, %rdi
  callq *%r12
  ud2
  .size scjit_fiber_start, .-scjit_fiber_start
)");

Fiber::Fiber(std::function<void()> body, StackPool& pool, StackPool::Stack stack)
    : body_(std::move(body)), pool_(pool), stack_(stack) {
  size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  stack_bottom_ = static_cast<char*>(stack_.mapping) + page;
  stack_size_ = stack_.bytes - page;
#if SCJIT_ASAN
  // A reused stack still carries the redzones of the frames of its last fiber.
  __asan_unpoison_memory_region(stack_bottom_, stack_size_);
#endif
  // The first switch pops this frame: control state, r15..r12, rbx, rbp, and
  // returns into scjit_fiber_start with the stack 16-byte aligned.
  auto* top = reinterpret_cast<uint64_t*>(static_cast<char*>(stack_bottom_) + stack_size_);
  uint64_t* sp = top - 8;
  sp[0] = 0x1F80 | (uint64_t{0x037F} << 32);  // MXCSR and x87 control word defaults
  sp[1] = 0;                                   // r15
  sp[2] = 0;                                   // r14
  sp[3] = 0;                                   // r13
  sp[4] = reinterpret_cast<uint64_t>(&Fiber::Entry);  // r12
  sp[5] = reinterpret_cast<uint64_t>(this);           // rbx
  sp[6] = 0;                                          // rbp
  sp[7] = reinterpret_cast<uint64_t>(&scjit_fiber_start);
  sp_ = sp;
#if SCJIT_TSAN
  tsan_fiber_ = __tsan_create_fiber(0);
#endif
}

Fiber::~Fiber() {
#if SCJIT_TSAN
  __tsan_destroy_fiber(tsan_fiber_);
#endif
  pool_.Release(stack_);
}

void Fiber::TakeHandOver() {
  if (!handed_over_) return;
  handed_over_ = false;
  caller_stack_bottom_ = handed_bottom_;
  caller_stack_size_ = handed_size_;
}

void Fiber::Entry(Fiber* fiber) {
#if SCJIT_ASAN
  __sanitizer_finish_switch_fiber(nullptr, &fiber->caller_stack_bottom_, &fiber->caller_stack_size_);
#endif
  fiber->TakeHandOver();
  fiber->body_();
  fiber->finished_ = true;
#if SCJIT_ASAN
  // Leaving for good: ASan may free this stack's fake frames.
  __sanitizer_start_switch_fiber(nullptr, fiber->caller_stack_bottom_, fiber->caller_stack_size_);
#endif
#if SCJIT_TSAN
  __tsan_switch_to_fiber(fiber->tsan_caller_, 0);
#endif
  void* unused;
  scjit_fiber_switch(&unused, fiber->caller_sp_);
  __builtin_unreachable();
}

void Fiber::Resume() {
#if SCJIT_ASAN
  void* fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_bottom_, stack_size_);
#endif
#if SCJIT_TSAN
  tsan_caller_ = __tsan_get_current_fiber();
  __tsan_switch_to_fiber(tsan_fiber_, 0);
#endif
  scjit_fiber_switch(&caller_sp_, sp_);
#if SCJIT_ASAN
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#endif
}

void Fiber::Suspend() {
#if SCJIT_ASAN
  __sanitizer_start_switch_fiber(&fake_stack_, caller_stack_bottom_, caller_stack_size_);
#endif
#if SCJIT_TSAN
  __tsan_switch_to_fiber(tsan_caller_, 0);
#endif
  scjit_fiber_switch(&sp_, caller_sp_);
#if SCJIT_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_stack_bottom_, &caller_stack_size_);
#endif
  TakeHandOver();
}

void Fiber::SuspendTo(Fiber* next) {
  if (next == nullptr) return Suspend();
  // `next` returns where this one would have.
  next->caller_sp_ = caller_sp_;
  next->handed_over_ = true;
  next->handed_bottom_ = caller_stack_bottom_;
  next->handed_size_ = caller_stack_size_;
#if SCJIT_ASAN
  __sanitizer_start_switch_fiber(&fake_stack_, next->stack_bottom_, next->stack_size_);
#endif
#if SCJIT_TSAN
  next->tsan_caller_ = tsan_caller_;
  __tsan_switch_to_fiber(next->tsan_fiber_, 0);
#endif
  scjit_fiber_switch(&sp_, next->sp_);
#if SCJIT_ASAN
  __sanitizer_finish_switch_fiber(fake_stack_, &caller_stack_bottom_, &caller_stack_size_);
#endif
  TakeHandOver();
}

}  // namespace scjit
