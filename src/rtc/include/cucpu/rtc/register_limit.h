// -maxrregcount, which NVRTC and nvJitLink give to ptxas, carried into the PTX cucpu loads as
// each kernel's `.maxnreg` (where CU_FUNC_ATTRIBUTE_NUM_REGS reads it).
#pragma once

#include <string>
#include <vector>

namespace cucpu::rtc {

// The N of the last -maxrregcount=N (or --maxrregcount=N) among `options`; 0 when none.
unsigned maxRegistersOption(const std::vector<std::string> &options);

// `ptx` with `.maxnreg n` added to every .entry that does not have one.
std::string limitRegisters(const std::string &ptx, unsigned n);

} // namespace cucpu::rtc
