// Lockstep for warp-synchronous code: a converged warp's lanes run each instruction together, so
// code written for it (the reduction samples' last-warp unrolling over `volatile` shared memory,
// padded warp scans) reads what every lane stored one step before. cucpu runs a region lane after
// lane, so a volatile access that would see a neighbour's store (or let a neighbour's load see its
// own) starts a warp-level step: every lane finishes the accesses before it first.
#include "lowering.h"
#include "ptx_build.h"

namespace cucpu::jit {

namespace {

// A volatile load or store other lanes can see (not `.local` or `.param`).
enum class Access { None, Load, Store };

Access volatileAccess(const ptx::Instruction &in) {
  if ((in.op != Op::ld && in.op != Op::st) || !in.has(Mod::volatile_))
    return Access::None;
  if (in.has(Mod::local) || in.has(Mod::param) || in.has(Mod::const_))
    return Access::None;
  return in.op == Op::ld ? Access::Load : Access::Store;
}

} // namespace

bool KernelLowering::LockstepSteps::needsStep(const ptx::Instruction &in) const {
  // Loads after loads commute across lanes; anything after a store, or a store after a load,
  // would let one lane see (or hide) another lane's access of the same step.
  const Access a = volatileAccess(in);
  return a != Access::None && (stored_ || (a == Access::Store && loaded_));
}

void KernelLowering::LockstepSteps::noteAccess(const ptx::Instruction &in) {
  const Access a = volatileAccess(in);
  loaded_ = loaded_ || a == Access::Load;
  stored_ = stored_ || a == Access::Store;
}

void KernelLowering::LockstepSteps::labelReached() {
  // Control may arrive from anywhere in the region (a loop's back edge after its stores).
  loaded_ = stored_ = true;
}

void KernelLowering::LockstepSteps::regionStarted() { loaded_ = stored_ = false; }

// The step itself: `bar.warp.sync` of the lanes that reach it, which the warp scheduler runs
// as a region boundary.
ptx::Instruction KernelLowering::warpStep(const ptx::SourceLoc &loc) {
  return build::instruction(loc, "bar", {"warp", "sync"}, {}, {build::imm(-1, loc)});
}

} // namespace cucpu::jit
