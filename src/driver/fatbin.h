// Fat binaries as nvcc writes them: the wrapper, the container, its entries, and choosing the
// PTX a CPU device runs.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <string>

namespace cucpu::driver::fatbin {

constexpr uint32_t kWrapperMagic = 0x466243B1;
constexpr uint32_t kContainerMagic = 0xBA55ED50;

// True when `image` starts with a fat binary wrapper or container magic.
bool isFatBinary(const void *image);

// The PTX text (without its NUL) of the entry to run on a device of compute capability
// `cc` (major * 10 + minor): the highest PTX architecture <= cc, or, when every PTX entry is
// newer, the lowest one (a CPU runs any PTX version the front end parses). A binary with ELF
// entries only gives CUDA_ERROR_NO_BINARY_FOR_GPU, a malformed one CUDA_ERROR_INVALID_IMAGE;
// `log` then says why.
CUresult extractPtx(const void *image, int cc, std::string *ptx, std::string *log);

} // namespace cucpu::driver::fatbin
