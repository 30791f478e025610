// perf(1) symbol map for generated code: CUCPU_PERF_MAP=1 names every JIT-compiled block function
// in /tmp/perf-<pid>.map, so `perf report` attributes samples to kernels.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

namespace cucpu::jit {

// Installs the map writer on the JIT's object linking layer when CUCPU_PERF_MAP is set.
void enablePerfMapIfRequested(llvm::orc::LLJIT &jit);

} // namespace cucpu::jit
