// Kernel launches queued on a stream: the parameters are copied now, the grid runs in order.
#pragma once

#include "cucpu/driver/graph.h"
#include "cucpu/driver/launch.h"

#include <memory>

namespace cucpu::driver {

class Stream;

// Queues `f` on `s`. Errors found when the grid runs (an invalid configuration) are reported
// by the stream's next synchronisation; faults become the context's sticky error as usual.
// The work of one launch of `f` with parameters already packed (a stream operation or a graph's
// kernel node).
Work launchWork(Context *ctx, Function *f, const LaunchConfig &cfg,
                std::shared_ptr<PackedArgs> args);

// A kernel node of `f`: the launch checked, its parameters copied, its work prepared.
CUresult kernelNode(Context *ctx, Function *f, const LaunchConfig &cfg, void **kernelParams,
                    void **extra, NodeSpec *out);

CUresult enqueueLaunch(Stream *s, Function *f, const LaunchConfig &cfg, void **kernelParams,
                       void **extra);

} // namespace cucpu::driver
