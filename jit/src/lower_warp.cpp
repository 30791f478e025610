// Warp-level operations: bar.warp.sync and, later, shfl/vote/match/redux at warp sync points.
#include "lowering.h"

namespace cucpu::jit {

bool KernelLowering::emitWarpInstruction(const ptx::Instruction &in) {
  if (in.opcode == "bar" && in.hasMod("warp")) // the lanes of a warp run in lockstep between
    return true;                                // warp-level synchronisation points
  return false;
}

} // namespace cucpu::jit
