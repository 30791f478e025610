// Kernel launches queued on a stream: the parameters are copied now, the grid runs in order.
#pragma once

#include "cucpu/driver/graph.h"
#include "cucpu/driver/launch.h"

#include <memory>

namespace cucpu::driver {

class Stream;

// A kernel node of `f`: the launch checked, its parameters copied, its work prepared.
CUresult kernelNode(Context *ctx, Function *f, const LaunchConfig &cfg, void **kernelParams,
                    void **extra, NodeSpec *out);

// Queues `f` on `s`. Errors found when the grid runs (an invalid configuration) are reported
// by the stream's next synchronisation; faults become the context's sticky error as usual.
CUresult enqueueLaunch(Stream *s, Function *f, const LaunchConfig &cfg, void **kernelParams,
                       void **extra);

} // namespace cucpu::driver
