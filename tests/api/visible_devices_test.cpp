// CUDA_VISIBLE_DEVICES over several virtual devices (run by ctest with CUCPU_DEVICES=3 and
// CUDA_VISIBLE_DEVICES="2,GPU-6375637075,7,1": device 2, then device 0 by UUID prefix; the list
// ends at the invalid 7), and with an empty list (no device).
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>

namespace {

TEST(VisibleDevices, ListSelectsAndOrdersDevices) {
  if (std::string(std::getenv("CUDA_VISIBLE_DEVICES")).empty()) {
    EXPECT_EQ(cuInit(0), CUDA_ERROR_NO_DEVICE);
    int n = -1;
    EXPECT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
    EXPECT_EQ(n, 0);
    return;
  }
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  int n = 0;
  ASSERT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
  ASSERT_EQ(n, 2);
  char name[64];
  ASSERT_EQ(cuDeviceGetName(name, sizeof name, 0), CUDA_SUCCESS);
  EXPECT_STREQ(name, "cucpu CPU device 2");
  ASSERT_EQ(cuDeviceGetName(name, sizeof name, 1), CUDA_SUCCESS);
  EXPECT_STREQ(name, "cucpu CPU device");
  CUuuid u;
  ASSERT_EQ(cuDeviceGetUuid(&u, 0), CUDA_SUCCESS);
  EXPECT_EQ(u.bytes[15], 2);
  int bus = 0;
  ASSERT_EQ(cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, 1), CUDA_SUCCESS);
  EXPECT_EQ(bus, 1);
  CUdevice d;
  EXPECT_EQ(cuDeviceGet(&d, 2), CUDA_ERROR_INVALID_DEVICE);
}

} // namespace
