// Names of host code addresses, from the symbol tables of the ELF files mapped in the process.
#pragma once

#include <cstdint>
#include <string>

namespace cucpu::driver {

// The (mangled) name of the function containing `pc` in `file`, loaded at `loadBase`; empty when
// the file has no symbol table or no function there.
std::string hostSymbol(const std::string &file, uintptr_t loadBase, uintptr_t pc);

} // namespace cucpu::driver
