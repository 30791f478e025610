// Page-locked host memory, registration, pointer attributes and address ranges, with errors.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

class HostMemory : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }
  CUcontext ctx = nullptr;
};

TEST_F(HostMemory, AllocHostIsUsableAndFreed) {
  void *p = nullptr;
  ASSERT_EQ(cuMemAllocHost(&p, 1000), CUDA_SUCCESS);
  ASSERT_NE(p, nullptr);
  std::memset(p, 0x5a, 1000);
  unsigned flags = 99;
  ASSERT_EQ(cuMemHostGetFlags(&flags, p), CUDA_SUCCESS);
  EXPECT_EQ(flags, 0u);
  EXPECT_EQ(cuMemFree(reinterpret_cast<CUdeviceptr>(p)), CUDA_ERROR_INVALID_VALUE); // not device
  ASSERT_EQ(cuMemFreeHost(p), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFreeHost(p), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostGetFlags(&flags, p), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(HostMemory, HostAllocFlagsAndDevicePointer) {
  void *p = nullptr;
  const unsigned f = CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE;
  ASSERT_EQ(cuMemHostAlloc(&p, 4096, f), CUDA_SUCCESS);
  unsigned flags = 0;
  ASSERT_EQ(cuMemHostGetFlags(&flags, static_cast<char *>(p) + 100), CUDA_SUCCESS);
  EXPECT_EQ(flags, f);
  CUdeviceptr d = 0;
  ASSERT_EQ(cuMemHostGetDevicePointer(&d, static_cast<char *>(p) + 16, 0), CUDA_SUCCESS);
  EXPECT_EQ(d, reinterpret_cast<CUdeviceptr>(p) + 16);
  EXPECT_EQ(cuMemHostGetDevicePointer(&d, p, 1), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostGetDevicePointer(nullptr, p, 0), CUDA_ERROR_INVALID_VALUE);
  int local = 0;
  EXPECT_EQ(cuMemHostGetDevicePointer(&d, &local, 0), CUDA_ERROR_INVALID_VALUE);
  // Kernels and copies may use the device pointer of mapped host memory.
  CUdeviceptr dev;
  ASSERT_EQ(cuMemAlloc(&dev, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8(dev, 7, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoD(d, dev, 64), CUDA_SUCCESS);
  EXPECT_EQ(static_cast<unsigned char *>(p)[16 + 63], 7);
  ASSERT_EQ(cuMemFree(dev), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFreeHost(p), CUDA_SUCCESS);
}

TEST_F(HostMemory, HostAllocErrors) {
  void *p;
  EXPECT_EQ(cuMemHostAlloc(&p, 16, 0x80), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostAlloc(nullptr, 16, 0), CUDA_ERROR_INVALID_VALUE);
  // Zero bytes succeed with nothing to hand out, as cuMemAllocHost(0) on an H200 (misuse.txt).
  EXPECT_EQ(cuMemHostAlloc(&p, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(cuMemAllocHost(nullptr, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocHost(&p, size_t(1) << 62), CUDA_ERROR_OUT_OF_MEMORY);
  int x;
  EXPECT_EQ(cuMemFreeHost(&x), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(HostMemory, RegisterAndUnregister) {
  std::vector<char> buf(8192);
  ASSERT_EQ(cuMemHostRegister(buf.data(), buf.size(), CU_MEMHOSTREGISTER_DEVICEMAP), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostRegister(buf.data() + 100, 10, 0), CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
  unsigned flags = 0;
  ASSERT_EQ(cuMemHostGetFlags(&flags, buf.data() + 1), CUDA_SUCCESS);
  EXPECT_EQ(flags, unsigned(CU_MEMHOSTREGISTER_DEVICEMAP));
  CUdeviceptr d;
  ASSERT_EQ(cuMemHostGetDevicePointer(&d, buf.data(), 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD32(d, 0x01020304, 4), CUDA_SUCCESS); // the range is usable as device memory
  uint32_t first;
  std::memcpy(&first, buf.data(), 4);
  EXPECT_EQ(first, 0x01020304u);
  // Inside the range, not its start: INVALID_VALUE, as an H200 (tests/gpu/answers/misuse.txt).
  EXPECT_EQ(cuMemHostUnregister(buf.data() + 1), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemHostUnregister(buf.data()), CUDA_SUCCESS);
  EXPECT_EQ(cuMemHostUnregister(buf.data()), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  EXPECT_EQ(cuMemHostRegister(nullptr, 10, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostRegister(buf.data(), 0, 0), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostRegister(buf.data(), 10, 0x100), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemHostUnregister(nullptr), CUDA_ERROR_INVALID_VALUE);
}

TEST_F(HostMemory, ContextDestructionForgetsRegisteredMemoryWithoutFreeingIt) {
  std::vector<char> buf(256, 1);
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemHostRegister(buf.data(), buf.size(), 0), CUDA_SUCCESS);
  ASSERT_EQ(cuCtxDestroy(other), CUDA_SUCCESS); // must not free the vector's storage
  EXPECT_EQ(cuMemHostUnregister(buf.data()), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
  buf.assign(256, 2);
}

TEST_F(HostMemory, PointerAttributesOfDeviceMemory) {
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 1000), CUDA_SUCCESS);
  CUcontext c = nullptr;
  ASSERT_EQ(cuPointerGetAttribute(&c, CU_POINTER_ATTRIBUTE_CONTEXT, d + 10), CUDA_SUCCESS);
  EXPECT_EQ(c, ctx);
  unsigned type = 0;
  ASSERT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d), CUDA_SUCCESS);
  EXPECT_EQ(type, unsigned(CU_MEMORYTYPE_DEVICE));
  CUdeviceptr start = 0;
  size_t size = 0;
  ASSERT_EQ(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 999),
            CUDA_SUCCESS);
  ASSERT_EQ(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 999), CUDA_SUCCESS);
  EXPECT_EQ(start, d);
  EXPECT_EQ(size, 1000u);
  int ordinal = -1;
  ASSERT_EQ(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d), CUDA_SUCCESS);
  EXPECT_EQ(ordinal, 0);
  void *host;
  EXPECT_EQ(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, d),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d + 1000),
            CUDA_ERROR_INVALID_VALUE); // one past the end
  EXPECT_EQ(cuPointerGetAttribute(nullptr, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuPointerGetAttribute(&type, static_cast<CUpointer_attribute>(999), d),
            CUDA_ERROR_INVALID_VALUE);
  // SYNC_MEMOPS is the one settable attribute.
  unsigned on = 1, read = 0; // 4-byte flags, as an H100 writes them
  ASSERT_EQ(cuPointerSetAttribute(&on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d), CUDA_SUCCESS);
  ASSERT_EQ(cuPointerGetAttribute(&read, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d), CUDA_SUCCESS);
  EXPECT_TRUE(read);
  EXPECT_EQ(cuPointerSetAttribute(&on, CU_POINTER_ATTRIBUTE_CONTEXT, d), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuPointerSetAttribute(&on, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, 0x10),
            CUDA_ERROR_INVALID_VALUE);
  unsigned long long id1 = 0, id2 = 0;
  CUdeviceptr d2;
  ASSERT_EQ(cuMemAlloc(&d2, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, d), CUDA_SUCCESS);
  ASSERT_EQ(cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID, d2), CUDA_SUCCESS);
  EXPECT_NE(id1, id2);
  ASSERT_EQ(cuMemFree(d2), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

TEST_F(HostMemory, PointerAttributesOfHostMemoryAndUnknownPointers) {
  void *p;
  ASSERT_EQ(cuMemAllocHost(&p, 64), CUDA_SUCCESS);
  CUdeviceptr dp = reinterpret_cast<CUdeviceptr>(p);
  unsigned type = 0;
  void *host = nullptr;
  ASSERT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, dp), CUDA_SUCCESS);
  EXPECT_EQ(type, unsigned(CU_MEMORYTYPE_HOST));
  ASSERT_EQ(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, dp + 8), CUDA_SUCCESS);
  EXPECT_EQ(host, static_cast<char *>(p) + 8);
  // cuPointerGetAttributes answers for any pointer: zeros when CUDA does not know it.
  int local;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_CONTEXT,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  unsigned t = 7;
  CUcontext c = ctx;
  int ord = 7;
  void *data[] = {&t, &c, &ord};
  ASSERT_EQ(cuPointerGetAttributes(3, attrs, data, reinterpret_cast<CUdeviceptr>(&local)),
            CUDA_SUCCESS);
  EXPECT_EQ(t, 0u);
  EXPECT_EQ(c, nullptr);
  EXPECT_EQ(ord, -2); // as an H100 answers
  ASSERT_EQ(cuPointerGetAttributes(3, attrs, data, dp), CUDA_SUCCESS);
  EXPECT_EQ(t, unsigned(CU_MEMORYTYPE_HOST));
  EXPECT_EQ(c, ctx);
  EXPECT_EQ(ord, 0);
  EXPECT_EQ(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                  reinterpret_cast<CUdeviceptr>(&local)),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuPointerGetAttributes(0, attrs, data, dp), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuPointerGetAttributes(3, nullptr, data, dp), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFreeHost(p), CUDA_SUCCESS);
}

// What cudaPointerGetAttributes asks (six attributes in one cuPointerGetAttributes call), for
// each kind of memory, with the answers an H100 (driver 580) gives: device memory has a null host
// pointer there (cuPointerGetAttribute fails for it), managed memory's host pointer is itself,
// and a pointer CUDA does not know is its own host pointer on device -2.
TEST_F(HostMemory, PointerAttributesOfEveryKindOfMemory) {
  CUdeviceptr dev = 0, managed = 0;
  ASSERT_EQ(cuMemAlloc(&dev, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAllocManaged(&managed, 64, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  int local = 0;
  struct Want {
    CUdeviceptr p;
    unsigned type;
    bool hostIsSelf;
    int isManaged, ordinal;
    bool hasContext;
  } cases[] = {{dev, CU_MEMORYTYPE_DEVICE, false, 0, 0, true},
               {managed, CU_MEMORYTYPE_DEVICE, true, 1, 0, true},
               {reinterpret_cast<CUdeviceptr>(&local), 0, true, 0, -2, false}};
  for (const Want &w : cases) {
    CUpointer_attribute attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE,    CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
        CU_POINTER_ATTRIBUTE_HOST_POINTER,   CU_POINTER_ATTRIBUTE_IS_MANAGED,
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CU_POINTER_ATTRIBUTE_CONTEXT};
    unsigned type = 77;
    CUdeviceptr dp = 77;
    void *host = reinterpret_cast<void *>(77);
    int isManaged = 0x7f7f7f7f, ordinal = 77; // all four bytes written (cudart relies on it)
    CUcontext c = nullptr;
    void *data[] = {&type, &dp, &host, &isManaged, &ordinal, &c};
    ASSERT_EQ(cuPointerGetAttributes(6, attrs, data, w.p), CUDA_SUCCESS) << w.ordinal;
    EXPECT_EQ(type, w.type);
    EXPECT_EQ(host, w.hostIsSelf ? reinterpret_cast<void *>(w.p) : nullptr);
    EXPECT_EQ(isManaged, w.isManaged);
    EXPECT_EQ(ordinal, w.ordinal);
    EXPECT_EQ(c != nullptr, w.hasContext);
    if (w.hasContext) {
      EXPECT_EQ(dp, w.p);
    }
  }
  void *host = reinterpret_cast<void *>(77);
  EXPECT_EQ(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, dev),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(host, nullptr);
  EXPECT_EQ(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, managed), CUDA_SUCCESS);
  EXPECT_EQ(host, reinterpret_cast<void *>(managed));
  EXPECT_EQ(cuMemFree(dev), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(managed), CUDA_SUCCESS);
}

TEST_F(HostMemory, AddressRange) {
  CUdeviceptr d, base = 0;
  size_t size = 0;
  ASSERT_EQ(cuMemAlloc(&d, 300), CUDA_SUCCESS);
  ASSERT_EQ(cuMemGetAddressRange(&base, &size, d + 299), CUDA_SUCCESS);
  EXPECT_EQ(base, d);
  EXPECT_EQ(size, 300u);
  EXPECT_EQ(cuMemGetAddressRange(nullptr, &size, d), CUDA_SUCCESS); // outputs are optional
  EXPECT_EQ(cuMemGetAddressRange(&base, &size, d + 300), CUDA_ERROR_NOT_FOUND);
  ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
  EXPECT_EQ(cuMemGetAddressRange(&base, &size, d), CUDA_ERROR_NOT_FOUND);
}

TEST(HostMemoryNoContext, NeedsACurrentContext) {
  ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
  void *p;
  EXPECT_EQ(cuMemAllocHost(&p, 16), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemHostAlloc(&p, 16, 0), CUDA_ERROR_INVALID_CONTEXT);
  CUdeviceptr b;
  size_t s;
  EXPECT_EQ(cuMemGetAddressRange(&b, &s, 0x1000), CUDA_ERROR_INVALID_CONTEXT);
}

} // namespace
