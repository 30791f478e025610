// Instruction validation against the instruction table: every instruction's opcode, modifiers,
// types, operands (kinds and register types), ISA version and target, as ptxas checks them.
#include "validate.h"

#include "cucpu/ptx/targets.h"
#include "forms.h"
#include "special_registers.h"
#include "table.h"
#include "validate_scope.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cucpu::ptx {
namespace {

using table::OperandKind;
using table::OperandSpec;
using validation::RegisterInfo;
using validation::Scope;
using K = Operand::Kind;

constexpr size_t kMaxErrors = 50;

enum class Class { Pred, Bits, Int, Float };

Class classOf(Type t) {
  if (t == Type::Pred)
    return Class::Pred;
  if (isBits(t))
    return Class::Bits;
  if (isFloat(t))
    return Class::Float;
  return Class::Int;
}

// May a register of type `reg` stand where the instruction expects `want`? PTX's operand type
// rules: same size, bit types match any type, signed and unsigned integers match each other;
// `relaxed` (ld, st, cvt) lets a register be wider when it or the instruction type is a bit type,
// or both are integers.
bool compatible(Type want, Type reg, bool relaxed) {
  Class w = classOf(want), r = classOf(reg);
  if (w == Class::Pred || r == Class::Pred)
    return w == r;
  unsigned ws = typeSize(want), rs = typeSize(reg);
  if (rs != ws && !(relaxed && rs > ws &&
                    (w == Class::Bits || r == Class::Bits || (w == Class::Int && r == Class::Int))))
    return false;
  if (w == Class::Bits || r == Class::Bits)
    return true;
  if (w == Class::Int)
    return r == Class::Int;
  return reg == want;
}

Type scaled(Type t, unsigned num, unsigned den) {
  if (num == den)
    return t;
  unsigned bits = typeSize(t) * 8 * num / den;
  auto pick = [&](Type b8, Type b16, Type b32, Type b64) {
    switch (bits) {
    case 8:
      return b8;
    case 16:
      return b16;
    case 32:
      return b32;
    case 64:
      return b64;
    default:
      return Type::None;
    }
  };
  if (isSigned(t))
    return pick(Type::S8, Type::S16, Type::S32, Type::S64);
  if (isUnsigned(t))
    return pick(Type::U8, Type::U16, Type::U32, Type::U64);
  return pick(Type::B8, Type::B16, Type::B32, Type::B64);
}

std::string spelling(const Instruction &in) {
  std::string s = in.opcode;
  for (const auto &m : in.mods)
    s += "." + m;
  for (Type t : in.types)
    s += "." + std::string(typeName(t));
  return s;
}

unsigned targetSm(std::string_view target) {
  unsigned sm = 0;
  if (target.starts_with("sm_"))
    std::from_chars(target.data() + 3, target.data() + target.size(), sm);
  return sm;
}

// Checks the operands of `in` against one form; the reason when they do not fit.
class OperandChecker {
public:
  OperandChecker(const Scope &scope, const Instruction &in, const table::Form &form)
      : scope_(scope), in_(in), form_(form) {}

  std::optional<std::string> check() {
    const auto specs =
        std::span(table::kOperands + form_.operandBegin, table::kOperands + form_.operandEnd);
    const auto &ops = in_.operands;
    size_t required = 0;
    bool any = false;
    for (const auto &s : specs) {
      if (s.kind == OperandKind::Any) {
        any = true;
        break;
      }
      if (!s.optional)
        ++required;
    }
    const size_t checked = any ? specs.size() - 1 : specs.size();
    if (ops.size() < required || (!any && ops.size() > specs.size()))
      return "wrong number of operands";
    for (size_t i = 0; i < checked && i < ops.size(); ++i)
      if (auto why = operand(specs[i], ops[i], i))
        return "operand " + std::to_string(i + 1) + ": " + *why;
    return std::nullopt;
  }

private:
  Type typeOf(const OperandSpec &s) const {
    if (s.slot < 0)
      return static_cast<Type>(s.type);
    const size_t slot = static_cast<size_t>(s.slot);
    Type t = slot < in_.types.size() ? in_.types[slot] : Type::B32;
    return scaled(t, s.num, s.den);
  }

  std::optional<std::string> registerOperand(const Operand &o, Type want, bool relaxed,
                                             bool write) const {
    if (specialRegister(o.name)) {
      if (write)
        return "a special register cannot be written";
      return "special register " + o.name + " not allowed here";
    }
    const RegisterInfo *r = scope_.reg(o.name);
    if (!r) {
      if (scope_.variable(o.name) || scope_.isFunction(o.name))
        return "'" + o.name + "' is not a register";
      return "unknown register '" + o.name + "'";
    }
    if (!o.select.empty() && table::kFamilies[form_.family].emitter != Emitter::Video)
      return "selector ." + o.select + " after " + o.name + " outside a video instruction";
    if (r->vecWidth > 1 && o.component < 0)
      return "vector register '" + o.name + "' where a scalar is expected";
    if (r->vecWidth == 1 && o.component >= 0)
      return "'" + o.name + "' is not a vector register";
    if (!compatible(want, r->type, relaxed))
      return "register " + o.name + " is ." + std::string(typeName(r->type)) + ", ." +
             std::string(typeName(want)) + " expected";
    if (!o.name2.empty()) {
      const RegisterInfo *q = scope_.reg(o.name2);
      if (!q || q->type != Type::Pred)
        return "'" + o.name2 + "' is not a predicate register";
    }
    return std::nullopt;
  }

  // Integer literals stand for integers, bits and predicates (non-zero is true); floating-point
  // literals for floats, and for bit types of their own width (0f: 32 bits, 0d: 64).
  std::optional<std::string> immediate(const Operand &o, Type want, uint16_t limit = 0) const {
    Class c = classOf(want);
    if (o.kind == K::Imm && c == Class::Float)
      return "an integer immediate where ." + std::string(typeName(want)) + " is expected";
    if (o.kind == K::FImm && (c == Class::Int || c == Class::Pred ||
                              (c == Class::Bits && o.fwidth != typeSize(want) * 8)))
      return "a floating-point immediate where ." + std::string(typeName(want)) + " is expected";
    if (limit && o.kind == K::Imm && (o.imm < 0 || o.imm >= limit))
      return "immediate " + std::to_string(o.imm) + " out of range [0.." +
             std::to_string(limit - 1) + "]";
    return std::nullopt;
  }

  // Registers may be named without '%': the parser reads such a name as a symbol.
  bool isRegister(const Operand &o) const {
    return o.kind == K::Reg || (o.kind == K::Symbol && scope_.reg(o.name));
  }

  std::optional<std::string> source(const Operand &o, Type want, bool relaxed, bool regOnly,
                                    bool sreg, uint16_t limit = 0) const {
    if (o.minus && in_.op != Op::vmad) // vmad negates its product or its addend
      return "operand negation not allowed";
    if (o.kind == K::Symbol && o.name == "WARP_SZ") { // a predefined constant, 32
      Operand imm;
      imm.kind = K::Imm;
      return regOnly ? std::optional<std::string>("a register is required") : immediate(imm, want);
    }
    switch (isRegister(o) ? K::Reg : o.kind) {
    case K::Reg:
      if (o.negate && want != Type::Pred)
        return "'!' applies to predicates only";
      if (sreg)
        if (const SpecialRegister *sr = specialRegister(o.name)) {
          if (sr->vector != (o.component >= 0))
            return "bad component of " + o.name;
          bool narrowTid = sr->vector && want != Type::Pred && typeSize(want) == 2 &&
                           classOf(want) != Class::Float;
          if (!narrowTid && !compatible(want, sr->type, false))
            return o.name + " is ." + std::string(typeName(sr->type));
          return std::nullopt;
        }
      return registerOperand(o, want, relaxed, false);
    case K::Imm:
    case K::FImm:
      if (regOnly)
        return "a register is required";
      return immediate(o, want, limit);
    case K::Vector:
      return "vector operand not allowed";
    case K::Address:
      return "address not allowed";
    default:
      return "register or immediate expected";
    }
  }

  std::optional<std::string> destination(const Operand &o, Type want, bool relaxed,
                                         uint8_t pair) const {
    if (!isRegister(o))
      return o.kind == K::Vector ? "vector operand not allowed" : "result register required";
    if (o.negate || o.minus)
      return "a result cannot be negated";
    if (!o.name2.empty() && !pair)
      return "no predicate pair allowed";
    if (o.name2.empty() && pair == 2)
      return "a destination pair d|p is required";
    return registerOperand(o, want, relaxed, true);
  }

  std::optional<std::string> address(const Operand &o, Space space) const {
    if (o.kind != K::Address)
      return "address expected";
    if (!o.elems.empty())
      return "a texture or surface address where a memory address is expected";
    if (o.name.empty()) {
      if (space != Space::Local)
        return "immediate addresses are allowed only for .local";
      return std::nullopt;
    }
    if (o.addrIsReg || scope_.reg(o.name)) {
      const RegisterInfo *r = scope_.reg(o.name);
      if (!r) {
        if (specialRegister(o.name))
          return "special register " + o.name + " not allowed here";
        return "unknown register '" + o.name + "'";
      }
      const unsigned size = typeSize(r->type);
      const bool narrowOk = space == Space::Shared || space == Space::Local ||
                            space == Space::Param || space == Space::Const;
      if (r->type == Type::Pred || isFloat(r->type) || r->vecWidth > 1 ||
          (size != 8 && !(narrowOk && size == 4)))
        return "address register " + o.name + " is ." + std::string(typeName(r->type));
      return std::nullopt;
    }
    auto sp = scope_.variable(o.name);
    if (!sp) {
      if (scope_.isFunction(o.name))
        return std::nullopt; // a function's address, e.g. in prefetch
      return "unknown symbol '" + o.name + "'";
    }
    Space have = *sp;
    if (space == Space::None) {
      if (have == Space::Const || have == Space::Param)
        return "state space mismatch: '" + o.name + "' needs ." +
               (have == Space::Const ? "const" : "param");
      return std::nullopt;
    }
    if (have != space)
      return "state space mismatch between the instruction and '" + o.name + "'";
    return std::nullopt;
  }

  std::optional<std::string> vector(const Operand &o, unsigned n, Type want, bool write,
                                    bool relaxed) const {
    if (isRegister(o)) {
      const RegisterInfo *r = scope_.reg(o.name);
      if (r && r->vecWidth == n && o.component < 0)
        return compatible(want, r->type, relaxed)
                   ? std::nullopt
                   : std::optional<std::string>("vector register of the wrong type");
    }
    if (o.kind != K::Vector)
      return "a vector of " + std::to_string(n) + " expected";
    if (o.elems.size() != n)
      return "vector size mismatch";
    for (const auto &e : o.elems) {
      if (e.kind == K::Sink)
        continue;
      auto why = write ? destination(e, want, relaxed, 0) : source(e, want, relaxed, false, false);
      if (why)
        return why;
    }
    return std::nullopt;
  }

  std::optional<std::string> operand(const OperandSpec &s, const Operand &o, size_t index) const {
    const Type want = typeOf(s);
    switch (s.kind) {
    case OperandKind::Dest:
      return destination(o, want, s.relaxed, s.pair);
    case OperandKind::Src:
      return source(o, want, s.relaxed, false, false, s.limit);
    case OperandKind::RegSrc:
      return source(o, want, s.relaxed, true, false);
    case OperandKind::SregSrc:
      return source(o, want, s.relaxed, false, true);
    case OperandKind::Imm:
      if (o.kind != K::Imm && o.kind != K::FImm)
        return "an immediate is required";
      return immediate(o, want, s.limit);
    case OperandKind::PredSrc:
      if (o.kind == K::Imm)
        return std::nullopt;
      if (!isRegister(o))
        return "a predicate is required";
      return registerOperand(o, Type::Pred, false, false);
    case OperandKind::PredDest:
      return destination(o, Type::Pred, false, s.pair);
    case OperandKind::Address:
      return address(o, operandSpace(in_, index));
    case OperandKind::AnyAddress:
      return o.kind == K::Address ? std::nullopt : std::optional<std::string>("address expected");
    case OperandKind::Prototype:
      if (o.kind != K::Symbol || !scope_.isPrototype(o.name))
        return "a .callprototype or .calltargets label expected";
      return std::nullopt;
    case OperandKind::Function:
      if (o.kind != K::Symbol || !scope_.isFunction(o.name))
        return "function name expected";
      return std::nullopt;
    case OperandKind::List:
      return o.kind == K::List ? std::nullopt
                               : std::optional<std::string>("a parenthesised list expected");
    case OperandKind::Label:
      if (o.kind != K::Symbol || !scope_.isLabel(o.name))
        return "label expected";
      return std::nullopt;
    case OperandKind::Symbol:
      if (o.kind != K::Symbol || scope_.isLabel(o.name))
        return "variable or function name expected";
      if (!scope_.variable(o.name) && !scope_.isFunction(o.name))
        return "unknown symbol '" + o.name + "'";
      return std::nullopt;
    case OperandKind::Data: {
      const unsigned n = vectorWidth(in_);
      const bool write = index == 0;
      if (n > 1 || o.kind == K::Vector) // surfaces take one value as {r}
        return vector(o, n, want, write, s.relaxed);
      return write ? destination(o, want, s.relaxed, 0) : source(o, want, s.relaxed, false, false);
    }
    case OperandKind::VecDest:
    case OperandKind::VecSrc:
      if (o.kind != K::Vector)
        return "a vector is required";
      return std::nullopt;
    case OperandKind::Any:
      return std::nullopt;
    }
    return std::nullopt;
  }

  const Scope &scope_;
  const Instruction &in_;
  const table::Form &form_;
};

const table::Form &deref(const table::Form &f) { return f; }
const table::Form &deref(const table::Form *f) { return *f; }

// Up to four of `forms`, as the table writes them.
template <typename Forms> std::string validForms(const Forms &forms) {
  std::string out;
  std::vector<std::string_view> seen;
  for (const auto &form : forms) {
    const table::Form &f = deref(form);
    if (std::find(seen.begin(), seen.end(), f.text) != seen.end())
      continue;
    if (seen.size() == 4) {
      out += ", ...";
      break;
    }
    out += (seen.empty() ? "" : ", ") + std::string(f.text);
    seen.push_back(f.text);
  }
  return out;
}

class Validator {
public:
  Validator(ParseResult &r) : r_(r) {
    target_ = targetSm(r.module.target);
    isa_ = {r.module.versionMajor, r.module.versionMinor};
  }

  // A module whose header is unloadable (32-bit addresses, an unknown target, a version newer
  // than supported) is answered for its header alone.
  void run() {
    const Module &m = r_.module;
    const auto introduced = targetIntroduced(m.target);
    if (m.addressSize != 64 || !introduced || isa_ > kNewestIsa || isa_ < *introduced)
      return;
    for (auto &f : r_.module.functions) {
      if (!f.hasBody)
        continue;
      Scope scope(r_.module, f);
      for (auto &st : f.body) {
        if (auto *in = std::get_if<Instruction>(&st))
          instruction(scope, *in);
        else if (const auto *v = std::get_if<VarDecl>(&st))
          scope.declare(*v);
        else if (std::holds_alternative<ScopeBegin>(st))
          scope.open();
        else if (std::holds_alternative<ScopeEnd>(st))
          scope.close();
      }
    }
  }

private:
  void error(SourceLoc loc, std::string msg) {
    if (r_.errors.size() < kMaxErrors)
      r_.errors.push_back({loc, std::move(msg)});
  }

  void instruction(const Scope &scope, Instruction &in) {
    const std::string name = spelling(in);
    if (in.guard) {
      const RegisterInfo *g = scope.reg(in.guard->reg);
      if (!g || g->type != Type::Pred || g->vecWidth > 1)
        return error(in.loc,
                     "guard '" + in.guard->reg + "' of '" + name + "' is not a predicate register");
    }
    if (in.op == Op::Unknown) // (the parser identified the opcode and modifiers)
      return error(in.loc, "unknown instruction '" + in.opcode + "'");
    const auto forms = formsOf(in.op);
    for (size_t m = 0; m < in.mods.size(); ++m)
      if (in.modIds[m] == Mod::Unknown)
        return error(in.loc, "unknown modifier '." + in.mods[m] + "' in '" + name + "'");
    std::vector<const table::Form *> shaped, typed, modded;
    for (const auto &f : forms) {
      const bool types = matchTypes(f, in.types),
                 modsOk = matchMods(f, in.modIds, in.modsBeforeType);
      if (types && modsOk)
        shaped.push_back(&f);
      else if (types)
        typed.push_back(&f);
      else if (modsOk)
        modded.push_back(&f);
    }
    if (shaped.empty()) {
      // Name the part that is wrong: the types when the modifiers fit some form, else the
      // modifiers when the types do, else everything.
      if (!modded.empty())
        return error(in.loc, "'" + name + "': wrong types; valid forms: " + validForms(modded));
      if (!typed.empty())
        return error(in.loc,
                     "'" + name + "': invalid modifiers; valid forms: " + validForms(typed));
      return error(in.loc, "'" + name + "' is not a valid form of '" + in.opcode +
                               "'; valid forms: " + validForms(forms));
    }
    std::string why;
    const table::Form *match = nullptr;
    for (const table::Form *f : shaped) {
      if (auto reason = OperandChecker(scope, in, *f).check()) {
        if (why.empty())
          why = *reason;
        continue;
      }
      match = f;
      break;
    }
    if (!match)
      return error(in.loc, "'" + name + "': " + why);
    if (IsaVersion{match->isaMajor, match->isaMinor} > isa_)
      return error(in.loc, "'" + name + "' requires PTX ISA " + std::to_string(match->isaMajor) +
                               "." + std::to_string(match->isaMinor) + " or later");
    if (target_ && match->sm > target_)
      return error(in.loc, "'" + name + "' requires .target sm_" + std::to_string(match->sm) +
                               " or higher");
    if (in.op == Op::call)
      if (auto why = callShape(in))
        return error(in.loc, "'" + name + "': " + *why);
    in.form = static_cast<int16_t>(match - std::begin(table::kForms));
    if (match->todo)
      r_.unsupported.push_back(
          {in.loc, "instruction '" + name + "' (form " + std::string(match->text) + ")"});
  }

  // A direct call passes as many arguments and takes as many results as the callee declares
  // (ptxas: "Call has wrong number of parameters").
  std::optional<std::string> callShape(const Instruction &in) const {
    const Operand *results = nullptr, *args = nullptr;
    const Function *callee = nullptr;
    for (const auto &o : in.operands) {
      if (o.kind == K::Symbol && !callee)
        callee = r_.module.findFunction(o.name);
      else if (o.kind == K::List)
        (callee ? args : results) = &o;
    }
    if (!callee)
      return std::nullopt; // an indirect call: its prototype has the shape
    const size_t nargs = args ? args->elems.size() : 0, nres = results ? results->elems.size() : 0;
    if (nargs != callee->params.size() || nres != callee->returns.size())
      return "'" + callee->name + "' takes " + std::to_string(callee->params.size()) +
             " arguments and gives " + std::to_string(callee->returns.size()) +
             " results; the call has " + std::to_string(nargs) + " and " + std::to_string(nres);
    return std::nullopt;
  }

  ParseResult &r_;
  unsigned target_ = 0;
  IsaVersion isa_;
};

} // namespace

void validate(ParseResult &r) { Validator(r).run(); }

} // namespace cucpu::ptx
