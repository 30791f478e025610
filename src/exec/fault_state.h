// Per-worker fault state shared by the block loop and the signal handler.
#pragma once

#include "cucpu/exec/fault.h"

#include <csetjmp>

namespace cucpu::exec {

struct WorkerFaultState {
  sigjmp_buf jump;
  volatile bool armed = false; // a block function is running on this thread
  Fault fault;
};

extern thread_local WorkerFaultState tlsFault;

} // namespace cucpu::exec
