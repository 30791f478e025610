// Keeps thread loops annotated as parallel through the optimisation pipeline.
#pragma once

#include <llvm/IR/PassManager.h>

namespace cucpu::jit {

// Metadata kind naming the load of the block's scratch pointer (context arrays, resume states).
inline constexpr const char *kScratchMetadata = "cucpu.scratch";

// Every access of a thread loop is tagged with the loop's access group, which tells the
// vectoriser that threads between two barriers are independent. InstCombine and SimplifyCFG drop
// the tag when they merge stores (a thread's resume state written on two paths becomes one store
// of a phi), and a loop with one untagged access is no longer parallel. Run just before the loop
// vectoriser, this pass tags again the untagged accesses to the block's scratch memory inside a
// parallel thread loop: each thread's slot there is its own, and the only slots threads share
// hold block-uniform values, which every thread writes alike.
struct RetagThreadLoopsPass : llvm::PassInfoMixin<RetagThreadLoopsPass> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &am);
};

// After vectorisation: a block-uniform register saved in a thread loop is the same value
// stored by every thread to one scratch slot, which the vectoriser turns into a scatter (a
// dozen cycles per lane). One scalar store when any lane is active does the same.
struct UniformScratchStoresPass : llvm::PassInfoMixin<UniformScratchStoresPass> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &am);
};

} // namespace cucpu::jit
