// Records NVIDIA's answers for cuLaunchKernelEx's launch attributes (programmatic dependent
// launch, programmatic and launch-completion events, graph-only and unknown attributes) and the
// results of tests/unit/jit/address_kernels.ptx (a 32-bit shared address that wraps).
// Usage: record_launch_ex ADDRESS_KERNELS_PTX. Checked by tests/api/launch_ex_test.cpp.
#include "record.h"

#include <cuda.h>

#include <vector>

namespace {
CUfunction fn;
CUdeviceptr out;
CUstream stream;

// Launches `wrapped` (16 threads) with one attribute on `s` and returns the launch's result.
CUresult launchWith(CUlaunchAttribute attr, CUstream s) {
  CUlaunchConfig cfg{};
  cfg.gridDimX = cfg.gridDimY = cfg.gridDimZ = 1;
  cfg.blockDimX = 16;
  cfg.blockDimY = cfg.blockDimZ = 1;
  cfg.hStream = s;
  cfg.attrs = &attr;
  cfg.numAttrs = 1;
  void *args[] = {&out};
  return cuLaunchKernelEx(&cfg, fn, args, nullptr);
}

CUlaunchAttribute attribute(CUlaunchAttributeID id) {
  CUlaunchAttribute a{};
  a.id = id;
  return a;
}

CUlaunchAttribute eventAttribute(CUlaunchAttributeID id, CUevent e, int flags) {
  CUlaunchAttribute a = attribute(id);
  if (id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT) {
    a.value.programmaticEvent.event = e;
    a.value.programmaticEvent.flags = flags;
    a.value.programmaticEvent.triggerAtBlockStart = 0;
  } else {
    a.value.launchCompletionEvent.event = e;
    a.value.launchCompletionEvent.flags = flags;
  }
  return a;
}

void printResult() {
  unsigned host[16] = {};
  cuCtxSynchronize();
  cuMemcpyDtoH(host, out, sizeof host);
  std::printf("out:");
  for (unsigned v : host)
    std::printf(" %u", v);
  std::printf("\n");
  cuMemsetD32(out, 0xdeadbeef, 16);
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s address_kernels.ptx\n", argv[0]);
    return 2;
  }
  std::string ptx = readFile(argv[1]);
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  SHOW(cuInit(0));
  SHOW(cuDeviceGet(&dev, 0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, dev));
  SHOW(cuModuleLoadData(&mod, ptx.c_str()));
  SHOW(cuModuleGetFunction(&fn, mod, "wrapped"));
  SHOW(cuMemAlloc(&out, 16 * sizeof(unsigned)));
  SHOW(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
  CUevent noTiming, timing;
  SHOW(cuEventCreate(&noTiming, CU_EVENT_DISABLE_TIMING));
  SHOW(cuEventCreate(&timing, CU_EVENT_DEFAULT));

  SHOW(launchWith(attribute(CU_LAUNCH_ATTRIBUTE_IGNORE), stream));
  printResult();
  CUlaunchAttribute pdl = attribute(CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION);
  pdl.value.programmaticStreamSerializationAllowed = 1;
  SHOW(launchWith(pdl, stream));
  SHOW(launchWith(pdl, nullptr));
  printResult();

  using A = CUlaunchAttributeID;
  for (A id :
       {CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT}) {
    std::printf("attribute %d\n", static_cast<int>(id));
    SHOW(launchWith(eventAttribute(id, noTiming, 0), stream));
    SHOW(cuEventSynchronize(noTiming));
    SHOW(cuEventQuery(noTiming));
    SHOW(launchWith(eventAttribute(id, timing, 0), stream));
    SHOW(cuStreamSynchronize(stream));
    SHOW(launchWith(eventAttribute(id, noTiming, CU_EVENT_RECORD_EXTERNAL), stream));
    SHOW(launchWith(eventAttribute(id, noTiming, 2), stream));
    SHOW(launchWith(eventAttribute(id, nullptr, 0), stream));
    SHOW(cuStreamSynchronize(stream));
  }
  CUlaunchAttribute updatable = attribute(CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE);
  updatable.value.deviceUpdatableKernelNode.deviceUpdatable = 1;
  SHOW(launchWith(updatable, stream));
  CUlaunchAttribute nvlink = attribute(CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING);
  nvlink.value.nvlinkUtilCentricScheduling = 1;
  SHOW(launchWith(nvlink, stream));
  SHOW(launchWith(attribute(static_cast<A>(99)), stream));
  SHOW(cuStreamSynchronize(stream));
  printResult();
  return 0;
}
