// Entry points cucpu does not implement: CUDA_ERROR_NOT_SUPPORTED, or abort in strict mode.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <dlfcn.h>

namespace {

// OpenGL interop can never work on a CPU device, so it stays a stub.
CUresult glInit() {
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  auto fn = reinterpret_cast<CUresult (*)()>(lib ? dlsym(lib, "cuGLInit") : nullptr);
  return fn ? fn() : CUDA_ERROR_UNKNOWN;
}

TEST(NotImplemented, ReturnsNotSupported) {
  EXPECT_EQ(glInit(), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(glInit(), CUDA_ERROR_NOT_SUPPORTED); // and keeps doing so (one warning only)
}

TEST(NotImplementedDeathTest, StrictModeAbortsWithTheFunctionName) {
  GTEST_FLAG_SET(death_test_style, "threadsafe"); // a fresh process reads CUCPU_STRICT
  setenv("CUCPU_STRICT", "1", 1);
  EXPECT_DEATH(glInit(), "cuGLInit");
  unsetenv("CUCPU_STRICT");
}

} // namespace
