// Node specifications of each kind from the driver API's parameter structures, checked as
// NVIDIA's driver checks them, and the capture of stream work as nodes.
#include "graph_nodes.h"

#include "cucpu/driver/capture.h"
#include "cucpu/driver/context.h"
#include "cucpu/driver/module.h"
#include "cucpu/driver/stream_launch.h"
#include "cucpu/support/log.h"
#include "device_ptr.h"
#include "entry.h"

#include <algorithm>

namespace cucpu::api {
namespace {

template <typename T>
void fill(CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height) {
  for (size_t y = 0; y < height; ++y)
    std::fill_n(static_cast<T *>(hostPtr(dst + y * pitch)), width, value);
}

} // namespace

CUresult copyNode(const CUDA_MEMCPY3D &p, driver::Context *ctx, driver::Work work,
                  driver::NodeSpec *out) {
  driver::MemcpyNodeParams m;
  m.copy = p;
  m.ctx = ctx;
  out->type = CU_GRAPH_NODE_TYPE_MEMCPY;
  out->params = m;
  out->work = std::move(work);
  return CUDA_SUCCESS;
}

CUresult memsetNode(const CUDA_MEMSET_NODE_PARAMS &p, driver::Context *ctx, driver::NodeSpec *out) {
  const unsigned size = p.elementSize;
  if ((size != 1 && size != 2 && size != 4) || p.width == 0 || p.height == 0 ||
      !validRows(p.dst, p.height > 1 ? p.pitch : p.width * size, size, p.width, p.height)) {
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "memset node: element size {}, {} x {} at {:#x}",
                        size, p.width, p.height, p.dst);
  }
  driver::MemsetNodeParams m;
  m.memset = p;
  m.ctx = ctx;
  out->type = CU_GRAPH_NODE_TYPE_MEMSET;
  out->params = m;
  const size_t pitch = p.height > 1 ? p.pitch : p.width * size;
  out->work = [dst = p.dst, pitch, value = p.value, size, w = p.width, h = p.height] {
    if (size == 1)
      fill<uint8_t>(dst, pitch, uint8_t(value), w, h);
    else if (size == 2)
      fill<uint16_t>(dst, pitch, uint16_t(value), w, h);
    else
      fill<uint32_t>(dst, pitch, value, w, h);
    return CUDA_SUCCESS;
  };
  return CUDA_SUCCESS;
}

CUresult kernelNode(const CUDA_KERNEL_NODE_PARAMS &p, driver::NodeSpec *out) {
  driver::Function *f = nullptr;
  CUresult r = CUDA_ERROR_INVALID_VALUE;
  if (p.func) {
    r = functionOf(p.func, &f);
  } else if (p.kern) {
    // A CUkernel runs as its function in the node's context (the current one if none is given).
    driver::Context *c = nullptr;
    r = p.ctx ? resolveContext(p.ctx, &c) : currentContext(&c);
    if (r == CUDA_SUCCESS)
      r = functionOf(reinterpret_cast<CUfunction>(p.kern), &f);
  }
  if (r != CUDA_SUCCESS) {
    log::debug(log::Component::Api, "kernel node: no function (CUresult {})", int(r));
    return r == CUDA_ERROR_INVALID_HANDLE ? CUDA_ERROR_INVALID_VALUE : r;
  }
  driver::LaunchConfig cfg;
  cfg.grid[0] = p.gridDimX;
  cfg.grid[1] = p.gridDimY;
  cfg.grid[2] = p.gridDimZ;
  cfg.block[0] = p.blockDimX;
  cfg.block[1] = p.blockDimY;
  cfg.block[2] = p.blockDimZ;
  cfg.sharedBytes = p.sharedMemBytes;
  if (CUresult e = driver::kernelNode(f->module()->context(), f, cfg, p.kernelParams, p.extra, out);
      e != CUDA_SUCCESS)
    return e;
  std::get<driver::KernelNodeParams>(out->params).kernel = p.kern;
  return CUDA_SUCCESS;
}

CUresult hostNode(const CUDA_HOST_NODE_PARAMS &p, driver::NodeSpec *out) {
  if (!p.fn)
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "the host function is NULL");
  out->type = CU_GRAPH_NODE_TYPE_HOST;
  out->params = driver::HostNodeParams{p};
  out->work = [fn = p.fn, data = p.userData] {
    fn(data);
    return CUDA_SUCCESS;
  };
  return CUDA_SUCCESS;
}

CUresult eventNode(CUgraphNodeType type, CUevent e, driver::NodeSpec *out) {
  auto *event = reinterpret_cast<driver::Event *>(e);
  if (!driver::isLiveEvent(event))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "event is not a live event");
  out->type = type;
  out->params = driver::EventNodeParams{event};
  out->work = nullptr; // the schedule waits for it or records it
  return CUDA_SUCCESS;
}

CUresult memAllocNode(CUDA_MEM_ALLOC_NODE_PARAMS &p, driver::Context *ctx, driver::NodeSpec *out) {
  const CUmemPoolProps &props = p.poolProps;
  if (props.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
      props.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
      props.location.id != ctx->device()->ordinal() || p.bytesize == 0 ||
      (p.accessDescCount && !p.accessDescs))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "the allocation is not pinned memory of the context's device, is empty, or "
                        "has access descriptors without their array");
  driver::MemAllocNodeParams a;
  if (CUresult r = driver::allocateGraphMemory(ctx, p.bytesize, &a.memory); r != CUDA_SUCCESS)
    return r;
  p.dptr = a.memory->ptr;
  a.params = p;
  a.access.assign(p.accessDescs, p.accessDescs + p.accessDescCount);
  a.params.accessDescs = nullptr;
  out->type = CU_GRAPH_NODE_TYPE_MEM_ALLOC;
  out->params = std::move(a);
  out->work = nullptr; // the memory is the graph's from the node's creation
  return CUDA_SUCCESS;
}

CUresult memFreeNode(CUdeviceptr p, driver::NodeSpec *out) {
  if (!driver::findGraphMemory(p)) {
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "free node: {:#x} is not a graph allocation", p);
  }
  out->type = CU_GRAPH_NODE_TYPE_MEM_FREE;
  out->params = driver::MemFreeNodeParams{p};
  out->work = nullptr;
  return CUDA_SUCCESS;
}

CUresult childNode(CUgraph child, driver::NodeSpec *out) {
  auto *g = reinterpret_cast<driver::Graph *>(child);
  if (!driver::isLiveGraph(g))
    return driver::fail(CUDA_ERROR_INVALID_VALUE, "g is not a live graph");
  if (g->has(CU_GRAPH_NODE_TYPE_MEM_ALLOC)) // NVIDIA's driver refuses child graphs that allocate
    return driver::fail(CUDA_ERROR_NOT_SUPPORTED, "the graph holds memory allocation nodes");
  out->type = CU_GRAPH_NODE_TYPE_GRAPH;
  out->params = driver::ChildNodeParams{g->clone()};
  out->work = nullptr;
  return CUDA_SUCCESS;
}

// A stream-ordered allocation during capture: an allocation node, whose address is returned.
CUresult captureAllocation(driver::Context *c, size_t bytes, CUdeviceptr *dptr,
                           driver::NodeSpec *n) {
  CUDA_MEM_ALLOC_NODE_PARAMS p;
  std::memset(&p, 0, sizeof p);
  p.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.poolProps.location.id = c->device()->ordinal();
  p.bytesize = bytes;
  if (CUresult r = memAllocNode(p, c, n); r != CUDA_SUCCESS)
    return r;
  *dptr = p.dptr;
  return CUDA_SUCCESS;
}

CUresult captureDuring(driver::Stream *s, bool *captured,
                       const std::function<CUresult(driver::NodeSpec *)> &make) {
  if (s->legacy())
    return driver::legacyUseDuringCapture(s->context());
  const CUstreamCaptureStatus status = driver::captureState(s).status;
  if (status == CU_STREAM_CAPTURE_STATUS_NONE)
    return CUDA_SUCCESS;
  *captured = true;
  if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
    return driver::fail(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, "the stream is not being captured");
  driver::NodeSpec spec;
  if (CUresult r = make(&spec); r != CUDA_SUCCESS)
    return r;
  return driver::captureNode(s, std::move(spec));
}

} // namespace cucpu::api
