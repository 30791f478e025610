// cuLaunchKernelEx's launch attributes answer as an H200 with driver 580 does
// (tests/gpu/record_launch_ex.cpp): programmatic dependent launch runs the grid in stream order;
// programmatic and launch-completion events are recorded for the grid (only events created with
// CU_EVENT_DISABLE_TIMING, no record flags); graph-only and unknown attributes are refused.
#include <cuda.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

std::string readSourceFile(const char *rel) {
  std::ifstream in(std::string(CUCPU_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class LaunchEx : public testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    const std::string ptx = readSourceFile("tests/unit/jit/address_kernels.ptx");
    ASSERT_EQ(cuModuleLoadData(&mod, ptx.c_str()), CUDA_SUCCESS);
    ASSERT_EQ(cuModuleGetFunction(&fn, mod, "wrapped"), CUDA_SUCCESS);
    ASSERT_EQ(cuMemAlloc(&out, 16 * sizeof(unsigned)), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuEventCreate(&noTiming, CU_EVENT_DISABLE_TIMING), CUDA_SUCCESS);
    ASSERT_EQ(cuEventCreate(&timing, CU_EVENT_DEFAULT), CUDA_SUCCESS);
  }
  void TearDown() override { cuCtxDestroy(ctx); }

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
  static CUlaunchAttribute eventAttribute(CUlaunchAttributeID id, CUevent e, int flags) {
    CUlaunchAttribute a{};
    a.id = id;
    if (id == CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT) {
      a.value.programmaticEvent.event = e;
      a.value.programmaticEvent.flags = flags;
    } else {
      a.value.launchCompletionEvent.event = e;
      a.value.launchCompletionEvent.flags = flags;
    }
    return a;
  }
  // The kernel's result since the last check (each thread t writes t), then the buffer cleared.
  void expectRan() {
    std::vector<unsigned> host(16);
    ASSERT_EQ(cuCtxSynchronize(), CUDA_SUCCESS);
    ASSERT_EQ(cuMemcpyDtoH(host.data(), out, 16 * sizeof(unsigned)), CUDA_SUCCESS);
    for (unsigned t = 0; t < 16; ++t)
      EXPECT_EQ(host[t], t) << "thread " << t;
    ASSERT_EQ(cuMemsetD32(out, 0xdeadbeef, 16), CUDA_SUCCESS);
  }

  CUcontext ctx = nullptr;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  CUdeviceptr out = 0;
  CUstream stream = nullptr;
  CUevent noTiming = nullptr, timing = nullptr;
};

TEST_F(LaunchEx, ProgrammaticStreamSerializationRunsInStreamOrder) {
  CUlaunchAttribute pdl{};
  pdl.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  pdl.value.programmaticStreamSerializationAllowed = 1;
  EXPECT_EQ(launchWith(pdl, stream), CUDA_SUCCESS);
  expectRan();
  EXPECT_EQ(launchWith(pdl, nullptr), CUDA_SUCCESS);
  expectRan();
}

TEST_F(LaunchEx, EventAttributesRecordTheirEvent) {
  for (auto id :
       {CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT, CU_LAUNCH_ATTRIBUTE_LAUNCH_COMPLETION_EVENT}) {
    SCOPED_TRACE(static_cast<int>(id));
    EXPECT_EQ(launchWith(eventAttribute(id, noTiming, 0), stream), CUDA_SUCCESS);
    EXPECT_EQ(cuEventSynchronize(noTiming), CUDA_SUCCESS);
    EXPECT_EQ(cuEventQuery(noTiming), CUDA_SUCCESS);
    expectRan();
    EXPECT_EQ(launchWith(eventAttribute(id, timing, 0), stream), CUDA_ERROR_NOT_SUPPORTED);
    EXPECT_EQ(launchWith(eventAttribute(id, noTiming, CU_EVENT_RECORD_EXTERNAL), stream),
              CUDA_ERROR_ILLEGAL_STATE);
    EXPECT_EQ(launchWith(eventAttribute(id, noTiming, 2), stream), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(launchWith(eventAttribute(id, nullptr, 0), stream), CUDA_ERROR_INVALID_HANDLE);
  }
}

TEST_F(LaunchEx, GraphOnlyAndUnknownAttributesAreRefused) {
  CUlaunchAttribute updatable{};
  updatable.id = CU_LAUNCH_ATTRIBUTE_DEVICE_UPDATABLE_KERNEL_NODE;
  updatable.value.deviceUpdatableKernelNode.deviceUpdatable = 1;
  EXPECT_EQ(launchWith(updatable, stream), CUDA_ERROR_NOT_SUPPORTED);
  CUlaunchAttribute nvlink{};
  nvlink.id = CU_LAUNCH_ATTRIBUTE_NVLINK_UTIL_CENTRIC_SCHEDULING;
  nvlink.value.nvlinkUtilCentricScheduling = 1;
  EXPECT_EQ(launchWith(nvlink, stream), CUDA_SUCCESS);
  expectRan();
  CUlaunchAttribute unknown{};
  unknown.id = static_cast<CUlaunchAttributeID>(99);
  EXPECT_EQ(launchWith(unknown, stream), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
