// From the flat statement list to regions: basic blocks (each sync point a block of its own),
// register liveness, the registers each region writes, and the plan of the block's scratch
// memory (registers live across a sync point, published operands, .local memory).
#include "lowering.h"
#include "ptx_passes.h"

#include "cucpu/support/log.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cucpu::jit {

// Basic blocks from the flat statement list. Every synchronisation point (block barrier or
// warp-level sync instruction) is a block of its own that starts a region; so is an implicit
// barrier at the head of each loop in `loopHeads` (labels), and a warp-level step before an
// access that lockstep execution orders after other lanes' accesses (lockstep.cpp).
void KernelLowering::formBlocks(const std::set<std::string> &loopHeads,
                                const std::set<size_t> &splitBefore) {
  blocks_.clear();
  regions_.clear();
  labels_.clear();
  blocks_.emplace_back();
  regions_.emplace_back(); // region 0: the entry
  const std::set<size_t> steps = lockstepSteps(loopHeads, splitBefore);
  lockstepStepCount_ = steps.size();
  auto startBlock = [&] {
    if (!blocks_.back().instrs.empty() || blocks_.back().syncRegion >= 0)
      blocks_.emplace_back();
  };
  // A block of its own holding the sync instruction, starting a region.
  auto syncBlock = [&](const ptx::Instruction &sync, size_t flatIndex, bool implicit) -> Region & {
    startBlock();
    blocks_.back().instrs.push_back(sync);
    blocks_.back().flatIndex.push_back(flatIndex);
    blocks_.back().syncRegion = static_cast<int>(regions_.size());
    Region &r = regions_.emplace_back();
    r.entryBlock = static_cast<int>(blocks_.size()) - 1;
    r.implicit = implicit;
    blocks_.emplace_back();
    return r;
  };
  for (size_t fi = 0; fi < flat_.size(); ++fi) {
    const ptx::Statement &st = flat_[fi];
    const ptx::Instruction *in = std::get_if<ptx::Instruction>(&st);
    ptx::Instruction implicitBarrier;
    if (auto *l = std::get_if<ptx::Label>(&st)) {
      startBlock();
      labels_[l->name] = static_cast<int>(blocks_.size() - 1);
      if (!loopHeads.count(l->name))
        continue;
      implicitBarrier = loopBarrier(l->loc);
      in = &implicitBarrier;
    }
    if (!in)
      continue; // .loc, .pragma, .file
    if (in != &implicitBarrier && splitBefore.count(fi))
      syncBlock(loopBarrier(in->loc), SIZE_MAX, true);
    if (in != &implicitBarrier && steps.count(fi)) {
      syncBlock(warpStep(in->loc), SIZE_MAX, false).warp = true;
      warpMode_ = true;
    }
    if (passes::isYieldPoint(*in)) { // unguarded: collectRegisters put guarded ones in branches
      syncBlock(*in, fi, false).yield = true;
      yields_ = true;
      continue;
    }
    const bool warp = passes::isWarpSync(*in);
    if (warp || isBarrier(*in)) { // unguarded: collectRegisters put guarded ones in branches
      const bool implicit = in == &implicitBarrier;
      Region &r = syncBlock(*in, implicit ? SIZE_MAX : fi, implicit);
      r.warp = warp;
      if (!warp && in->operands.size() == (in->has(Mod::red) ? 4u : 2u)) {
        r.dynamicBarrier = !countedBarrier(*in, r.barrierId, r.count);
        namedBarriers_ = true;
      }
      warpMode_ |= warp;
      if (passes::isMatrixSync(*in)) {
        const auto [pub, res] = matrixSyncSlotBytes(*in);
        pubBytes_ = std::max(pubBytes_, (pub + 7) & ~7u);
        resultBytes_ = std::max(resultBytes_, (res + 7) & ~7u);
      }
      continue;
    }
    if (in->op == Op::barrier && in->has(Mod::cluster))
      continue; // barrier.cluster.arrive: nothing to count in a one-block cluster
    if ((in->op == Op::bar || in->op == Op::barrier) && in->has(Mod::arrive)) {
      uint32_t id = 0, count = 0;
      countedBarrier(*in, id, count);
      namedBarriers_ = true;
    }
    blocks_.back().instrs.push_back(*in);
    blocks_.back().flatIndex.push_back(fi);
    if (isTerminatorOp(blocks_.back().instrs.back().op))
      blocks_.emplace_back();
  }
  info_.regions = static_cast<uint32_t>(regions_.size());
  // CUCPU_SCHEDULE=warp runs every kernel with the warp scheduler (tests prove both strategies
  // give the same results; it is also the slower, more general one).
  warpMode_ |= loweringSwitches().forceWarp;
  info_.warpScheduled = warpMode_;
  info_.blocksMayWait = yields_;
}

void KernelLowering::buildBlocks() {
  const int n = static_cast<int>(blocks_.size());
  for (int i = 0; i < n; ++i) {
    auto &bb = blocks_[i];
    const ptx::Instruction *last = bb.instrs.empty() ? nullptr : &bb.instrs.back();
    bool fallthrough = true;
    if (last && bb.syncRegion < 0) {
      if (last->op == Op::bra) {
        if (last->operands.size() != 1 || last->operands[0].kind != ptx::Operand::Kind::Symbol)
          throwUnsupported(last->loc, "branch to a non-label target");
        auto it = labels_.find(last->operands[0].name);
        if (it == labels_.end())
          throwInvalid(last->loc, "unknown label '" + last->operands[0].name + "'");
        bb.succs.push_back(it->second);
        fallthrough = last->guard.has_value();
      } else if (last->op == Op::ret || last->op == Op::exit) {
        fallthrough = last->guard.has_value();
      }
    }
    if (fallthrough && i + 1 < n)
      bb.succs.push_back(i + 1);
  }
}

bool KernelLowering::isBarrier(const ptx::Instruction &in) const {
  if (in.op == Op::barrier && in.has(Mod::cluster)) // one-block clusters: the block's barrier
    return in.has(Mod::wait);
  if (in.op == Op::bar || in.op == Op::barrier) {
    if (in.has(Mod::warp))
      return false; // bar.warp.sync: lanes of a warp run in lockstep between barriers
    if (in.has(Mod::arrive))
      return false; // counts towards a named barrier; the thread does not wait
    if (in.has(Mod::sync) || in.mods.empty() || (in.mods.size() == 1 && in.has(Mod::aligned)) ||
        (in.has(Mod::aligned) && in.has(Mod::sync))) {
      if (in.operands.size() > 1) {
        uint32_t id = 0, count = 0;
        countedBarrier(in, id, count); // validates the id and thread count when constant
      }
      return true;
    }
    if (in.has(Mod::red)) { // bar.red.{popc,and,or}: d, barrier id[, thread count], predicate
      if (in.operands.size() != 3) {
        uint32_t id = 0, count = 0;
        countedBarrier(in, id, count);
      }
      return true;
    }
    throwUnsupported(in.loc, "barrier form '" + in.opcode + "." +
                                 (in.mods.empty() ? std::string() : in.mods[0]) + "'");
  }
  return false;
}

std::optional<int64_t> KernelLowering::constantRegister(const std::string &name) const {
  using K = ptx::Operand::Kind;
  std::optional<int64_t> value;
  int defs = 0;
  for (const auto &st : flat_) {
    const auto *in = std::get_if<ptx::Instruction>(&st);
    if (!in || in->operands.empty() || passes::writesNoRegister(in->op))
      continue;
    const ptx::Operand &d = in->operands[0];
    bool defines = d.name2 == name || (d.kind == K::Reg && d.name == name);
    for (const auto &e : d.elems)
      defines = defines || (d.kind == K::Vector && e.name == name);
    if (!defines)
      continue;
    ++defs;
    const bool movImm = in->op == Op::mov && !in->guard && d.kind == K::Reg && d.name2.empty() &&
                        in->operands.size() == 2 && in->operands[1].kind == K::Imm;
    value = movImm ? std::optional<int64_t>(in->operands[1].imm) : std::nullopt;
  }
  return defs == 1 ? value : std::nullopt;
}

// Warp-level synchronisation: the lanes of a warp exchange values or wait for each other.
// Register ids an instruction reads (defs=false) or writes (defs=true).
std::vector<int> KernelLowering::regOperands(const ptx::Instruction &in, bool defs) const {
  std::vector<int> out;
  auto add = [&](const std::string &name) {
    auto it = regIds_.find(name);
    if (it != regIds_.end())
      out.push_back(it->second);
  };
  std::function<void(const ptx::Operand &, bool)> visit = [&](const ptx::Operand &op, bool isDef) {
    using K = ptx::Operand::Kind;
    if (op.kind == K::Reg) {
      if (isDef == defs) {
        add(op.name);
        if (!op.name2.empty())
          add(op.name2);
      }
    } else if (op.kind == K::Address) {
      if (!defs && op.addrIsReg)
        add(op.name);
      for (auto &e : op.elems)
        visit(e, false);
    } else {
      if (op.kind == K::Vector && !op.name2.empty() && isDef == defs)
        add(op.name2); // {d0, d1, d2, d3}|p: tex's residency predicate
      for (auto &e : op.elems)
        visit(e, isDef);
    }
  };
  bool callWithReturn =
      in.op == Op::call && !in.operands.empty() && in.operands[0].kind == ptx::Operand::Kind::List;
  for (size_t i = 0; i < in.operands.size(); ++i) {
    bool barRed = (in.op == Op::bar || in.op == Op::barrier) && in.has(Mod::red);
    bool isDef =
        (i == 0 && (!passes::writesNoRegister(in.op) || barRed)) || (i == 0 && callWithReturn);
    visit(in.operands[i], isDef);
  }
  if (!defs && in.guard)
    add(in.guard->reg);
  return out;
}

void KernelLowering::computeLiveness() {
  const size_t words = (regs_.size() + 63) / 64 + 1;
  for (auto &bb : blocks_) {
    bb.use.assign(words, 0);
    bb.def.assign(words, 0);
    bb.liveIn.assign(words, 0);
    bb.liveOut.assign(words, 0);
    for (const auto &in : bb.instrs) {
      for (int r : regOperands(in, false))
        if (!getBit(bb.def, r))
          setBit(bb.use, r);
      // A predicated write may not happen: it does not kill the previous value.
      if (!in.guard)
        for (int r : regOperands(in, true))
          setBit(bb.def, r);
      else
        for (int r : regOperands(in, true))
          if (!getBit(bb.def, r))
            setBit(bb.use, r);
    }
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (int i = static_cast<int>(blocks_.size()) - 1; i >= 0; --i) {
      auto &bb = blocks_[i];
      for (size_t w = 0; w < words; ++w) {
        uint64_t out = 0;
        for (int s : bb.succs)
          out |= blocks_[s].liveIn[w];
        uint64_t in = bb.use[w] | (out & ~bb.def[w]);
        if (out != bb.liveOut[w] || in != bb.liveIn[w]) {
          bb.liveOut[w] = out;
          bb.liveIn[w] = in;
          changed = true;
        }
      }
    }
  }
}

// CU_FUNC_ATTRIBUTE_NUM_REGS: a CPU has no register file to count, so the figure is the PTX's
// register pressure, the most 32-bit registers live at the start of a block or touched in it
// (64-bit registers count two, predicates none), within the entry's .maxnreg and 255, the
// bounds a GPU's allocator keeps to.
void KernelLowering::estimateRegisters() {
  std::vector<uint32_t> units(regs_.size());
  for (size_t r = 0; r < regs_.size(); ++r) {
    const ptx::Type t = regs_[r].type;
    units[r] = t == ptx::Type::Pred ? 0 : (std::max(4u, ptx::typeSize(t)) + 3) / 4;
  }
  uint32_t most = 1;
  for (const auto &bb : blocks_) {
    uint32_t sum = 0;
    for (size_t w = 0; w < bb.liveIn.size(); ++w)
      for (uint64_t bits = bb.liveIn[w] | bb.use[w] | bb.def[w]; bits; bits &= bits - 1) {
        const size_t r = w * 64 + static_cast<size_t>(__builtin_ctzll(bits));
        sum += r < units.size() ? units[r] : 0;
      }
    most = std::max(most, sum);
  }
  if (fn_.maxnreg)
    most = std::min(most, fn_.maxnreg);
  info_.numRegs = std::min(most, 255u);
}

// The registers each region may write: the defs of every block a thread can run between the
// region's sync point and the next one (including the sync instruction's own result). A slab
// register the region does not write keeps its value; arriving threads need not store it again.
void KernelLowering::findRegionDefs() {
  const size_t words = (regs_.size() + 63) / 64 + 1;
  regionDefs_.assign(regions_.size(), std::vector<uint64_t>(words, 0));
  unmaskedDefs_.assign(regions_.size(), std::vector<uint64_t>(words, 0));
  for (size_t r = 0; r < regions_.size(); ++r)
    for (bool throughImplicit : {true, false}) {
      auto &defs = throughImplicit ? regionDefs_[r] : unmaskedDefs_[r];
      std::vector<int> bbs = blocksFrom(regionBody(static_cast<int>(r)), throughImplicit);
      if (r > 0)
        bbs.push_back(regions_[r].entryBlock);
      for (int x : bbs)
        for (const auto &in : blocks_[x].instrs)
          for (int d : regOperands(in, true))
            setBit(defs, d);
    }
}

// The first PTX block of region r's body (after its sync block).
int KernelLowering::regionBody(int r) const { return r > 0 ? regions_[r].entryBlock + 1 : 0; }

// The PTX blocks a region copy runs from block `first` up to its sync points; with
// `throughImplicit` on through implicit (loop) barriers, as a masked copy does.
std::vector<int> KernelLowering::blocksFrom(int first, bool throughImplicit) const {
  const int nb = static_cast<int>(blocks_.size());
  std::vector<int> out, work{first};
  std::vector<bool> seen(nb, false);
  while (!work.empty()) {
    const int x = work.back();
    work.pop_back();
    if (x >= nb || seen[x])
      continue;
    seen[x] = true;
    if (blocks_[x].syncRegion >= 0) {
      if (throughImplicit && regions_[blocks_[x].syncRegion].implicit)
        work.push_back(x + 1);
      continue;
    }
    out.push_back(x);
    for (int s2 : blocks_[x].succs)
      work.push_back(s2);
  }
  return out;
}

// Registers live at the entry of any region after the first live across a sync point: they get
// a per-thread slab in scratch (structure of arrays, so consecutive threads are contiguous).
void KernelLowering::planScratch() {
  if (regions_.size() < 2 && !warpMode_) { // only .local memory: one area per thread
    localOff_ = 0;
    info_.scratchBytesPerThread = localBytes_;
    return;
  }
  std::vector<int> cross;
  for (size_t r = 1; r < regions_.size(); ++r) {
    const auto &live = blocks_[regions_[r].entryBlock].liveIn;
    for (size_t i = 0; i < regs_.size(); ++i)
      if (getBit(live, static_cast<int>(i)) && regs_[i].cross < 0 && !regs_[i].rematDef) {
        regs_[i].cross = static_cast<int>(cross.size());
        cross.push_back(static_cast<int>(i));
      }
  }
  // Larger registers first so every slab stays naturally aligned.
  std::stable_sort(cross.begin(), cross.end(), [&](int a, int b2) {
    return ptx::typeSize(regs_[a].type) > ptx::typeSize(regs_[b2].type);
  });
  // Registers never live at the same region entry share a slab (an unrolled loop's partial
  // sums, each live across one barrier, take one slab instead of one each): a thread loads a
  // register at a region's entry and stores at its end only registers live at the next entry,
  // so a slab holds the value of the one register live there. Uniform registers keep slabs of
  // their own (every thread writes their staging slot).
  struct Slab {
    uint32_t offset, size;
    bool uniform;
    std::vector<bool> busy; // regions at whose entry the slab's value is live
  };
  std::vector<Slab> slabs;
  uint32_t off = 0;
  for (int i : cross) {
    const uint32_t size = std::max(1u, ptx::typeSize(regs_[i].type));
    std::vector<bool> live(regions_.size(), false);
    for (size_t r = 1; r < regions_.size(); ++r)
      live[r] = getBit(blocks_[regions_[r].entryBlock].liveIn, i);
    Slab *home = nullptr;
    for (auto &sl : slabs) {
      bool disjoint = sl.size == size && !sl.uniform && !regs_[i].uniform;
      for (size_t r = 1; r < regions_.size() && disjoint; ++r)
        disjoint = !(live[r] && sl.busy[r]);
      if (disjoint) {
        home = &sl;
        break;
      }
    }
    if (!home) {
      slabs.push_back({off, size, regs_[i].uniform, std::vector<bool>(regions_.size(), false)});
      home = &slabs.back();
      off += size;
    }
    for (size_t r = 1; r < regions_.size(); ++r)
      home->busy[r] = home->busy[r] || live[r];
    regs_[i].crossOffset = home->offset;
  }
  crossBytes_ = (off + 7) & ~7u;
  if (warpMode_) {
    pubOff_ = crossBytes_;                 // operands published at a warp sync point
    resultOff_ = pubOff_ + pubBytes_;      // the sync instruction's result for this lane
    stateOff_ = resultOff_ + resultBytes_; // 4 bytes: the region the thread resumes at
    localOff_ = stateOff_ + 4;
  } else {
    pubOff_ = crossBytes_;           // the predicate a thread brings to bar.red
    stateOff_ = pubOff_ + pubBytes_; // 4 bytes: the region the thread resumes at, or kExited
    localOff_ = stateOff_ + 4;
  }
  localOff_ = (localOff_ + localAlign_ - 1) / localAlign_ * localAlign_;
  info_.scratchBytesPerThread = localOff_ + localBytes_;
  if (!log::enabled(log::Component::Jit, log::Level::Debug))
    return;
  std::string uniform;
  for (const auto &[name, id] : regIds_)
    if (regs_[id].uniform && regs_[id].cross >= 0)
      uniform += " " + name;
  log::debug(log::Component::Jit,
             "{}: {} regions ({} mode), {} registers live across them, block-uniform:{}", fn_.name,
             regions_.size(), warpMode_ ? "warp" : "block", cross.size(), uniform);
}

} // namespace cucpu::jit
