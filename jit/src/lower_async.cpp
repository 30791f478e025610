// Asynchronous copies and mbarriers. A copy (cp.async, cp.async.bulk) is made when the
// instruction runs, so it is complete before any wait for it: the groups' commits and waits have
// nothing to do, and a copy's completion (cp.async.mbarrier.arrive, complete_tx) happens at once.
// An mbarrier is a 64-bit word of the block's shared memory in cucpu's own encoding:
//   bits 0-20 arrivals pending in the current phase, 21-41 arrivals expected per phase,
//   42-62 the pending transaction count (two's complement), 63 the phase's parity.
// The state `arrive` returns is the word before the arrival. test_wait/try_wait are also the
// points where a waiting thread lets the others run (formBlocks makes them yield regions).
#include "lowering.h"
#include "scratch_alias.h"

#include "kernel_abi.h"

namespace cucpu::jit {

using llvm::Value;
using T = ptx::Type;

namespace {

constexpr unsigned kCountBits = 21, kExpectedShift = 21, kTxShift = 42, kPhaseShift = 63;

// The word's fields and the word put back together.
struct Barrier {
  Value *pending, *expected, *tx, *phase; // i64 each; tx sign-extended
};

Barrier splitBarrier(llvm::IRBuilder<> &b, Value *w) {
  auto field = [&](unsigned shift) {
    return b.CreateAnd(b.CreateLShr(w, shift), b.getInt64((uint64_t(1) << kCountBits) - 1));
  };
  Value *tx = b.CreateAShr(b.CreateShl(w, 64 - kTxShift - kCountBits), 64 - kCountBits);
  return {field(0), field(kExpectedShift), tx, b.CreateLShr(w, kPhaseShift)};
}

Value *joinBarrier(llvm::IRBuilder<> &b, const Barrier &f) {
  const uint64_t mask = (uint64_t(1) << kCountBits) - 1;
  Value *w = b.CreateAnd(f.pending, b.getInt64(mask));
  w = b.CreateOr(w, b.CreateShl(b.CreateAnd(f.expected, b.getInt64(mask)), kExpectedShift));
  w = b.CreateOr(w, b.CreateShl(b.CreateAnd(f.tx, b.getInt64(mask)), kTxShift));
  return b.CreateOr(w, b.CreateShl(f.phase, kPhaseShift));
}

// A phase whose arrivals and transactions are all done completes: the parity flips and the
// expected arrivals are pending again.
Barrier completePhase(llvm::IRBuilder<> &b, Barrier f) {
  Value *done =
      b.CreateAnd(b.CreateICmpEQ(f.pending, b.getInt64(0)), b.CreateICmpEQ(f.tx, b.getInt64(0)));
  f.phase = b.CreateSelect(done, b.CreateXor(f.phase, b.getInt64(1)), f.phase);
  f.pending = b.CreateSelect(done, f.expected, f.pending);
  return f;
}

} // namespace

bool KernelLowering::emitAsyncInstruction(const ptx::Instruction &in) {
  auto *i64 = b.getInt64Ty();
  const auto &o = in.operands;
  const ptx::Space space = ptx::spaceOf(in);
  auto sharedOrGeneric = [&](const ptx::Operand &a) {
    return address(a, space == ptx::Space::Shared ? ptx::Space::Shared : ptx::Space::None, in);
  };
  auto tagged = [&](llvm::Instruction *i) {
    tagMemory(i, true);
    return i;
  };
  // Arrivals of the threads of one thread loop update one word: they stay out of its parallel
  // accesses (as shared-memory atomics do), so they run one after another.
  auto untagged = [&](llvm::Instruction *i) {
    i->setMetadata(kOutsideScratchMetadata, llvm::MDNode::get(ctx, {}));
    return i;
  };
  auto update = [&](const ptx::Operand &addr, const std::function<Barrier(Barrier)> &change) {
    Value *p = sharedOrGeneric(addr);
    Value *w = untagged(b.CreateLoad(i64, p));
    untagged(b.CreateStore(joinBarrier(b, change(splitBarrier(b, w))), p));
    return w;
  };
  auto count = [&](size_t i) {
    if (o.size() > i && o[i].kind == ptx::Operand::Kind::Imm && o[i].imm <= 0)
      throwInvalid(o[i].loc, "the count of '" + spellingOf(in) + "' must be positive"); // ptxas
    return o.size() > i ? b.CreateZExt(read(o[i], T::U32, in), i64) : b.getInt64(1);
  };

  if (in.op == Op::mbarrier) {
    if (in.has(Mod::init)) {
      Value *n = count(1);
      untagged(b.CreateStore(b.CreateOr(n, b.CreateShl(n, kExpectedShift)), sharedOrGeneric(o[0])));
    } else if (in.has(Mod::inval)) {
      untagged(b.CreateStore(b.getInt64(0), sharedOrGeneric(o[0])));
    } else if (in.has(Mod::arrive) || in.has(Mod::arrive_drop)) {
      const bool drop = in.has(Mod::arrive_drop), expectTx = in.has(Mod::expect_tx);
      Value *n = expectTx ? b.getInt64(1) : count(2);
      Value *tx = expectTx ? count(2) : nullptr;
      Value *state = update(o[1], [&](Barrier f) {
        if (tx)
          f.tx = b.CreateAdd(f.tx, tx);
        f.pending = b.CreateSub(f.pending, n);
        if (drop)
          f.expected = b.CreateSub(f.expected, n);
        return in.has(Mod::noComplete) ? f : completePhase(b, f);
      });
      write(o[0], state, T::B64, in);
    } else if (in.has(Mod::expect_tx) || in.has(Mod::complete_tx)) {
      const bool complete = in.has(Mod::complete_tx);
      Value *n = count(1);
      update(o[0], [&](Barrier f) {
        f.tx = complete ? b.CreateSub(f.tx, n) : b.CreateAdd(f.tx, n);
        return complete ? completePhase(b, f) : f;
      });
    } else if (in.has(Mod::test_wait) || in.has(Mod::try_wait)) {
      Value *w = untagged(b.CreateLoad(i64, sharedOrGeneric(o[1])));
      Value *phase = b.CreateLShr(w, kPhaseShift);
      Value *waited = in.has(Mod::parity)
                          ? b.CreateAnd(b.CreateZExt(read(o[2], T::U32, in), i64), b.getInt64(1))
                          : b.CreateLShr(read(o[2], T::B64, in), kPhaseShift);
      write(o[0], b.CreateICmpNE(phase, waited), T::Pred, in);
    } else if (in.has(Mod::pending_count)) {
      Value *state = read(o[1], T::B64, in);
      write(o[0], b.CreateAnd(state, b.getInt64((uint64_t(1) << kCountBits) - 1)), T::U32, in);
    } else {
      return false;
    }
    return true;
  }

  if (in.op != Op::cp)
    return false;
  if (in.has(Mod::commit_group) || in.has(Mod::wait_group) || in.has(Mod::wait_all) ||
      in.has(Mod::prefetch))
    return true;                                      // every copy is already complete
  if (in.has(Mod::mbarrier) && in.has(Mod::arrive)) { // cp.async.mbarrier.arrive{.noinc}
    if (in.has(Mod::noinc)) // without .noinc the pending count goes up first: no change
      update(o[0], [&](Barrier f) {
        f.pending = b.CreateSub(f.pending, b.getInt64(1));
        return completePhase(b, f);
      });
    return true;
  }
  if (in.has(Mod::bulk)) {
    Value *dst = address(o.at(0), ptx::operandSpace(in, 0), in);
    Value *src = address(o.at(1), ptx::operandSpace(in, 1), in);
    Value *size = b.CreateZExt(read(o.at(2), T::U32, in), i64);
    tagged(b.CreateMemCpy(dst, llvm::MaybeAlign(16), src, llvm::MaybeAlign(16), size));
    if (in.has(Mod::mbarrier_complete_tx_bytes))
      update(o.at(3), [&](Barrier f) {
        f.tx = b.CreateSub(f.tx, size);
        return completePhase(b, f);
      });
    return true;
  }
  // cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}{, policy}
  Value *dst = address(o.at(0), ptx::Space::Shared, in);
  Value *src = address(o.at(1), ptx::Space::Global, in);
  if (o.at(2).kind != ptx::Operand::Kind::Imm)
    throwInvalid(o[2].loc, "cp.async's copy size must be an immediate");
  const uint64_t n = uint64_t(o[2].imm);
  if (n != 4 && n != 8 && n != 16)
    throwInvalid(o[2].loc, "cp.async copies 4, 8 or 16 bytes");
  bool sized = false, ignorable = false;
  if (o.size() > 3 && !(o.size() == 4 && in.has(Mod::L2_cache_hint))) {
    const ptx::Operand &x = o[3];
    const bool named = x.kind == ptx::Operand::Kind::Reg || x.kind == ptx::Operand::Kind::Symbol;
    const bool pred = named && regIds_.count(x.name) && reg(x.name, in).type == T::Pred;
    (pred ? ignorable : sized) = true;
  }
  checkAccess(in, dst, ptx::Space::Shared, unsigned(n), CUCPU_ACCESS_WRITE);
  if (!sized && !ignorable) { // (with a source size, fewer bytes are read: not checked)
    checkAccess(in, src, ptx::Space::Global, unsigned(n), CUCPU_ACCESS_READ);
    tagged(b.CreateMemCpy(dst, llvm::MaybeAlign(n), src, llvm::MaybeAlign(n), n));
    return true;
  }
  Value *bytes;
  if (ignorable)
    bytes = b.CreateSelect(read(o[3], T::Pred, in), b.getInt64(0), b.getInt64(n));
  else
    bytes = b.CreateBinaryIntrinsic(llvm::Intrinsic::umin,
                                    b.CreateZExt(read(o[3], T::U32, in), i64), b.getInt64(n));
  tagged(b.CreateMemSet(dst, b.getInt8(0), n, llvm::MaybeAlign(n)));
  tagged(b.CreateMemCpy(dst, llvm::MaybeAlign(1), src, llvm::MaybeAlign(1), bytes));
  return true;
}

} // namespace cucpu::jit
