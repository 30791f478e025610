// Shared by the runtime-API test programs: stop with the CUDA error's name on failure.
#pragma once
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("FAIL %s:%d %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_));       \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)
