// The process-wide ORC LLJIT instance, with the optimisation pipeline for block functions.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

namespace cucpu::jit {

// The JIT, created on first use. Null (with the reason in `error`) if the host target could not
// be initialised.
llvm::orc::LLJIT *engine(std::string *error);

// The optimisation pipeline block functions get (also used by the PTX tool to show its result).
void optimizeModule(llvm::Module &m);
// Native assembly of an optimised module for the host CPU.
std::string assembly(llvm::Module &m);

} // namespace cucpu::jit
