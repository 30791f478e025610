// Kernel launches queued on a stream: the parameters are copied now, the grid runs in order.
#pragma once

#include "cucpu/driver/launch.h"

namespace cucpu::driver {

class Stream;

// Queues `f` on `s`. Errors found when the grid runs (an invalid configuration) are reported
// by the stream's next synchronisation; faults become the context's sticky error as usual.
CUresult enqueueLaunch(Stream *s, Function *f, const LaunchConfig &cfg, void **kernelParams,
                       void **extra);

} // namespace cucpu::driver
