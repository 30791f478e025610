// vectorAddDrv: adds two float vectors with a PTX kernel through the CUDA driver API.
#include "drv_sample.h"

#include <cmath>
#include <cstdio>
#include <vector>

int main() {
  std::printf("vectorAddDrv: C = A + B through the CUDA driver API\n");

  const int n = 50000;
  const int threadsPerBlock = 256;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);

  CUdevice device = 0;
  CUcontext context = sample::initDevice(&device);
  bool ok = sample::checkDriverLibrary();

  CUmodule module = sample::loadModuleNextToExe("vectorAdd_kernel.ptx");
  CUfunction vecAdd = nullptr;
  CHECK_CU(cuModuleGetFunction(&vecAdd, module, "VecAdd_kernel"));

  std::vector<float> hA(n);
  std::vector<float> hB(n);
  std::vector<float> hC(n, -1.0f);
  sample::Lcg rng(2024);
  for (int i = 0; i < n; ++i) {
    hA[i] = rng.nextFloat();
    hB[i] = rng.nextFloat();
  }

  CUdeviceptr dA = 0;
  CUdeviceptr dB = 0;
  CUdeviceptr dC = 0;
  CHECK_CU(cuMemAlloc(&dA, bytes));
  CHECK_CU(cuMemAlloc(&dB, bytes));
  CHECK_CU(cuMemAlloc(&dC, bytes));
  CHECK_CU(cuMemcpyHtoD(dA, hA.data(), bytes));
  CHECK_CU(cuMemcpyHtoD(dB, hB.data(), bytes));
  // Fill C with the host's -1.0 sentinels so that elements the kernel skips stand out.
  CHECK_CU(cuMemcpyHtoD(dC, hC.data(), bytes));

  int count = n;
  void *args[] = {&dA, &dB, &dC, &count};
  const unsigned int blocks = (n + threadsPerBlock - 1) / threadsPerBlock;
  std::printf("Launching VecAdd_kernel: %u blocks of %d threads\n", blocks, threadsPerBlock);
  CHECK_CU(cuLaunchKernel(vecAdd, blocks, 1, 1, threadsPerBlock, 1, 1, 0, nullptr, args, nullptr));
  CHECK_CU(cuCtxSynchronize());

  CHECK_CU(cuMemcpyDtoH(hC.data(), dC, bytes));

  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    float expected = hA[i] + hB[i];
    if (std::fabs(hC[i] - expected) > 1e-6f) {
      if (mismatches < 10) {
        std::fprintf(stderr, "mismatch at %d: got %f, expected %f\n", i, hC[i], expected);
      }
      ++mismatches;
    }
  }
  if (mismatches != 0) {
    std::fprintf(stderr, "%d of %d elements wrong\n", mismatches, n);
    ok = false;
  }

  CHECK_CU(cuMemFree(dA));
  CHECK_CU(cuMemFree(dB));
  CHECK_CU(cuMemFree(dC));
  CHECK_CU(cuModuleUnload(module));
  CHECK_CU(cuCtxDestroy(context));

  std::printf("Result = %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
