// After vectorisation: non-temporal stores for grids whose output exceeds the last-level cache.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cucpu::jit {

// A store of a whole cache line that misses the cache first reads the line from memory (the
// write-allocate), so a kernel streaming its output moves 1.5x the bytes it must (vectorAdd 16 of
// 12 bytes per element). A non-temporal store writes the line without reading it, but also
// without keeping it: it only pays when the grid writes more than the last-level cache holds,
// which the driver tells through CUCPU_LAUNCH_STREAMING_STORES. Candidates are 64-byte vector
// stores (masked or not) that carry the `!noalias` of the scratch scope (a kernel's `.global`
// stores) and do not go to shared memory or scratch, in a function that loads nothing through
// the same address value (an in-place update finds its line in the cache) and in a block whose
// vector arithmetic is light (a compute-bound loop has time to let the write-allocate hide).
// Each becomes: launch flag set, address 64-byte aligned and every lane active ? non-temporal
// store : the original store; an sfence before returning and before each release store orders
// them as the original stores were.
struct StreamingStoresPass : llvm::PassInfoMixin<StreamingStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &am);
};

} // namespace cucpu::jit
