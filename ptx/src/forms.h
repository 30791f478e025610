// Matching instructions to the instruction table's forms (forms.cpp).
#pragma once

#include "cucpu/ptx/ast.h"
#include "cucpu/ptx/isa.h"
#include "table.h"

#include <span>
#include <vector>

namespace cucpu::ptx {

// The forms of an opcode: consecutive in kForms.
std::span<const table::Form> formsOf(Op op);
// Whether the modifiers fit the form's slots: the head slots take the first modifiers, in order,
// all written before the first type; the others are matched in any order.
bool matchMods(const table::Form &f, const std::vector<Mod> &mods, unsigned modsBeforeType);
// Whether the types fit the form's type slots, in order.
bool matchTypes(const table::Form &f, const std::vector<Type> &types);

} // namespace cucpu::ptx
