// Named barriers with a thread count: `bar.sync a, b` waits until b threads have arrived at
// barrier a (by bar.sync or bar.arrive); `bar.arrive a, b` counts without waiting. The block
// counts arrivals per barrier and only runs a region waiting at a named barrier once its count
// is complete, which makes producer/consumer protocols between warps work.
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::Value;

// The barrier id and thread count of bar.sync/bar.arrive a, b and bar.red d, a, b, c
// (immediates, or registers holding one constant).
void KernelLowering::countedBarrier(const ptx::Instruction &in, uint32_t &id,
                                    uint32_t &count) const {
  const bool red = in.hasMod("red");
  if (in.operands.size() != (red ? 4u : 2u))
    throwInvalid(in.loc, red ? "bar.red with a thread count needs d, a, b, c"
                             : "bar.arrive needs a barrier and a thread count");
  const ptx::Operand *o = in.operands.data() + (red ? 1 : 0);
  // An immediate, or a register holding one (the only thing ever moved into it).
  auto constant = [&](const ptx::Operand &op) -> int64_t {
    if (op.kind == ptx::Operand::Kind::Imm)
      return op.imm;
    if (op.kind == ptx::Operand::Kind::Reg)
      if (auto v = constantRegister(op.name))
        return *v;
    throwUnsupported(in.loc,
                     "named barrier with a barrier id or thread count computed at run time");
  };
  const int64_t barrier = constant(o[0]), threads = constant(o[1]);
  if (barrier < 0 || barrier >= int64_t(kNamedBarriers))
    throwInvalid(in.loc, "barrier id " + std::to_string(barrier) + " outside 0..15");
  if (threads <= 0 || threads % 32 != 0)
    throwInvalid(in.loc, "barrier thread count " + std::to_string(threads) +
                             " is not a positive multiple of 32");
  id = static_cast<uint32_t>(barrier);
  count = static_cast<uint32_t>(threads);
}

void KernelLowering::countArrival(uint32_t id) {
  Value *p = b.CreateConstGEP2_32(barrierCounts_->getAllocatedType(), barrierCounts_, 0, id);
  b.CreateStore(b.CreateAdd(b.CreateLoad(b.getInt32Ty(), p), b.getInt32(1)), p);
}

// The region to run next when named barriers exist: the smallest state of any thread that is not
// waiting at an incomplete named barrier (a named barrier is complete when its arrivals reach its
// thread count, or every thread that has not exited). The chosen barrier's arrivals are used up.
// With none runnable (a protocol that cannot finish), the smallest state runs, so the block
// still ends. `together` becomes: every thread resumes at the chosen region.
Value *KernelLowering::pickWithNamedBarriers(Value *smallest, Value *&together) {
  auto *i32 = b.getInt32Ty();
  const int32_t exited = kExited;
  auto counter = [&](uint32_t id) {
    return b.CreateConstGEP2_32(barrierCounts_->getAllocatedType(), barrierCounts_, 0, id);
  };
  // Threads still running.
  Value *live2 = foldLoop(
      nthreads_, {b.getInt32(0)},
      [&](Value *t, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *st = b.CreateLoad(i32, threadSlot(stateOff_, 4, t));
        return {b.CreateAdd(a[0], b.CreateZExt(b.CreateICmpNE(st, b.getInt32(exited)), i32))};
      },
      "named.live")[0];
  // Which regions wait at an incomplete named barrier.
  std::vector<std::pair<int, Value *>> blocked;
  std::vector<std::pair<int, Value *>> needed;
  for (size_t r = 1; r < regions_.size(); ++r)
    if (regions_[r].count) {
      Value *need =
          b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.getInt32(regions_[r].count), live2);
      Value *have = b.CreateLoad(i32, counter(regions_[r].barrierId));
      blocked.emplace_back(static_cast<int>(r), b.CreateICmpULT(have, need));
      needed.emplace_back(static_cast<int>(r), need);
    }
  // The smallest runnable state.
  Value *best2 = foldLoop(
      nthreads_, {b.getInt32(exited)},
      [&](Value *u, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *s2 = b.CreateLoad(i32, threadSlot(stateOff_, 4, u));
        Value *cand = s2;
        for (auto &[r, isBlocked] : blocked)
          cand = b.CreateSelect(b.CreateAnd(b.CreateICmpEQ(s2, b.getInt32(r)), isBlocked),
                                b.getInt32(exited), cand);
        return {b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[0], cand)};
      },
      "named.scan")[0];
  Value *pick = b.CreateSelect(b.CreateICmpEQ(best2, b.getInt32(exited)), smallest, best2);
  for (auto &[r, need] : needed) { // the chosen barrier's arrivals are consumed
    Value *p = counter(regions_[r].barrierId);
    Value *cur = b.CreateLoad(i32, p);
    Value *used =
        b.CreateSelect(b.CreateICmpEQ(pick, b.getInt32(r)),
                       b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, need, cur), b.getInt32(0));
    b.CreateStore(b.CreateSub(cur, used), p);
  }
  together = b.CreateAnd(together, b.CreateICmpEQ(pick, smallest));
  return pick;
}

} // namespace cucpu::jit
