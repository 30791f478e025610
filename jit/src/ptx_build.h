// Building PTX statements, for the transformations done at PTX level before lowering (inlining,
// guarded and indirect calls, recursion, loop barriers).
#pragma once

#include "cucpu/ptx/ast.h"
#include "cucpu/ptx/isa.h"

#include <optional>
#include <string>
#include <vector>

namespace cucpu::jit::build {

inline ptx::Operand reg(const std::string &name, const ptx::SourceLoc &loc) {
  ptx::Operand op;
  op.kind = ptx::Operand::Kind::Reg;
  op.loc = loc;
  op.name = name;
  return op;
}

inline ptx::Operand imm(int64_t v, const ptx::SourceLoc &loc) {
  ptx::Operand op;
  op.kind = ptx::Operand::Kind::Imm;
  op.loc = loc;
  op.imm = v;
  return op;
}

// A label, function or variable name.
inline ptx::Operand symbol(const std::string &name, const ptx::SourceLoc &loc) {
  ptx::Operand op;
  op.kind = ptx::Operand::Kind::Symbol;
  op.loc = loc;
  op.name = name;
  return op;
}

// [register + offset]
inline ptx::Operand address(const std::string &base, int64_t offset, const ptx::SourceLoc &loc) {
  ptx::Operand op;
  op.kind = ptx::Operand::Kind::Address;
  op.loc = loc;
  op.name = base;
  op.addrIsReg = true;
  op.imm = offset;
  return op;
}

inline ptx::Instruction instruction(const ptx::SourceLoc &loc, const char *opcode,
                                    std::vector<std::string> mods, std::vector<ptx::Type> types,
                                    std::vector<ptx::Operand> operands,
                                    std::optional<ptx::Guard> guard = std::nullopt) {
  ptx::Instruction in;
  in.loc = loc;
  in.opcode = opcode;
  in.mods = std::move(mods);
  in.types = std::move(types);
  in.operands = std::move(operands);
  in.guard = std::move(guard);
  in.modsBeforeType = static_cast<uint8_t>(in.mods.size());
  ptx::assignForm(in); // none for the lowering's own pseudo-instructions (kBadCallMod)
  return in;
}

// bra label, under `guard` when given.
inline ptx::Instruction branch(const ptx::SourceLoc &loc, const std::string &label,
                               std::optional<ptx::Guard> guard = std::nullopt) {
  return instruction(loc, "bra", {}, {}, {symbol(label, loc)}, std::move(guard));
}

} // namespace cucpu::jit::build
