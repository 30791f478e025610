// A program that compiles a kernel with the nvcc executable at run time into a cubin and loads
// it, as CuPy's NVCC backend and PyCUDA do. Under cucpu-run, the nvcc it finds first makes the
// cubin a fat binary carrying PTX, so the kernel runs. Usage: nvcc_cubin WORKDIR
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  const std::string dir = argv[1];
  std::ofstream(dir + "/fill.cu")
      << "extern \"C\" __global__ void fill(int *p) { p[threadIdx.x] = threadIdx.x * 3; }\n";
  const std::string cmd = "cd '" + dir +
                          "' && nvcc -gencode=arch=compute_80,code=sm_80 --cubin -o fill.cubin "
                          "fill.cu";
  if (std::system(cmd.c_str()) != 0) {
    std::printf("FAIL: nvcc\n");
    return 1;
  }
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction f;
  CUdeviceptr d;
  if (cuInit(0) || cuDeviceGet(&dev, 0) || cuCtxCreate(&ctx, nullptr, 0, dev)) {
    std::printf("FAIL: context\n");
    return 1;
  }
  if (CUresult r = cuModuleLoad(&mod, (dir + "/fill.cubin").c_str())) {
    std::printf("FAIL: cuModuleLoad of nvcc's cubin: %d\n", static_cast<int>(r));
    return 1;
  }
  int out[32] = {};
  void *args[] = {&d};
  if (cuModuleGetFunction(&f, mod, "fill") || cuMemAlloc(&d, sizeof out) ||
      cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr) ||
      cuMemcpyDtoH(out, d, sizeof out)) {
    std::printf("FAIL: launch\n");
    return 1;
  }
  for (int i = 0; i < 32; ++i)
    if (out[i] != i * 3) {
      std::printf("FAIL: out[%d] = %d\n", i, out[i]);
      return 1;
    }
  std::printf("nvcc cubin: PASS\n");
  return 0;
}
