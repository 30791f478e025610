// Kernel faults: a bad memory access, trap or failed assert in generated code ends the grid and
// is reported to the launcher instead of killing the process.
#pragma once

#include <cstdint>

namespace cucpu::exec {

enum class FaultKind {
  None,
  IllegalAddress,
  IllegalInstruction,
  Trap,
  Assert,
  Arithmetic,
  InvalidPc // a call through a pointer to no function
};

struct Fault {
  FaultKind kind = FaultKind::None;
  uintptr_t address = 0; // the faulting address (IllegalAddress), the bad pointer (InvalidPc)
};

// Ends the block running on the calling worker and the grid it belongs to, reporting `kind`.
// Only valid while a block function runs (from runtime services called by generated code).
[[noreturn]] void raiseFault(FaultKind kind, uintptr_t address = 0);

// Installs the signal handlers that turn faults inside generated code into Fault reports
// (idempotent). Faults anywhere else go to the handlers that were installed before.
void installFaultHandlers();

// Gives the calling thread an alternate signal stack, so a stack overflow in generated code can
// be reported too. Done for every pool worker.
void ensureAltStack();

} // namespace cucpu::exec
