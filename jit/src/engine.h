// The process-wide ORC LLJIT instance, with the optimisation pipeline for block functions.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

namespace cucpu::jit {

// The JIT, created on first use. Null (with the reason in `error`) if the host target could not
// be initialised.
llvm::orc::LLJIT *engine(std::string *error);

} // namespace cucpu::jit
