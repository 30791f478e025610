// Peer access between two virtual devices (this binary runs with CUCPU_DEVICES=2).
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>

namespace {

// Devices are created by cuInit, after this has run.
const bool kTwoDevices = setenv("CUCPU_DEVICES", "2", 1) == 0;

class Peer : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_TRUE(kTwoDevices);
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    int n = 0;
    ASSERT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
    ASSERT_EQ(n, 2);
    ASSERT_EQ(cuCtxCreate(&c1, nullptr, 0, 1), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&c0, nullptr, 0, 0), CUDA_SUCCESS); // current
  }
  void TearDown() override {
    EXPECT_EQ(cuCtxDestroy(c0), CUDA_SUCCESS);
    EXPECT_EQ(cuCtxDestroy(c1), CUDA_SUCCESS);
  }
  CUcontext c0 = nullptr, c1 = nullptr;
};

TEST_F(Peer, DevicesReachEachOther) {
  int can = 0;
  ASSERT_EQ(cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
  EXPECT_EQ(can, 1);
  int v = -1;
  ASSERT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
            CUDA_SUCCESS);
  EXPECT_EQ(v, 1);
  ASSERT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, 1, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(v, 1);
  ASSERT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, 0, 1),
            CUDA_SUCCESS);
  EXPECT_EQ(v, 0);
  EXPECT_EQ(cuDeviceGetP2PAttribute(&v, static_cast<CUdevice_P2PAttribute>(42), 0, 1),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetP2PAttribute(nullptr, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 1),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 2),
            CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(Peer, EnableAndDisableAccess) {
  EXPECT_EQ(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  ASSERT_EQ(cuCtxEnablePeerAccess(c1, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxEnablePeerAccess(c1, 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
  EXPECT_EQ(cuCtxEnablePeerAccess(c1, 1), CUDA_ERROR_INVALID_VALUE);
  // The current context itself: an H200 answers PEER_ACCESS_UNSUPPORTED (misuse.txt).
  EXPECT_EQ(cuCtxEnablePeerAccess(c0, 0), CUDA_ERROR_PEER_ACCESS_UNSUPPORTED);
  EXPECT_EQ(cuCtxEnablePeerAccess(nullptr, 0), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuCtxDisablePeerAccess(c1), CUDA_SUCCESS);
  EXPECT_EQ(cuCtxDisablePeerAccess(c1), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
  EXPECT_EQ(cuCtxDisablePeerAccess(nullptr), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(Peer, CopiesBetweenDevices) {
  CUdeviceptr a, b;
  ASSERT_EQ(cuMemAlloc(&a, 32), CUDA_SUCCESS); // device 0
  ASSERT_EQ(cuCtxPushCurrent(c1), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&b, 32), CUDA_SUCCESS); // device 1
  int ordinal = -1;
  ASSERT_EQ(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, b), CUDA_SUCCESS);
  EXPECT_EQ(ordinal, 1);
  ASSERT_EQ(cuCtxPopCurrent(nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32(a, 0xabcdef01, 8), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyPeer(b, c1, a, c0, 32), CUDA_SUCCESS);
  uint32_t out[8] = {};
  ASSERT_EQ(cuMemcpyDtoH(out, b, 32), CUDA_SUCCESS);
  EXPECT_EQ(out[7], 0xabcdef01u);
}

} // namespace
