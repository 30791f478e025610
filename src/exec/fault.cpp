// Fault containment: signal handlers jump out of generated code back to the worker's block loop.
#include "cucpu/exec/fault.h"

#include "fault_state.h"

#include <csignal>
#include <cstdlib>
#include <mutex>

namespace cucpu::exec {

thread_local WorkerFaultState tlsFault;

namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE};
struct sigaction previous[sizeof kSignals / sizeof kSignals[0]];

FaultKind kindOf(int sig) {
  switch (sig) {
  case SIGSEGV:
  case SIGBUS:
    return FaultKind::IllegalAddress;
  case SIGILL:
    return FaultKind::IllegalInstruction;
  default:
    return FaultKind::Arithmetic;
  }
}

void handler(int sig, siginfo_t *info, void *uctx) {
  WorkerFaultState &st = tlsFault;
  if (st.armed) {
    st.armed = false;
    st.fault.kind = kindOf(sig);
    st.fault.address = reinterpret_cast<uintptr_t>(info ? info->si_addr : nullptr);
    siglongjmp(st.jump, 1);
  }
  // Not ours: hand the signal to whoever had it before.
  for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
    if (kSignals[i] != sig)
      continue;
    const struct sigaction &old = previous[i];
    if (old.sa_flags & SA_SIGINFO) {
      old.sa_sigaction(sig, info, uctx);
      return;
    }
    if (old.sa_handler == SIG_IGN)
      return;
    if (old.sa_handler != SIG_DFL) {
      old.sa_handler(sig);
      return;
    }
    // Default action: restore it; returning re-executes the faulting instruction.
    signal(sig, SIG_DFL);
    return;
  }
}

} // namespace

void raiseFault(FaultKind kind, uintptr_t address) {
  WorkerFaultState &st = tlsFault;
  if (!st.armed)
    std::abort(); // a service was called outside a block function: a runtime bug
  st.armed = false;
  st.fault.kind = kind;
  st.fault.address = address;
  siglongjmp(st.jump, 1);
}

void installFaultHandlers() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (size_t i = 0; i < sizeof kSignals / sizeof kSignals[0]; ++i) {
      struct sigaction sa {};
      sa.sa_sigaction = handler;
      sigemptyset(&sa.sa_mask);
      sa.sa_flags = SA_SIGINFO | SA_NODEFER | SA_ONSTACK;
      sigaction(kSignals[i], &sa, &previous[i]);
    }
  });
}

void ensureAltStack() {
  static constexpr size_t kSize = 64 * 1024;
  stack_t current{};
  if (sigaltstack(nullptr, &current) == 0 && !(current.ss_flags & SS_DISABLE))
    return; // the thread has one already
  thread_local void *mem = nullptr;
  if (!mem)
    mem = std::malloc(kSize);
  if (!mem)
    return;
  stack_t st{};
  st.ss_sp = mem;
  st.ss_size = kSize;
  sigaltstack(&st, nullptr);
}

} // namespace cucpu::exec
