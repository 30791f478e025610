// The process-wide ORC LLJIT instance, with the optimisation pipeline for block functions.
#pragma once

#include <llvm/ExecutionEngine/Orc/LLJIT.h>

#include <memory>
#include <string>

namespace cucpu::jit {

// The JIT, created on first use. Null (with the reason in `error`) if the host target could not
// be initialised.
llvm::orc::LLJIT *engine(std::string *error);

// The optimisation pipeline block functions get (also used by the PTX tool to show its result).
void optimizeModule(llvm::Module &m);
// Optimises `m` and generates a relocatable object for the host CPU (what the JIT links).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> compileObject(llvm::Module &m);
// The code generator's identity for cache keys: LLVM's version, target triple, CPU, features.
const std::string &targetIdentity();
// Native assembly of an optimised module for the host CPU.
std::string assembly(llvm::Module &m);

} // namespace cucpu::jit
