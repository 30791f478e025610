// Registering cucpu's LLVM passes with a PassBuilder, so pipelines name them.
#pragma once

namespace llvm {
class PassBuilder;
} // namespace llvm

namespace cucpu::jit {

// Makes every pass of cucpu::jit::passNames() parsable in `pb`'s pipelines.
void registerCucpuPasses(llvm::PassBuilder &pb);

} // namespace cucpu::jit
