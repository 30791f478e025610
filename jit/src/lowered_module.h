// A lowered PTX module as the on-disk cache keeps it: what Program::load makes of the PTX, so a
// later load of the same text skips parsing and lowering.
#pragma once

#include "cucpu/jit/program.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cucpu::jit {

struct LoweredGlobal {
  std::string name;   // the PTX variable
  std::string symbol; // its LLVM symbol in the variables' module
  uint64_t bytes = 0;
  bool operator==(const LoweredGlobal &) const = default;
};

struct LoweredModule {
  std::vector<KernelInfo> kernels;
  std::vector<std::string> llvmNames;     // parallel to kernels: each kernel's block function
  std::vector<std::string> kernelBitcode; // parallel to kernels: each kernel's LLVM module
  std::string variablesBitcode;           // the module of .global/.const variables
  std::vector<LoweredGlobal> globals;
  std::vector<std::string> managed;           // .attribute(.managed) variables
  std::vector<std::string> unresolvedExterns; // extern variables no input defines
  bool operator==(const LoweredModule &) const = default;
};

// A self-checking byte string (magic, length, payload, checksum).
std::string serialize(const LoweredModule &m);
// The module `bytes` holds; nullopt when they are not a complete, intact serialisation.
std::optional<LoweredModule> deserialize(std::string_view bytes);

} // namespace cucpu::jit
