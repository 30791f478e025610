// What cucpu can run of an nvJitLink input: the PTX and LTO-IR it carries, whatever its form
// (PTX text, LTO-IR, cubin, fat binary, host object, static library).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace cucpu::rtc {

// nvJitLinkInputType's values.
enum InputType : int {
  kInputCubin = 1,
  kInputPtx = 2,
  kInputLtoir = 3,
  kInputFatbin = 4,
  kInputObject = 5,
  kInputLibrary = 6,
  kInputIndex = 7,
  kInputAny = 10,
};

struct LinkUnits {
  std::vector<std::string> ptx;             // relocatable PTX texts
  std::vector<std::string> ltoir;           // NVVM LTO-IR modules
  std::vector<std::string> machineCodeOnly; // inputs with GPU machine code and nothing else
};

// The type an input of declared type `type` really has (kInputAny resolved from its bytes).
InputType inputTypeOf(InputType type, const void *data, size_t size);

// Adds what `data` carries to `units`, choosing in fat binaries the PTX architecture for a link
// to sm_`arch`. False, with `log` saying why, for an input that is malformed.
bool collectUnits(InputType type, const void *data, size_t size, const std::string &name,
                  unsigned arch, LinkUnits *units, std::string *log);

// The functions PTX units declare `.extern` and none of them defines, when their names are C
// identifiers: a link of the LTO-IR inputs alone must keep these definitions, which only the PTX
// units use.
std::vector<std::string> externFunctions(const std::vector<std::string> &ptx);

// CUDA C++ for NVRTC: a kernel that takes the address of each of `names`, so that an LTO link
// including it keeps their definitions.
std::string keepAliveSource(const std::vector<std::string> &names);

} // namespace cucpu::rtc
