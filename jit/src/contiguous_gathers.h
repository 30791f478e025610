// After vectorisation: gathers and scatters through per-thread addresses kept in scratch memory.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cucpu::jit {

// A pointer that a thread carries across a barrier (nvcc's strength-reduced `p += stride` in a
// loop with __syncthreads, SGEMM's tile pointers) is saved in a context array, and the vectoriser
// sees lanes loaded from memory rather than `base + lane * size`: every access through it
// becomes a gather or a scatter. In nearly every kernel those lanes are consecutive elements.
// This pass guards each gather and scatter whose addresses (or indices) come from a load of
// scratch memory with a test of that at run time: lanes at p0, p0 + size, ... take one vector
// load or store (masked where the original was), anything else the original gather or scatter.
struct ContiguousGathersPass : llvm::PassInfoMixin<ContiguousGathersPass> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &am);
};

} // namespace cucpu::jit
