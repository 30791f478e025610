// PTX text of an AST: operands, instructions and function bodies.
#include "cucpu/ptx/printer.h"

#include <cstdio>
#include <sstream>

namespace cucpu::ptx {
namespace {

std::string join(const std::vector<Operand> &elems) {
  std::string s;
  for (size_t i = 0; i < elems.size(); ++i)
    s += (i ? ", " : "") + print(elems[i]);
  return s;
}

// "+4", "+-4" (as PTX writes a negative offset), "" for none.
std::string offset(int64_t v) { return v ? "+" + std::to_string(v) : ""; }

std::string hex(const char *prefix, int digits, uint64_t bits) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%s%0*llX", prefix, digits, static_cast<unsigned long long>(bits));
  return buf;
}

std::string spaceName(Space s) {
  switch (s) {
  case Space::Reg:
    return "reg";
  case Space::Sreg:
    return "sreg";
  case Space::Const:
    return "const";
  case Space::Global:
    return "global";
  case Space::Local:
    return "local";
  case Space::Param:
    return "param";
  case Space::Shared:
    return "shared";
  case Space::Tex:
    return "tex";
  case Space::None:
    break;
  }
  return "";
}

std::string print(const VarDecl &v) {
  std::string s = "." + spaceName(v.space);
  if (v.align)
    s += " .align " + std::to_string(v.align);
  if (v.vecWidth > 1)
    s += " .v" + std::to_string(v.vecWidth);
  s += " ." + std::string(typeName(v.type)) + " " + v.name;
  if (v.rangeCount >= 0)
    s += "<" + std::to_string(v.rangeCount) + ">";
  for (uint64_t d : v.dims)
    s += d ? "[" + std::to_string(d) + "]" : "[]";
  return s + ";";
}

} // namespace

std::string print(const Operand &o) {
  using K = Operand::Kind;
  switch (o.kind) {
  case K::Reg: {
    std::string s = (o.negate ? "!" : "") + std::string(o.minus ? "-" : "") + o.name;
    if (o.component >= 0)
      s += std::string(".") + "xyzw"[o.component & 3];
    if (!o.select.empty())
      s += "." + o.select;
    return o.name2.empty() ? s : s + "|" + o.name2;
  }
  case K::Imm:
    return std::to_string(o.imm);
  case K::FImm: {
    if (o.fwidth == 32)
      return hex("0f", 8, o.fbits);
    if (o.fwidth == 64)
      return hex("0d", 16, o.fbits);
    std::ostringstream os;
    os << o.fval;
    return os.str();
  }
  case K::Symbol:
    return o.name + offset(o.imm);
  case K::Address: {
    std::string base = o.name.empty() ? std::to_string(o.imm) : o.name + offset(o.imm);
    return "[" + base + (o.elems.empty() ? "" : ", " + join(o.elems)) + "]";
  }
  case K::Vector:
    return "{" + join(o.elems) + "}" + (o.name2.empty() ? "" : "|" + o.name2);
  case K::List:
    return "(" + join(o.elems) + ")";
  case K::Sink:
    return "_";
  }
  return "";
}

std::string print(const Instruction &in) {
  std::string s;
  if (in.guard)
    s += std::string("@") + (in.guard->negate ? "!" : "") + in.guard->reg + " ";
  s += in.opcode;
  for (const auto &m : in.mods)
    s += "." + m;
  for (Type t : in.types)
    s += "." + std::string(typeName(t));
  if (!in.operands.empty())
    s += " " + join(in.operands);
  return s + ";";
}

std::string printBody(const Function &f) {
  std::string s;
  for (const auto &st : f.body) {
    if (const auto *in = std::get_if<Instruction>(&st))
      s += print(*in) + "\n";
    else if (const auto *l = std::get_if<Label>(&st))
      s += l->name + ":\n";
    else if (const auto *v = std::get_if<VarDecl>(&st))
      s += print(*v) + "\n";
    else if (std::holds_alternative<ScopeBegin>(st))
      s += "{\n";
    else if (std::holds_alternative<ScopeEnd>(st))
      s += "}\n";
  }
  return s;
}

} // namespace cucpu::ptx
