// Records NVIDIA's answers for cuLaunchKernelEx's launch attributes (programmatic dependent
// launch, programmatic and launch-completion events, graph-only and unknown attributes) and the
// results of tests/unit/jit/address_kernels.ptx (a 32-bit shared address that wraps) and of
// tests/e2e/cg_syscalls.ptx (the device runtime's cooperative-groups syscalls).
// Usage: record_launch_ex ADDRESS_KERNELS_PTX CG_SYSCALLS_PTX. Checked by
// tests/api/launch_ex_test.cpp and tests/e2e/cooperative_test.cpp.
#include "record.h"

#include <cuda.h>

#include <algorithm>
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

// Runs cg_syscalls.ptx's `rotate` over `blocks` blocks of 64 threads, cooperatively or not, and
// prints whether every out[r] is 3 ((r + 1) % n) + 1 and the distinct info records.
void recordSyscalls(CUmodule mod, unsigned blocks, bool cooperative) {
  CUfunction rotate;
  SHOW(cuModuleGetFunction(&rotate, mod, "rotate"));
  const unsigned n = blocks * 64;
  CUdeviceptr vals, outs, info;
  cuMemAlloc(&vals, n * 4);
  cuMemAlloc(&outs, n * 4);
  cuMemAlloc(&info, n * 20);
  void *args[] = {&vals, &outs, &info};
  if (cooperative)
    SHOW(cuLaunchCooperativeKernel(rotate, blocks, 1, 1, 64, 1, 1, 0, nullptr, args));
  else
    SHOW(cuLaunchKernel(rotate, blocks, 1, 1, 64, 1, 1, 0, nullptr, args, nullptr));
  SHOW(cuCtxSynchronize());
  std::vector<unsigned> o(n), in(n * 5);
  cuMemcpyDtoH(o.data(), outs, n * 4);
  cuMemcpyDtoH(in.data(), info, n * 20);
  unsigned wrong = 0;
  for (unsigned r = 0; r < n; ++r)
    wrong += o[r] != 3 * ((r + 1) % n) + 1;
  std::printf("rotate %u blocks %s: %u of %u out values differ from 3((r+1)%%n)+1\n", blocks,
              cooperative ? "cooperative" : "plain", wrong, n);
  for (unsigned r = 0; r < n; ++r)
    if (r == 0 || std::equal(&in[5 * r], &in[5 * r + 5], &in[5 * (r - 1)]) == false)
      std::printf("info[%u]: %u %u %u %u %u\n", r, in[5 * r], in[5 * r + 1], in[5 * r + 2],
                  in[5 * r + 3], in[5 * r + 4]);
  cuMemFree(vals);
  cuMemFree(outs);
  cuMemFree(info);
}
} // namespace

int main(int argc, char **argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s address_kernels.ptx cg_syscalls.ptx\n", argv[0]);
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

  std::string cg = readFile(argv[2]);
  CUmodule cgMod;
  SHOW(cuModuleLoadData(&cgMod, cg.c_str()));
  recordSyscalls(cgMod, 2, true);
  recordSyscalls(cgMod, 1, false);
  return 0;
}
