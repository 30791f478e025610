// Records NVIDIA's pre-4.0 launch API and context usage counts: cuFuncSetBlockShape,
// cuFuncSetSharedSize, cuParamSetSize/i/f/v, cuLaunch, cuLaunchGrid(Async) with their refusals
// and results, and cuCtxAttach/cuCtxDetach (the last detach destroys the context). Its output on
// cucpu must equal the GPU's (tests/gpu/answers/old_launch.txt, compared by the ctest
// api_old_launch_answers). Usage: record_old_launch tests/api/graphs/graph_kernels.ptx
#include "record.h"

#include <cuda.h>

#include <cstring>

namespace {

CUdeviceptr d;
constexpr unsigned kN = 1024;

void result(const char *what) {
  unsigned h[kN];
  CUresult r = cuMemcpyDtoH(h, d, sizeof h);
  std::printf("%s: %d, %u %u %u %u\n", what, int(r), h[0], h[127], h[128], h[kN - 1]);
  std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s graph_kernels.ptx\n", argv[0]);
    return 2;
  }
  CUcontext ctx;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  CUmodule mod;
  const std::string ptx = readFile(argv[1]);
  SHOW(cuModuleLoadData(&mod, ptx.c_str()));
  CUfunction add, scale;
  SHOW(cuModuleGetFunction(&add, mod, "add"));
  SHOW(cuModuleGetFunction(&scale, mod, "scale"));
  SHOW(cuMemAlloc(&d, kN * 4));
  SHOW(cuMemsetD32(d, 0, kN));
  CUstream s;
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

  std::printf("-- before any state\n");
  SHOW(cuLaunch(add));
  SHOW(cuLaunchGrid(add, 8, 1));
  SHOW(cuCtxSynchronize());

  std::printf("-- block shape, shared size, parameters\n");
  SHOW(cuFuncSetBlockShape(add, 0, 1, 1));
  SHOW(cuFuncSetBlockShape(add, 2048, 1, 1));
  SHOW(cuFuncSetBlockShape(add, 128, 1, 1));
  SHOW(cuFuncSetBlockShape(nullptr, 128, 1, 1));
  SHOW(cuParamSetSize(add, 16));
  SHOW(cuParamSetSize(add, 8192));
  SHOW(cuParamSetSize(add, 16));
  SHOW(cuParamSetv(add, 0, &d, 8));
  SHOW(cuParamSeti(add, 8, 5));
  SHOW(cuParamSeti(add, 12, kN));
  SHOW(cuParamSeti(add, 16, 1));
  // (A negative offset crashes NVIDIA's driver; cucpu answers INVALID_VALUE.)
  unsigned pair[2] = {1, 2};
  SHOW(cuParamSetv(add, 12, pair, 8));
  SHOW(cuFuncSetSharedSize(add, 0));

  std::printf("-- launches\n");
  SHOW(cuLaunchGrid(add, 8, 1));
  SHOW(cuCtxSynchronize());
  result("grid of 8 blocks, +5");
  SHOW(cuLaunch(add));
  SHOW(cuCtxSynchronize());
  result("one block, +5");
  SHOW(cuLaunchGridAsync(add, 8, 1, s));
  SHOW(cuStreamSynchronize(s));
  result("asynchronous grid of 8, +5");
  SHOW(cuLaunchGrid(add, 0, 1));
  // Blocks of one column would race on the same words: a 4 x 2 grid with nothing to do.
  SHOW(cuParamSeti(add, 12, 0));
  SHOW(cuLaunchGrid(add, 4, 2));
  SHOW(cuCtxSynchronize());
  result("grid of 4 x 2, n = 0");
  SHOW(cuParamSeti(add, 12, 1));
  SHOW(cuParamSetf(add, 8, 1.0f));
  SHOW(cuParamSeti(add, 8, 1));
  SHOW(cuFuncSetSharedSize(add, 1 << 20));
  SHOW(cuLaunchGrid(add, 8, 1));
  SHOW(cuFuncSetSharedSize(add, 1024));
  SHOW(cuLaunchGrid(add, 8, 1));
  SHOW(cuCtxSynchronize());
  result("with 1 KiB of shared memory, +1");
  SHOW(cuParamSetSize(add, 8));
  SHOW(cuLaunchGrid(add, 8, 1));
  SHOW(cuCtxSynchronize());
  result("parameters too short");
  // scale has its own state: a block shape of its own, parameters set one by one.
  SHOW(cuFuncSetBlockShape(scale, 256, 1, 1));
  SHOW(cuParamSetSize(scale, 16));
  SHOW(cuParamSetv(scale, 0, &d, 8));
  SHOW(cuParamSeti(scale, 8, 3));
  SHOW(cuParamSeti(scale, 12, kN));
  SHOW(cuLaunchGrid(scale, 4, 1));
  SHOW(cuCtxSynchronize());
  result("scale by 3");

  std::printf("-- usage counts\n");
  CUcontext got = nullptr;
  SHOW(cuCtxAttach(&got, 1));
  SHOW(cuCtxAttach(nullptr, 0));
  SHOW(cuCtxAttach(&got, 0));
  SHOW(got == ctx);
  SHOW(cuCtxDetach(ctx));
  SHOW(cuMemsetD32(d, 0, 4));
  SHOW(cuCtxDetach(nullptr));
  SHOW(cuCtxDetach(ctx));
  CUcontext current = nullptr;
  SHOWV(cuCtxGetCurrent(&current), current == nullptr);
  SHOW(cuCtxDetach(ctx));
  SHOW(cuCtxDestroy(ctx));
  return 0;
}
