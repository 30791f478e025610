// PTX pass: an indirect call becomes a comparison of its pointer with each function it may
// reach and a direct call of the one it names; the module's address-taken functions.
#include "lowering.h"
#include "ptx_build.h"
#include "ptx_passes.h"

#include "cucpu/support/log.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

namespace cucpu::jit::passes {
namespace {

std::vector<uint64_t> sizes(const std::vector<ptx::Param> &ps) {
  std::vector<uint64_t> out;
  for (const auto &p : ps)
    out.push_back(varBytes(p.decl));
  return out;
}

// The functions `call` (an indirect call of `f`, its last operand a prototype or target list)
// may reach: those of a `.calltargets` list, else the address-taken functions whose parameters
// and results have the prototype's sizes.
std::vector<const ptx::Function *> targetsOf(const ptx::Module &m, const ptx::Function &f,
                                             const ptx::Instruction &call,
                                             const std::vector<const ptx::Function *> &taken) {
  const std::string &label = call.operands.back().name;
  const ptx::CallPrototype *proto = nullptr;
  const ptx::Directive *targetList = nullptr;
  for (const auto &st : f.body) {
    if (auto *cp = std::get_if<ptx::CallPrototype>(&st); cp && cp->label == label)
      proto = cp;
    if (auto *d = std::get_if<ptx::Directive>(&st);
        d && d->name == "calltargets" && d->text == label)
      targetList = d;
  }
  for (const auto &cp : m.prototypes)
    if (!proto && cp.label == label)
      proto = &cp;
  std::vector<const ptx::Function *> targets;
  if (targetList) {
    for (const auto &t : targetList->args)
      if (const ptx::Function *fn = m.findFunction(t.name); fn && fn->hasBody)
        targets.push_back(fn);
  } else if (proto) {
    for (const ptx::Function *fn : taken)
      if (sizes(fn->params) == sizes(proto->params) && sizes(fn->returns) == sizes(proto->returns))
        targets.push_back(fn);
  } else {
    throwInvalid(call.loc, "indirect call without a .callprototype or .calltargets");
  }
  return targets;
}

} // namespace

// The functions whose address some instruction or initializer of the module takes (an operand
// naming the function anywhere but as a call's direct target).
std::vector<const ptx::Function *> addressTakenFunctions(const ptx::Module &ast) {
  std::set<std::string> names;
  std::function<void(const ptx::Operand &)> scan = [&](const ptx::Operand &op) {
    if (op.kind == ptx::Operand::Kind::Symbol || op.kind == ptx::Operand::Kind::Address)
      names.insert(op.name);
    for (const auto &e : op.elems)
      scan(e);
  };
  for (const auto &v : ast.globals)
    for (const auto &op : v.init)
      scan(op);
  for (const auto &fn : ast.functions)
    for (const auto &st : fn.body)
      if (auto *in = std::get_if<ptx::Instruction>(&st)) {
        size_t callee = SIZE_MAX;
        if (in->op == Op::call)
          callee = !in->operands.empty() && in->operands[0].kind == ptx::Operand::Kind::List;
        for (size_t i = 0; i < in->operands.size(); ++i)
          if (i != callee)
            scan(in->operands[i]);
      }
  std::vector<const ptx::Function *> out;
  for (const auto &fn : ast.functions)
    if (!fn.isEntry && fn.hasBody && names.count(fn.name))
      out.push_back(&fn);
  return out;
}

void expandIndirectCalls(const ptx::Module &m, ptx::Function &f,
                         const std::vector<const ptx::Function *> &taken) {
  // The pointer operand of each indirect call, and the functions it may reach, found before the
  // body is rebuilt (the prototypes are statements of it).
  auto pointerAt = [](const ptx::Statement &st) -> size_t {
    const auto *call = std::get_if<ptx::Instruction>(&st);
    if (!call || call->op != ptx::Op::call || call->operands.empty())
      return 0;
    const size_t at = call->operands[0].kind == ptx::Operand::Kind::List ? 1 : 0;
    return at < call->operands.size() && call->operands[at].kind == ptx::Operand::Kind::Reg ? at + 1
                                                                                            : 0;
  };
  std::vector<std::vector<const ptx::Function *>> reach;
  for (const auto &st : f.body)
    if (pointerAt(st))
      reach.push_back(targetsOf(m, f, std::get<ptx::Instruction>(st), taken));
  if (reach.empty())
    return;
  std::vector<ptx::Statement> out;
  out.reserve(f.body.size());
  size_t calls = 0;
  for (auto &st : f.body) {
    const size_t at1 = pointerAt(st);
    if (!at1) {
      out.push_back(std::move(st));
      continue;
    }
    const size_t at = at1 - 1;
    const auto *call = &std::get<ptx::Instruction>(st);
    const ptx::SourceLoc loc = call->loc;
    const ptx::Operand pointer = call->operands[at];
    const auto &targets = reach[calls];
    // A pointer to none of them ends the grid with CUDA_ERROR_INVALID_PC when the call runs, as
    // on a GPU (numba's runtime calls destructors through a prototype no function of the
    // module has).
    const auto badCall = build::instruction(loc, "trap", {kBadCallMod}, {}, {pointer});
    if (targets.empty()) {
      log::debug(log::Component::Jit,
                 "{}:{}: indirect call that can reach no function of the module: it faults if "
                 "it runs",
                 loc.line, loc.col);
      out.push_back(badCall);
      ++calls;
      continue;
    }
    const std::string id = "$icall" + std::to_string(calls++);
    const std::string pred = "%" + id;
    ptx::VarDecl decl;
    decl.loc = loc;
    decl.space = ptx::Space::Reg;
    decl.type = ptx::Type::Pred;
    decl.name = pred;
    out.push_back(decl);
    for (size_t k = 0; k < targets.size(); ++k) {
      out.push_back(build::instruction(
          loc, "setp", {"eq"}, {ptx::Type::U64},
          {build::reg(pred, loc), pointer, build::symbol(targets[k]->name, loc)}));
      out.push_back(build::branch(loc, id + "_" + std::to_string(k), ptx::Guard{pred, false}));
    }
    out.push_back(badCall);
    for (size_t k = 0; k < targets.size(); ++k) {
      out.push_back(ptx::Label{loc, id + "_" + std::to_string(k)});
      ptx::Instruction direct = *call;
      direct.operands[at] = build::symbol(targets[k]->name, loc);
      direct.operands.pop_back(); // the prototype or target list
      ptx::assignForm(direct);
      out.push_back(std::move(direct));
      out.push_back(build::branch(loc, id + "_end"));
    }
    out.push_back(ptx::Label{loc, id + "_end"});
  }
  f.body = std::move(out);
}

} // namespace cucpu::jit::passes
