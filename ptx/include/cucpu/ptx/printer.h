// PTX text of an AST: a function's body as parsed or as the PTX-to-PTX passes leave it (their
// golden tests, `cucpu-ptx print`).
#pragma once

#include "cucpu/ptx/ast.h"

#include <string>

namespace cucpu::ptx {

std::string print(const Operand &o);
std::string print(const Instruction &in); // "@!%p bra $L1;"
// The function's statements, one per line: declarations, labels, instructions, { and };
// directives and call prototypes inside the body are left out.
std::string printBody(const Function &f);

} // namespace cucpu::ptx
