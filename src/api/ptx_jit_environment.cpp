// Tells the libraries in the process that this driver compiles every kernel from PTX: cucpu runs
// no GPU machine code, which is what NVIDIA's driver does under CUDA_FORCE_PTX_JIT=1. NVIDIA's
// libraries read that variable to choose among their kernels: cuBLASLt then takes its
// "forwardCompat" kernels, the ones it ships with PTX, instead of kernels that exist only as GPU
// machine code (docs/libraries.md). Set when the library is loaded, before any CUDA runtime or
// library in the process is initialised through it; a value the user set is kept.
#include "cucpu/support/log.h"

#include <cstdlib>

namespace {

__attribute__((constructor)) void declarePtxJit() {
  if (setenv("CUDA_FORCE_PTX_JIT", "1", /*overwrite=*/0) != 0)
    cucpu::log::debug(cucpu::log::Component::Api, "CUDA_FORCE_PTX_JIT could not be set");
}

} // namespace
