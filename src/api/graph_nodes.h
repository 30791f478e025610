// Graph nodes as the entry points describe them: each kind's parameters checked as NVIDIA's
// driver checks them and turned into a node specification with its prepared work. Shared by the
// graph entry points (cuGraphAdd*Node and the setters) and by stream capture.
#pragma once

#include "cucpu/driver/capture.h"
#include "cucpu/driver/graph.h"
#include "cucpu/driver/stream.h"

#include <functional>

namespace cucpu::api {

// A copy checked against the memory it touches and prepared (api_memcpy3d.cpp); an empty copy
// is INVALID_VALUE.
CUresult copyWork(const CUDA_MEMCPY3D &p, driver::Work *out);
// A copy node (api_memcpy3d.cpp checks the descriptor and prepares the copy).
CUresult copyNode(const CUDA_MEMCPY3D &p, driver::Context *ctx, driver::NodeSpec *out);
CUresult copyNode(const CUDA_MEMCPY3D &p, driver::Context *ctx, driver::Work work,
                  driver::NodeSpec *out);
CUresult memsetNode(const CUDA_MEMSET_NODE_PARAMS &p, driver::Context *ctx, driver::NodeSpec *out);
CUresult kernelNode(const CUDA_KERNEL_NODE_PARAMS &p, driver::NodeSpec *out);
CUresult hostNode(const CUDA_HOST_NODE_PARAMS &p, driver::NodeSpec *out);
CUresult eventNode(CUgraphNodeType type, CUevent e, driver::NodeSpec *out);
CUresult memAllocNode(CUDA_MEM_ALLOC_NODE_PARAMS &p, driver::Context *ctx, driver::NodeSpec *out);
CUresult memFreeNode(CUdeviceptr p, driver::NodeSpec *out);
CUresult childNode(CUgraph child, driver::NodeSpec *out);
// A stream-ordered allocation during capture: an allocation node, whose address is returned.
CUresult captureAllocation(driver::Context *c, size_t bytes, CUdeviceptr *dptr,
                           driver::NodeSpec *n);
CUresult batchMemOpNode(const CUDA_BATCH_MEM_OP_NODE_PARAMS &p, driver::NodeSpec *out);

// While some stream captures: what captureOr does.
CUresult captureDuring(driver::Stream *s, bool *captured,
                       const std::function<CUresult(driver::NodeSpec *)> &make);

// Before queueing work on `s`: while `s` takes part in a capture, the node `make` describes is
// added to it instead (*captured set, the capture's result returned). Work for the legacy stream
// while a blocking stream captures is STREAM_CAPTURE_IMPLICIT. Without any capture (every launch
// and copy of most programs) it costs one load and builds nothing.
template <typename Make> CUresult captureOr(driver::Stream *s, bool *captured, Make &&make) {
  *captured = false;
  if (!driver::anyCapture())
    return CUDA_SUCCESS;
  return captureDuring(s, captured, make);
}

} // namespace cucpu::api
