// Entry points: kernel launch and function attributes.
#include "entry.h"
#include "entry_points.h"

#include "cucpu/driver/launch.h"
#include "cucpu/driver/module.h"
#include "cucpu/driver/sanitizer.h"
#include "cucpu/driver/stream_launch.h"
#include "graph_nodes.h"
#include "stream_ref.h"

#include "cucpu/support/log.h"

#include <vector>

namespace cucpu::api::impl {

namespace {

// What every launch entry point shares: the function, context and stream checks; the launch is
// queued on its stream (the legacy default stream included).
CUresult launch(CUfunction f, const driver::LaunchConfig &cfg, CUstream hStream,
                void **kernelParams, void **extra, bool perThread = false) {
  driver::Context *c;
  driver::Stream *s;
  if (CUresult r = api::contextAndStream(hStream, perThread, &c, &s); r != CUDA_SUCCESS)
    return r;
  driver::Function *fn;
  if (CUresult r = api::functionOf(f, &fn); r != CUDA_SUCCESS)
    return r;
  if (fn->module()->context() != c) { // an H200 answers 400 (tests/gpu/answers/misuse.txt)
    return driver::fail(CUDA_ERROR_INVALID_HANDLE, "launch of '{}', a function of another context",
                        fn->name());
  }
  bool captured;
  if (CUresult r = captureOr(s, &captured,
                             [&](driver::NodeSpec *n) {
                               return driver::kernelNode(c, fn, cfg, kernelParams, extra, n);
                             });
      captured || r != CUDA_SUCCESS)
    return r;
  return driver::enqueueLaunch(s, fn, cfg, kernelParams, extra);
}

driver::LaunchConfig makeConfig(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                unsigned bz, unsigned shared, bool cooperative) {
  driver::LaunchConfig cfg;
  cfg.grid[0] = gx;
  cfg.grid[1] = gy;
  cfg.grid[2] = gz;
  cfg.block[0] = bx;
  cfg.block[1] = by;
  cfg.block[2] = bz;
  cfg.sharedBytes = shared;
  cfg.cooperative = cooperative;
  cfg.hostTrace = driver::sanitizer::hostTrace();
  return cfg;
}

} // namespace

CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                        unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                        unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                        void **kernelParams, void **extra) {
  return launch(f,
                makeConfig(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                           sharedMemBytes, false),
                hStream, kernelParams, extra);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                             unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                             unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                             void **kernelParams, void **extra) {
  return launch(f,
                makeConfig(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                           sharedMemBytes, false),
                hStream, kernelParams, extra, true);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                   unsigned int gridDimZ, unsigned int blockDimX,
                                   unsigned int blockDimY, unsigned int blockDimZ,
                                   unsigned int sharedMemBytes, CUstream hStream,
                                   void **kernelParams) {
  return launch(f,
                makeConfig(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                           sharedMemBytes, true),
                hStream, kernelParams, nullptr);
}

CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                        unsigned int gridDimZ, unsigned int blockDimX,
                                        unsigned int blockDimY, unsigned int blockDimZ,
                                        unsigned int sharedMemBytes, CUstream hStream,
                                        void **kernelParams) {
  return launch(f,
                makeConfig(gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY, blockDimZ,
                           sharedMemBytes, true),
                hStream, kernelParams, nullptr, true);
}

namespace {

CUresult launchEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra,
                  bool perThread) {
  if (CUresult r = api::requireInit(); r != CUDA_SUCCESS)
    return r;
  if (!config || (config->numAttrs && !config->attrs))
    return driver::fail(CUDA_ERROR_INVALID_VALUE,
                        "config is NULL, or its {} attributes have no array",
                        config ? config->numAttrs : 0);
  driver::LaunchConfig cfg =
      makeConfig(config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX,
                 config->blockDimY, config->blockDimZ, config->sharedMemBytes, false);
  std::vector<CUevent> events; // programmatic and launch-completion events, recorded after it
  for (unsigned i = 0; i < config->numAttrs; ++i) {
    const CUlaunchAttribute &a = config->attrs[i];
    switch (a.id) {
    case CU_LAUNCH_ATTRIBUTE_IGNORE:
    case CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: // cache hints: nothing to apply on a CPU
    case CU_LAUNCH_ATTRIBUTE_SYNCHRONIZATION_POLICY:
    case CU_LAUNCH_ATTRIBUTE_PRIORITY:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP:
    case CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT:
    case CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING:
      break;
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION:
      // Programmatic dependent launch lets the grid start before the previous kernel of the
      // stream ends. Starting it after that kernel, as here, is one of the schedules the model
      // allows: griddepcontrol.wait then has nothing left to wait for.
      break;
    case CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT:
    case CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT: {
      // Either event may fire no earlier than its trigger (every block triggered or begun): here
      // it is recorded behind the grid, so it fires when the grid has finished.
      const bool programmatic = a.id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT;
      CUevent ev =
          programmatic ? a.value.programmaticEvent.event : a.value.launchCompletionEvent.event;
      int flags =
          programmatic ? a.value.programmaticEvent.flags : a.value.launchCompletionEvent.flags;
      auto *event = reinterpret_cast<driver::Event *>(ev);
      // The order and codes of these checks are NVIDIA's (tests/gpu/record_launch_ex.cpp).
      if (!driver::isLiveEvent(event)) {
        return driver::fail(CUDA_ERROR_INVALID_HANDLE,
                            "cuLaunchKernelEx: attribute {} names no event", int(a.id));
      }
      if (flags == CU_EVENT_RECORD_EXTERNAL) {
        return driver::fail(CUDA_ERROR_ILLEGAL_STATE,
                            "cuLaunchKernelEx: attribute {}: an external record "
                            "outside stream capture",
                            int(a.id));
      }
      if (flags != 0) {
        return driver::fail(CUDA_ERROR_INVALID_VALUE,
                            "cuLaunchKernelEx: attribute {}: event flags {:#x}", int(a.id), flags);
      }
      if (!(event->flags() & CU_EVENT_DISABLE_TIMING)) {
        return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                            "cuLaunchKernelEx: attribute {}: the event must be "
                            "created with CU_EVENT_DISABLE_TIMING",
                            int(a.id));
      }
      events.push_back(ev);
      break;
    }
    case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
      cfg.cooperative = a.value.cooperative != 0;
      break;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
    case CU_LAUNCH_ATTRIBUTE_PREFERRED_CLUSTER_DIMENSION:
      // The device has no thread-block clusters (CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH is 0).
      if (a.value.clusterDim.x * a.value.clusterDim.y * a.value.clusterDim.z > 1)
        return driver::fail(
            CUDA_ERROR_INVALID_CLUSTER_SIZE,
            "clusters of more than one block: the device has no thread-block clusters");
      break;
    case CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
      break;
    case CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE:
      // Graph-only: on a stream NVIDIA's driver refuses it this way.
      return driver::fail(CUDA_ERROR_NOT_SUPPORTED,
                          "cuLaunchKernelEx: a device-updatable kernel node "
                          "outside a graph");
    default:
      return driver::fail(CUDA_ERROR_INVALID_VALUE, "cuLaunchKernelEx: unknown launch attribute {}",
                          int(a.id));
    }
  }
  if (CUresult r = launch(f, cfg, config->hStream, kernelParams, extra, perThread);
      r != CUDA_SUCCESS)
    return r;
  for (CUevent e : events) {
    CUresult r = perThread ? impl::cuEventRecord_ptsz(e, config->hStream)
                           : impl::cuEventRecord(e, config->hStream);
    if (r != CUDA_SUCCESS)
      return r;
  }
  return CUDA_SUCCESS;
}

} // namespace

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                          void **extra) {
  return launchEx(config, f, kernelParams, extra, false);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kernelParams,
                               void **extra) {
  return launchEx(config, f, kernelParams, extra, true);
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
  driver::Function *fn;
  if (CUresult r = api::functionOf(hfunc, &fn); r != CUDA_SUCCESS)
    return r;
  return fn->attribute(attrib, pi);
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
  driver::Function *fn;
  if (CUresult r = api::functionOf(hfunc, &fn); r != CUDA_SUCCESS)
    return r;
  return fn->setAttribute(attrib, value);
}

} // namespace cucpu::api::impl
