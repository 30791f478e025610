// Validation of a parsed module's instructions against the PTX instruction table.
#pragma once

#include "cucpu/ptx/ast.h"

namespace cucpu::ptx {

// Checks every instruction of `r.module`: invalid forms go to r.errors (with the valid forms),
// valid forms cucpu does not lower to r.unsupported; each instruction's `form` is set.
void validate(ParseResult &r);

} // namespace cucpu::ptx
