// Block formation: a kernel becomes one function running every thread of a block, as loops over
// thread indices between barriers (continuation-based regions), with registers live across a
// barrier kept in per-thread context arrays.
#include "block_shape.h"
#include "directed_rounding.h"
#include "lowering.h"
#include "parallel_loops.h"
#include "ptx_build.h"
#include "ptx_passes.h"

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

// Opcodes whose operands are all sources (no destination register).
bool hasNoDest(Op op) {
  static constexpr Op kOps[] = {Op::st,         Op::red,       Op::bar,       Op::barrier,
                                Op::bra,        Op::ret,       Op::exit,      Op::membar,
                                Op::fence,      Op::prefetch,  Op::prefetchu, Op::trap,
                                Op::brkpt,      Op::nanosleep, Op::call,      Op::pmevent,
                                Op::discard,    Op::stmatrix,  Op::cp,        Op::griddepcontrol,
                                Op::setmaxnreg, Op::sust,      Op::sured};
  for (Op k : kOps)
    if (op == k)
      return true;
  return false;
}

} // namespace

const LoweringSwitches &loweringSwitches() {
  static const LoweringSwitches s{env::get("CUCPU_SCHEDULE").value_or("") == "warp",
                                  env::get("CUCPU_LOOP_BARRIERS").value_or("1") != "0",
                                  nativeDirectedRounding()};
  return s;
}

std::string loweringSwitchesText() {
  const LoweringSwitches &s = loweringSwitches();
  return fmt::format("warp={} loop-barriers={} native-rounding={}", s.forceWarp, s.loopBarriers,
                     s.nativeRounding);
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

// Registers, .local and .shared declarations. Names declared inside { } scopes are renamed
// ("%r1" in the third scope becomes "%r1#3") so that the rest of the lowering sees flat names.
void KernelLowering::collectRegisters() {
  auto addReg = [&](const std::string &name, ptx::Type t, const ptx::SourceLoc &loc) {
    if (regIds_.count(name))
      throwInvalid(loc, "register '" + name + "' declared twice");
    RegInfo ri;
    ri.type = t;
    ri.ty = llvmType(ctx, t);
    if (!ri.ty)
      throwInvalid(loc, "register '" + name + "' has no type");
    regIds_[name] = static_cast<int>(regs_.size());
    regs_.push_back(ri);
  };
  // Names are resolved through a stack of scopes; every declaration inside a { } scope or an
  // inlined function body gets a unique flat name ("%r1#3", "%r1$2#1").
  using Scopes = std::vector<std::unordered_map<std::string, std::string>>;
  int scopeCounter = 0, inlineCounter = 0;
  uint32_t localOff = 0, sharedOff = ms.moduleSharedBytes;
  uint64_t declaredRegisters = 0;
  // A GPU thread's local memory is at most 512 KiB; cucpu's register budget per kernel.
  constexpr uint32_t kMaxLocalBytes = 512 * 1024;
  constexpr uint64_t kMaxRegisters = uint64_t(1) << 20;

  std::function<void(const ptx::Function &, Scopes &, const std::string &, int)> walk =
      [&](const ptx::Function &f, Scopes &scopes, const std::string &suffix, int depth) {
        ptx::SourceLoc where = f.loc; // the statement being renamed, for messages
        auto rename = [&](std::string &name) {
          for (auto it = scopes.rbegin(); it != scopes.rend(); ++it) {
            auto found = it->find(name);
            if (found != it->end()) {
              name = found->second;
              return;
            }
          }
          // An inlined function sees its own registers only: one it does not declare would
          // otherwise alias the kernel's register of that name (ptxas: undeclared register).
          if (depth > 0 && regIds_.count(name))
            throwInvalid(where, "'" + f.name + "' uses register '" + name +
                                    "', which it does not declare");
        };
        std::function<void(ptx::Operand &)> renameOp = [&](ptx::Operand &op) {
          if (op.kind == ptx::Operand::Kind::Reg) {
            rename(op.name);
            if (!op.name2.empty())
              rename(op.name2);
          } else if (op.kind == ptx::Operand::Kind::Address ||
                     op.kind == ptx::Operand::Kind::Symbol) {
            rename(op.name); // registers, labels, variables declared in a scope (call parameters)
          } else if (op.kind == ptx::Operand::Kind::Vector && !op.name2.empty()) {
            rename(op.name2);
          }
          for (auto &e : op.elems)
            renameOp(e);
        };
        auto declare = [&](const std::string &name) {
          std::string flatName = name;
          if (scopes.size() > 1 || !suffix.empty()) {
            flatName = name + suffix + "#" + std::to_string(scopeCounter);
            scopes.back()[name] = flatName;
          }
          return flatName;
        };
        const std::string endLabel = "$inline.end" + suffix;
        auto inlineCall = [&](const ptx::Instruction &copy, const ptx::Function *callee) {
          // A device function is inlined: its parameters and return values name the call's
          // .param variables, its registers and labels get names of their own.
          const auto &o = copy.operands;
          const ptx::Operand *rets = o[0].kind == ptx::Operand::Kind::List ? &o[0] : nullptr;
          const ptx::Operand *args = nullptr;
          for (const auto &op : o)
            if (&op != rets && op.kind == ptx::Operand::Kind::List)
              args = &op;
          auto names = [](const ptx::Operand *list) {
            std::vector<std::string> out;
            if (list)
              for (const auto &e : list->elems)
                out.push_back(e.name);
            return out;
          };
          // A function calling itself: inlined once, its own calls jump back with a stack.
          if (RecursionRegion *r = activeRecursion(callee)) {
            recursiveCall(*r, names(args), names(rets), copy.loc);
            return;
          }
          if (depth >= 16)
            throwUnsupported(copy.loc,
                             "recursive or too deeply nested call to '" + callee->name + "'");
          const bool recursive = selfRecursive(*callee, copy.loc);
          Scopes inner(1);
          std::string innerSuffix = "$" + std::to_string(++inlineCounter);
          // Register parameters and results (`.func (.reg .b32 r) f(.reg .b32 a)`) are registers
          // of the inlined body, copied from the arguments before it and to the call's result
          // registers after it.
          std::vector<ptx::Instruction> copyIn, copyOut;
          auto bind = [&](const std::vector<ptx::Param> &formal, const ptx::Operand *actual,
                          bool in) {
            size_t n = actual ? actual->elems.size() : 0;
            if (formal.size() != n)
              throwInvalid(copy.loc, "call to '" + callee->name + "' with " + std::to_string(n) +
                                         " values where it declares " +
                                         std::to_string(formal.size()));
            for (size_t k = 0; k < n; ++k) {
              const ptx::VarDecl &d = formal[k].decl;
              if (d.space == ptx::Space::Param) {
                inner[0][d.name] = actual->elems[k].name;
                continue;
              }
              if (recursive || d.vecWidth != 1)
                throwUnsupported(copy.loc, "register parameters of '" + callee->name + "'");
              const std::string flat = d.name + innerSuffix;
              addReg(flat, d.type, d.loc);
              inner[0][d.name] = flat;
              ptx::Operand mine = build::reg(flat, copy.loc);
              if (in)
                copyIn.push_back(
                    build::instruction(copy.loc, "mov", {}, {d.type}, {mine, actual->elems[k]}));
              else
                copyOut.push_back(
                    build::instruction(copy.loc, "mov", {}, {d.type}, {actual->elems[k], mine}));
            }
          };
          bind(callee->params, args, true);
          bind(callee->returns, rets, false);
          for (auto &c : copyIn)
            flat_.push_back(std::move(c));
          for (const auto &cst : callee->body)
            if (auto *l = std::get_if<ptx::Label>(&cst))
              inner[0][l->name] = l->name + innerSuffix;
          if (recursive)
            beginRecursion(callee, names(args), names(rets), localOff, copy.loc);
          walk(*callee, inner, innerSuffix, depth + 1);
          if (recursive)
            endRecursion(localOff, "$inline.end" + innerSuffix, copy.loc);
          else
            flat_.push_back(ptx::Label{copy.loc, "$inline.end" + innerSuffix});
          for (auto &c : copyOut)
            flat_.push_back(std::move(c));
        };
        for (const auto &st : f.body) {
          if (std::holds_alternative<ptx::ScopeBegin>(st)) {
            scopes.emplace_back();
            ++scopeCounter;
            continue;
          }
          if (std::holds_alternative<ptx::ScopeEnd>(st)) {
            if (scopes.size() > 1)
              scopes.pop_back();
            continue;
          }
          if (auto *v = std::get_if<ptx::VarDecl>(&st)) {
            switch (v->space) {
            case ptx::Space::Reg: {
              // (vector registers are their components: expandVectorRegisters)
              auto add = [&](const std::string &flat) { addReg(flat, v->type, v->loc); };
              if (v->rangeCount >= 0) {
                // A budget against hostile input: nvcc's largest kernels declare tens of
                // thousands; a hundred million would take minutes and gigabytes to lower.
                declaredRegisters += static_cast<uint64_t>(v->rangeCount);
                if (declaredRegisters > kMaxRegisters)
                  throwUnsupported(v->loc, "more than " + std::to_string(kMaxRegisters) +
                                               " registers declared in '" + f.name + "'");
                for (int i = 0; i < v->rangeCount; ++i)
                  add(declare(v->name + std::to_string(i)));
              } else {
                add(declare(v->name));
              }
              break;
            }
            case ptx::Space::Local:
            case ptx::Space::Param: { // .param inside a body: a call's argument or return slot
              uint32_t a = varAlign(*v);
              const uint64_t bytes = varBytes(*v);
              if (bytes == 0)
                throwInvalid(v->loc, "'" + v->name + "' has no size");
              localAlign_ = std::max(localAlign_, a);
              localOff = (localOff + a - 1) / a * a;
              if (bytes > kMaxLocalBytes - localOff) // as ptxas: "uses too much local data"
                throwInvalid(v->loc, "'" + f.name + "' uses more than " +
                                         std::to_string(kMaxLocalBytes) +
                                         " bytes of local data per thread");
              std::string flatName = declare(v->name);
              localOffsets_[flatName] = localOff;
              localTypes_[flatName] = v->type;
              localSizes_[flatName] = static_cast<uint32_t>(bytes);
              localOff += static_cast<uint32_t>(bytes);
              break;
            }
            case ptx::Space::Shared: {
              if (!v->dims.empty() && v->dims[0] == 0)
                throwUnsupported(v->loc, "function-scope extern .shared");
              if (depth > 0) { // planned once per block by lowerModuleScope
                scopes.back()[v->name] = f.name + "::" + v->name;
                break;
              }
              uint32_t a = varAlign(*v);
              sharedOff = (sharedOff + a - 1) / a * a;
              sharedOffsets_[declare(v->name)] = sharedOff;
              sharedOff += static_cast<uint32_t>(varBytes(*v));
              break;
            }
            default:
              throwUnsupported(v->loc, "function-scope variables in this state space");
            }
            continue;
          }
          if (auto *in = std::get_if<ptx::Instruction>(&st)) {
            ptx::Instruction copy = *in;
            where = in->loc;
            for (auto &op : copy.operands)
              renameOp(op);
            if (copy.guard)
              rename(copy.guard->reg);
            const ptx::Function *callee = nullptr;
            if (copy.op == Op::call) {
              size_t i = !copy.operands.empty() && copy.operands[0].kind == ptx::Operand::Kind::List
                             ? 1
                             : 0;
              if (i < copy.operands.size() && copy.operands[i].kind == ptx::Operand::Kind::Symbol)
                callee = ms.ast.findFunction(copy.operands[i].name);
              if (callee && !callee->hasBody)
                callee = nullptr; // an external function: a runtime service
            }
            if (callee) {
              inlineCall(copy, callee);
              continue;
            }
            if (depth > 0 && (copy.op == Op::ret)) {
              // Returning from an inlined function continues after its call.
              flat_.push_back(build::branch(copy.loc, endLabel, copy.guard));
              continue;
            }
            flat_.push_back(std::move(copy));
            continue;
          }
          if (std::holds_alternative<ptx::CallPrototype>(st))
            continue; // a declaration for indirect calls (below)
          if (auto *l = std::get_if<ptx::Label>(&st); l && depth > 0) {
            ptx::Label renamed = *l;
            rename(renamed.name);
            flat_.push_back(renamed);
            continue;
          }
          flat_.push_back(st); // labels, directives
        }
      };
  Scopes top(1);
  walk(fn_, top, "", 0);
  markRegisterOperands();
  // Every thread's area starts at a multiple of the largest .align (the scratch base is aligned
  // to it, see planScratch), so `.local .align 256` arrays are 256-byte aligned as on a GPU.
  localBytes_ = (localOff + localAlign_ - 1) / localAlign_ * localAlign_;
  info_.localBytesPerThread = localBytes_;
  info_.blockMemoryAlign = std::max(ms.sharedAlign, localAlign_);
  info_.staticSharedBytes = sharedOff;
  if (sharedOff > ms.dynamicSharedOffset)
    throwInvalid(fn_.loc, "internal: shared layout"); // planned by lowerModuleScope
}

// Registers may be declared without '%' (`{ .reg .b32 r0; shfl.sync.down.b32 r0, ...; }` in
// CUB's and the CUDA libraries' inline assembly), which the parser cannot tell from a variable or
// label: once every declaration is known, such operands become register operands, so that every
// later step (liveness, warp-level results, addresses) sees one kind of register.
void KernelLowering::markRegisterOperands() {
  using K = ptx::Operand::Kind;
  std::function<void(ptx::Operand &)> mark = [&](ptx::Operand &op) {
    if (op.kind == K::Symbol && op.imm == 0 && regIds_.count(op.name))
      op.kind = K::Reg;
    else if (op.kind == K::Address && !op.addrIsReg && !op.name.empty() && regIds_.count(op.name))
      op.addrIsReg = true;
    for (auto &e : op.elems)
      mark(e);
  };
  for (auto &st : flat_)
    if (auto *in = std::get_if<ptx::Instruction>(&st))
      for (auto &op : in->operands)
        mark(op);
}

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
    if (!in || in->operands.empty() || hasNoDest(in->op))
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
    bool isDef = (i == 0 && (!hasNoDest(in.op) || barRed)) || (i == 0 && callWithReturn);
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
