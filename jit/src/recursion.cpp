// Recursive device functions: inlined once per outer call site, calls back to them (from their own
// body or from functions inlined into it: mutual recursion) become jumps to the inlined entry with
// the caller's registers pushed on a per-thread stack in .local memory; `ret` pops a frame and
// jumps to the call it returns to (or leaves the region). The region's .local variables live in
// its call's frame, so every call has its own and a pointer into a caller's stays valid.
#include "lowering.h"
#include "ptx_build.h"

#include <algorithm>
#include <map>
#include <set>

namespace cucpu::jit {
namespace {

// Stack per thread for one recursion region: deep enough for recursions a GPU's default 1 KiB
// stack holds (its frames are smaller than ours, which save every register of the function).
constexpr uint32_t kStackBytes = 8192;

ptx::Instruction guarded(ptx::Instruction in, const std::string &pred) {
  in.guard = ptx::Guard{pred, false};
  return in;
}

constexpr const char *kFramePlaceholder = "cucpu.frame";

} // namespace

// Whether `fn` needs a recursion region of its own at this call: it can call itself, directly or
// through other functions, other than by calling back into a region already being inlined (whose
// entry such calls jump to: mutual recursion inlines the inner function). A region inside
// another one is entered with an empty stack of its own (the outer region's frames save its
// stack pointer), so a function that both calls itself and calls back into an enclosing region
// (re-entering its own region while frames of it are live) is reported as not supported.
bool KernelLowering::selfRecursive(const ptx::Function &fn, const ptx::SourceLoc &loc) const {
  auto active = [&](const ptx::Function *f) {
    return std::any_of(recursions_.begin(), recursions_.end(),
                       [&](const RecursionRegion &r) { return r.fn == f; });
  };
  // Whether a call chain from fn reaches a function `isTarget` accepts; `intoActive`: the chain
  // may pass through functions of enclosing regions.
  auto reaches = [&](auto &&isTarget, bool intoActive) {
    std::set<const ptx::Function *> seen;
    std::vector<const ptx::Function *> work{&fn};
    while (!work.empty()) {
      const ptx::Function *f = work.back();
      work.pop_back();
      for (const auto &st : f->body)
        if (auto *in = std::get_if<ptx::Instruction>(&st); in && in->op == Op::call)
          for (const auto &op : in->operands) {
            if (op.kind != ptx::Operand::Kind::Symbol)
              continue;
            const ptx::Function *callee = ms.ast.findFunction(op.name);
            if (callee && isTarget(callee))
              return true;
            if (callee && callee->hasBody && (intoActive || !active(callee)) &&
                seen.insert(callee).second)
              work.push_back(callee);
          }
    }
    return false;
  };
  if (!reaches([&](const ptx::Function *f) { return f == &fn; }, false))
    return false;
  if (reaches(active, true))
    throwUnsupported(loc, "recursive function '" + fn.name +
                              "' that also calls back into the recursion of '" +
                              recursions_.back().fn->name + "'");
  return true;
}

RecursionRegion *KernelLowering::activeRecursion(const ptx::Function *fn) {
  for (auto &r : recursions_)
    if (r.fn == fn)
      return &r;
  return nullptr;
}

void KernelLowering::beginRecursion(const ptx::Function *fn, std::vector<std::string> formals,
                                    std::vector<std::string> results, uint32_t localOff,
                                    const ptx::SourceLoc &loc) {
  RecursionRegion r;
  r.fn = fn;
  r.id = "$rec" + std::to_string(regs_.size());
  const std::string prefix = "%" + r.id.substr(1);
  r.sp = prefix + ".sp";
  r.base = prefix + ".base";
  r.addr = prefix + ".addr";
  r.word = prefix + ".word";
  r.index = prefix + ".index";
  r.pred = prefix + ".p";
  r.level = prefix + ".level";
  r.var = prefix + ".var";
  r.stack = r.id + ".stack";
  addRegister(r.sp, ptx::Type::U32);
  addRegister(r.base, ptx::Type::U64);
  addRegister(r.addr, ptx::Type::U64);
  addRegister(r.word, ptx::Type::U32);
  addRegister(r.index, ptx::Type::U32);
  addRegister(r.pred, ptx::Type::Pred);
  addRegister(r.level, ptx::Type::U64);
  addRegister(r.var, ptx::Type::U64);
  r.firstReg = regs_.size();
  r.firstLocal = localOff;
  r.formals = std::move(formals);
  r.results = std::move(results);
  flat_.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U32},
                                     {build::reg(r.sp, loc), build::imm(0, loc)}));
  flat_.push_back(ptx::Label{loc, r.id + ".entry"});
  levelBase(flat_, r, loc);
  r.start = flat_.size();
  recursions_.push_back(std::move(r));
}

// r.level = the stack's address + the stack pointer: the current call's frame.
void KernelLowering::levelBase(std::vector<ptx::Statement> &out, const RecursionRegion &r,
                               const ptx::SourceLoc &loc) {
  out.push_back(build::instruction(loc, "cvt", {}, {ptx::Type::U64, ptx::Type::U32},
                                   {build::reg(r.level, loc), build::reg(r.sp, loc)}));
  out.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U64},
                                   {build::reg(r.addr, loc), build::symbol(r.stack, loc)}));
  out.push_back(build::instruction(
      loc, "add", {}, {ptx::Type::S64},
      {build::reg(r.level, loc), build::reg(r.level, loc), build::reg(r.addr, loc)}));
}

// The region's own .local variables addressed in the current call's frame: `[v+4]` becomes
// `[level+off+4]`, and an instruction that takes v's address gets it in a register instead.
void KernelLowering::addressInFrames(const RecursionRegion &r,
                                     const std::map<std::string, uint32_t> &inFrame) {
  std::vector<ptx::Statement> out(flat_.begin(), flat_.begin() + std::ptrdiff_t(r.start));
  for (size_t i = r.start; i < flat_.size(); ++i) {
    auto *in = std::get_if<ptx::Instruction>(&flat_[i]);
    if (!in) {
      out.push_back(std::move(flat_[i]));
      continue;
    }
    for (auto &op : in->operands) {
      auto it = inFrame.find(op.name);
      if (op.name.empty() || it == inFrame.end())
        continue;
      if (op.kind == ptx::Operand::Kind::Address && !op.addrIsReg) {
        op.name = r.level;
        op.addrIsReg = true;
        op.imm += it->second;
      } else if (op.kind == ptx::Operand::Kind::Symbol) {
        out.push_back(build::instruction(in->loc, "add", {}, {ptx::Type::S64},
                                         {build::reg(r.var, in->loc), build::reg(r.level, in->loc),
                                          build::imm(int64_t(it->second) + op.imm, in->loc)}));
        op = build::reg(r.var, in->loc);
      }
    }
    out.push_back(std::move(flat_[i]));
  }
  flat_ = std::move(out);
}

// Copies `bytes` bytes from [fromReg + fromOff] to [toReg + toOff], a word at a time, through the
// region's word register.
static void copyBytes(std::vector<ptx::Statement> &out, const RecursionRegion &r,
                      const std::string &fromReg, int64_t fromOff, const std::string &toReg,
                      int64_t toOff, uint32_t bytes, const ptx::SourceLoc &loc) {
  for (uint32_t o = 0; o < bytes;) {
    const bool word = bytes - o >= 4;
    const ptx::Type t = word ? ptx::Type::U32 : ptx::Type::U8;
    out.push_back(build::instruction(
        loc, "ld", {}, {t}, {build::reg(r.word, loc), build::address(fromReg, fromOff + o, loc)}));
    out.push_back(build::instruction(
        loc, "st", {}, {t}, {build::address(toReg, toOff + o, loc), build::reg(r.word, loc)}));
    o += word ? 4 : 1;
  }
}

// Copies the variable `from` to `to` (.param/.local variables of the thread, `bytes` long).
static void copyVariable(std::vector<ptx::Statement> &out, const RecursionRegion &r,
                         const std::string &from, const std::string &to, uint32_t bytes,
                         const ptx::SourceLoc &loc) {
  out.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U64},
                                   {build::reg(r.addr, loc), build::symbol(from, loc)}));
  out.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U64},
                                   {build::reg(r.base, loc), build::symbol(to, loc)}));
  copyBytes(out, r, r.addr, 0, r.base, 0, bytes, loc);
}

void KernelLowering::recursiveCall(RecursionRegion &r, const std::vector<std::string> &args,
                                   const std::vector<std::string> &rets,
                                   const ptx::SourceLoc &loc) {
  if (args.size() != r.formals.size() || rets.size() != r.results.size())
    throwInvalid(loc, "call to '" + r.fn->name + "' with a different number of values");
  const int k = static_cast<int>(r.saves.size());
  r.saves.push_back(flat_.size());
  flat_.push_back(build::instruction(loc, kFramePlaceholder, {"save"}, {}, {build::imm(k, loc)}));
  for (size_t i = 0; i < args.size(); ++i)
    copyVariable(flat_, r, args[i], r.formals[i], localSizes_.at(r.formals[i]), loc);
  flat_.push_back(build::instruction(loc, "bra", {}, {}, {build::symbol(r.id + ".entry", loc)}));
  flat_.push_back(ptx::Label{loc, r.id + ".ret" + std::to_string(k)});
  r.restores.push_back(flat_.size());
  flat_.push_back(
      build::instruction(loc, kFramePlaceholder, {"restore"}, {}, {build::imm(k, loc)}));
  for (size_t i = 0; i < rets.size(); ++i)
    copyVariable(flat_, r, r.results[i], rets[i], localSizes_.at(r.results[i]), loc);
}

void KernelLowering::endRecursion(uint32_t &localOff, const std::string &returnLabel,
                                  const ptx::SourceLoc &loc) {
  RecursionRegion r = std::move(recursions_.back());
  recursions_.pop_back();

  // The frame: the region's .local/.param variables (which live there), the parameters, every
  // register of the region, and the index of the call to return to.
  std::map<uint32_t, std::string> byOffset;
  for (const auto &[name, off] : localOffsets_)
    if (off >= r.firstLocal && off < localOff && !recursionStacks_.count(name))
      byOffset[off] = name; // (a region inside holds no frames when this one pushes)
  std::vector<std::pair<std::string, uint32_t>> memory; // saved variable, frame offset
  std::map<std::string, uint32_t> inFrame;              // variable living in the frame, offset
  uint32_t frame = 0;
  auto place = [&](uint32_t size, uint32_t align) {
    frame = (frame + align - 1) / align * align;
    uint32_t o = frame;
    frame += size;
    return o;
  };
  for (const auto &[off, name] : byOffset)
    inFrame[name] = place(localSizes_.at(name), 16);
  for (const auto &name : r.formals)
    memory.emplace_back(name, place(localSizes_.at(name), 4));
  std::vector<std::string> names(regs_.size());
  for (const auto &[name, id] : regIds_)
    names[id] = name;
  std::vector<std::pair<size_t, uint32_t>> registers; // register id, frame offset
  for (size_t id = r.firstReg; id < regs_.size(); ++id) {
    const RegInfo &ri = regs_[id];
    uint32_t size = ri.type == ptx::Type::Pred ? 4 : std::max(1u, ptx::typeSize(ri.type));
    registers.emplace_back(id, place(size, size));
  }
  const uint32_t indexAt = place(4, 4);
  frame = (frame + 15) / 16 * 16;
  if (frame * 4 > kStackBytes)
    throwUnsupported(r.fn->loc, "recursive function '" + r.fn->name + "' with a frame of " +
                                    std::to_string(frame) + " bytes");
  localOff = (localOff + 15) / 16 * 16;
  recursionStacks_.insert(r.stack);
  localOffsets_[r.stack] = localOff;
  localTypes_[r.stack] = ptx::Type::B8;
  localSizes_[r.stack] = kStackBytes;
  localOff += kStackBytes;

  auto frameBase = [&](std::vector<ptx::Statement> &out) {
    out.push_back(build::instruction(loc, "cvt", {}, {ptx::Type::U64, ptx::Type::U32},
                                     {build::reg(r.base, loc), build::reg(r.sp, loc)}));
    out.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U64},
                                     {build::reg(r.addr, loc), build::symbol(r.stack, loc)}));
    out.push_back(build::instruction(
        loc, "add", {}, {ptx::Type::S64},
        {build::reg(r.base, loc), build::reg(r.base, loc), build::reg(r.addr, loc)}));
  };
  // Saves the caller's frame at the top of the stack (trapping when it is full), then pushes.
  auto save = [&](int k) {
    std::vector<ptx::Statement> out;
    out.push_back(build::instruction(loc, "setp", {"gt"}, {ptx::Type::U32},
                                     {build::reg(r.pred, loc), build::reg(r.sp, loc),
                                      build::imm(kStackBytes - 2 * frame, loc)}));
    out.push_back(guarded(build::instruction(loc, "trap", {}, {}, {}), r.pred));
    frameBase(out);
    for (const auto &[name, fo] : memory) {
      out.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U64},
                                       {build::reg(r.addr, loc), build::symbol(name, loc)}));
      copyBytes(out, r, r.addr, 0, r.base, fo, localSizes_.at(name), loc);
    }
    for (const auto &[id, fo] : registers) {
      const RegInfo &ri = regs_[id];
      if (ri.type == ptx::Type::Pred) {
        out.push_back(build::instruction(loc, "selp", {}, {ptx::Type::U32},
                                         {build::reg(r.word, loc), build::imm(1, loc),
                                          build::imm(0, loc), build::reg(names[id], loc)}));
        out.push_back(
            build::instruction(loc, "st", {}, {ptx::Type::U32},
                               {build::address(r.base, fo, loc), build::reg(r.word, loc)}));
      } else {
        out.push_back(
            build::instruction(loc, "st", {}, {ri.type},
                               {build::address(r.base, fo, loc), build::reg(names[id], loc)}));
      }
    }
    out.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U32},
                                     {build::reg(r.word, loc), build::imm(k, loc)}));
    out.push_back(
        build::instruction(loc, "st", {}, {ptx::Type::U32},
                           {build::address(r.base, indexAt, loc), build::reg(r.word, loc)}));
    out.push_back(
        build::instruction(loc, "add", {}, {ptx::Type::U32},
                           {build::reg(r.sp, loc), build::reg(r.sp, loc), build::imm(frame, loc)}));
    return out;
  };
  // Pops the frame and restores the caller's variables and registers.
  auto restore = [&]() {
    std::vector<ptx::Statement> out;
    out.push_back(
        build::instruction(loc, "sub", {}, {ptx::Type::U32},
                           {build::reg(r.sp, loc), build::reg(r.sp, loc), build::imm(frame, loc)}));
    frameBase(out);
    for (const auto &[name, fo] : memory) {
      out.push_back(build::instruction(loc, "mov", {}, {ptx::Type::U64},
                                       {build::reg(r.addr, loc), build::symbol(name, loc)}));
      copyBytes(out, r, r.base, fo, r.addr, 0, localSizes_.at(name), loc);
    }
    for (const auto &[id, fo] : registers) {
      const RegInfo &ri = regs_[id];
      if (ri.type == ptx::Type::Pred) {
        out.push_back(
            build::instruction(loc, "ld", {}, {ptx::Type::U32},
                               {build::reg(r.word, loc), build::address(r.base, fo, loc)}));
        out.push_back(build::instruction(
            loc, "setp", {"ne"}, {ptx::Type::U32},
            {build::reg(names[id], loc), build::reg(r.word, loc), build::imm(0, loc)}));
      } else {
        out.push_back(
            build::instruction(loc, "ld", {}, {ri.type},
                               {build::reg(names[id], loc), build::address(r.base, fo, loc)}));
      }
    }
    levelBase(out, r, loc);
    return out;
  };
  // Placeholders, last first so that earlier indices stay valid.
  std::vector<std::pair<size_t, int>> spots; // flat_ index, call (save) or -1 (restore)
  for (size_t k = 0; k < r.saves.size(); ++k)
    spots.emplace_back(r.saves[k], static_cast<int>(k));
  for (size_t i : r.restores)
    spots.emplace_back(i, -1);
  std::sort(spots.begin(), spots.end(), [](auto &a, auto &b) { return a.first > b.first; });
  for (const auto &[i, k] : spots) {
    std::vector<ptx::Statement> code = k >= 0 ? save(k) : restore();
    flat_.erase(flat_.begin() + static_cast<std::ptrdiff_t>(i));
    flat_.insert(flat_.begin() + static_cast<std::ptrdiff_t>(i), code.begin(), code.end());
  }
  addressInFrames(r, inFrame); // after the placeholders, whose indices it would move

  // `ret`: leave the region when no frame is pushed, else return to the call that pushed it.
  flat_.push_back(ptx::Label{loc, returnLabel});
  flat_.push_back(
      build::instruction(loc, "setp", {"eq"}, {ptx::Type::U32},
                         {build::reg(r.pred, loc), build::reg(r.sp, loc), build::imm(0, loc)}));
  flat_.push_back(guarded(
      build::instruction(loc, "bra", {}, {}, {build::symbol(r.id + ".exit", loc)}), r.pred));
  frameBase(flat_);
  flat_.push_back(build::instruction(
      loc, "ld", {}, {ptx::Type::U32},
      {build::reg(r.index, loc), build::address(r.base, -int64_t(frame) + indexAt, loc)}));
  for (size_t k = 0; k < r.saves.size(); ++k) {
    flat_.push_back(build::instruction(
        loc, "setp", {"eq"}, {ptx::Type::U32},
        {build::reg(r.pred, loc), build::reg(r.index, loc), build::imm(int64_t(k), loc)}));
    flat_.push_back(
        guarded(build::instruction(loc, "bra", {}, {},
                                   {build::symbol(r.id + ".ret" + std::to_string(k), loc)}),
                r.pred));
  }
  flat_.push_back(build::instruction(loc, "trap", {}, {}, {}));
  flat_.push_back(ptx::Label{loc, r.id + ".exit"});
}

} // namespace cucpu::jit
