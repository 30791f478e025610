// Named barriers with a thread count: `bar.sync a, b` waits until b threads have arrived at
// barrier a (by bar.sync or bar.arrive); `bar.arrive a, b` counts without waiting. The block
// counts arrivals per barrier and only runs a region waiting at a named barrier once its count
// is complete, which makes producer/consumer protocols between warps work. Ids and counts may be
// computed at run time (warp-specialised kernels name one barrier per group of warps): each
// thread then records its own, and the block releases one barrier's threads at a time.
#include "lowering.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::Value;

namespace {
// Bytes 4-7 of a thread's published operands hold the id of the named barrier it waits at
// (byte 0 is bar.red's predicate; a thread waiting at a barrier publishes nothing else).
constexpr unsigned kWaitIdOffset = 4;
constexpr uint32_t kAnyBarrier = ~0u; // released: every thread waiting at the region (a deadlock)
} // namespace

// The barrier id and thread count of bar.sync/bar.arrive a, b and bar.red d, a, b, c when both
// are immediates or registers holding one constant; false when either is computed at run time.
bool KernelLowering::countedBarrier(const ptx::Instruction &in, uint32_t &id,
                                    uint32_t &count) const {
  const bool red = in.has(Mod::red);
  if (in.operands.size() != (red ? 4u : 2u))
    throwInvalid(in.loc, red ? "bar.red with a thread count needs d, a, b, c"
                             : "bar.arrive needs a barrier and a thread count");
  const ptx::Operand *o = in.operands.data() + (red ? 1 : 0);
  // An immediate, or a register holding one (the only thing ever moved into it).
  auto constant = [&](const ptx::Operand &op) -> std::optional<int64_t> {
    if (op.kind == ptx::Operand::Kind::Imm)
      return op.imm;
    if (op.kind == ptx::Operand::Kind::Reg)
      return constantRegister(op.name);
    throwInvalid(in.loc, "a barrier id or thread count must be an immediate or a register");
  };
  const auto barrier = constant(o[0]), threads = constant(o[1]);
  if (barrier && (*barrier < 0 || *barrier >= int64_t(kNamedBarriers)))
    throwInvalid(in.loc, "barrier id " + std::to_string(*barrier) + " outside 0..15");
  if (threads && (*threads <= 0 || *threads % 32 != 0))
    throwInvalid(in.loc, "barrier thread count " + std::to_string(*threads) +
                             " is not a positive multiple of 32");
  if (!barrier || !threads)
    return false;
  id = static_cast<uint32_t>(*barrier);
  count = static_cast<uint32_t>(*threads);
  return true;
}

llvm::Value *KernelLowering::barrierSlot(llvm::AllocaInst *array, Value *id) {
  return b.CreateGEP(array->getAllocatedType(), array, {b.getInt32(0), id});
}

void KernelLowering::countArrival(Value *id) {
  Value *p = barrierSlot(barrierCounts_, id);
  b.CreateStore(b.CreateAdd(b.CreateLoad(b.getInt32Ty(), p), b.getInt32(1)), p);
}

// A thread at a named barrier whose id or count it computed: its id (the low four bits, as an
// H100 runs `bar.sync` with id 16 or 17 without an error) becomes the barrier's, its count the
// number of arrivals that barrier needs, and the arrival is counted. Returns the id.
Value *KernelLowering::arriveAtNamedBarrier(const ptx::Instruction &in) {
  const ptx::Operand *o = in.operands.data() + (in.has(Mod::red) ? 1 : 0);
  Value *id = b.CreateAnd(read(o[0], ptx::Type::U32, in), b.getInt32(kNamedBarriers - 1));
  b.CreateStore(read(o[1], ptx::Type::U32, in), barrierSlot(barrierNeeds_, id));
  countArrival(id);
  return id;
}

// The id of the barrier thread t waits at (block mode: scratch; written at its arrival).
Value *KernelLowering::waitingBarrier(Value *t) {
  Value *p = b.CreateConstGEP1_32(b.getInt8Ty(), threadSlot(pubOff_, pubBytes_, t), kWaitIdOffset);
  return b.CreateAnd(b.CreateLoad(b.getInt32Ty(), p), b.getInt32(kNamedBarriers - 1));
}

void KernelLowering::recordWaitingBarrier(Value *id) {
  Value *p =
      b.CreateConstGEP1_32(b.getInt8Ty(), threadSlot(pubOff_, pubBytes_, linearTid_), kWaitIdOffset);
  tagMemory(b.CreateStore(id, p));
}

// Whether thread t, whose resume state is `state`, runs when the block moves on to region r:
// it waits there, and at a region whose barrier is named at run time, at the barrier released.
Value *KernelLowering::resumesAt(int r, Value *t, Value *state) {
  Value *here = b.CreateICmpEQ(state, b.getInt32(static_cast<uint32_t>(r)));
  if (!regions_[r].dynamicBarrier)
    return here;
  Value *released = b.CreateLoad(b.getInt32Ty(), releasedBarrier_);
  Value *mine = b.CreateOr(b.CreateICmpEQ(waitingBarrier(t), released),
                           b.CreateICmpEQ(released, b.getInt32(kAnyBarrier)));
  return b.CreateAnd(here, mine);
}

// The region to run next when named barriers exist: the smallest state of any thread that is not
// waiting at an incomplete named barrier (a named barrier is complete when its arrivals reach its
// thread count, or every thread that has not exited). The chosen barrier's arrivals are used up.
// With none runnable (a protocol that cannot finish), the smallest state runs, so the block
// still ends (kernels with named barriers get no implicit loop barriers: addLoopBarriers).
// At a region whose barrier is named at run time, the first thread found there with a complete
// barrier names the barrier released (releasedBarrier_); its threads run in the masked copy.
// `together` becomes: every thread resumes at the chosen region (and runs it).
Value *KernelLowering::pickWithNamedBarriers(Value *smallest, Value *&together) {
  auto *i32 = b.getInt32Ty();
  const int32_t exited = kExited;
  // Threads still running.
  Value *live2 = foldLoop(
      nthreads_, {b.getInt32(0)},
      [&](Value *t, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *st = b.CreateLoad(i32, threadSlot(stateOff_, 4, t));
        return {b.CreateAdd(a[0], b.CreateZExt(b.CreateICmpNE(st, b.getInt32(exited)), i32))};
      },
      "named.live")[0];
  auto needed = [&](Value *count) {
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, count, live2);
  };
  // Which regions with a constant barrier wait at an incomplete one.
  std::vector<std::pair<int, Value *>> blocked;
  std::vector<std::pair<int, Value *>> need;
  std::vector<int> dynamic;
  for (size_t r = 1; r < regions_.size(); ++r) {
    if (regions_[r].dynamicBarrier)
      dynamic.push_back(static_cast<int>(r));
    if (!regions_[r].count)
      continue;
    Value *n = needed(b.getInt32(regions_[r].count));
    Value *have = b.CreateLoad(i32, barrierSlot(barrierCounts_, b.getInt32(regions_[r].barrierId)));
    blocked.emplace_back(static_cast<int>(r), b.CreateICmpULT(have, n));
    need.emplace_back(static_cast<int>(r), n);
  }
  // The smallest runnable state, and the barrier of the first thread found waiting there.
  auto scan = foldLoop(
      nthreads_, {b.getInt32(exited), b.getInt32(0)},
      [&](Value *u, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *s2 = b.CreateLoad(i32, threadSlot(stateOff_, 4, u));
        Value *cand = s2;
        for (auto &[r, isBlocked] : blocked)
          cand = b.CreateSelect(b.CreateAnd(b.CreateICmpEQ(s2, b.getInt32(r)), isBlocked),
                                b.getInt32(exited), cand);
        Value *id = b.getInt32(0);
        if (!dynamic.empty()) {
          id = waitingBarrier(u);
          Value *have = b.CreateLoad(i32, barrierSlot(barrierCounts_, id));
          Value *incomplete =
              b.CreateICmpULT(have, needed(b.CreateLoad(i32, barrierSlot(barrierNeeds_, id))));
          for (int r : dynamic)
            cand = b.CreateSelect(b.CreateAnd(b.CreateICmpEQ(s2, b.getInt32(r)), incomplete),
                                  b.getInt32(exited), cand);
        }
        Value *take = b.CreateICmpSLT(cand, a[0]);
        return {b.CreateSelect(take, cand, a[0]), b.CreateSelect(take, id, a[1])};
      },
      "named.scan");
  Value *best2 = scan[0];
  Value *pick = b.CreateSelect(b.CreateICmpEQ(best2, b.getInt32(exited)), smallest, best2);
  // The chosen barrier's arrivals are used up (`n` of them at most) when `chosen` holds.
  auto consume = [&](Value *id, Value *n, Value *chosen) {
    Value *p = barrierSlot(barrierCounts_, id);
    Value *cur = b.CreateLoad(i32, p);
    Value *used = b.CreateSelect(chosen, b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, n, cur),
                                 b.getInt32(0));
    b.CreateStore(b.CreateSub(cur, used), p);
  };
  for (auto &[r, n] : need)
    consume(b.getInt32(regions_[r].barrierId), n, b.CreateICmpEQ(pick, b.getInt32(r)));
  if (!dynamic.empty()) {
    // A region named at run time: only the threads of the released barrier run it (in the masked
    // copy); a deadlocked block's fallback releases the first thread's barrier without a count.
    Value *id = scan[1], *runnable = b.CreateICmpEQ(pick, best2);
    b.CreateStore(b.CreateSelect(runnable, id, b.getInt32(kAnyBarrier)), releasedBarrier_);
    Value *atDynamic = b.getFalse();
    for (int r : dynamic)
      atDynamic = b.CreateOr(atDynamic, b.CreateICmpEQ(pick, b.getInt32(r)));
    consume(id, needed(b.CreateLoad(i32, barrierSlot(barrierNeeds_, id))),
            b.CreateAnd(atDynamic, runnable));
    together = b.CreateAnd(together, b.CreateNot(atDynamic));
  }
  together = b.CreateAnd(together, b.CreateICmpEQ(pick, smallest));
  return pick;
}

} // namespace cucpu::jit
