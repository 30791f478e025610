// Fat binaries as nvcc writes them: the wrapper, the container, its entries, and choosing the
// PTX a CPU device runs.
#pragma once

#include "cucpu/support/fatbin_container.h"

#include <cuda.h>

#include <cstdint>
#include <string>

namespace cucpu::driver::fatbin {

using cucpu::fatbin::kContainerMagic;
using cucpu::fatbin::kWrapperMagic;

// True when `image` starts with a fat binary wrapper or container magic.
bool isFatBinary(const void *image);

// The PTX text (without its NUL) of the entry to run on a device of compute capability
// `cc` (major * 10 + minor): the highest PTX architecture <= cc, or, when every PTX entry is
// newer, the lowest one (a CPU runs any PTX version the front end parses). Several PTX entries
// of that architecture are relocatable units (cucpu's nvJitLink front end writes one per linked
// input) and are joined as cuLink joins them. A binary with ELF
// entries only gives CUDA_ERROR_NO_BINARY_FOR_GPU, a malformed one CUDA_ERROR_INVALID_IMAGE;
// `log` then says why.
CUresult extractPtx(const void *image, int cc, std::string *ptx, std::string *log);

// For an image that starts with the ELF magic: CUDA_ERROR_NO_BINARY_FOR_GPU when its header is a
// CUDA cubin's (64-bit, little-endian, e_machine EM_CUDA), which cucpu cannot run, else
// CUDA_ERROR_INVALID_IMAGE, as NVIDIA's driver answers. An image comes without a size, so the
// driver reads the fixed-size ELF header past what may be a truncated buffer; cucpu reads it
// through the kernel, so unreadable bytes make it invalid instead of a crash. `why` says which.
CUresult classifyElfImage(const void *image, std::string *why);

// Says that an image holds GPU machine code only: at error level the first time in the process,
// at debug level afterwards. NVIDIA's libraries probe such images one kernel at a time and go on
// to kernels with PTX (cuBLASLt loads dozens); the first line is the one a user needs.
void reportMachineCodeOnly(const std::string &message);

} // namespace cucpu::driver::fatbin
