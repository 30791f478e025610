// Loop barriers: an implicit barrier at the head of a loop makes each iteration a region of its
// own, so the thread loop runs inside the kernel's loop and vectorises across threads (each
// thread's strided loads become one contiguous vector load per iteration). Threads may leave the
// loop after different numbers of iterations: they wait at the next barrier meanwhile.
#include "lowering.h"
#include "ptx_build.h"

#include "cucpu/support/log.h"

#include <algorithm>
#include <cstdlib>
#include <map>

namespace cucpu::jit {

namespace {

bool isIntAdd(const ptx::Instruction &in) {
  return in.op == Op::add && !in.guard && in.mods.empty() && in.types.size() == 1 &&
         !ptx::isFloat(in.types[0]) && in.operands.size() == 3 &&
         in.operands[0].kind == ptx::Operand::Kind::Reg;
}

bool readsMemory(const ptx::Instruction &in) {
  return (in.op == Op::ld || in.op == Op::ldu || in.op == Op::st) && !in.has(Mod::param) &&
         !in.has(Mod::local);
}

// Renames register `from` to `to` wherever an operand reads it.
void renameUses(ptx::Operand &op, const std::string &from, const std::string &to) {
  using K = ptx::Operand::Kind;
  if ((op.kind == K::Reg || op.kind == K::Address) && op.name == from)
    op.name = to;
  for (auto &e : op.elems)
    renameUses(e, from, to);
}

} // namespace

ptx::Instruction KernelLowering::loopBarrier(const ptx::SourceLoc &loc) const {
  return build::instruction(loc, "bar", {"sync"}, {}, {build::imm(0, loc)});
}

std::vector<std::vector<KernelLowering::RegDef>> KernelLowering::regDefs() const {
  std::vector<std::vector<RegDef>> defs(regs_.size());
  for (size_t bi = 0; bi < blocks_.size(); ++bi)
    for (size_t k = 0; k < blocks_[bi].instrs.size(); ++k)
      for (int d : regOperands(blocks_[bi].instrs[k], true))
        defs[d].push_back({&blocks_[bi].instrs[k], blocks_[bi].flatIndex[k], int(bi)});
  return defs;
}

int KernelLowering::addRegister(const std::string &name, ptx::Type type) {
  RegInfo ri;
  ri.type = type;
  ri.ty = llvmType(ctx, type);
  regIds_[name] = static_cast<int>(regs_.size());
  regs_.push_back(ri);
  return static_cast<int>(regs_.size()) - 1;
}

// A thread-varying induction variable `r = base + k * step` (one definition before the loop from
// recomputable values; one in it, `add r, x, u`, where x is r plus uniform loop-invariant
// addends through a chain of adds) becomes a recomputable base plus a uniform offset, so that
// addresses built from it stay visibly contiguous across threads. Every read of r reads a fresh
// `base + offset`; the step adds the chain's addends to the offset.
bool KernelLowering::splitInductionVariable(int r, const std::vector<bool> &inLoop,
                                            const std::vector<std::vector<RegDef>> &defs) {
  if (defs[r].size() != 2 || inLoop[defs[r][0].block] == inLoop[defs[r][1].block])
    return false;
  const bool firstInLoop = inLoop[defs[r][0].block];
  const RegDef &initDef = firstInLoop ? defs[r][1] : defs[r][0];
  const RegDef &stepDef = firstInLoop ? defs[r][0] : defs[r][1];
  const ptx::Instruction *init = initDef.in, *step = stepDef.in;
  const size_t initAt = initDef.at, stepAt = stepDef.at;
  if (!isIntAdd(*init) || !isIntAdd(*step) || initAt == SIZE_MAX || stepAt == SIZE_MAX ||
      init->types[0] != step->types[0])
    return false;
  const std::string &name = step->operands[0].name;
  auto regId = [&](const ptx::Operand &op) {
    auto it = op.kind == ptx::Operand::Kind::Reg ? regIds_.find(op.name) : regIds_.end();
    return it == regIds_.end() ? -1 : it->second;
  };
  auto recomputable = [&](const ptx::Operand &op) {
    int id = regId(op);
    return op.kind == ptx::Operand::Kind::Imm || (id >= 0 && regs_[id].rematDef);
  };
  // A uniform value the loop does not change.
  auto invariant = [&](const ptx::Operand &op) {
    int id = regId(op);
    if (op.kind == ptx::Operand::Kind::Imm)
      return true;
    if (id < 0 || varying_[id])
      return false;
    for (const RegDef &d : defs[id])
      if (inLoop[d.block])
        return false;
    return true;
  };
  if (!recomputable(init->operands[1]) || !recomputable(init->operands[2]))
    return false;
  // From the step back to r: each link `add x, y, u` with u invariant and y the next link.
  std::vector<const ptx::Operand *> addends;
  const ptx::Instruction *link = step;
  for (int guard = 0;; ++guard) {
    const auto &o = link->operands;
    if (guard > 64 || !invariant(o[2]))
      return false;
    addends.push_back(&o[2]);
    int y = regId(o[1]);
    if (y == r)
      break;
    if (y < 0 || defs[y].size() != 1 || !inLoop[defs[y][0].block] || !isIntAdd(*defs[y][0].in) ||
        defs[y][0].in->types[0] != step->types[0])
      return false;
    link = defs[y][0].in;
  }

  const ptx::Type type = regs_[r].type;
  const std::string base = name + "$iv.base", off = name + "$iv.off";
  addRegister(base, type);
  addRegister(off, type);
  ptx::Instruction newInit = *init;
  newInit.operands[0].name = base;
  const ptx::Instruction zero =
      build::instruction(init->loc, "mov", {}, {type},
                         {build::reg(off, init->loc), build::imm(0, init->loc)}, init->guard);
  std::vector<ptx::Statement> out;
  out.reserve(flat_.size() + 16);
  int uses = 0;
  for (size_t i = 0; i < flat_.size(); ++i) {
    if (i == initAt) {
      out.push_back(newInit);
      out.push_back(zero);
      continue;
    }
    if (i == stepAt) {
      for (const ptx::Operand *u : addends) {
        ptx::Instruction add = *step;
        add.operands = {build::reg(off, step->loc), build::reg(off, step->loc), *u};
        out.push_back(std::move(add));
      }
      continue;
    }
    auto *in = std::get_if<ptx::Instruction>(&flat_[i]);
    auto reads = in ? regOperands(*in, false) : std::vector<int>{};
    if (std::find(reads.begin(), reads.end(), r) == reads.end()) {
      out.push_back(std::move(flat_[i]));
      continue;
    }
    std::string tmp = name + "$iv." + std::to_string(uses++);
    addRegister(tmp, type);
    ptx::Instruction sum = *init;
    sum.loc = in->loc;
    sum.operands = {build::reg(tmp, in->loc), build::reg(base, in->loc), build::reg(off, in->loc)};
    out.push_back(sum);
    ptx::Instruction use = *in;
    for (auto &op : use.operands)
      renameUses(op, name, tmp);
    out.push_back(std::move(use));
  }
  flat_ = std::move(out);
  return true;
}

// An unrolled strided loop (`sum += p[0]; sum += p[256]; ... p += 4096`) reads, in one
// iteration, as many rows as it has loads, far apart: run as one region, each vector of threads
// jumps between them and the CPU's prefetchers, which follow ascending streams, see many short
// streams (the block reduction read 23 GB/s of a 45 GB/s machine). An implicit barrier before
// each load after the first makes every load a contiguous row across the block's threads. Loads
// of one base register (or of one split induction variable) at four or more offsets, each at
// least 128 bytes from the others, qualify; the barrier goes before the load, or before the
// instruction computing its address from a split induction variable, so that address stays
// recomputable rather than saved per thread.
void KernelLowering::stridedLoadSplits(int loopBlock, std::set<size_t> &out) const {
  const auto &bb = blocks_[loopBlock];
  struct Load {
    int64_t offset;
    size_t at; // where the barrier goes
  };
  std::map<std::string, std::vector<Load>> groups;
  for (size_t k = 0; k < bb.instrs.size(); ++k) {
    const ptx::Instruction &in = bb.instrs[k];
    if (in.op != Op::ld || in.guard || !in.has(Mod::global) || in.operands.size() != 2 ||
        in.operands[1].kind != ptx::Operand::Kind::Address || !in.operands[1].addrIsReg ||
        bb.flatIndex[k] == SIZE_MAX)
      continue;
    std::string base = in.operands[1].name;
    size_t at = bb.flatIndex[k];
    if (const size_t iv = base.find("$iv."); iv != std::string::npos && k > 0) {
      const ptx::Instruction &sum = bb.instrs[k - 1]; // base + offset, just before the use
      if (sum.operands.empty() || sum.operands[0].name != base || bb.flatIndex[k - 1] == SIZE_MAX)
        continue;
      base = base.substr(0, iv);
      at = bb.flatIndex[k - 1];
    }
    groups[base].push_back({in.operands[1].imm, at});
  }
  for (auto &[base, loads] : groups) {
    if (loads.size() < 4)
      continue;
    bool apart = true;
    for (size_t i = 0; i < loads.size() && apart; ++i)
      for (size_t j = i + 1; j < loads.size() && apart; ++j)
        apart = std::llabs(loads[i].offset - loads[j].offset) >= 128;
    if (!apart)
      continue;
    for (size_t i = 1; i < loads.size(); ++i)
      out.insert(loads[i].at);
  }
}

// A one-block loop with atomics (`for (i = tid; i < n; i += stride) atomicAdd(&bins[...], 1)`)
// keeps its thread loop scalar (lanes could hit one address), so each iteration costs a region's
// overhead per thread: loading and saving its registers, the resume state, the loop test.
// Running four iterations between two implicit barriers (the body repeated, each copy but the
// last leaving the loop when the back edge would not be taken) shares that overhead (the 256-bin
// histogram: 14.4 -> 11.3 ms). Vectorised loops are left alone: their iterations are already
// cheap, and four rows in flight per vector would be four streams to prefetch. Returns whether
// the loop at block h was unrolled; `splits` (statements before which implicit barriers go)
// follows the statements' new positions.
bool KernelLowering::unrollScalarLoop(int h, std::set<size_t> &splits) {
  constexpr int kCopies = 4;
  const PBlock &bb = blocks_[h];
  if (bb.instrs.empty() || bb.flatIndex.back() == SIZE_MAX)
    return false;
  const ptx::Instruction &back = bb.instrs.back();
  if (back.op != Op::bra || !back.guard || back.operands.size() != 1)
    return false;
  const bool atomics = std::any_of(bb.instrs.begin(), bb.instrs.end(), [](const auto &in) {
    return in.op == Op::atom || in.op == Op::red;
  });
  if (!atomics)
    return false;
  // The loop's statements: its head label, the body, the back edge; nothing else may jump in.
  size_t label = SIZE_MAX;
  for (size_t i = 0; i < flat_.size() && label == SIZE_MAX; ++i)
    if (auto *l = std::get_if<ptx::Label>(&flat_[i]); l && labels_.at(l->name) == h)
      label = i;
  const size_t last = bb.flatIndex.back();
  if (label == SIZE_MAX || back.operands[0].name != std::get<ptx::Label>(flat_[label]).name)
    return false;
  for (size_t i = label + 1; i < last; ++i)
    if (std::holds_alternative<ptx::Label>(flat_[i]) || splits.count(i))
      return false;
  const std::string exit = "$unrolled" + std::to_string(h) + "$exit";
  ptx::Instruction leave =
      build::branch(back.loc, exit, ptx::Guard{back.guard->reg, !back.guard->negate});
  std::vector<ptx::Statement> body(flat_.begin() + static_cast<std::ptrdiff_t>(label) + 1,
                                   flat_.begin() + static_cast<std::ptrdiff_t>(last));
  std::vector<ptx::Statement> extra;
  for (int k = 1; k < kCopies; ++k) {
    extra.push_back(leave);
    extra.insert(extra.end(), body.begin(), body.end());
  }
  const size_t added = extra.size() + 1;
  flat_.insert(flat_.begin() + static_cast<std::ptrdiff_t>(last), extra.begin(), extra.end());
  flat_.insert(flat_.begin() + static_cast<std::ptrdiff_t>(last + added),
               ptx::Label{back.loc, exit});
  std::set<size_t> moved;
  for (size_t i : splits)
    moved.insert(i < last ? i : i + added);
  splits = std::move(moved);
  return true;
}

// Chooses the loops that get an implicit barrier at their head: innermost, reducible loops
// without sync points that touch memory. Their trip count may differ between threads (the masked
// region copies run the threads that disagree; an implicit barrier waits for no thread). Then
// re-forms the blocks with those barriers.
void KernelLowering::addLoopBarriers() {
  if (!loweringSwitches().loopBarriers || warpMode_ ||
      namedBarriers_) // named barriers: arrival order matters
    return;
  const int nb = static_cast<int>(blocks_.size());
  bool anySync = false;
  for (const auto &bb : blocks_)
    anySync = anySync || bb.syncRegion >= 0;
  findRematerializable();
  findUniform(/*ignoreAllExits=*/!anySync);
  std::vector<std::vector<int>> preds(nb);
  for (int i = 0; i < nb; ++i)
    for (int s : blocks_[i].succs)
      preds[s].push_back(i);
  std::set<std::string> heads;
  std::vector<std::pair<int, std::vector<bool>>> loops;
  // Loops around real barriers get no implicit barrier, but a pointer they step per thread
  // (`p += 16` in a tiled loop) is split all the same: saved per thread across the barriers,
  // its lanes would come back from memory and the accesses through it be gathers.
  std::vector<std::vector<bool>> barrierLoops;
  for (int h = 0; h < nb; ++h) {
    std::vector<int> latches;
    for (int p : preds[h])
      if (p >= h)
        latches.push_back(p);
    if (latches.empty() || blocks_[h].syncRegion >= 0)
      continue;
    std::vector<bool> inLoop(nb, false);
    inLoop[h] = true;
    std::vector<int> work(latches.begin(), latches.end());
    bool ok = true;
    while (!work.empty()) {
      int x = work.back();
      work.pop_back();
      if (inLoop[x])
        continue;
      inLoop[x] = true;
      ok = ok && x > h; // reducible, textually ordered loops only
      for (int p : preds[x])
        work.push_back(p);
    }
    bool sync = false;
    for (int x = 0; x < nb; ++x)
      sync = sync || (inLoop[x] && blocks_[x].syncRegion >= 0);
    if (ok && sync)
      barrierLoops.push_back(inLoop);
    bool memory = false;
    for (int x = 0; x < nb && ok; ++x) {
      if (!inLoop[x])
        continue;
      ok = blocks_[x].syncRegion < 0;
      for (int p : preds[x]) // innermost: no other loop's back edge inside
        ok = ok && !(inLoop[p] && p >= x && x != h);
      for (const auto &in : blocks_[x].instrs)
        memory = memory || readsMemory(in);
    }
    if (!ok || !memory)
      continue;
    // The barrier goes before the first label that names the head block.
    for (const auto &st : flat_)
      if (auto *lab = std::get_if<ptx::Label>(&st); lab && labels_.at(lab->name) == h) {
        heads.insert(lab->name);
        loops.emplace_back(h, inLoop);
        break;
      }
  }
  int split = 0;
  auto defs = regDefs();
  auto splitIn = [&](const std::vector<bool> &inLoop) {
    for (size_t r = 0; r < regs_.size(); ++r)
      if (varying_[r] && !ptx::isFloat(regs_[r].type) && regs_[r].type != ptx::Type::Pred &&
          splitInductionVariable(static_cast<int>(r), inLoop, defs)) {
        ++split;
        formBlocks({}); // block contents changed: refresh before the next candidate
        buildBlocks();
        for (auto &ri : regs_)
          ri.rematDef = nullptr;
        findRematerializable();
        findUniform(!anySync);
        defs = regDefs();
      }
  };
  for (const auto &[h, inLoop] : loops)
    splitIn(inLoop);
  for (const auto &inLoop : barrierLoops)
    splitIn(inLoop);
  if (!heads.empty()) {
    std::set<size_t> splits;
    for (const auto &[h, inLoop] : loops)
      if (std::count(inLoop.begin(), inLoop.end(), true) == 1)
        stridedLoadSplits(h, splits);
    int unrolled = 0;
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) // last first: earlier indices hold
      if (std::count(it->second.begin(), it->second.end(), true) == 1)
        unrolled += unrollScalarLoop(it->first, splits);
    formBlocks(heads, splits);
    buildBlocks();
    log::debug(log::Component::Jit,
               "{}: implicit barriers at {} loop head(s) and before {} strided load(s), {} "
               "induction variable(s) split, {} atomic loop(s) unrolled",
               fn_.name, heads.size(), splits.size(), split, unrolled);
  } else if (split > 0) {
    log::debug(log::Component::Jit, "{}: {} induction variable(s) split in loops with barriers",
               fn_.name, split);
  }
  for (auto &ri : regs_) { // recomputed on the final blocks
    ri.rematDef = nullptr;
    ri.uniform = false;
  }
}

} // namespace cucpu::jit
