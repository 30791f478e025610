// Specialising a lowered block function on its launch's block shape (%ntid as constants).
#pragma once

#include <cstdint>

namespace llvm {
class Module;
class LLVMContext;
class MDNode;
} // namespace llvm

namespace cucpu::jit {

// Metadata kind on the loads of launch->block[d] (operand: d) and launch->nthreads (operand: 3)
// in a block function's entry.
inline constexpr const char *kBlockDimMetadata = "cucpu.ntid";
llvm::MDNode *blockDimTag(llvm::LLVMContext &ctx, unsigned dim);

// Replaces every tagged load in `m` by the constant the launch would have stored: the thread
// loops get constant trip counts and per-thread slab offsets become constants.
void specializeBlockShape(llvm::Module &m, const uint32_t block[3]);

} // namespace cucpu::jit
