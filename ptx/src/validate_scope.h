// What the names of a function refer to while its instructions are validated (validate.cpp):
// registers, variables and their state spaces, scoped as PTX scopes them; labels, prototypes,
// functions.
#pragma once

#include "cucpu/ptx/ast.h"

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace cucpu::ptx::validation {

struct RegisterInfo {
  Type type = Type::None;
  unsigned vecWidth = 1;
};

// What the names of one function refer to: registers (with %r<N> ranges) and variables with
// their state spaces, scoped as PTX scopes them (a `{ }` block's declarations hide outer ones
// until the block ends: inline assembly declares its own `r0`, `r1`, `p` in every block), and
// labels, prototypes and the module's functions and variables. The walk declares as it goes.
class Scope {
public:
  Scope(const Module &m, const Function &f) : frames_(1) {
    for (const auto &v : m.globals)
      frames_[0].spaces[v.name] = v.space;
    for (const auto &fn : m.functions)
      functions_.insert(fn.name);
    for (const auto &p : f.params)
      declare(p.decl, p.decl.space == Space::Reg ? Space::Reg : Space::Param);
    for (const auto &p : f.returns)
      declare(p.decl, p.decl.space == Space::Reg ? Space::Reg : Space::Param);
    for (const auto &st : f.body) {
      if (const auto *l = std::get_if<Label>(&st))
        labels_.insert(l->name);
      else if (const auto *d = std::get_if<Directive>(&st); d && d->name == "branchtargets")
        labels_.insert(d->text);
      else if (d && d->name == "calltargets")
        prototypes_.insert(d->text);
      else if (const auto *c = std::get_if<CallPrototype>(&st))
        prototypes_.insert(c->label);
    }
    for (const auto &p : m.prototypes)
      prototypes_.insert(p.label);
  }

  void declare(const VarDecl &v) { declare(v, v.space); }
  void open() { frames_.emplace_back(); }
  void close() {
    if (frames_.size() > 1)
      frames_.pop_back();
  }

  const RegisterInfo *reg(const std::string &name) const {
    for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
      if (const RegisterInfo *r = f->reg(name))
        return r;
    return nullptr;
  }
  std::optional<Space> variable(const std::string &name) const {
    for (auto f = frames_.rbegin(); f != frames_.rend(); ++f)
      if (auto it = f->spaces.find(name); it != f->spaces.end())
        return it->second;
    return std::nullopt;
  }
  bool isLabel(const std::string &name) const { return labels_.count(name) != 0; }
  bool isPrototype(const std::string &name) const { return prototypes_.count(name) != 0; }
  bool isFunction(const std::string &name) const { return functions_.count(name) != 0; }

private:
  struct Frame {
    std::unordered_map<std::string, RegisterInfo> regs;
    std::unordered_map<std::string, std::pair<RegisterInfo, uint64_t>> ranges;
    std::unordered_map<std::string, Space> spaces;

    const RegisterInfo *reg(const std::string &name) const {
      if (auto it = regs.find(name); it != regs.end())
        return &it->second;
      size_t digits = name.size();
      while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
        --digits;
      if (digits == name.size() || digits == 0)
        return nullptr;
      auto it = ranges.find(name.substr(0, digits));
      if (it == ranges.end())
        return nullptr;
      uint64_t n = 0;
      std::from_chars(name.data() + digits, name.data() + name.size(), n);
      if (name[digits] == '0' && name.size() - digits > 1)
        return nullptr; // %r01 is not one of %r<N>
      return n < it->second.second ? &it->second.first : nullptr;
    }
  };

  void declare(const VarDecl &v, Space space) {
    Frame &f = frames_.back();
    if (space == Space::Reg) {
      RegisterInfo info{v.type, v.vecWidth};
      if (v.rangeCount >= 0)
        f.ranges[v.name] = {info, static_cast<uint64_t>(v.rangeCount)};
      else
        f.regs[v.name] = info;
      return;
    }
    f.spaces[v.name] = space;
  }

  std::vector<Frame> frames_;
  std::unordered_set<std::string> labels_;
  std::unordered_set<std::string> prototypes_;
  std::unordered_set<std::string> functions_;
};

} // namespace cucpu::ptx::validation
