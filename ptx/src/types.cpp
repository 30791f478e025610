// Small AST helpers: PTX type properties and names, lookups and diagnostic formatting.
#include "cucpu/ptx/ast.h"

#include <algorithm>
#include <array>

namespace cucpu::ptx {

namespace {

struct TypeInfo {
  Type type;
  std::string_view name;
  unsigned size;
};

constexpr std::array<TypeInfo, 22> kTypes = {{
    {Type::None, "none", 0},     {Type::Pred, "pred", 1},   {Type::B8, "b8", 1},
    {Type::B16, "b16", 2},       {Type::B32, "b32", 4},     {Type::B64, "b64", 8},
    {Type::B128, "b128", 16},    {Type::U8, "u8", 1},       {Type::U16, "u16", 2},
    {Type::U32, "u32", 4},       {Type::U64, "u64", 8},     {Type::S8, "s8", 1},
    {Type::S16, "s16", 2},       {Type::S32, "s32", 4},     {Type::S64, "s64", 8},
    {Type::F16, "f16", 2},       {Type::F16x2, "f16x2", 4}, {Type::BF16, "bf16", 2},
    {Type::BF16x2, "bf16x2", 4}, {Type::TF32, "tf32", 4},   {Type::F32, "f32", 4},
    {Type::F64, "f64", 8},
}};

const TypeInfo *info(Type t) {
  for (const TypeInfo &i : kTypes)
    if (i.type == t)
      return &i;
  return nullptr;
}

} // namespace

unsigned typeSize(Type t) {
  const TypeInfo *i = info(t);
  return i ? i->size : 0;
}

bool isFloat(Type t) {
  switch (t) {
  case Type::F16:
  case Type::F16x2:
  case Type::BF16:
  case Type::BF16x2:
  case Type::TF32:
  case Type::F32:
  case Type::F64:
    return true;
  default:
    return false;
  }
}

bool isSigned(Type t) {
  return t == Type::S8 || t == Type::S16 || t == Type::S32 || t == Type::S64;
}

bool isUnsigned(Type t) {
  return t == Type::U8 || t == Type::U16 || t == Type::U32 || t == Type::U64;
}

bool isBits(Type t) {
  return t == Type::B8 || t == Type::B16 || t == Type::B32 || t == Type::B64 || t == Type::B128;
}

std::optional<Type> parseType(std::string_view s) {
  for (const TypeInfo &i : kTypes)
    if (i.type != Type::None && i.name == s)
      return i.type;
  return std::nullopt;
}

std::string_view typeName(Type t) {
  const TypeInfo *i = info(t);
  return i ? i->name : std::string_view("none");
}

bool Instruction::hasMod(std::string_view m) const {
  return std::find(mods.begin(), mods.end(), m) != mods.end();
}

const Function *Module::findFunction(std::string_view name) const {
  const Function *decl = nullptr;
  for (const Function &f : functions) {
    if (f.name != name)
      continue;
    if (f.hasBody)
      return &f;
    if (!decl)
      decl = &f;
  }
  return decl;
}

std::string Diagnostic::format() const {
  return std::to_string(loc.line) + ":" + std::to_string(loc.col) + ": " + message;
}

} // namespace cucpu::ptx
