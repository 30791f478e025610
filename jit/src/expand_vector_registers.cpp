// PTX pass: vector registers become their components.
#include "lowering.h"
#include "ptx_passes.h"

#include <string>
#include <unordered_map>
#include <vector>

namespace cucpu::jit::passes {
namespace {

std::string componentName(const std::string &reg, unsigned c) { return reg + "." + "xyzw"[c & 3]; }

// The vector registers in scope: per open { } scope, name -> components (%v<N> ranges by their
// prefix, with the count).
class VectorScopes {
public:
  void open() { scopes_.emplace_back(); }
  void close() {
    if (scopes_.size() > 1)
      scopes_.pop_back();
  }
  void declare(const ptx::VarDecl &v) {
    scopes_.back().names[v.rangeCount >= 0 ? v.name + "<>" : v.name] = {
        v.vecWidth, v.rangeCount >= 0 ? static_cast<uint64_t>(v.rangeCount) : 0};
  }
  // A scalar declaration hides an outer vector register of its name.
  void hide(const ptx::VarDecl &v) {
    if (v.rangeCount < 0)
      scopes_.back().names[v.name] = {1, 0};
  }
  // The component count of register `name`, 0 when it is not a vector register.
  unsigned width(const std::string &name) const {
    size_t digits = name.size();
    while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9')
      --digits;
    for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
      if (auto e = it->names.find(name); e != it->names.end())
        return e->second.width > 1 ? e->second.width : 0;
      if (digits < name.size() && digits > 0)
        if (auto r = it->names.find(name.substr(0, digits) + "<>"); r != it->names.end())
          if (std::stoull(name.substr(digits)) < r->second.count)
            return r->second.width;
    }
    return 0;
  }

private:
  struct Entry {
    unsigned width;
    uint64_t count;
  };
  struct Scope {
    std::unordered_map<std::string, Entry> names;
  };
  std::vector<Scope> scopes_{1};
};

void rewrite(ptx::Operand &op, const VectorScopes &vectors) {
  if (op.kind == ptx::Operand::Kind::Reg) {
    const unsigned width = vectors.width(op.name);
    if (!width)
      return;
    if (op.component >= 0) { // %v.y: one component
      op.name = componentName(op.name, static_cast<unsigned>(op.component));
      op.component = -1;
      return;
    }
    ptx::Operand whole = op; // %v: all of them
    whole.kind = ptx::Operand::Kind::Vector;
    whole.elems.clear();
    whole.name.clear();
    for (unsigned c = 0; c < width; ++c) {
      ptx::Operand e = op;
      e.name = componentName(op.name, c);
      whole.elems.push_back(std::move(e));
    }
    op = std::move(whole);
    return;
  }
  for (auto &e : op.elems)
    rewrite(e, vectors);
}

} // namespace

void expandVectorRegisters(ptx::Function &f) {
  std::vector<ptx::Statement> out;
  out.reserve(f.body.size());
  VectorScopes vectors;
  for (auto &st : f.body) {
    if (std::holds_alternative<ptx::ScopeBegin>(st))
      vectors.open();
    else if (std::holds_alternative<ptx::ScopeEnd>(st))
      vectors.close();
    if (auto *v = std::get_if<ptx::VarDecl>(&st); v && v->space == ptx::Space::Reg) {
      if (v->vecWidth == 1) {
        vectors.hide(*v);
        out.push_back(std::move(st));
        continue;
      }
      if (v->vecWidth > 4)
        throwInvalid(v->loc, "vector register '" + v->name + "' wider than 4");
      vectors.declare(*v);
      // `.reg .v4 .f32 %v;` declares %v.x, %v.y, %v.z and %v.w; `%v<2>` %v0.x ... %v1.w.
      const uint64_t n = v->rangeCount >= 0 ? static_cast<uint64_t>(v->rangeCount) : 1;
      for (uint64_t i = 0; i < n; ++i)
        for (unsigned c = 0; c < v->vecWidth; ++c) {
          ptx::VarDecl component = *v;
          component.vecWidth = 1;
          component.rangeCount = -1;
          component.name =
              componentName(v->rangeCount >= 0 ? v->name + std::to_string(i) : v->name, c);
          out.push_back(std::move(component));
        }
      continue;
    }
    if (auto *in = std::get_if<ptx::Instruction>(&st))
      for (auto &op : in->operands)
        rewrite(op, vectors);
    out.push_back(std::move(st));
  }
  f.body = std::move(out);
}

} // namespace cucpu::jit::passes
