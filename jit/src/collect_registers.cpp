// A kernel's registers, .local and .shared declarations, with { } scopes flattened to unique
// names and device functions inlined: the flat statement list the rest of the lowering reads.
#include "lowering.h"
#include "ptx_build.h"

#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace cucpu::jit {

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

} // namespace cucpu::jit
