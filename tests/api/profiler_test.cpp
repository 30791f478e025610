// cuProfilerStart/Stop/Initialize answer as an H100 with driver 580 does
// (tests/gpu/record_python_stack.cpp): NOT_INITIALIZED before cuInit, INVALID_CONTEXT without a
// context, success with one however often they are called; the deprecated cuProfilerInitialize
// is NOT_SUPPORTED there too.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdlib>

// cudaProfiler.h's declarations (the project's include/ has cuda.h only); CUoutput_mode is an
// enum, passed as an int.
extern "C" {
CUresult cuProfilerStart(void);
CUresult cuProfilerStop(void);
CUresult cuProfilerInitialize(const char *configFile, const char *outputFile, int outputMode);
}

namespace {

TEST(ProfilerDeathTest, BeforeCuInitIsNotInitialized) {
  GTEST_FLAG_SET(death_test_style, "threadsafe"); // a fresh process, where cuInit never ran
  EXPECT_EXIT(std::exit(cuProfilerStart() * 10 + cuProfilerStop() == 33 ? 0 : 1),
              testing::ExitedWithCode(0), "");
}

TEST(Profiler, NeedsAContextAndThenAlwaysSucceeds) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  CUcontext none = nullptr;
  while (cuCtxPopCurrent(&none) == CUDA_SUCCESS && none) {
  }
  EXPECT_EQ(cuProfilerStart(), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuProfilerStop(), CUDA_ERROR_INVALID_CONTEXT);
  CUcontext ctx;
  ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStart(), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStart(), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStop(), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerStop(), CUDA_SUCCESS);
  EXPECT_EQ(cuProfilerInitialize(nullptr, nullptr, 0), CUDA_ERROR_NOT_SUPPORTED);
  EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS);
}

} // namespace
