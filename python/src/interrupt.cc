#include "python/src/interrupt.h"

#include <signal.h>

#include <mutex>

namespace scjit {

namespace {

std::atomic<bool> sigint_seen{false};
struct sigaction previous {};
std::mutex guards_mu;
int guards = 0;  // held now

void OnInterrupt(int signal, siginfo_t* info, void* context) {
  sigint_seen.store(true, std::memory_order_relaxed);
  // Python's handler only notes the signal (KeyboardInterrupt comes at its
  // next check); a default action would end the process, as without us.
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal, info, context);
  } else if (previous.sa_handler != SIG_IGN && previous.sa_handler != SIG_DFL && previous.sa_handler != nullptr) {
    previous.sa_handler(signal);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  std::lock_guard<std::mutex> lock(guards_mu);
  if (guards++ > 0) return;
  sigint_seen.store(false, std::memory_order_relaxed);
  struct sigaction now {};
  now.sa_sigaction = OnInterrupt;
  now.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&now.sa_mask);
  sigaction(SIGINT, &now, &previous);
}

InterruptGuard::~InterruptGuard() {
  std::lock_guard<std::mutex> lock(guards_mu);
  if (--guards > 0) return;
  sigaction(SIGINT, &previous, nullptr);
}

const std::atomic<bool>* InterruptGuard::flag() const { return &sigint_seen; }

bool InterruptGuard::interrupted() const { return sigint_seen.load(std::memory_order_relaxed); }

}  // namespace scjit
