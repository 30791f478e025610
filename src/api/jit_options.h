// CU_JIT_* options of cuModuleLoadDataEx and cuLinkCreate: logs, verbosity and wall time.
#pragma once

#include "cucpu/driver/module.h"

#include <cuda.h>

namespace cucpu::api {

// Reads the options into `out` (log buffers, their sizes written back, verbosity, wall time);
// hints that do not change what runs on a CPU are accepted. INVALID_VALUE for unknown options.
CUresult parseJitOptions(unsigned numOptions, CUjit_option *options, void **values,
                         driver::LoadOptions *out);

} // namespace cucpu::api
