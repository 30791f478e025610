// Kernel launches: validation, parameter packing, and running the grid on the worker pool.
#pragma once

#include <cuda.h>

#include <memory>
#include <string>

namespace cucpu::driver {

class Context;
class Function;

struct LaunchConfig {
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  unsigned sharedBytes = 0; // dynamic shared memory
  bool cooperative = false; // every block resident at once, grid-sync workspace in %envreg1/2
  // memcheck: the launching call's host stack, for reports of the grid's bad accesses
  std::shared_ptr<const std::string> hostTrace;
};

// The launch configuration errors CUDA reports at launch time (dimensions, shared memory,
// .reqntid/.maxntid, cooperative grid size); stream launches check them before queueing.
CUresult validateLaunch(const Function *f, const LaunchConfig &cfg);

// Runs `f` with parameters from `kernelParams` (one pointer per parameter) or `extra`
// (CU_LAUNCH_PARAM_BUFFER_POINTER/SIZE). Returns when the grid has finished.
CUresult launchKernel(Context *ctx, Function *f, const LaunchConfig &cfg, void **kernelParams,
                      void **extra);

// Waits for all work of the context (launches are synchronous in this version).
CUresult synchronize(Context *ctx);

} // namespace cucpu::driver
