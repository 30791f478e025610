// Device queries beyond attributes: PCI bus ids, legacy properties, texture limits, affinity.
#define CUDA_ENABLE_DEPRECATED 1 // cuDeviceGetProperties is tested too
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

class DeviceQuery : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
};

TEST_F(DeviceQuery, PciBusIdRoundTrips) {
  char id[32] = {};
  ASSERT_EQ(cuDeviceGetPCIBusId(id, sizeof id, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::strlen(id), 12u); // dddd:bb:dd.f
  int bus = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::stoi(std::string(id).substr(5, 2), nullptr, 16), bus);
  CUdevice dev = -1;
  ASSERT_EQ(cuDeviceGetByPCIBusId(&dev, id), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0);
  ASSERT_EQ(cuDeviceGetByPCIBusId(&dev, std::string(id).substr(5).c_str()), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0); // without the domain
  ASSERT_EQ(cuDeviceGetByPCIBusId(&dev, std::string(id).substr(0, 10).c_str()), CUDA_SUCCESS);
  EXPECT_EQ(dev, 0); // without the function
  char shortBuf[5];
  ASSERT_EQ(cuDeviceGetPCIBusId(shortBuf, sizeof shortBuf, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::string(shortBuf), std::string(id).substr(0, 4)); // truncated, terminated
}

TEST_F(DeviceQuery, PciBusIdErrors) {
  char id[32];
  EXPECT_EQ(cuDeviceGetPCIBusId(nullptr, 32, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetPCIBusId(id, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetPCIBusId(id, 32, 5), CUDA_ERROR_INVALID_DEVICE);
  CUdevice dev;
  EXPECT_EQ(cuDeviceGetByPCIBusId(&dev, "0000:7f:00.0"), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&dev, "not a bus id"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&dev, "0000:01:00.1"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetByPCIBusId(nullptr, "0000:01:00.0"), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetByPCIBusId(&dev, nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(DeviceQuery, PropertiesMatchAttributes) {
  CUdevprop p{};
  ASSERT_EQ(cuDeviceGetProperties(&p, 0), CUDA_SUCCESS);
  int v;
  ASSERT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0), CUDA_SUCCESS);
  EXPECT_EQ(p.maxThreadsPerBlock, v);
  ASSERT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, 0), CUDA_SUCCESS);
  EXPECT_EQ(p.maxGridSize[0], v);
  EXPECT_EQ(p.SIMDWidth, 32);
  EXPECT_EQ(cuDeviceGetProperties(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetProperties(&p, 9), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(DeviceQuery, Texture1DLinearMaxWidthAndExecAffinity) {
  size_t w = 0;
  ASSERT_EQ(cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 4, 0), CUDA_SUCCESS);
  EXPECT_GT(w, 0u);
  EXPECT_EQ(cuDeviceGetTexture1DLinearMaxWidth(&w, CU_AD_FORMAT_FLOAT, 3, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetTexture1DLinearMaxWidth(nullptr, CU_AD_FORMAT_FLOAT, 1, 0),
            CUDA_ERROR_INVALID_VALUE);
  int supported = 7;
  ASSERT_EQ(cuDeviceGetExecAffinitySupport(&supported, CU_EXEC_AFFINITY_TYPE_SM_COUNT, 0),
            CUDA_SUCCESS);
  EXPECT_EQ(supported, 0);
  EXPECT_EQ(cuDeviceGetExecAffinitySupport(&supported, CU_EXEC_AFFINITY_TYPE_MAX, 0),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetExecAffinitySupport(&supported, CU_EXEC_AFFINITY_TYPE_SM_COUNT, -1),
            CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(DeviceQuery, PeerQueriesOnOneDevice) {
  int can = 7;
  ASSERT_EQ(cuDeviceCanAccessPeer(&can, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(can, 0); // a device is not its own peer
  EXPECT_EQ(cuDeviceCanAccessPeer(&can, 0, 1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceCanAccessPeer(nullptr, 0, 0), CUDA_ERROR_INVALID_VALUE);
  int v;
  EXPECT_EQ(cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED, 0, 0),
            CUDA_ERROR_INVALID_DEVICE);
}

} // namespace
