// f32 arithmetic with a directed rounding mode through the CPU's own rounding control.
#pragma once

#include "cucpu/ptx/ast.h"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/PassManager.h>

#include <string>
#include <vector>

namespace cucpu::jit {

// Whether directed f32 rounding uses AVX-512's embedded rounding control: the host has AVX-512F
// and CUCPU_DIRECTED_ROUNDING is not "emulate" (the exact double-double emulation otherwise).
bool nativeDirectedRounding();

// op ("add", "mul", "div", "sqrt", "fma") on f32 operands, rounded toward zero (mode 3), -inf
// (1) or +inf (2): a call of cucpu.rnd.<op>.<mode>, a pure function whose 4-, 8- and 16-lane
// variants the loop vectoriser may call instead (declared alongside).
llvm::Value *emitDirectedCall(llvm::IRBuilder<> &b, ptx::Op op, int mode,
                              const std::vector<llvm::Value *> &args);

// After vectorisation: each call of cucpu.rnd.* (scalar or vector) becomes the 512-bit x86
// instruction with that rounding (vfmadd...ps {rd-sae} and the like), narrower values padded.
struct DirectedRoundingPass : llvm::PassInfoMixin<DirectedRoundingPass> {
  llvm::PreservedAnalyses run(llvm::Function &f, llvm::FunctionAnalysisManager &am);
};

} // namespace cucpu::jit
