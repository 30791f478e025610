// Warp-level synchronisation: kernels with shfl/vote/match/redux/activemask/elect/bar.warp.sync
// run warp by warp; between two sync points the lanes of a warp run as a loop, each thread keeps
// its resume point in scratch, and a sync instruction's result is computed from the operands
// every arriving lane published.
#include "lowering.h"
#include "ptx_passes.h"

#include <llvm/IR/Intrinsics.h>

#include <functional>

namespace cucpu::jit {

using llvm::BasicBlock;
using llvm::Value;
using T = ptx::Type;

namespace {
constexpr int kLanes = 32;
} // namespace

bool KernelLowering::emitWarpInstruction(const ptx::Instruction &in) {
  if (passes::isWarpSync(in)) // sync points are region boundaries; they never reach the normal path
    throwInvalid(in.loc, "internal: warp-level instruction outside a sync point");
  return emitRuntimeInstruction(in);
}

llvm::MDNode *KernelLowering::noUnrollLoop() {
  std::vector<llvm::Metadata *> ops{
      nullptr, llvm::MDNode::get(ctx, {llvm::MDString::get(ctx, "llvm.loop.unroll.disable")})};
  auto *id = llvm::MDNode::getDistinct(ctx, ops);
  id->replaceOperandWith(0, id);
  return id;
}

// Schedules the block: a block phase runs every warp; each warp runs the region most of its
// lanes wait for, one lane after another, until its lanes reach a block barrier or exit.
void KernelLowering::emitWarpScheduler() {
  auto *i32 = b.getInt32Ty();
  auto *i8 = b.getInt8Ty();
  const int exited = kExited;
  BasicBlock *entry = b.GetInsertBlock();

  // Which regions start at a warp-level sync point (read when picking a warp's next region).
  std::vector<uint8_t> isWarp;
  for (const auto &r : regions_)
    isWarp.push_back(r.warp ? 1 : 0);
  auto *tableInit = llvm::ConstantDataArray::get(ctx, isWarp);
  auto *table =
      new llvm::GlobalVariable(*ms.mod, tableInit->getType(), true,
                               llvm::GlobalValue::PrivateLinkage, tableInit, "warp.regions");
  auto stateOf = [&](Value *t) { return threadSlot(stateOff_, 4, t); };

  // Every thread starts in region 0.
  BasicBlock *initHdr = BasicBlock::Create(ctx, "init", f_);
  BasicBlock *dispatch = BasicBlock::Create(ctx, "block.dispatch", f_);
  b.CreateBr(initHdr);
  b.SetInsertPoint(initHdr);
  auto *it = b.CreatePHI(i32, 2, "t");
  it->addIncoming(b.getInt32(0), entry);
  b.CreateStore(b.getInt32(0), stateOf(it));
  Value *itn = b.CreateAdd(it, b.getInt32(1));
  it->addIncoming(itn, initHdr);
  b.CreateCondBr(b.CreateICmpULT(itn, nthreads_), initHdr, dispatch);

  // Block phase: the smallest resume point of any thread (all wait at block-level points).
  b.SetInsertPoint(dispatch);
  Value *nb = smallestState();
  if (namedBarriers_) { // a region waiting at an incomplete named barrier is not runnable yet
    Value *together = b.getTrue();
    nb = pickWithNamedBarriers(nb, together);
  }
  nb = nextYield(nb);
  countWaits(nb);
  emitBarrierReductions(nb);
  raceBarrierAt(nb);
  BasicBlock *scanned = b.GetInsertBlock();
  BasicBlock *done = BasicBlock::Create(ctx, "block.done", f_);
  BasicBlock *warpHdr = BasicBlock::Create(ctx, "warp.hdr", f_);
  b.CreateCondBr(b.CreateICmpEQ(nb, b.getInt32(exited)), done, warpHdr);
  b.SetInsertPoint(done);
  b.CreateBr(blockEnd_);

  // Warp loop.
  b.SetInsertPoint(warpHdr);
  auto *w = b.CreatePHI(i32, 2, "warp");
  w->addIncoming(b.getInt32(0), scanned);
  warpBase_ = b.CreateMul(w, b.getInt32(kLanes), "warp.base");
  warpLanes_ = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, b.getInt32(kLanes),
                                       b.CreateSub(nthreads_, warpBase_), nullptr, "warp.lanes");
  BasicBlock *sched = BasicBlock::Create(ctx, "warp.sched", f_);
  BasicBlock *warpLatch = BasicBlock::Create(ctx, "warp.latch", f_);
  BasicBlock *pick = BasicBlock::Create(ctx, "warp.pick", f_);
  b.CreateBr(sched);

  // Scheduling step: the lanes resuming at `cur` form the active mask.
  b.SetInsertPoint(sched);
  auto *cur = b.CreatePHI(i32, 2, "cur");
  cur->addIncoming(nb, warpHdr);
  Value *macc2 = foldLoop(
      warpLanes_, {b.getInt32(0)},
      [&](Value *lane, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *st = b.CreateLoad(i32, stateOf(b.CreateAdd(warpBase_, lane)));
        return {b.CreateOr(a[0], b.CreateShl(b.CreateZExt(b.CreateICmpEQ(st, cur), i32), lane))};
      },
      "warp.mask")[0];
  activeMask_ = macc2;
  auto *sw = b.CreateSwitch(cur, pick, regions_.size());

  // One lane loop per region.
  for (size_t r = 0; r < regions_.size(); ++r) {
    BasicBlock *hdr = BasicBlock::Create(ctx, "lanes.hdr", f_);
    BasicBlock *body = BasicBlock::Create(ctx, "lanes.body", f_);
    BasicBlock *latch = BasicBlock::Create(ctx, "lanes.latch", f_);
    BasicBlock *step = BasicBlock::Create(ctx, "collective", f_);
    sw->addCase(b.getInt32(static_cast<uint32_t>(r)), step);
    b.SetInsertPoint(step);
    if (regions_[r].warp) {
      emitCollectiveStep(static_cast<int>(r));
      raceWarpSync(static_cast<int>(r));
    }
    BasicBlock *stepEnd = b.GetInsertBlock();
    b.CreateBr(hdr);
    b.SetInsertPoint(hdr);
    auto *lane = b.CreatePHI(i32, 2, "lane");
    lane->addIncoming(b.getInt32(0), stepEnd);
    Value *t = b.CreateAdd(warpBase_, lane, "tid.linear");
    Value *mine = b.CreateLoad(i32, stateOf(t));
    b.CreateCondBr(resumesAt(static_cast<int>(r), t, mine), body, latch);
    b.SetInsertPoint(body);
    Value *x = b.CreateURem(t, ntid_[0]);
    Value *yz = b.CreateUDiv(t, ntid_[0]);
    setThreadIndex(t, x, b.CreateURem(yz, ntid_[1]), b.CreateUDiv(yz, ntid_[1]));
    accessGroup_ = nullptr; // lanes may depend on each other through the state array
    latch_ = latch;
    copyIndex_ = static_cast<int>(r);
    emitRegionBody(static_cast<int>(r));
    b.SetInsertPoint(latch);
    Value *ln = b.CreateAdd(lane, b.getInt32(1));
    lane->addIncoming(ln, latch);
    auto *br = b.CreateCondBr(b.CreateICmpULT(ln, warpLanes_), hdr, pick);
    br->setMetadata(llvm::LLVMContext::MD_loop, noUnrollLoop());
  }

  // Next step for this warp: the smallest warp-level region any of its lanes waits at.
  b.SetInsertPoint(pick);
  Value *pbest2 = foldLoop(
      warpLanes_, {b.getInt32(exited)},
      [&](Value *lane, const std::vector<Value *> &a) -> std::vector<Value *> {
        Value *ps = b.CreateLoad(i32, stateOf(b.CreateAdd(warpBase_, lane)));
        Value *isExit = b.CreateICmpEQ(ps, b.getInt32(exited));
        Value *idx = b.CreateSelect(isExit, b.getInt32(0), ps);
        Value *flag = b.CreateLoad(i8, b.CreateGEP(i8, table, b.CreateZExt(idx, b.getInt64Ty())));
        Value *cand =
            b.CreateSelect(b.CreateAnd(b.CreateNot(isExit), b.CreateICmpNE(flag, b.getInt8(0))), ps,
                           b.getInt32(exited));
        return {b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, a[0], cand)};
      },
      "warp.pickloop")[0];
  BasicBlock *picked = b.GetInsertBlock();
  cur->addIncoming(pbest2, picked);
  b.CreateCondBr(b.CreateICmpEQ(pbest2, b.getInt32(exited)), warpLatch, sched);

  b.SetInsertPoint(warpLatch);
  Value *wn = b.CreateAdd(w, b.getInt32(1));
  w->addIncoming(wn, warpLatch);
  Value *nwarps = b.CreateUDiv(b.CreateAdd(nthreads_, b.getInt32(kLanes - 1)), b.getInt32(kLanes));
  b.CreateCondBr(b.CreateICmpULT(wn, nwarps), warpHdr, dispatch);
}

// A counted loop over the warp's lanes 0..warpLanes_-1, with the body emitted by `body`.
void KernelLowering::laneLoop(const char *name, const std::function<void(Value *)> &body) {
  foldLoop(
      warpLanes_, {},
      [&](Value *l, const std::vector<Value *> &) -> std::vector<Value *> {
        body(l);
        return {};
      },
      name);
}

// A lane reaching a warp sync point publishes the operands the collective step reads:
// bytes 0-7 the value (shfl/redux/match source, vote predicate), 8-11 shfl's lane operand or the
// member mask, 12-15 shfl's clamp operand.
void KernelLowering::arriveAtSync(int region) {
  const ptx::Instruction &in = blocks_[regions_[region].entryBlock].instrs.front();
  const Op op = in.op;
  const auto &o = in.operands;
  Value *slot = threadSlot(pubOff_, pubBytes_, linearTid_);
  if (passes::isMatrixSync(in)) {
    arriveAtMatrixSync(in, slot);
    return;
  }
  auto put = [&](Value *v, unsigned offset, llvm::Type *ty) {
    tagMemory(
        b.CreateStore(convert(v, ty, false), b.CreateConstGEP1_32(b.getInt8Ty(), slot, offset)));
  };
  auto putMask = [&](size_t idx) {
    Value *m = o.size() > idx && in.has(Mod::sync) ? read(o[idx], T::B32, in) : b.getInt32(-1);
    put(m, 8, b.getInt32Ty());
  };
  const T t = in.types.empty() ? T::B32 : in.types.back();
  if (op == Op::shfl) {
    if (o.size() < 4)
      throwInvalid(in.loc, "shfl expects at least 4 operands");
    put(read(o[1], T::B32, in), 0, b.getInt64Ty());
    put(read(o[2], T::U32, in), 8, b.getInt32Ty());
    put(read(o[3], T::U32, in), 12, b.getInt32Ty());
  } else if (op == Op::redux || op == Op::match || op == Op::vote) {
    if (o.size() < 2)
      throwInvalid(in.loc, "'" + in.opcode + "' expects a source operand");
    T vt = op == Op::vote ? T::Pred : (t == T::B64 ? T::B64 : T::B32);
    put(read(o[1], vt, in), 0, b.getInt64Ty());
    putMask(2);
  } else if (op == Op::elect) {
    putMask(1);
  }
}

// Before a warp-level region runs, its collective result is computed for every lane that
// arrived (bit set in the active mask) from the published operands, into the lanes' result
// slots. Reading everything first means lanes that run on and publish again cannot disturb it.
void KernelLowering::emitCollectiveStep(int region) {
  const ptx::Instruction &in = blocks_[regions_[region].entryBlock].instrs.front();
  const Op op = in.op;
  if (op == Op::bar || op == Op::barrier || op == Op::activemask)
    return; // nothing to compute: the active mask is known when the region runs
  auto *i32 = b.getInt32Ty();
  auto *i64 = b.getInt64Ty();
  auto pub = [&](Value *lane, unsigned offset, llvm::Type *ty) -> Value * {
    Value *ok = b.CreateICmpULT(lane, warpLanes_);
    Value *t = b.CreateAdd(warpBase_, b.CreateSelect(ok, lane, b.getInt32(0)));
    Value *p = b.CreateConstGEP1_32(b.getInt8Ty(), threadSlot(pubOff_, pubBytes_, t), offset);
    return b.CreateLoad(ty, p);
  };
  if (passes::isMatrixSync(in)) {
    emitMatrixCollectiveStep(in, pub);
    return;
  }
  llvm::IRBuilder<> eb(&f_->getEntryBlock(), f_->getEntryBlock().begin());
  auto *acc = eb.CreateAlloca(i32, nullptr, "coll.acc");
  auto *ballot = eb.CreateAlloca(i32, nullptr, "coll.ballot");

  // Ballot of the published predicates over the arrived lanes (vote), computed once.
  if (op == Op::vote) {
    b.CreateStore(b.getInt32(0), ballot);
    laneLoop("vote.ballot", [&](Value *l) {
      Value *set = b.CreateICmpNE(pub(l, 0, i64), b.getInt64(0));
      Value *bit = b.CreateShl(b.CreateZExt(set, i32), l);
      b.CreateStore(b.CreateOr(b.CreateLoad(i32, ballot), bit), ballot);
    });
    b.CreateStore(b.CreateAnd(b.CreateLoad(i32, ballot), activeMask_), ballot);
  }
  std::string rop;
  const T rt = in.types.empty() ? T::B32 : in.types.back();
  for (const auto &m : in.mods)
    if (m != "sync")
      rop = m;

  laneLoop("collective.lane", [&](Value *lane) {
    Value *arrived =
        b.CreateICmpNE(b.CreateAnd(activeMask_, b.CreateShl(b.getInt32(1), lane)), b.getInt32(0));
    BasicBlock *doIt = BasicBlock::Create(ctx, "collective.do", f_);
    BasicBlock *skip = BasicBlock::Create(ctx, "collective.skip", f_);
    b.CreateCondBr(arrived, doIt, skip);
    b.SetInsertPoint(doIt);
    Value *d = b.getInt32(0), *p = b.getFalse();
    Value *part = b.CreateAnd(activeMask_, pub(lane, 8, i32));
    if (op == Op::shfl) {
      Value *bval = b.CreateAnd(pub(lane, 8, i32), b.getInt32(31));
      Value *cval = pub(lane, 12, i32);
      Value *segmask = b.CreateAnd(b.CreateLShr(cval, 8), b.getInt32(31));
      Value *clamp = b.CreateAnd(cval, b.getInt32(31));
      Value *minLane = b.CreateAnd(lane, segmask);
      Value *maxLane = b.CreateOr(minLane, b.CreateAnd(clamp, b.CreateNot(segmask)));
      Value *j;
      if (in.has(Mod::up)) {
        j = b.CreateSub(lane, bval);
        p = b.CreateICmpSGE(j, maxLane);
      } else if (in.has(Mod::down)) {
        j = b.CreateAdd(lane, bval);
        p = b.CreateICmpSLE(j, maxLane);
      } else if (in.has(Mod::bfly)) {
        j = b.CreateXor(lane, bval);
        p = b.CreateICmpSLE(j, maxLane);
      } else if (in.has(Mod::idx)) {
        j = b.CreateOr(minLane, b.CreateAnd(bval, b.CreateNot(segmask)));
        p = b.CreateICmpSLE(j, maxLane);
      } else {
        throwUnsupported(in.loc, "shfl mode");
      }
      d = b.CreateTrunc(pub(b.CreateSelect(p, j, lane), 0, i64), i32);
    } else if (op == Op::vote) {
      Value *bl = b.CreateAnd(b.CreateLoad(i32, ballot), part);
      if (in.has(Mod::ballot))
        d = bl;
      else if (in.has(Mod::all))
        p = b.CreateICmpEQ(bl, part);
      else if (in.has(Mod::any))
        p = b.CreateICmpNE(bl, b.getInt32(0));
      else if (in.has(Mod::uni))
        p = b.CreateOr(b.CreateICmpEQ(bl, b.getInt32(0)), b.CreateICmpEQ(bl, part));
      else
        throwUnsupported(in.loc, "vote mode");
    } else if (op == Op::elect) {
      Value *leader = b.CreateBinaryIntrinsic(llvm::Intrinsic::cttz, part, b.getTrue());
      d = leader;
      p = b.CreateICmpEQ(lane, leader);
    } else if (op == Op::match || op == Op::redux) {
      Value *own = pub(lane, 0, i64);
      if (op == Op::match) {
        b.CreateStore(b.getInt32(0), acc);
      } else if (rop == "add" || rop == "or" || rop == "xor") {
        b.CreateStore(b.getInt32(0), acc);
      } else if (rop == "and") {
        b.CreateStore(b.getInt32(-1), acc);
      } else if (rop == "min") {
        b.CreateStore(b.getInt32(rt == T::S32 ? 0x7fffffff : -1), acc);
      } else if (rop == "max") {
        b.CreateStore(b.getInt32(rt == T::S32 ? int32_t(0x80000000) : 0), acc);
      } else {
        throwUnsupported(in.loc, "redux operation '" + rop + "'");
      }
      laneLoop("collective.fold", [&](Value *j) {
        Value *inPart =
            b.CreateICmpNE(b.CreateAnd(part, b.CreateShl(b.getInt32(1), j)), b.getInt32(0));
        Value *v = pub(j, 0, i64);
        Value *a = b.CreateLoad(i32, acc), *r;
        if (op == Op::match) {
          r = b.CreateOr(a, b.CreateShl(b.CreateZExt(b.CreateICmpEQ(v, own), i32), j));
        } else {
          Value *x = b.CreateTrunc(v, i32);
          if (rop == "add")
            r = b.CreateAdd(a, x);
          else if (rop == "and")
            r = b.CreateAnd(a, x);
          else if (rop == "or")
            r = b.CreateOr(a, x);
          else if (rop == "xor")
            r = b.CreateXor(a, x);
          else if (rop == "min")
            r = b.CreateBinaryIntrinsic(
                rt == T::S32 ? llvm::Intrinsic::smin : llvm::Intrinsic::umin, a, x);
          else
            r = b.CreateBinaryIntrinsic(
                rt == T::S32 ? llvm::Intrinsic::smax : llvm::Intrinsic::umax, a, x);
        }
        b.CreateStore(b.CreateSelect(inPart, r, a), acc);
      });
      d = b.CreateLoad(i32, acc);
      if (op == Op::match && in.has(Mod::all)) {
        p = b.CreateICmpEQ(d, part);
        d = b.CreateSelect(p, part, b.getInt32(0));
      }
    } else {
      throwUnsupported(in.loc, "warp-level instruction '" + in.opcode + "'");
    }
    Value *res = b.CreateOr(b.CreateZExt(d, i64), b.CreateShl(b.CreateZExt(p, i64), 32));
    b.CreateStore(res, threadSlot(resultOff_, resultBytes_, b.CreateAdd(warpBase_, lane)));
    b.CreateBr(skip);
    b.SetInsertPoint(skip);
  });
}

// At the start of a warp-level region each lane takes its result into the destination registers.
void KernelLowering::emitCollective(int region) {
  const ptx::Instruction &in = blocks_[regions_[region].entryBlock].instrs.front();
  const Op op = in.op;
  const auto &o = in.operands;
  if (op == Op::bar || op == Op::barrier)
    return; // bar.warp.sync: reaching the region is the synchronisation
  if (op == Op::activemask) {
    write(o.at(0), activeMask_, T::B32, in);
    return;
  }
  if (passes::isMatrixSync(in)) {
    emitMatrixCollective(in);
    return;
  }
  auto *res = b.CreateLoad(b.getInt64Ty(), threadSlot(resultOff_, resultBytes_, linearTid_));
  tagMemory(res);
  Value *d = b.CreateTrunc(res, b.getInt32Ty());
  Value *p = b.CreateTrunc(b.CreateLShr(res, 32), b.getInt1Ty());
  const bool predResult = op == Op::vote && !in.has(Mod::ballot);
  if (predResult) {
    write(o.at(0), p, T::Pred, in);
    return;
  }
  const ptx::Operand &dst = o.at(0);
  if (dst.kind == ptx::Operand::Kind::Reg && !dst.name.empty()) {
    ptx::Operand first = dst;
    first.name2.clear();
    write(first, d, op == Op::redux && !in.types.empty() ? in.types.back() : T::B32, in);
  }
  if (!dst.name2.empty())
    b.CreateStore(p, reg(dst.name2, in).slot);
}

} // namespace cucpu::jit
