// Initialisation, version, error text and device queries, with their error paths.
#define CUDA_ENABLE_DEPRECATED 1 // cuDeviceComputeCapability is tested too
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <string>

namespace {

TEST(Init, CallsBeforeInitFailWithNotInitialized) {
  // Runs first in this binary (gtest keeps file order): nothing has called cuInit yet.
  int count = -1;
  EXPECT_EQ(cuDeviceGetCount(&count), CUDA_ERROR_NOT_INITIALIZED);
  CUdevice d;
  EXPECT_EQ(cuDeviceGet(&d, 0), CUDA_ERROR_NOT_INITIALIZED);
  CUcontext c;
  EXPECT_EQ(cuCtxGetCurrent(&c), CUDA_ERROR_NOT_INITIALIZED);
  int v = 0;
  EXPECT_EQ(cuDriverGetVersion(&v), CUDA_SUCCESS); // works without cuInit
  EXPECT_EQ(v, 13000);
}

TEST(Init, RejectsNonZeroFlags) { EXPECT_EQ(cuInit(1), CUDA_ERROR_INVALID_VALUE); }

TEST(Init, SucceedsAndIsIdempotent) {
  EXPECT_EQ(cuInit(0), CUDA_SUCCESS);
  EXPECT_EQ(cuInit(0), CUDA_SUCCESS);
}

TEST(Version, NullPointer) { EXPECT_EQ(cuDriverGetVersion(nullptr), CUDA_ERROR_INVALID_VALUE); }

TEST(ErrorText, NamesAndStringsForEveryCode) {
  const char *s = nullptr;
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "CUDA_ERROR_INVALID_VALUE");
  ASSERT_EQ(cuGetErrorName(CUDA_SUCCESS, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "CUDA_SUCCESS");
  ASSERT_EQ(cuGetErrorName(CUDA_ERROR_ILLEGAL_ADDRESS, &s), CUDA_SUCCESS);
  EXPECT_STREQ(s, "CUDA_ERROR_ILLEGAL_ADDRESS");
  ASSERT_EQ(cuGetErrorString(CUDA_ERROR_OUT_OF_MEMORY, &s), CUDA_SUCCESS);
  ASSERT_NE(s, nullptr);
  EXPECT_GT(std::strlen(s), 5u);
  const CUresult all[] = {CUDA_SUCCESS, CUDA_ERROR_INVALID_VALUE, CUDA_ERROR_OUT_OF_MEMORY,
                          CUDA_ERROR_NOT_INITIALIZED, CUDA_ERROR_INVALID_PTX,
                          CUDA_ERROR_NOT_FOUND, CUDA_ERROR_LAUNCH_FAILED, CUDA_ERROR_ASSERT,
                          CUDA_ERROR_NOT_SUPPORTED, CUDA_ERROR_UNKNOWN};
  for (CUresult r : all) {
    EXPECT_EQ(cuGetErrorName(r, &s), CUDA_SUCCESS) << r;
    EXPECT_EQ(cuGetErrorString(r, &s), CUDA_SUCCESS) << r;
  }
  s = reinterpret_cast<const char *>(0x1);
  EXPECT_EQ(cuGetErrorName(static_cast<CUresult>(123456), &s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(s, nullptr);
  EXPECT_EQ(cuGetErrorString(CUDA_SUCCESS, nullptr), CUDA_ERROR_INVALID_VALUE);
}

class Device : public ::testing::Test {
protected:
  void SetUp() override { ASSERT_EQ(cuInit(0), CUDA_SUCCESS); }
};

TEST_F(Device, CountAndGet) {
  int n = 0;
  ASSERT_EQ(cuDeviceGetCount(&n), CUDA_SUCCESS);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(cuDeviceGetCount(nullptr), CUDA_ERROR_INVALID_VALUE);
  CUdevice d = -1;
  ASSERT_EQ(cuDeviceGet(&d, 0), CUDA_SUCCESS);
  EXPECT_EQ(d, 0);
  EXPECT_EQ(cuDeviceGet(&d, 1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGet(&d, -1), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceGet(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Device, NameIsTruncatedToTheBuffer) {
  char name[256];
  ASSERT_EQ(cuDeviceGetName(name, sizeof name, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::string(name).rfind("cucpu", 0), 0u) << name;
  char small[4] = {'x', 'x', 'x', 'x'};
  ASSERT_EQ(cuDeviceGetName(small, 4, 0), CUDA_SUCCESS);
  EXPECT_STREQ(small, "cuc");
  EXPECT_EQ(cuDeviceGetName(nullptr, 10, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetName(name, 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetName(name, 10, 3), CUDA_ERROR_INVALID_DEVICE);
}

TEST_F(Device, TotalMemAndUuid) {
  size_t bytes = 0;
  ASSERT_EQ(cuDeviceTotalMem(&bytes, 0), CUDA_SUCCESS);
  EXPECT_GT(bytes, size_t(64) << 20);
  EXPECT_EQ(cuDeviceTotalMem(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceTotalMem(&bytes, 9), CUDA_ERROR_INVALID_DEVICE);
  CUuuid u{}, u2{};
  ASSERT_EQ(cuDeviceGetUuid(&u, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuDeviceGetUuid(&u2, 0), CUDA_SUCCESS);
  EXPECT_EQ(std::memcmp(u.bytes, u2.bytes, 16), 0);
  EXPECT_EQ(std::memcmp(u.bytes, "cucpu", 5), 0);
  EXPECT_EQ(cuDeviceGetUuid(nullptr, 0), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(Device, AttributesAreConsistentWithTheHost) {
  auto attr = [](CUdevice_attribute a) {
    int v = -12345;
    EXPECT_EQ(cuDeviceGetAttribute(&v, a, 0), CUDA_SUCCESS) << a;
    return v;
  };
  EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE), 32);
  EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
  EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z), 64);
  EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK), 49152);
  EXPECT_GE(attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT), 1);
  EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING), 1);
  int major = 0, minor = -1;
  ASSERT_EQ(cuDeviceComputeCapability(&major, &minor, 0), CUDA_SUCCESS);
  EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR), major);
  EXPECT_EQ(attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR), minor);
  EXPECT_EQ(major, 8); // the default reported compute capability is 8.0
  EXPECT_EQ(minor, 0);
  for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; ++a) {
    int v;
    EXPECT_EQ(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(a), 0), CUDA_SUCCESS) << a;
  }
  int v;
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetAttribute(&v, static_cast<CUdevice_attribute>(0), 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetAttribute(nullptr, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_WARP_SIZE, 5), CUDA_ERROR_INVALID_DEVICE);
  EXPECT_EQ(cuDeviceComputeCapability(nullptr, &minor, 0), CUDA_ERROR_INVALID_VALUE);
}

} // namespace
