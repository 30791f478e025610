// What the PTX instruction table says about a validated instruction: its form, its family and
// which part of the lowering emits it (the table is ptx/isa/instructions.def).
#pragma once

#include <cstdint>
#include <string_view>

namespace cucpu::ptx {

struct Instruction;

// The part of the lowering that emits a family's instructions.
enum class Emitter : uint8_t {
  None,
  Int,
  Float,
  Convert,
  Compare,
  Warp,
  Matrix,
  Video,
  Async,
  Image,
  Memory,
  Control,
  Runtime
};

struct FormInfo {
  std::string_view family;   // as ../shared/data/ptx_isa.tsv names it
  std::string_view spelling; // the form as the table writes it: "add{.sat}.s32"
  Emitter emitter;
  bool lowered; // false: valid PTX cucpu does not lower (CUDA_ERROR_NOT_SUPPORTED)
};

// The form validation matched `in` to; nullptr for an instruction not validated.
const FormInfo *formOf(const Instruction &in);

// Gives an instruction a later stage builds (inlined calls, implicit barriers) the first form its
// opcode, modifiers and types select; false, and no form, when none does.
bool assignForm(Instruction &in);

} // namespace cucpu::ptx
