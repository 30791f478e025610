// Block formation: a kernel becomes one function running every thread of a block, as loops over
// thread indices between barriers (continuation-based regions), with registers live across a
// barrier kept in per-thread context arrays. The regions come from regions.cpp, the flat
// statement list from collect_registers.cpp.
#include "block_shape.h"
#include "directed_rounding.h"
#include "lowering.h"
#include "parallel_loops.h"
#include "pointer_rewrite.h"
#include "scratch_alias.h"

#include "cucpu/support/env.h"
#include "cucpu/support/log.h"
#include "kernel_abi.h"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <functional>

namespace cucpu::jit {

using llvm::BasicBlock;
using llvm::Value;

namespace {

constexpr int kCudaErrorInvalidPtx = 218;
constexpr int kCudaErrorNotSupported = 801;

} // namespace

const LoweringSwitches &loweringSwitches() {
  static const LoweringSwitches s{env::get("CUCPU_SCHEDULE").value_or("") == "warp",
                                  env::get("CUCPU_LOOP_BARRIERS").value_or("1") != "0",
                                  nativeDirectedRounding(),
                                  env::get("CUCPU_SANITIZER").value_or("") == "memcheck",
                                  env::get("CUCPU_SANITIZER").value_or("") == "racecheck"};
  return s;
}

std::string loweringSwitchesText() {
  const LoweringSwitches &s = loweringSwitches();
  return fmt::format("warp={} loop-barriers={} native-rounding={} memcheck={} racecheck={}",
                     s.forceWarp, s.loopBarriers, s.nativeRounding, s.memcheck, s.racecheck);
}

[[noreturn]] void throwUnsupported(ptx::SourceLoc loc, const std::string &what) {
  throw LowerError{kCudaErrorNotSupported, loc, what};
}
[[noreturn]] void throwInvalid(ptx::SourceLoc loc, const std::string &what) {
  throw LowerError{kCudaErrorInvalidPtx, loc, what};
}

llvm::Type *llvmType(llvm::LLVMContext &ctx, ptx::Type t) {
  using T = ptx::Type;
  switch (t) {
  case T::Pred:
    return llvm::Type::getInt1Ty(ctx);
  case T::F32:
    return llvm::Type::getFloatTy(ctx);
  case T::F64:
    return llvm::Type::getDoubleTy(ctx);
  case T::None:
    return nullptr;
  default:
    return llvm::Type::getIntNTy(ctx, ptx::typeSize(t) * 8);
  }
}

KernelLowering::KernelLowering(ModuleState &ms, const ptx::Function &fn, KernelInfo &info)
    : ctx(ms.ctx), ms(ms), b(ms.ctx), fn_(fn), info_(info) {}

void KernelLowering::run(const std::string &llvmName) {
  for (size_t i = 0; i < info_.params.size(); ++i)
    paramOffsets_[fn_.params[i].decl.name] = info_.params[i].offset;
  collectRegisters();
  formBlocks({});
  buildBlocks();
  addLoopBarriers();
  computeLiveness();
  estimateRegisters();
  findRegionDefs();
  findRematerializable();
  findUniform();
  maskedCopies_ = warpMode_ || namedBarriers_ || yields_ || threadsMayDisagree();
  if (lockstepStepCount_)
    log::debug(log::Component::Jit,
               "{}: {} lockstep step(s) (lanes exchange data through memory "
               "without synchronising): warp mode",
               fn_.name, lockstepStepCount_);
  planScratch();
  emitEntry(llvmName);
}

// The per-thread slot of a scratch area: scratch + nthreads * offset + tid * size.
Value *KernelLowering::threadSlot(uint32_t offsetPerThread, unsigned size, Value *tid) {
  auto address = [&](llvm::IRBuilder<> &at) {
    Value *off = at.CreateAdd(
        at.CreateMul(at.CreateZExt(nthreads_, at.getInt64Ty()), at.getInt64(offsetPerThread)),
        at.CreateMul(at.CreateZExt(tid, at.getInt64Ty()), at.getInt64(size)));
    return at.CreateGEP(at.getInt8Ty(), scratch_, off);
  };
  if (tid != linearTid_ || !slotAnchor_)
    return address(b);
  // The current thread's slots are computed once, where its index is: a value saved on two
  // paths then goes through one pointer, which the optimiser merges into one contiguous store
  // rather than a scatter through a phi of equal pointers.
  auto [it, fresh] = threadSlots_.try_emplace({offsetPerThread, size}, nullptr);
  if (fresh) {
    llvm::IRBuilder<> at(slotAnchor_);
    if (llvm::Instruction *t = slotAnchor_->getTerminator())
      at.SetInsertPoint(t);
    it->second = address(at);
  }
  return it->second;
}

void KernelLowering::setThreadIndex(Value *linear, Value *x, Value *y, Value *z) {
  linearTid_ = linear;
  auto *li = llvm::dyn_cast<llvm::Instruction>(linear);
  slotAnchor_ = li ? li->getParent() : b.GetInsertBlock();
  threadSlots_.clear();
  tid_[0] = x;
  tid_[1] = y;
  tid_[2] = z;
  if (localBytes_ > 0)
    localBase_ = b.CreateGEP(
        b.getInt8Ty(), scratch_,
        b.CreateAdd(b.CreateMul(b.CreateZExt(nthreads_, b.getInt64Ty()), b.getInt64(localOff_)),
                    b.CreateMul(b.CreateZExt(linear, b.getInt64Ty()), b.getInt64(localBytes_))),
        "local");
}

RegInfo &KernelLowering::reg(const std::string &name, const ptx::Instruction &in) {
  auto it = regIds_.find(name);
  if (it == regIds_.end())
    throwInvalid(in.loc, "undeclared register '" + name + "'");
  return regs_[it->second];
}

void KernelLowering::emitEntry(const std::string &llvmName) {
  auto *ptrTy = llvm::PointerType::get(ctx, 0);
  auto *i32 = b.getInt32Ty();
  auto *fnTy = llvm::FunctionType::get(b.getVoidTy(), {ptrTy, ptrTy}, false);
  f_ = llvm::Function::Create(fnTy, llvm::Function::ExternalLinkage, llvmName, *ms.mod);
  f_->addParamAttr(0, llvm::Attribute::NoAlias);
  f_->addParamAttr(1, llvm::Attribute::NoAlias);
  f_->addFnAttr(llvm::Attribute::NoUnwind);
  launch_ = f_->getArg(0);
  blockArg_ = f_->getArg(1);

  BasicBlock *entry = BasicBlock::Create(ctx, "entry", f_);
  b.SetInsertPoint(entry);
  auto loadField = [&](Value *base, llvm::StructType *st, unsigned field, unsigned idx,
                       llvm::Type *ty, const char *name) -> Value * {
    Value *p = b.CreateStructGEP(st, base, field);
    if (st->getElementType(field)->isArrayTy())
      p = b.CreateConstInBoundsGEP2_32(st->getElementType(field), p, 0, idx);
    auto *ld = b.CreateLoad(ty, p, name);
    ld->setMetadata(llvm::LLVMContext::MD_invariant_load, llvm::MDNode::get(ctx, {}));
    return ld;
  };
  Value *firstCtaid[3];
  for (unsigned d = 0; d < 3; ++d) {
    nctaid_[d] = loadField(launch_, ms.launchTy, 0, d, i32, "nctaid");
    ntid_[d] = loadField(launch_, ms.launchTy, 1, d, i32, "ntid");
    llvm::cast<llvm::Instruction>(ntid_[d])->setMetadata(kBlockDimMetadata, blockDimTag(ctx, d));
    firstCtaid[d] = loadField(blockArg_, ms.blockTy, 0, d, i32, "ctaid");
  }
  Value *more = loadField(blockArg_, ms.blockTy, 1, 0, i32, "more");
  params_ = loadField(launch_, ms.launchTy, 2, 0, ptrTy, "params");
  {
    // The parameter buffer is read-only, aligned and always fully readable: its loads may be
    // hoisted out of conditional code and thread loops.
    auto *pl = llvm::cast<llvm::Instruction>(params_);
    auto i64md = [&](uint64_t v) {
      return llvm::MDNode::get(ctx, {llvm::ConstantAsMetadata::get(b.getInt64(v))});
    };
    pl->setMetadata(kParamsMetadata, llvm::MDNode::get(ctx, {}));
    pl->setMetadata(llvm::LLVMContext::MD_dereferenceable, i64md(std::max(1u, info_.paramBytes)));
    pl->setMetadata(llvm::LLVMContext::MD_align, i64md(16));
  }
  dynShared_ = loadField(launch_, ms.launchTy, 3, 0, i32, "dynsmem");
  nthreads_ = loadField(launch_, ms.launchTy, 4, 0, i32, "nthreads");
  llvm::cast<llvm::Instruction>(nthreads_)->setMetadata(kBlockDimMetadata, blockDimTag(ctx, 3));
  envreg_ = loadField(launch_, ms.launchTy, 5, 0, ptrTy, "envreg");
  services_ = loadField(launch_, ms.launchTy, 6, 0, ptrTy, "services");
  sharedBase_ = loadField(blockArg_, ms.blockTy, 2, 0, ptrTy, "shared");
  llvm::cast<llvm::Instruction>(sharedBase_)
      ->setMetadata(kSharedMetadata, llvm::MDNode::get(ctx, {}));
  scratch_ = loadField(blockArg_, ms.blockTy, 3, 0, ptrTy, "scratch");
  llvm::cast<llvm::Instruction>(scratch_)->setMetadata(kScratchMetadata,
                                                       llvm::MDNode::get(ctx, {}));

  for (size_t i = 0; i < regs_.size(); ++i)
    regs_[i].slot = b.CreateAlloca(regs_[i].ty, nullptr, "r" + std::to_string(i));
  carry_ = b.CreateAlloca(i32, nullptr, "cc.cf");
  blockReduction_ = b.CreateAlloca(i32, nullptr, "bar.red");
  if (namedBarriers_) {
    auto *perBarrier = llvm::ArrayType::get(i32, kNamedBarriers);
    barrierCounts_ = b.CreateAlloca(perBarrier, nullptr, "bar.n");
    barrierNeeds_ = b.CreateAlloca(perBarrier, nullptr, "bar.need");
    releasedBarrier_ = b.CreateAlloca(i32, nullptr, "bar.released");
  }

  // The function runs `more` + 1 consecutive blocks (ctaid.x fastest): launch-invariant work is
  // done once per call, not once per block.
  BasicBlock *blockHdr = BasicBlock::Create(ctx, "block", f_);
  blockEnd_ = BasicBlock::Create(ctx, "block.end", f_);
  b.CreateBr(blockHdr);
  b.SetInsertPoint(blockHdr);
  llvm::PHINode *cta[3], *left = b.CreatePHI(i32, 2, "blocks.left");
  left->addIncoming(more, entry);
  for (unsigned d = 0; d < 3; ++d) {
    cta[d] = b.CreatePHI(i32, 2, "ctaid");
    cta[d]->addIncoming(firstCtaid[d], entry);
    ctaid_[d] = cta[d];
  }
  b.CreateStore(b.getInt32(0), carry_);
  if (barrierCounts_)
    for (unsigned k = 0; k < kNamedBarriers; ++k)
      for (auto *array : {barrierCounts_, barrierNeeds_})
        b.CreateStore(b.getInt32(0), barrierSlot(array, b.getInt32(k)));
  {
    BasicBlock *body = b.GetInsertBlock();
    b.SetInsertPoint(blockEnd_);
    BasicBlock *next = BasicBlock::Create(ctx, "block.next", f_);
    BasicBlock *ret = BasicBlock::Create(ctx, "return", f_);
    b.CreateCondBr(b.CreateICmpEQ(left, b.getInt32(0)), ret, next);
    b.SetInsertPoint(ret);
    b.CreateRetVoid();
    b.SetInsertPoint(next);
    Value *x = b.CreateAdd(cta[0], b.getInt32(1));
    Value *wrapX = b.CreateICmpEQ(x, nctaid_[0]);
    Value *y = b.CreateAdd(cta[1], b.CreateZExt(wrapX, i32));
    Value *wrapY = b.CreateICmpEQ(y, nctaid_[1]);
    cta[0]->addIncoming(b.CreateSelect(wrapX, b.getInt32(0), x), next);
    cta[1]->addIncoming(b.CreateSelect(wrapY, b.getInt32(0), y), next);
    cta[2]->addIncoming(b.CreateAdd(cta[2], b.CreateZExt(wrapY, i32)), next);
    left->addIncoming(b.CreateSub(left, b.getInt32(1)), next);
    b.CreateBr(blockHdr);
    b.SetInsertPoint(body);
  }
  if (warpMode_) {
    emitWarpScheduler();
    return;
  }
  // Every region has an unmasked entry; after the first (where every thread starts) a masked one
  // too, when threads can wait apart.
  for (size_t r = 0; r < regions_.size(); ++r) {
    regions_[r].preAll = BasicBlock::Create(ctx, "region.all", f_);
    if (r > 0 && maskedCopies_)
      regions_[r].pre = BasicBlock::Create(ctx, "region.pre", f_);
  }
  b.CreateBr(regions_[0].preAll);
  if (regions_.size() > 1)
    dispatch_ = BasicBlock::Create(ctx, "dispatch", f_);
  emitRegion(0, true);
  for (size_t r = 1; r < regions_.size(); ++r) {
    emitRegion(static_cast<int>(r), true);
    if (maskedCopies_)
      emitRegion(static_cast<int>(r), false);
  }
  if (dispatch_)
    emitDispatch();
}

// Block mode: one region runs as nested loops over z, y, x thread indices (x innermost).
void KernelLowering::emitRegion(int r, bool all) {
  curRegion_ = r;
  copyIndex_ = all ? r + static_cast<int>(regions_.size()) : r;
  auto *i32 = b.getInt32Ty();
  const bool multi = regions_.size() > 1;
  b.SetInsertPoint(all ? regions_[r].preAll : regions_[r].pre);
  raceBarrier(r);
  // Uniform registers live into the region are read once, before the thread loops: values (and
  // branches) computed from them are then visibly the same in every iteration.
  uniformIn_.clear();
  if (r > 0) {
    const auto &live = blocks_[regions_[r].entryBlock].liveIn;
    for (size_t id = 0; id < regs_.size(); ++id) {
      const RegInfo &ri = regs_[id];
      if (!ri.uniform || ri.cross < 0 || !getBit(live, static_cast<int>(id)))
        continue;
      unsigned sz = std::max(1u, ptx::typeSize(ri.type));
      llvm::Type *memTy = ri.ty->isIntegerTy(1) ? b.getInt8Ty() : ri.ty;
      Value *v = b.CreateLoad(memTy, threadSlot(ri.crossOffset, sz, b.getInt32(0)));
      uniformIn_[static_cast<int>(id)] = ri.ty->isIntegerTy(1) ? b.CreateTrunc(v, ri.ty) : v;
    }
  }

  BasicBlock *hdr[3], *latch[3];
  llvm::PHINode *iv[3];
  for (int d = 2; d >= 0; --d) {
    hdr[d] = BasicBlock::Create(ctx, "tloop.hdr", f_);
    latch[d] = BasicBlock::Create(ctx, "tloop.latch", f_);
  }
  BasicBlock *exit = BasicBlock::Create(ctx, "region.exit", f_);
  BasicBlock *from = b.GetInsertBlock();
  for (int d = 2; d >= 0; --d) {
    b.CreateBr(hdr[d]);
    b.SetInsertPoint(hdr[d]);
    iv[d] = b.CreatePHI(i32, 2, d == 0 ? "tid.x" : d == 1 ? "tid.y" : "tid.z");
    iv[d]->addIncoming(b.getInt32(0), from);
    from = hdr[d];
  }
  Value *linear =
      b.CreateAdd(iv[0], b.CreateMul(ntid_[0], b.CreateAdd(iv[1], b.CreateMul(ntid_[1], iv[2]))),
                  "tid.linear", true, true);
  accessGroup_ = llvm::MDNode::getDistinct(ctx, {});
  latch_ = latch[0];
  setThreadIndex(linear, iv[0], iv[1], iv[2]);

  if (!all) {
    // Only threads waiting at this region's barrier run it (exited ones do not).
    auto *ld = b.CreateLoad(i32, threadSlot(stateOff_, 4, linearTid_), "state");
    tagMemory(ld);
    BasicBlock *run = BasicBlock::Create(ctx, "thread.run", f_);
    b.CreateCondBr(resumesAt(r, linearTid_, ld), run, latch_);
    b.SetInsertPoint(run);
  }
  emitRegionBody(r);

  // Latches: x innermost, marked parallel so LLVM may vectorise across threads.
  for (int d = 0; d < 3; ++d) {
    b.SetInsertPoint(latch[d]);
    Value *nx = b.CreateAdd(iv[d], b.getInt32(1), "", true, true);
    iv[d]->addIncoming(nx, latch[d]);
    BasicBlock *outer = d < 2 ? latch[d + 1] : exit;
    auto *br = b.CreateCondBr(b.CreateICmpULT(nx, ntid_[d]), hdr[d], outer);
    if (d == 0) {
      // The masked copy is the rare path (threads resuming at different points): it is left
      // scalar and not unrolled, which keeps compile time close to a single copy.
      auto str = [&](const char *s) { return llvm::MDString::get(ctx, s); };
      std::vector<llvm::Metadata *> ops{nullptr};
      if (all) {
        ops.push_back(llvm::MDNode::get(ctx, {str("llvm.loop.parallel_accesses"), accessGroup_}));
        // A long chain of divisions, square roots and transcendentals per thread leaves the
        // CPU waiting on latencies with one vector of threads in flight: interleaved vectors
        // keep its units busy (four here; eight once the block shape shows at least 128 threads
        // along x: specializeBlockShape). Loops of loads and FMAs (SGEMM's tiles) only spill
        // more when interleaved, so LLVM's choice stands for them.
        if (longLatencyOps(r) >= 3)
          ops.push_back(llvm::MDNode::get(ctx, {str("llvm.loop.interleave.count"),
                                                llvm::ConstantAsMetadata::get(b.getInt32(4))}));
      } else {
        ops.push_back(llvm::MDNode::get(ctx, {str("llvm.loop.vectorize.enable"),
                                              llvm::ConstantAsMetadata::get(b.getInt1(false))}));
        ops.push_back(llvm::MDNode::get(ctx, {str("llvm.loop.unroll.disable")}));
      }
      auto *loopId = llvm::MDNode::getDistinct(ctx, ops);
      loopId->replaceOperandWith(0, loopId);
      br->setMetadata(llvm::LLVMContext::MD_loop, loopId);
    }
  }
  b.SetInsertPoint(exit);
  if (!multi) {
    b.CreateBr(blockEnd_);
    return;
  }
  // Uniform registers the region wrote become visible now, then the block picks its next region.
  for (auto &ri : regs_)
    if (ri.uniform && ri.cross >= 0 &&
        getBit(regionDefs_[r], static_cast<int>(&ri - regs_.data()))) {
      unsigned sz = std::max(1u, ptx::typeSize(ri.type));
      llvm::Type *memTy = ri.ty->isIntegerTy(1) ? b.getInt8Ty() : ri.ty;
      Value *staged = b.CreateLoad(
          memTy, threadSlot(ri.crossOffset, sz, b.CreateSub(nthreads_, b.getInt32(1))));
      b.CreateStore(staged, threadSlot(ri.crossOffset, sz, b.getInt32(0)));
    }
  // Every thread ran the unmasked copy of a region without branches to the same sync point:
  // they all wait there, so no scan of their states is needed to know what runs next.
  const int next = all ? straightSuccessor(r) : -1;
  b.CreateBr(next > 0 ? regions_[next].preAll : dispatch_);
}

// One thread's code for region r, emitted at the current insertion point: registers live into
// the region come from their slabs, a warp sync point computes its collective result, then the
// region's blocks follow.
void KernelLowering::emitRegionBody(int r) {
  curRegion_ = r;
  loadCross(r);
  int first = 0;
  if (r > 0) {
    if (regions_[r].warp)
      emitCollective(r);
    if (regions_[r].yield) // the wait itself, now that the others have run
      emitInstruction(blocks_[regions_[r].entryBlock].instrs.front());
    if (const ptx::Instruction *red = barrierReduction(r)) {
      Value *v = b.CreateLoad(b.getInt32Ty(), blockReduction_);
      if (red->has(Mod::popc))
        write(red->operands[0], v, ptx::Type::U32, *red);
      else
        write(red->operands[0], b.CreateICmpNE(v, b.getInt32(0)), ptx::Type::Pred, *red);
    }
    first = regions_[r].entryBlock + 1;
  }
  goTo(first);
  while (!pending_.empty()) {
    int blk = pending_.back();
    pending_.pop_back();
    emitBlockBody(blk);
  }
}

// Transfer to block `s`: within the region, or to the sync point that starts another region. A
// masked copy (threads resuming at different points) runs on through a loop's implicit barrier:
// stopping there would cost a block-wide scan per iteration for a few threads.
void KernelLowering::goTo(int s) {
  if (s >= static_cast<int>(blocks_.size()))
    exitThread();
  else if (blocks_[s].syncRegion < 0)
    b.CreateBr(blockCopy(s));
  else if (regions_[blocks_[s].syncRegion].implicit && !warpMode_ && !unmaskedCopy())
    goTo(s + 1);
  else
    arrive(s);
}

void KernelLowering::tagMemory(llvm::Instruction *i, bool outsideScratch) {
  if (accessGroup_ &&
      (llvm::isa<llvm::LoadInst>(i) || llvm::isa<llvm::StoreInst>(i) || i->mayReadOrWriteMemory()))
    i->setMetadata(llvm::LLVMContext::MD_access_group, accessGroup_);
  if (outsideScratch)
    i->setMetadata(kOutsideScratchMetadata, llvm::MDNode::get(ctx, {}));
}

llvm::BasicBlock *KernelLowering::blockCopy(int blk) {
  auto key = std::make_pair(copyIndex_, blk);
  auto it = copies_.find(key);
  if (it != copies_.end())
    return it->second;
  auto *bb = BasicBlock::Create(ctx, "ptx.b" + std::to_string(blk), f_);
  copies_[key] = bb;
  pending_.push_back(blk);
  return bb;
}

// Cross registers live into `region`: from the slabs into the thread's registers.
void KernelLowering::loadCross(int region) {
  if (region == 0)
    return;
  const auto &live = blocks_[regions_[region].entryBlock].liveIn;
  std::vector<bool> done(regs_.size(), false);
  for (auto &ri : regs_) {
    int id = static_cast<int>(&ri - regs_.data());
    if (ri.rematDef && getBit(live, id))
      rematerialize(id, done);
    if (ri.cross < 0 || !getBit(live, id))
      continue;
    if (auto it = uniformIn_.find(id); it != uniformIn_.end()) {
      b.CreateStore(it->second, ri.slot); // read before the thread loops
      continue;
    }
    unsigned sz = std::max(1u, ptx::typeSize(ri.type));
    llvm::Type *memTy = ri.ty->isIntegerTy(1) ? b.getInt8Ty() : ri.ty;
    // A block-uniform register has one slot (thread 0's): loading it is a scalar, loop-invariant
    // load, so addresses built from it stay contiguous when vectorised.
    Value *slotTid = ri.uniform ? b.getInt32(0) : linearTid_;
    auto *ld = b.CreateLoad(memTy, threadSlot(ri.crossOffset, sz, slotTid));
    tagMemory(ld);
    Value *v = ri.ty->isIntegerTy(1) ? b.CreateTrunc(ld, ri.ty) : static_cast<Value *>(ld);
    b.CreateStore(v, ri.slot);
  }
}

void KernelLowering::storeCross(int region) {
  const auto &live = blocks_[regions_[region].entryBlock].liveIn;
  for (auto &ri : regs_) {
    int id = static_cast<int>(&ri - regs_.data());
    // an unmasked copy stops at the first sync point; a masked one runs through implicit ones
    const auto &defs = unmaskedCopy() ? unmaskedDefs_[curRegion_] : regionDefs_[curRegion_];
    if (ri.cross < 0 || !getBit(live, id) || !getBit(defs, id))
      continue; // not written since the region loaded it: the slab still holds the value
    unsigned sz = std::max(1u, ptx::typeSize(ri.type));
    Value *v = b.CreateLoad(ri.ty, ri.slot);
    if (ri.ty->isIntegerTy(1))
      v = b.CreateZExt(v, b.getInt8Ty());
    // A uniform register is written to a staging slot (the last thread's): threads that run the
    // region later must still read the old value; the block copies it over after the region.
    Value *slotTid = ri.uniform ? b.CreateSub(nthreads_, b.getInt32(1)) : linearTid_;
    auto *st = b.CreateStore(v, threadSlot(ri.crossOffset, sz, slotTid));
    if (!ri.uniform)
      tagMemory(st);
  }
}

// The thread reached the sync block `blk`: save what the next region needs, record where the
// thread resumes, and end this thread's iteration.
void KernelLowering::arrive(int blk) {
  int nr = blocks_[blk].syncRegion;
  storeCross(nr);
  if (warpMode_ && regions_[nr].warp)
    arriveAtSync(nr);
  if (const ptx::Instruction *red = barrierReduction(nr)) // bar.red: publish the predicate
    tagMemory(b.CreateStore(
        b.CreateZExt(read(red->operands.back(), ptx::Type::Pred, *red), b.getInt8Ty()),
        threadSlot(pubOff_, pubBytes_, linearTid_)));
  if (regions_[nr].dynamicBarrier)
    recordWaitingBarrier(arriveAtNamedBarrier(blocks_[regions_[nr].entryBlock].instrs.front()));
  else if (regions_[nr].count)
    countArrival(b.getInt32(regions_[nr].barrierId));
  // In a region's unmasked copy every thread resumed at it, so its state already says nr when
  // it comes back to the same sync point (a loop's next iteration): no store.
  if (!(unmaskedCopy() && nr == curRegion_ && nr > 0))
    tagMemory(b.CreateStore(b.getInt32(nr), threadSlot(stateOff_, 4, linearTid_)));
  b.CreateBr(latch_);
}

void KernelLowering::exitThread() {
  if (warpMode_ || regions_.size() > 1)
    tagMemory(b.CreateStore(b.getInt32(kExited), threadSlot(stateOff_, 4, linearTid_)));
  b.CreateBr(latch_);
}

// The instructions of one PTX block, for one region's copy, and its control transfer.
void KernelLowering::emitBlockBody(int blk) {
  const auto &pb = blocks_[blk];
  b.SetInsertPoint(copies_[{copyIndex_, blk}]);
  size_t n = pb.instrs.size();
  const ptx::Instruction *term = nullptr;
  if (n && isTerminatorOp(pb.instrs.back().op)) {
    term = &pb.instrs.back();
    --n;
  }
  for (size_t i = 0; i < n; ++i) {
    const auto &in = pb.instrs[i];
    if ((in.op == Op::bar || in.op == Op::barrier) && in.has(Mod::arrive)) {
      uint32_t id = 0, count = 0;
      if (countedBarrier(in, id, count))
        countArrival(b.getInt32(id));
      else
        arriveAtNamedBarrier(in);
      continue;
    }
    if (in.guard) {
      Value *p = b.CreateLoad(b.getInt1Ty(), reg(in.guard->reg, in).slot);
      if (in.guard->negate)
        p = b.CreateNot(p);
      BasicBlock *thenBB = BasicBlock::Create(ctx, "pred", f_);
      BasicBlock *cont = BasicBlock::Create(ctx, "pred.cont", f_);
      b.CreateCondBr(p, thenBB, cont);
      b.SetInsertPoint(thenBB);
      emitInstruction(in);
      b.CreateBr(cont);
      b.SetInsertPoint(cont);
    } else {
      emitInstruction(in);
    }
  }
  int fall = blk + 1;
  if (!term) {
    goTo(fall);
    return;
  }
  auto transfer = [&] {
    if (term->op == Op::bra)
      goTo(labels_.at(term->operands[0].name));
    else
      exitThread();
  };
  if (!term->guard) {
    transfer();
    return;
  }
  Value *p = b.CreateLoad(b.getInt1Ty(), reg(term->guard->reg, *term).slot);
  if (term->guard->negate)
    p = b.CreateNot(p);
  BasicBlock *taken = BasicBlock::Create(ctx, "br.taken", f_);
  BasicBlock *notTaken = BasicBlock::Create(ctx, "br.fall", f_);
  b.CreateCondBr(p, taken, notTaken);
  b.SetInsertPoint(taken);
  transfer();
  b.SetInsertPoint(notTaken);
  goTo(fall);
}

} // namespace cucpu::jit
