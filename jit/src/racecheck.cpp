// racecheck's instrumentation (CUCPU_SANITIZER=racecheck): every plain load and store of the
// block's shared memory (through .shared addresses, or generic ones that land in the window) is
// passed to the race_access service, and every block barrier of the block scheduler, and the
// start of each block, to race_barrier, which divides the accesses into barrier intervals.
#include "lowering.h"

#include "kernel_abi.h"

#include <cstddef>

namespace cucpu::jit {

using llvm::Value;

bool KernelLowering::raceChecked() const { return loweringSwitches().racecheck; }

// Whether entering region r means the block passed a barrier of the program (or starts): not
// one of the lowering's own split points (loop heads, lockstep steps, waits).
bool KernelLowering::startsInterval(int r) const {
  const Region &region = regions_[size_t(r)];
  return r == 0 || !(region.implicit || region.warp || region.yield);
}

void KernelLowering::raceBarrier(int region) {
  if (!raceChecked() || !startsInterval(region))
    return;
  emitRaceBarrier(b.getInt32(~0u));
}

void KernelLowering::emitRaceBarrier(Value *warp) {
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy, b.getInt32Ty()}, false);
  b.CreateCall(fnTy, serviceFunction(offsetof(cucpu_services, race_barrier)),
               {launch_, sharedBase_, warp});
}

void KernelLowering::raceWarpSync(int region) {
  // The program's warp-level points order the warp's own accesses (__syncwarp, shfl.sync); the
  // lowering's lockstep steps do not.
  const auto &entry = blocks_[size_t(regions_[size_t(region)].entryBlock)].instrs;
  if (raceChecked() && !(entry.size() && entry.front().hasMod(kLockstepMod)))
    emitRaceBarrier(b.CreateUDiv(warpBase_, b.getInt32(32)));
}

void KernelLowering::raceBarrierAt(Value *region) {
  if (!raceChecked())
    return;
  std::vector<llvm::Constant *> flags;
  for (size_t r = 0; r < regions_.size(); ++r)
    flags.push_back(b.getInt8(startsInterval(int(r))));
  auto *tableTy = llvm::ArrayType::get(b.getInt8Ty(), flags.size());
  auto *table =
      new llvm::GlobalVariable(*ms.mod, tableTy, true, llvm::GlobalValue::PrivateLinkage,
                               llvm::ConstantArray::get(tableTy, flags), "racecheck.intervals");
  Value *known = b.CreateICmpULT(region, b.getInt32(uint32_t(regions_.size())));
  Value *index = b.CreateZExt(b.CreateSelect(known, region, b.getInt32(0)), b.getInt64Ty());
  Value *flag = b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), table, index));
  llvm::BasicBlock *call = llvm::BasicBlock::Create(ctx, "racecheck.barrier", f_);
  llvm::BasicBlock *cont = llvm::BasicBlock::Create(ctx, "racecheck.interval", f_);
  b.CreateCondBr(b.CreateAnd(known, b.CreateICmpNE(flag, b.getInt8(0))), call, cont);
  b.SetInsertPoint(call);
  emitRaceBarrier(b.getInt32(~0u));
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
}

void KernelLowering::raceAccess(const ptx::Instruction &in, Value *p, ptx::Space space,
                                unsigned bytes, unsigned access, Value *stored) {
  if (!raceChecked() || (space != ptx::Space::Shared && space != ptx::Space::None))
    return;
  auto *i64 = b.getInt64Ty();
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  Value *a = b.CreatePtrToInt(p, i64);
  Value *offset = b.CreateSub(a, b.CreatePtrToInt(sharedBase_, i64));
  llvm::BasicBlock *call = llvm::BasicBlock::Create(ctx, "racecheck.shared", f_);
  llvm::BasicBlock *cont = llvm::BasicBlock::Create(ctx, "racecheck.done", f_);
  // A generic address outside the window is global or local memory: not checked.
  b.CreateCondBr(b.CreateICmpULT(offset, sharedWindowBytes()), call, cont);
  b.SetInsertPoint(call);
  Value *value = b.getInt64(0);
  if (stored && bytes <= 8 && stored->getType()->getPrimitiveSizeInBits() == bytes * 8) {
    value = b.CreateBitCast(stored, b.getIntNTy(bytes * 8));
    value = b.CreateZExt(value, i64);
  }
  auto *fnTy =
      llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy, i64, ptrTy, i64, ptrTy}, false);
  b.CreateCall(fnTy, serviceFunction(offsetof(cucpu_services, race_access)),
               {launch_, accessSite(in, CUCPU_SPACE_SHARED, bytes, access), offset, threadWhere(),
                value, sharedBase_});
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
}

} // namespace cucpu::jit
