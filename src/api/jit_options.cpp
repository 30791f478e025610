// CU_JIT_* options of cuModuleLoadDataEx and cuLinkCreate.
#include "jit_options.h"
#include "cucpu/driver/reason.h"

#include <cstdint>

namespace cucpu::api {

CUresult parseJitOptions(unsigned numOptions, CUjit_option *options, void **values,
                         driver::LoadOptions *out) {
  if (numOptions > 0 && (!options || !values))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "{} options without their arrays", numOptions);
  for (unsigned i = 0; i < numOptions; ++i) {
    void *v = values[i];
    auto asSize = [&] { return static_cast<size_t>(reinterpret_cast<uintptr_t>(v)); };
    switch (options[i]) {
    case CU_JIT_ERROR_LOG_BUFFER:
      out->errorLog = static_cast<char *>(v);
      break;
    case CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES:
      out->errorLogSize = asSize();
      out->errorLogSizeOut = reinterpret_cast<size_t *>(&values[i]);
      break;
    case CU_JIT_INFO_LOG_BUFFER:
      out->infoLog = static_cast<char *>(v);
      break;
    case CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES:
      out->infoLogSize = asSize();
      out->infoLogSizeOut = reinterpret_cast<size_t *>(&values[i]);
      break;
    case CU_JIT_LOG_VERBOSE:
      out->verbose = asSize() != 0;
      break;
    case CU_JIT_WALL_TIME:
      out->wallTimeMs = reinterpret_cast<float *>(&values[i]);
      break;
    case CU_JIT_MAX_REGISTERS:
      out->maxRegisters = static_cast<unsigned>(asSize());
      break;
    default:
      // Optimisation and target hints (CU_JIT_OPTIMIZATION_LEVEL, CU_JIT_TARGET, ...) do not
      // change what runs on a CPU; they are accepted.
      if (static_cast<int>(options[i]) < 0 || options[i] >= CU_JIT_NUM_OPTIONS)
        return driver::fail(CUDA_ERROR_INVALID_VALUE, "option {} is unknown",
                            static_cast<int>(options[i]));
    }
  }
  // A log buffer with room but no memory (an H200: 1; a size of 0 with no buffer is fine).
  if ((!out->errorLog && out->errorLogSize) || (!out->infoLog && out->infoLogSize))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "a log buffer size without its buffer");
  return CUDA_SUCCESS;
}

} // namespace cucpu::api
