// Ctrl-C during a launch from Python: while a launch runs (the GIL
// released), SIGINT sets a flag the launch polls (LaunchOptions::interrupt)
// and is passed on to the handler installed before (Python's, which raises
// KeyboardInterrupt once the launch has returned). Without it a kernel that
// spins ignores Ctrl-C, and only SIGKILL ends the process.
//
// Thread safety: any number of launches on any threads may hold a guard at
// once; the first installs the handler, the last restores the one before,
// and SIGINT stops every launch running then. (A signal handler reaches only
// state of static storage: the flag and the saved handler are this file's.)
#ifndef SCJIT_PYTHON_SRC_INTERRUPT_H_
#define SCJIT_PYTHON_SRC_INTERRUPT_H_

#include <atomic>

namespace scjit {

class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The flag for LaunchOptions::interrupt: set once SIGINT arrived while a
  // guard was held (it stays set until the last guard ends).
  const std::atomic<bool>* flag() const;
  bool interrupted() const;
};

}  // namespace scjit

#endif  // SCJIT_PYTHON_SRC_INTERRUPT_H_
