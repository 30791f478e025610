// PTX's special registers and the type each reads as (special_registers.cpp).
#pragma once

#include "cucpu/ptx/ast.h"

#include <string_view>

namespace cucpu::ptx {

struct SpecialRegister {
  std::string_view name;
  Type type;   // what it reads as (components of %tid etc. are .u32)
  bool vector; // read by component: %tid.x
};

// The special register `name` ("%tid", "%envreg3"); nullptr for other names.
const SpecialRegister *specialRegister(std::string_view name);

} // namespace cucpu::ptx
