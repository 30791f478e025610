// The shapes of the generated PTX instruction table (ptx_table.inc, from ptx/isa/instructions.def):
// opcodes, modifiers, forms with their modifier slots, type slots and operand specifications.
#pragma once

#include "cucpu/ptx/isa.h"

#include <cstdint>
#include <span>
#include <string_view>

namespace cucpu::ptx::table {

struct FamilyInfo {
  std::string_view name;
  Emitter emitter;
};

// One suffix position of a form: `count` alternatives from kSlotAlternatives[first...]. Head
// slots (mul's .lo/.hi/.wide, cvta's .to) come first in a form and must be written first, in
// order, before any type; the other suffixes may come in any order.
struct ModSlot {
  uint16_t first;
  uint8_t count;
  bool optional;
  bool head;
};

enum class OperandKind : uint8_t {
  Dest,       // d: a register written
  Src,        // a: a register or an immediate
  RegSrc,     // r: a register
  Imm,        // i: an immediate
  SregSrc,    // s: a register, an immediate or a special register
  PredSrc,    // p: a predicate register, possibly negated
  PredDest,   // q: a predicate register written
  Address,    // [m]
  AnyAddress, // [*]: an address of any shape (textures, surfaces), not checked further
  Label,      // L
  Symbol,     // F: a variable or function name
  Function,   // Fn: a function name
  Prototype,  // P: a .callprototype label or a .calltargets list
  Data,       // V: a vector when the form has .v2/.v4/.v8, else one register
  VecDest,    // {d}
  VecSrc,     // {a}
  List,       // (d) or (a): call's argument and result lists
  Any,        // *: the remaining operands are not checked
};

// The type of an operand: type slot `slot` (0..2) or, when slot is -1, the fixed `type`
// (a ptx::Type value); scaled by num/den (mul.wide's destination is twice its sources). An
// immediate must be below `limit` when it is not 0 (barrier numbers). `pair`: 1 when a
// destination may be followed by |%p, 2 when it must.
struct OperandSpec {
  OperandKind kind;
  int8_t slot;
  uint8_t type;
  uint8_t num, den;
  bool optional, relaxed;
  uint8_t pair;
  uint16_t limit;
};

struct Form {
  uint16_t opcode, family;
  uint16_t slotBegin, slotEnd;
  uint16_t typeBegin, typeEnd;
  uint16_t operandBegin, operandEnd;
  uint8_t isaMajor, isaMinor;
  uint16_t sm;
  bool todo;
  std::string_view text;
};

// A type slot is a bit mask over ptx::Type values; bit 31 marks an optional (last) slot.
inline constexpr uint32_t kOptionalTypeSlot = 1u << 31;

#include "ptx_table.inc"

} // namespace cucpu::ptx::table
