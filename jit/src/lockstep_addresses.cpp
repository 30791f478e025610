// Roots and thread dependence of a kernel's addresses, for lockstep (lockstep.cpp): two accesses
// can only see each other when they may touch the same memory, and lanes only exchange data
// through addresses that are not private to each thread.
#include "lockstep_addresses.h"

#include "lowering.h"

#include <algorithm>

namespace cucpu::jit {

namespace {

using Class = AddressAnalysis::Class;
using Value = AddressAnalysis::Value;

Class join(Class a, Class b) { return std::max(a, b); }

// The registers an instruction writes that can feed an address (a vector load's elements too).
std::vector<std::string> destinations(const ptx::Instruction &in) {
  switch (in.op) {
  case Op::st:
  case Op::red:
  case Op::bar:
  case Op::barrier:
  case Op::bra:
  case Op::ret:
  case Op::exit:
  case Op::call:
  case Op::membar:
  case Op::fence:
  case Op::prefetch:
  case Op::prefetchu:
    return {};
  default:
    break;
  }
  if (in.operands.empty())
    return {};
  const ptx::Operand &d = in.operands[0];
  if (d.kind == ptx::Operand::Kind::Reg && !d.name.empty())
    return {d.name};
  std::vector<std::string> out;
  if (d.kind == ptx::Operand::Kind::Vector)
    for (const auto &e : d.elems)
      if (e.kind == ptx::Operand::Kind::Reg)
        out.push_back(e.name);
  return out;
}

// `[name+off]` of an ld.param, or of a variable: the key of the root it names.
std::string symbolKey(const std::string &name, int64_t offset) {
  return name + "+" + std::to_string(offset);
}

bool threadDependent(Class c) { return c >= Class::Affine; }

// Special registers whose value differs between a warp's lanes or over time.
bool varyingSpecialRegister(const std::string &name) {
  return name.starts_with("%lanemask_") || name.starts_with("%clock") ||
         name.starts_with("%globaltimer") || name.starts_with("%pm") || name == "%warpid" ||
         name == "%smid";
}

} // namespace

AddressAnalysis::AddressAnalysis(const std::vector<ptx::Statement> &flat,
                                 std::function<bool(const std::string &)> threadMemory)
    : threadMemory_(std::move(threadMemory)) {
  std::unordered_map<std::string, int> defs;
  std::vector<const ptx::Instruction *> code;
  for (const auto &st : flat)
    if (auto *in = std::get_if<ptx::Instruction>(&st)) {
      code.push_back(in);
      for (const std::string &d : destinations(*in))
        ++defs[d];
      for (const auto &o : in->operands) { // roots: each pointer parameter read, variables named
        if (o.kind == ptx::Operand::Kind::Address && !o.addrIsReg && !o.name.empty())
          addRoot(symbolKey(o.name, in->has(Mod::param) ? o.imm : 0));
        else if (o.kind == ptx::Operand::Kind::Symbol && in->op != Op::bra && in->op != Op::call)
          addRoot(symbolKey(o.name, 0));
      }
    }
  // A register written in more than one place (a loop's counter) changes during the kernel.
  for (bool changed = true; changed;) {
    changed = false;
    for (const ptx::Instruction *in : code) {
      const std::vector<std::string> dests = destinations(*in);
      if (dests.empty())
        continue;
      const Value v = evaluate(*in);
      for (const std::string &d : dests) {
        Value &r = regs_[d];
        Value next{join(r.cls, v.cls), r.roots | v.roots};
        if (defs[d] > 1)
          next.cls = join(next.cls, Class::Uniform);
        if (!(next == r)) {
          r = next;
          changed = true;
        }
      }
    }
  }
  std::unordered_map<int, std::string> addressOfRoot; // root bit -> the one address seen
  for (const ptx::Instruction *in : code) {
    if (in->op != Op::ld && in->op != Op::st)
      continue;
    const ptx::Operand *addr = nullptr;
    bool indexed = false;
    const Access a = classify(*in, &addr, &indexed);
    if (!addr || !indexed)
      continue;
    const std::string key = symbolKey(addr->name, addr->imm);
    for (int b = 0; b < 64; ++b)
      if ((a.roots >> b) & 1) {
        auto [it, added] = addressOfRoot.try_emplace(b, key);
        if (!added && it->second != key)
          severalAddresses_ |= uint64_t(1) << b;
      }
  }
}

void AddressAnalysis::addRoot(const std::string &key) {
  rootIds_.try_emplace(key, static_cast<int>(rootIds_.size()));
}

uint64_t AddressAnalysis::rootBit(const std::string &key) const {
  // Past the bits there are, a root is known only as memory somewhere (no bit: unknown).
  auto it = rootIds_.find(key);
  return it != rootIds_.end() && it->second < kOwn ? uint64_t(1) << it->second : 0;
}

AddressAnalysis::Value AddressAnalysis::reg(const std::string &name) const {
  if (name == "%tid" || name == "%laneid")
    return {Class::Affine, 0};
  if (name == "%ctaid" || name == "%ntid" || name == "%nctaid" || name == "%dynamic_smem_size" ||
      name == "%total_smem_size")
    return {Class::Invariant, 0};
  if (auto it = regs_.find(name); it != regs_.end())
    return it->second;
  // A register nothing has written yet is the least so far; other special registers (%gridid,
  // %envreg<n>, ...) are fixed for the kernel.
  return varyingSpecialRegister(name) ? Value{Class::Mixed, 0} : Value{};
}

AddressAnalysis::Value AddressAnalysis::operand(const ptx::Operand &o) const {
  switch (o.kind) {
  case ptx::Operand::Kind::Reg:
    return reg(o.name);
  case ptx::Operand::Kind::Symbol: {
    if (threadMemory_(o.name))
      return {Class::Affine, uint64_t(1) << kOwn}; // the address of the thread's own variable
    return {Class::Invariant, rootBit(symbolKey(o.name, 0))};
  }
  case ptx::Operand::Kind::Imm:
  case ptx::Operand::Kind::FImm:
    return {Class::Invariant, 0};
  default:
    return {Class::Mixed, 0};
  }
}

AddressAnalysis::Value AddressAnalysis::evaluate(const ptx::Instruction &in) const {
  auto src = [&](size_t i) { return i < in.operands.size() ? operand(in.operands[i]) : Value{}; };
  // a * b: affine times the same for every thread stays affine.
  auto product = [](Value a, Value b) {
    if (threadDependent(a.cls) && threadDependent(b.cls))
      return Value{Class::Mixed, 0};
    return Value{join(a.cls, b.cls), 0};
  };
  switch (in.op) {
  case Op::cvta:
    if (in.has(Mod::local) && !in.has(Mod::to))
      return {Class::Affine, uint64_t(1) << kOwn}; // a generic address of the thread's own memory
    return src(1);
  case Op::mov:
  case Op::cvt:
    return src(1);
  case Op::neg:
  case Op::not_:
    return {src(1).cls, 0};
  case Op::add:
  case Op::sub: {
    Value a = src(1), b = src(2);
    return {join(a.cls, b.cls), a.roots | b.roots};
  }
  case Op::shl:
    return product(src(1), src(2));
  case Op::mul:
    if (!in.has(Mod::hi))
      return product(src(1), src(2));
    break;
  case Op::mad:
    if (!in.has(Mod::hi)) {
      Value p = product(src(1), src(2)), c = src(3);
      return {join(p.cls, c.cls), c.roots};
    }
    break;
  case Op::ld: {
    const ptx::Operand &a = in.operands.back();
    const bool named = a.kind == ptx::Operand::Kind::Address && !a.addrIsReg && !a.name.empty();
    if (in.has(Mod::param) && named && !threadMemory_(a.name))      // a kernel parameter (a pointer
      return {Class::Invariant, rootBit(symbolKey(a.name, a.imm))}; // one is a root)
    const Value at = a.kind == ptx::Operand::Kind::Address && a.addrIsReg ? reg(a.name) : Value{};
    // What the thread itself stored (its .local and .param variables: spills, a call's
    // arguments and results) may be anything.
    if (in.has(Mod::local) || in.has(Mod::param) || (named && threadMemory_(a.name)) ||
        (at.roots >> kOwn) & 1)
      return {Class::Mixed, 0};
    // What every thread loads from one place is the same for all (but may change over time).
    return {threadDependent(at.cls) ? Class::Mixed : Class::Uniform, 0};
  }
  default:
    break;
  }
  // Any other operation: the same for every thread if its inputs are; a fixed function of the
  // thread's affine index if every other input is fixed for the kernel; else mixed.
  Class thread = Class::Invariant, other = Class::Invariant;
  for (size_t i = 1; i < in.operands.size(); ++i) {
    const Class c = src(i).cls;
    (threadDependent(c) ? thread : other) = join(threadDependent(c) ? thread : other, c);
  }
  if (!threadDependent(thread))
    return {other, 0};
  if (thread == Class::Mixed || other != Class::Invariant)
    return {Class::Mixed, 0};
  return {Class::Fixed, 0};
}

// The class and roots of an access's address (`*operand`: the address operand, if any).
AddressAnalysis::Value AddressAnalysis::address(const ptx::Instruction &in,
                                                const ptx::Operand **operand) const {
  const ptx::Operand *addr = nullptr;
  for (const auto &o : in.operands)
    if (o.kind == ptx::Operand::Kind::Address)
      addr = &o;
  *operand = addr;
  if (addr && addr->addrIsReg)
    return reg(addr->name);
  if (addr && !addr->name.empty() && threadMemory_(addr->name))
    return {Class::Affine, uint64_t(1) << kOwn};
  if (addr && !addr->name.empty())
    return {Class::Invariant, rootBit(symbolKey(addr->name, 0))}; // a variable at any offset
  return {};
}

AddressAnalysis::Access AddressAnalysis::classify(const ptx::Instruction &in,
                                                  const ptx::Operand **addr, bool *indexed) const {
  Value v = address(in, addr);
  *indexed = false;
  if (v.roots == uint64_t(1) << kOwn) // only the thread's own memory: nothing to conflict with
    return {0, 0, false};
  *indexed = v.cls == Class::Affine || v.cls == Class::Fixed;
  const bool shared = in.has(Mod::shared) || in.has(Mod::shared_cta) || in.has(Mod::shared_cluster);
  const bool global = in.has(Mod::global);
  uint64_t unknown = 0;
  if (global || !shared)
    unknown |= uint64_t(1) << kUnknownGlobal;
  if (shared || !global)
    unknown |= uint64_t(1) << kUnknownShared;
  Access a;
  // Lanes meet at mixed addresses; the same address for every lane (a counter, a flag) or one
  // per lane (an element of the thread's own) is only met through a mixed one.
  a.open = v.cls == Class::Mixed;
  v.roots &= ~(uint64_t(1) << kOwn);
  if (v.roots) {
    a.roots = v.roots;
    a.aliases = v.roots | unknown;
  } else { // derived from nothing known: any memory of its spaces
    const uint64_t allUnknown = (uint64_t(1) << kUnknownGlobal) | (uint64_t(1) << kUnknownShared);
    a.roots = unknown;
    a.aliases = (~allUnknown & ~(uint64_t(1) << kOwn)) | unknown;
  }
  return a;
}

AddressAnalysis::Access AddressAnalysis::access(const ptx::Instruction &in) const {
  const ptx::Operand *addr = nullptr;
  bool indexed = false;
  Access a = classify(in, &addr, &indexed);
  a.open = a.open || (indexed && (a.roots & severalAddresses_));
  return a;
}

} // namespace cucpu::jit
