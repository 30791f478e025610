// The block's data-flow analyses for the lowering: which registers are the same in every thread
// (uniform), which can be recomputed at a region's entry rather than saved (rematerialisable),
// and whether the threads of a block can ever wait at different points (masked region copies).
#include "lowering.h"
#include "ptx_passes.h"

#include "cucpu/support/log.h"

namespace cucpu::jit {

using llvm::Value;

// ld.param of the kernel's own parameters (by name): the same for every thread. Loads from a
// call's argument or return slots (.param variables in the body) are per-thread values.
bool KernelLowering::readsKernelParameter(const ptx::Instruction &in) const {
  if (in.op != Op::ld || !in.has(Mod::param) || in.operands.size() < 2)
    return false;
  const ptx::Operand &a = in.operands[1];
  return a.kind == ptx::Operand::Kind::Address && !a.addrIsReg && !regIds_.count(a.name) &&
         !localOffsets_.count(a.name) && paramOffsets_.count(a.name);
}

// A register is rematerialisable when its only definition is pure arithmetic on special
// registers, immediates, kernel parameters, symbol addresses and other rematerialisable
// registers (typically `tid.x * 4 + &sdata`). Such a register is recomputed where a region
// needs it instead of being kept in a slab: the recomputed value stays visibly affine in the
// thread index, so accesses through it vectorise as contiguous loads.
void KernelLowering::findRematerializable() {
  std::vector<int> defs(regs_.size(), 0);
  std::vector<const ptx::Instruction *> def(regs_.size(), nullptr);
  for (const auto &bb : blocks_)
    for (const auto &in : bb.instrs)
      for (int r : regOperands(in, true)) {
        ++defs[r];
        def[r] = &in;
      }
  static const char *const kPure[] = {"mov", "add", "sub", "mul", "mad",  "shl", "shr",
                                      "and", "or",  "xor", "cvt", "cvta", "neg", "not"};
  // 0 unknown, 1 in progress, 2 yes, 3 no
  std::vector<uint8_t> state(regs_.size(), 0);
  std::function<bool(int)> check = [&](int r) -> bool {
    if (state[r] == 2 || state[r] == 3)
      return state[r] == 2;
    if (state[r] == 1)
      return false; // a cycle: defined in terms of itself
    state[r] = 1;
    bool ok =
        defs[r] == 1 && !def[r]->guard && !def[r]->has(Mod::cc) && !ptx::isFloat(regs_[r].type);
    if (ok) {
      const ptx::Instruction &in = *def[r];
      bool pure = std::any_of(std::begin(kPure), std::end(kPure),
                              [&](const char *p) { return in.opcode == p; });
      bool param = readsKernelParameter(in);
      ok = pure || param;
      for (int u : regOperands(in, false))
        ok = ok && check(u);
    }
    state[r] = ok ? 2 : 3;
    if (ok)
      regs_[r].rematDef = def[r];
    return ok;
  };
  for (size_t r = 0; r < regs_.size(); ++r)
    check(static_cast<int>(r));
}

// Divergence analysis: a register is block-uniform when every thread that reaches a barrier holds
// the same value in it. Varying are: thread-index special registers, .local addresses, loads from
// memory other than kernel parameters, atomics, warp operations and calls, anything computed from
// a varying register, and anything defined under a branch on a varying predicate (the blocks
// reachable from such a branch that do not post-dominate it).
// Blocks from which every path ends the thread without reaching a sync point: threads there
// never meet the others again.
std::vector<bool> KernelLowering::exitOnlyBlocks() const {
  const size_t nb = blocks_.size();
  std::vector<bool> exitsOnly(nb, true);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = nb; i-- > 0;) {
      bool e = blocks_[i].syncRegion < 0;
      for (int s2 : blocks_[i].succs)
        e = e && exitsOnly[s2];
      if (e != exitsOnly[i]) {
        exitsOnly[i] = e;
        changed = true;
      }
    }
  }
  return exitsOnly;
}

// Post-dominator sets over the PTX CFG (small: iterate to a fixed point). With `exitsOnly`, a
// branch with a successor that can still reach a sync point ignores its exit-only successors
// (threads sent there never meet the others again: `if (i >= n) return;` does not make the code
// after it divergent); `ignoreAllExits` ignores them everywhere. With `varyingBranch`, only the
// branches it marks ignore them: a uniform loop whose exit leads to the kernel's exit-only tail
// would otherwise have no exit at all, and every block of an exitless loop post-dominates every
// other (a varying branch inside it then looked convergent); for the same reason a block that
// could reach no exit keeps its exit-only successors.
std::vector<std::vector<uint64_t>>
KernelLowering::postDominators(const std::vector<bool> *exitsOnly, bool ignoreAllExits,
                               const std::vector<bool> *varyingBranch) const {
  const size_t nb = blocks_.size();
  size_t from = 0; // the block whose successors are being looked at
  std::vector<bool> keepExits(nb, false);
  auto ignored = [&](int s) {
    return exitsOnly && (*exitsOnly)[s] && (!varyingBranch || (*varyingBranch)[from]) &&
           !keepExits[from];
  };
  // A block that can reach no exit once exit-only successors are ignored (a `while (true)` loop
  // left only by a varying branch to the kernel's tail) keeps them: in an exitless loop every
  // block would post-dominate every other, and its varying branches would look convergent.
  if (exitsOnly && !ignoreAllExits)
    for (bool restored = true; restored;) {
      std::vector<bool> reaches(nb, false);
      for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = nb; i-- > 0;) {
          from = i;
          bool r = blocks_[i].succs.empty();
          for (int s : blocks_[i].succs)
            r = r || (!ignored(s) && reaches[s]);
          if (r && !reaches[i])
            reaches[i] = changed = true;
        }
      }
      restored = false;
      for (size_t i = 0; i < nb; ++i) {
        from = i;
        bool anyIgnored = false;
        for (int s : blocks_[i].succs)
          anyIgnored = anyIgnored || ignored(s);
        if (!reaches[i] && anyIgnored)
          keepExits[i] = restored = true;
      }
    }
  // Bit sets of 64 blocks per word: the kernels of CUB's radix sort have thousands of blocks.
  const size_t words = (nb + 63) / 64;
  std::vector<std::vector<uint64_t>> pdom(nb, std::vector<uint64_t>(words, ~uint64_t(0)));
  for (size_t i = 0; i < nb; ++i)
    if (blocks_[i].succs.empty()) {
      pdom[i].assign(words, 0);
      setBit(pdom[i], static_cast<int>(i));
    }
  std::vector<uint64_t> next(words);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = nb; i-- > 0;) {
      if (blocks_[i].succs.empty())
        continue;
      from = i;
      bool someLive = false;
      for (int s : blocks_[i].succs)
        someLive = someLive || !ignored(s);
      next.assign(words, ~uint64_t(0));
      for (int s : blocks_[i].succs)
        if (!ignored(s) || (!someLive && !ignoreAllExits))
          for (size_t k = 0; k < words; ++k)
            next[k] &= pdom[s][k];
      setBit(next, static_cast<int>(i));
      if (next != pdom[i]) {
        pdom[i].swap(next);
        changed = true;
      }
    }
  }
  return pdom;
}

// Block mode: whether threads of a block can ever wait at different points (or some have exited
// while others wait): a branch or exit on a varying predicate from which a sync point is still
// reachable, with a sync point or an exit before the threads meet again. Otherwise every
// dispatch finds all threads at one state and the masked region copies are never needed.
bool KernelLowering::threadsMayDisagree() const {
  const int nb = static_cast<int>(blocks_.size());
  const auto exitsOnly = exitOnlyBlocks();
  const auto pdom = postDominators(nullptr, false);
  auto varyingGuard = [&](const ptx::Instruction &in) {
    if (!in.guard)
      return false;
    auto it = regIds_.find(in.guard->reg);
    return it == regIds_.end() || varying_[it->second];
  };
  for (int i = 0; i < nb; ++i) {
    const auto &bb = blocks_[i];
    if (exitsOnly[i] || bb.syncRegion >= 0 || bb.instrs.empty())
      continue;
    for (const auto &in : bb.instrs)
      if ((in.op == Op::ret || in.op == Op::exit) && varyingGuard(in))
        return true;
    if (bb.instrs.back().op != Op::bra || !varyingGuard(bb.instrs.back()))
      continue;
    std::vector<bool> seen(nb, false);
    std::vector<int> work(bb.succs.begin(), bb.succs.end());
    while (!work.empty()) {
      int x = work.back();
      work.pop_back();
      if (seen[x] || getBit(pdom[i], x))
        continue;
      seen[x] = true;
      const auto &xb = blocks_[x];
      if (xb.syncRegion >= 0 || xb.succs.empty())
        return true;
      for (const auto &in : xb.instrs)
        if (in.op == Op::ret || in.op == Op::exit)
          return true;
      for (int s2 : xb.succs)
        work.push_back(s2);
    }
  }
  return false;
}

void KernelLowering::findUniform(bool ignoreAllExits) {
  const size_t nb = blocks_.size(), nr = regs_.size();
  const auto exitsOnly = exitOnlyBlocks();
  static const char *const kVaryingRegs[] = {
      "%tid",         "%laneid",         "%warpid",        "%lanemask_eq", "%lanemask_lt",
      "%lanemask_le", "%lanemask_gt",    "%lanemask_ge",   "%clock",       "%clock64",
      "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"};
  auto readsVaryingSpecial = [&](const ptx::Instruction &in) {
    std::function<bool(const ptx::Operand &)> visit = [&](const ptx::Operand &op) {
      if (op.kind == ptx::Operand::Kind::Reg && !regIds_.count(op.name))
        for (const char *v : kVaryingRegs)
          if (op.name == v)
            return true;
      // The address of a .local variable (or a call's .param slot) is each thread's own.
      if (op.kind == ptx::Operand::Kind::Symbol && localOffsets_.count(op.name))
        return true;
      for (const auto &e : op.elems)
        if (visit(e))
          return true;
      return false;
    };
    for (const auto &op : in.operands)
      if (visit(op))
        return true;
    return false;
  };
  auto varyingSource = [&](const ptx::Instruction &in) {
    const Op op = in.op;
    if ((op == Op::ld || op == Op::ldu) && !readsKernelParameter(in))
      return true; // memory, or a call's per-thread argument and return slots
    return op == Op::atom || op == Op::call || op == Op::tex || op == Op::tld4 || op == Op::suld ||
           op == Op::txq || op == Op::suq || op == Op::mbarrier || passes::isWarpSync(in) ||
           ((op == Op::bar || op == Op::barrier) && in.has(Mod::red)) || readsVaryingSpecial(in);
  };
  std::vector<bool> varying(nr, false), divergent(nb, false);
  auto guardVarying = [&](const PBlock &bb) {
    if (bb.instrs.empty() || bb.syncRegion >= 0 || bb.succs.size() < 2)
      return false;
    const auto &term = bb.instrs.back();
    return term.guard && regIds_.count(term.guard->reg) && varying[regIds_.at(term.guard->reg)];
  };
  for (bool changed = true; changed;) {
    changed = false;
    // Exit-only successors are ignored at the branches that are varying so far.
    std::vector<bool> varyingBranch(nb);
    for (size_t i = 0; i < nb; ++i)
      varyingBranch[i] = guardVarying(blocks_[i]);
    const auto pdom = postDominators(&exitsOnly, ignoreAllExits, &varyingBranch);
    // Blocks control-dependent on a branch with a varying predicate.
    for (size_t i = 0; i < nb; ++i) {
      const auto &bb = blocks_[i];
      if (!varyingBranch[i])
        continue;
      std::vector<int> work(bb.succs.begin(), bb.succs.end());
      std::vector<bool> seen(nb, false);
      while (!work.empty()) {
        int x = work.back();
        work.pop_back();
        if (seen[x] || (getBit(pdom[i], x) && static_cast<size_t>(x) != i))
          continue;
        seen[x] = true;
        if (!divergent[x]) {
          divergent[x] = true;
          changed = true;
        }
        for (int s : blocks_[x].succs)
          work.push_back(s);
      }
    }
    for (size_t i = 0; i < nb; ++i)
      for (const auto &in : blocks_[i].instrs) {
        bool v = divergent[i] || varyingSource(in) ||
                 (in.guard && regIds_.count(in.guard->reg) && varying[regIds_.at(in.guard->reg)]);
        for (int u : regOperands(in, false))
          v = v || varying[u];
        if (!v)
          continue;
        for (int d : regOperands(in, true))
          if (!varying[d]) {
            varying[d] = true;
            changed = true;
          }
      }
    // A uniform slot holds one value per block, so every thread must run a uniform register's
    // definitions in the same region execution. Around a loop's implicit barrier that fails
    // when the loop is reached by only some threads (its head is divergent) or threads leave it
    // after different numbers of iterations (a varying branch in it): then the code a masked
    // copy runs from the loop head up to the next real barrier (the loop, what follows it, an
    // enclosing loop's back edge) runs for different threads at different times, and a
    // definition there (an enclosing loop's counter incremented after the inner loop) would be
    // read updated by the threads that come later. Those definitions are per thread.
    for (size_t r = 1; r < regions_.size(); ++r) {
      if (!regions_[r].implicit)
        continue;
      const int head = regions_[r].entryBlock;
      const std::vector<int> window = blocksFrom(regionBody(static_cast<int>(r)), true);
      // reached by only some threads, or left after different numbers of iterations
      bool apart = divergent[head] || (head + 1 < static_cast<int>(nb) && divergent[head + 1]);
      for (int x : window)
        apart = apart || guardVarying(blocks_[x]);
      if (!apart)
        continue;
      for (int x : window)
        for (const auto &in : blocks_[x].instrs)
          for (int d : regOperands(in, true))
            if (!varying[d]) {
              varying[d] = true;
              changed = true;
            }
    }
  }
  // Warp mode interleaves the regions of different warps, so a shared slot could be updated by
  // one warp before another has read it: uniform slots are for block mode only.
  for (size_t r = 0; r < nr; ++r)
    regs_[r].uniform = !varying[r] && !warpMode_;
  varying_ = std::move(varying);
  divergent_ = std::move(divergent);
}

// Recomputes a rematerialisable register (its operands first) in the current thread.
void KernelLowering::rematerialize(int r, std::vector<bool> &done) {
  if (done[r])
    return;
  done[r] = true;
  const ptx::Instruction &in = *regs_[r].rematDef;
  for (int u : regOperands(in, false))
    rematerialize(u, done);
  emitInstruction(in);
}

} // namespace cucpu::jit
