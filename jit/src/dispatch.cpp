// The block's scheduler: which region runs next (the smallest resume state, loops before
// barriers, yield points in turn), the scans over the threads' states it needs, and the
// reductions of bar.red between regions.
#include "lowering.h"

#include "cucpu/support/log.h"
#include "kernel_abi.h"

#include <llvm/IR/Intrinsics.h>

namespace cucpu::jit {

using llvm::BasicBlock;
using llvm::Value;

namespace {

constexpr unsigned kServicesTrapOffset = offsetof(cucpu_services, trap);
constexpr unsigned kBlockWaits = offsetof(cucpu_services, block_waits);
// How often a block whose threads only wait at yield points tells the runtime (a power of two).
constexpr uint32_t kWaitReport = 64;

} // namespace

// The block's scheduler, shared by every region's exit: the smallest resume state of any thread
// is the region to run next (a separate loop, so thread loops carry no state from one thread to
// the next and stay vectorisable). When every thread resumes there (the usual case: barriers
// reached by the whole block), the region's unmasked copy runs.
void KernelLowering::emitDispatch() {
  b.SetInsertPoint(dispatch_);
  Value *largest = nullptr;
  Value *nb = smallestState(&largest);
  Value *together = b.CreateICmpEQ(nb, largest);
  if (namedBarriers_)
    nb = pickWithNamedBarriers(nb, together);
  emitBarrierReductions(nb);
  BasicBlock *done = BasicBlock::Create(ctx, "done", f_);
  BasicBlock *toAll = BasicBlock::Create(ctx, "next.all", f_);
  BasicBlock *toSome = BasicBlock::Create(ctx, "next.some", f_);
  b.CreateCondBr(together, toAll, toSome);
  if (!maskedCopies_) {
    // Unreachable by threadsMayDisagree(): fail loudly rather than run a region for the wrong
    // threads.
    b.SetInsertPoint(toSome);
    log::debug(log::Component::Jit, "{}: threads never wait apart: no masked region copies",
               fn_.name);
    auto *ptrTy = llvm::PointerType::get(ctx, 0);
    llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    auto *where = eb.CreateAlloca(llvm::ArrayType::get(b.getInt32Ty(), 6), nullptr, "where");
    for (int d = 0; d < 6; ++d)
      b.CreateStore(d < 3 ? ctaid_[d] : b.getInt32(0),
                    b.CreateConstGEP2_32(where->getAllocatedType(), where, 0, d));
    b.CreateCall(llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy}, false),
                 serviceFunction(kServicesTrapOffset), {launch_, where});
    b.CreateBr(done);
  }
  for (bool every : {true, false}) {
    if (!every && !maskedCopies_)
      continue;
    b.SetInsertPoint(every ? toAll : toSome);
    // Threads apart: those still inside a loop (waiting at an implicit barrier) go first. A
    // real barrier textually before the loop (the top of an outer loop) must not be released
    // while they have yet to reach it; one masked run takes them through the loop's implicit
    // barriers to a real one or to their exit.
    Value *next = every ? nb : nextYield(inLoopFirst(nb));
    countWaits(next);
    auto *sw = b.CreateSwitch(next, done, regions_.size());
    for (size_t k = 1; k < regions_.size(); ++k)
      sw->addCase(b.getInt32(static_cast<uint32_t>(k)),
                  every ? regions_[k].preAll : regions_[k].pre);
  }
  b.SetInsertPoint(done);
  b.CreateBr(blockEnd_);
}

// When `chosen` is a yield region: the smallest state after the last yield region run that is a
// yield region some thread waits at, else the smallest such state; recorded as the last one run.
// Waiting threads then take turns with the others they wait for, wherever those wait.
Value *KernelLowering::nextYield(Value *chosen) {
  if (!yields_)
    return chosen;
  auto *i32 = b.getInt32Ty();
  if (!lastYield_) {
    llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    lastYield_ = eb.CreateAlloca(i32, nullptr, "last.yield");
    eb.CreateStore(eb.getInt32(-1), lastYield_);
  }
  Value *last = b.CreateLoad(i32, lastYield_);
  auto best = foldLoop(
      nthreads_, {b.getInt32(kExited), b.getInt32(kExited)},
      [&](Value *t, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *st = b.CreateLoad(i32, threadSlot(stateOff_, 4, t));
        Value *y = isYieldState(st);
        Value *after = b.CreateAnd(y, b.CreateICmpSGT(st, last));
        return {
            b.CreateSelect(after, b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[0], st), a[0]),
            b.CreateSelect(y, b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[1], st), a[1])};
      },
      "yield.scan");
  Value *pick = b.CreateSelect(b.CreateICmpNE(best[0], b.getInt32(kExited)), best[0], best[1]);
  Value *result = b.CreateSelect(isYieldState(chosen), pick, chosen);
  b.CreateStore(b.CreateSelect(isYieldState(chosen), pick, last), lastYield_);
  return result;
}

// Whether resume state `st` is a yield region.
Value *KernelLowering::isYieldState(Value *st) {
  if (!yieldTable_) {
    std::vector<uint8_t> flags;
    for (const auto &r : regions_)
      flags.push_back(r.yield ? 1 : 0);
    auto *init = llvm::ConstantDataArray::get(ctx, flags);
    yieldTable_ = new llvm::GlobalVariable(
        *ms.mod, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, "yield.regions");
  }
  Value *valid = b.CreateICmpULT(st, b.getInt32(static_cast<uint32_t>(regions_.size())));
  Value *flag = b.CreateLoad(
      b.getInt8Ty(),
      b.CreateGEP(b.getInt8Ty(), yieldTable_,
                  b.CreateZExt(b.CreateSelect(valid, st, b.getInt32(0)), b.getInt64Ty())));
  return b.CreateAnd(valid, b.CreateICmpNE(flag, b.getInt8(0)));
}

// Counts the dispatches in a row that run a yield region (`next`): the block's threads all wait
// for something, and every kWaitReport rounds the runtime may run other blocks meanwhile
// (cucpu_services.block_waits). Any other region resets the count.
void KernelLowering::countWaits(Value *next) {
  if (!yields_)
    return;
  auto *i32 = b.getInt32Ty();
  if (!waitRounds_) {
    llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
    waitRounds_ = eb.CreateAlloca(i32, nullptr, "wait.rounds");
    eb.CreateStore(eb.getInt32(0), waitRounds_);
  }
  Value *waiting = isYieldState(next);
  Value *rounds = b.CreateSelect(
      waiting, b.CreateAdd(b.CreateLoad(i32, waitRounds_), b.getInt32(1)), b.getInt32(0));
  b.CreateStore(rounds, waitRounds_);
  Value *report = b.CreateAnd(
      waiting, b.CreateICmpEQ(b.CreateAnd(rounds, b.getInt32(kWaitReport - 1)), b.getInt32(0)));
  BasicBlock *call = BasicBlock::Create(ctx, "block.waits", f_);
  BasicBlock *cont = BasicBlock::Create(ctx, "block.waits.done", f_);
  b.CreateCondBr(report, call, cont);
  b.SetInsertPoint(call);
  auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {llvm::PointerType::get(ctx, 0), i32}, false);
  b.CreateCall(fnTy, serviceFunction(kBlockWaits), {launch_, rounds});
  b.CreateBr(cont);
  b.SetInsertPoint(cont);
}

// The smallest state of a thread waiting at an implicit (loop) barrier, else `smallest`.
Value *KernelLowering::inLoopFirst(Value *smallest) {
  std::vector<uint8_t> implicit;
  bool any = false;
  for (const auto &r : regions_) {
    implicit.push_back(r.implicit ? 1 : 0);
    any = any || r.implicit;
  }
  if (!any)
    return smallest;
  auto *i32 = b.getInt32Ty();
  auto *init = llvm::ConstantDataArray::get(ctx, implicit);
  auto *table = new llvm::GlobalVariable(
      *ms.mod, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init, "implicit.regions");
  Value *best = foldLoop(
      nthreads_, {b.getInt32(kExited)},
      [&](Value *t, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *st = b.CreateLoad(i32, threadSlot(stateOff_, 4, t));
        Value *valid = b.CreateICmpULT(st, b.getInt32(static_cast<uint32_t>(regions_.size())));
        Value *flag = b.CreateLoad(
            b.getInt8Ty(),
            b.CreateGEP(b.getInt8Ty(), table,
                        b.CreateZExt(b.CreateSelect(valid, st, b.getInt32(0)), b.getInt64Ty())));
        Value *cand = b.CreateSelect(b.CreateAnd(valid, b.CreateICmpNE(flag, b.getInt8(0))), st,
                                     b.getInt32(kExited));
        return {b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[0], cand)};
      },
      "inloop.scan")[0];
  return b.CreateSelect(b.CreateICmpEQ(best, b.getInt32(kExited)), smallest, best);
}

// The region every thread of region r reaches when r's body is one PTX block without branches
// or exits that falls into a plain barrier (no thread count, no reduction), else -1.
int KernelLowering::straightSuccessor(int r) const {
  const int body = regionBody(r);
  if (body + 1 >= static_cast<int>(blocks_.size()))
    return -1;
  const PBlock &bb = blocks_[body], &sync = blocks_[body + 1];
  if (bb.syncRegion >= 0 || sync.syncRegion <= 0 || bb.succs.size() != 1 || bb.succs[0] != body + 1)
    return -1;
  for (const auto &in : bb.instrs)
    if (isTerminatorOp(in.op) || in.op == Op::ret || in.op == Op::exit)
      return -1;
  const int next = sync.syncRegion;
  if (regions_[next].count || regions_[next].dynamicBarrier || barrierReduction(next))
    return -1;
  return next;
}

// Divisions, square roots and transcendental approximations (the long-latency operations) in
// the PTX blocks region r runs, up to its sync points.
unsigned KernelLowering::longLatencyOps(int r) const {
  static const std::set<std::string> kSlow = {"div", "rcp", "sqrt", "rsqrt", "ex2",
                                              "lg2", "sin", "cos",  "tanh"};
  unsigned n = 0;
  for (int x : blocksFrom(regionBody(r), false))
    for (const auto &in : blocks_[x].instrs)
      n += kSlow.count(in.opcode) && !in.types.empty() && ptx::isFloat(in.types[0]);
  return n;
}

// The smallest resume state of any thread of the block (kExited when all have exited): the
// region the block runs next. Emitted as a loop at the insertion point, which it leaves after.
Value *KernelLowering::smallestState(Value **largest) {
  auto acc = foldLoop(
      nthreads_, {b.getInt32(kExited), b.getInt32(0)},
      [&](Value *t, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *st = b.CreateLoad(b.getInt32Ty(), threadSlot(stateOff_, 4, t));
        return {b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[0], st),
                largest ? b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, a[1], st) : a[1]};
      },
      "state.scan");
  if (largest)
    *largest = acc[1];
  return acc[0];
}

std::vector<Value *> KernelLowering::foldLoop(
    Value *count, std::vector<Value *> init,
    const std::function<std::vector<Value *>(Value *, const std::vector<Value *> &)> &step,
    const char *name) {
  auto *i32 = b.getInt32Ty();
  BasicBlock *before = b.GetInsertBlock();
  BasicBlock *loop = BasicBlock::Create(ctx, name, f_);
  BasicBlock *done = BasicBlock::Create(ctx, std::string(name) + ".done", f_);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  auto *i = b.CreatePHI(i32, 2, "i");
  i->addIncoming(b.getInt32(0), before);
  std::vector<llvm::PHINode *> phis;
  std::vector<Value *> acc;
  for (Value *v : init) {
    phis.push_back(b.CreatePHI(v->getType(), 2));
    phis.back()->addIncoming(v, before);
    acc.push_back(phis.back());
  }
  std::vector<Value *> next = step(i, acc);
  Value *in = b.CreateAdd(i, b.getInt32(1), "", true, true);
  BasicBlock *latch = b.GetInsertBlock();
  i->addIncoming(in, latch);
  for (size_t k = 0; k < phis.size(); ++k)
    phis[k]->addIncoming(next[k], latch);
  auto *br = b.CreateCondBr(b.CreateICmpULT(in, count), loop, done);
  if (warpMode_)
    br->setMetadata(llvm::LLVMContext::MD_loop, noUnrollLoop());
  b.SetInsertPoint(done);
  return next;
}

// The bar.red instruction that starts region r, or null.
const ptx::Instruction *KernelLowering::barrierReduction(int r) const {
  if (r <= 0 || regions_[r].warp)
    return nullptr;
  const ptx::Instruction &in = blocks_[regions_[r].entryBlock].instrs.front();
  return in.has(Mod::red) ? &in : nullptr;
}

// When the block moves on to `region` and that region starts at a bar.red, reduces the
// predicates every waiting thread published (popc, and, or) into blockReduction_.
void KernelLowering::emitBarrierReductions(Value *region) {
  for (size_t r = 1; r < regions_.size(); ++r) {
    const ptx::Instruction *red = barrierReduction(static_cast<int>(r));
    if (!red)
      continue;
    auto *i32 = b.getInt32Ty();
    BasicBlock *init = BasicBlock::Create(ctx, "bar.red.init", f_);
    BasicBlock *loop = BasicBlock::Create(ctx, "bar.red", f_);
    BasicBlock *body = BasicBlock::Create(ctx, "bar.red.take", f_);
    BasicBlock *latch = BasicBlock::Create(ctx, "bar.red.next", f_);
    BasicBlock *after = BasicBlock::Create(ctx, "bar.red.done", f_);
    const bool popc = red->has(Mod::popc), isAnd = red->has(Mod::and_);
    b.CreateCondBr(b.CreateICmpEQ(region, b.getInt32(static_cast<uint32_t>(r))), init, after);
    b.SetInsertPoint(init);
    b.CreateStore(b.getInt32(isAnd ? 1 : 0), blockReduction_);
    b.CreateBr(loop);
    b.SetInsertPoint(loop);
    auto *t = b.CreatePHI(i32, 2, "t");
    t->addIncoming(b.getInt32(0), init);
    Value *waiting =
        resumesAt(static_cast<int>(r), t, b.CreateLoad(i32, threadSlot(stateOff_, 4, t)));
    b.CreateCondBr(waiting, body, latch);
    b.SetInsertPoint(body);
    Value *p = b.CreateZExt(b.CreateLoad(b.getInt8Ty(), threadSlot(pubOff_, pubBytes_, t)), i32);
    Value *acc = b.CreateLoad(i32, blockReduction_);
    b.CreateStore(popc    ? b.CreateAdd(acc, p)
                  : isAnd ? b.CreateAnd(acc, p)
                          : b.CreateOr(acc, p),
                  blockReduction_);
    b.CreateBr(latch);
    b.SetInsertPoint(latch);
    Value *tn = b.CreateAdd(t, b.getInt32(1));
    t->addIncoming(tn, latch);
    b.CreateCondBr(b.CreateICmpULT(tn, nthreads_), loop, after);
    b.SetInsertPoint(after);
  }
}

} // namespace cucpu::jit
