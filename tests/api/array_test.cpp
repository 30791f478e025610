// CUDA arrays, mipmapped arrays, copies to and from arrays, texture and surface objects. Error
// codes are NVIDIA's driver's (tests/gpu/record_arrays.cpp on an H100, driver 580.159.04) except
// for stale array handles, on which that driver crashes.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace {

class Arrays : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override {
    if (ctx) {
      EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS);
    }
  }
  CUcontext ctx = nullptr;
};

CUDA_ARRAY3D_DESCRIPTOR desc3(size_t w, size_t h, size_t d, CUarray_format f, unsigned ch,
                              unsigned flags = 0) {
  CUDA_ARRAY3D_DESCRIPTOR a{};
  a.Width = w;
  a.Height = h;
  a.Depth = d;
  a.Format = f;
  a.NumChannels = ch;
  a.Flags = flags;
  return a;
}

TEST_F(Arrays, CreateValidatesDescriptors) {
  CUarray a;
  CUDA_ARRAY_DESCRIPTOR d{};
  d.Width = 16;
  d.Height = 4;
  d.Format = CU_AD_FORMAT_FLOAT;
  d.NumChannels = 3;
  EXPECT_EQ(cuArrayCreate(&a, &d), CUDA_ERROR_INVALID_VALUE); // 1, 2 or 4 channels
  d.NumChannels = 2;
  d.Format = static_cast<CUarray_format>(0x7);
  EXPECT_EQ(cuArrayCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
  d.Format = CU_AD_FORMAT_FLOAT;
  d.Width = 0;
  EXPECT_EQ(cuArrayCreate(&a, &d), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayCreate(&a, nullptr), CUDA_ERROR_INVALID_VALUE);
  auto cube = desc3(4, 5, 6, CU_AD_FORMAT_FLOAT, 1, CUDA_ARRAY3D_CUBEMAP); // faces not square
  EXPECT_EQ(cuArray3DCreate(&a, &cube), CUDA_ERROR_INVALID_VALUE);
  d.Width = 16;
  ASSERT_EQ(cuArrayCreate(&a, &d), CUDA_SUCCESS);
  CUDA_ARRAY_DESCRIPTOR back{};
  ASSERT_EQ(cuArrayGetDescriptor(&back, a), CUDA_SUCCESS);
  EXPECT_EQ(back.Width, 16u);
  EXPECT_EQ(back.Height, 4u);
  EXPECT_EQ(back.Format, CU_AD_FORMAT_FLOAT);
  EXPECT_EQ(back.NumChannels, 2u);
  CUDA_ARRAY3D_DESCRIPTOR back3{};
  ASSERT_EQ(cuArray3DGetDescriptor(&back3, a), CUDA_SUCCESS);
  EXPECT_EQ(back3.Depth, 0u);
  EXPECT_EQ(cuArrayDestroy(a), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(a), CUDA_ERROR_INVALID_HANDLE); // NVIDIA's driver crashes
  EXPECT_EQ(cuArrayGetDescriptor(&back, a), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Arrays, LinearAnd3DCopiesRoundTrip) {
  // A 2-layer 5x3 array of ushort2: 20 bytes a row, rows then layers.
  auto d = desc3(5, 3, 2, CU_AD_FORMAT_UNSIGNED_INT16, 2, CUDA_ARRAY3D_LAYERED);
  CUarray a;
  ASSERT_EQ(cuArray3DCreate(&a, &d), CUDA_SUCCESS);
  std::vector<uint8_t> h(5 * 4 * 3 * 2);
  std::iota(h.begin(), h.end(), 1);
  // Linear copies cover the first row only (they are meant for 1D arrays).
  EXPECT_EQ(cuMemcpyHtoA(a, 0, h.data(), h.size()), CUDA_ERROR_INVALID_VALUE);
  CUDA_MEMCPY3D in{};
  in.srcMemoryType = CU_MEMORYTYPE_HOST;
  in.srcHost = h.data();
  in.srcPitch = 20;
  in.srcHeight = 3;
  in.dstMemoryType = CU_MEMORYTYPE_ARRAY;
  in.dstArray = a;
  in.WidthInBytes = 20;
  in.Height = 3;
  in.Depth = 2;
  ASSERT_EQ(cuMemcpy3D(&in), CUDA_SUCCESS);
  // Row 1..2, bytes 4..15 of layer 1 into a 12-byte-pitch host block.
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
  c.srcArray = a;
  c.srcXInBytes = 4;
  c.srcY = 1;
  c.srcZ = 1;
  std::vector<uint8_t> part(12 * 2);
  c.dstMemoryType = CU_MEMORYTYPE_HOST;
  c.dstHost = part.data();
  c.dstPitch = 12;
  c.dstHeight = 2;
  c.WidthInBytes = 12;
  c.Height = 2;
  c.Depth = 1;
  ASSERT_EQ(cuMemcpy3D(&c), CUDA_SUCCESS);
  for (int y = 0; y < 2; ++y)
    for (int x = 0; x < 12; ++x)
      EXPECT_EQ(part[y * 12 + x], h[60 + (1 + y) * 20 + 4 + x]) << x << "," << y;
  c.srcY = 2; // rows 2..3 of 3
  EXPECT_EQ(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
  c.srcY = 1;
  c.srcXInBytes = 10; // bytes 10..21 of 20
  EXPECT_EQ(cuMemcpy3D(&c), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuArrayDestroy(a), CUDA_SUCCESS);
  // A 1D array: linear copies from the host, to device memory and back.
  auto d1 = desc3(64, 0, 0, CU_AD_FORMAT_UNSIGNED_INT8, 1);
  ASSERT_EQ(cuArray3DCreate(&a, &d1), CUDA_SUCCESS);
  std::vector<uint8_t> row(64), back(64), viaDev(64);
  std::iota(row.begin(), row.end(), 7);
  ASSERT_EQ(cuMemcpyHtoA(a, 0, row.data(), 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyAtoH(back.data(), a, 0, 64), CUDA_SUCCESS);
  EXPECT_EQ(back, row);
  EXPECT_EQ(cuMemcpyAtoH(back.data(), a, 1, 64), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr dev;
  ASSERT_EQ(cuMemAlloc(&dev, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyAtoD(dev, a, 0, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyDtoH(viaDev.data(), dev, 64), CUDA_SUCCESS);
  EXPECT_EQ(viaDev, row);
  EXPECT_EQ(cuMemFree(dev), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(a), CUDA_SUCCESS);
}

TEST_F(Arrays, MipmappedLevelsHalveEachDimension) {
  auto d = desc3(16, 6, 0, CU_AD_FORMAT_FLOAT, 4);
  CUmipmappedArray m;
  ASSERT_EQ(cuMipmappedArrayCreate(&m, &d, 6), CUDA_SUCCESS); // 16 has 5 levels: 5 are made
  const size_t widths[] = {16, 8, 4, 2, 1}, heights[] = {6, 3, 1, 1, 1};
  for (unsigned l = 0; l < 5; ++l) {
    CUarray level;
    ASSERT_EQ(cuMipmappedArrayGetLevel(&level, m, l), CUDA_SUCCESS);
    CUDA_ARRAY3D_DESCRIPTOR ld{};
    ASSERT_EQ(cuArray3DGetDescriptor(&ld, level), CUDA_SUCCESS);
    EXPECT_EQ(ld.Width, widths[l]);
    EXPECT_EQ(ld.Height, heights[l]);
  }
  CUarray level;
  EXPECT_EQ(cuMipmappedArrayGetLevel(&level, m, 5), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMipmappedArrayGetLevel(&level, m, 1), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(level), CUDA_SUCCESS); // no effect: the mipmapped array owns it
  CUDA_ARRAY3D_DESCRIPTOR still{};
  EXPECT_EQ(cuArray3DGetDescriptor(&still, level), CUDA_SUCCESS);
  EXPECT_EQ(cuMipmappedArrayDestroy(m), CUDA_SUCCESS);
  EXPECT_EQ(cuMipmappedArrayDestroy(m), CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Arrays, TextureAndSurfaceObjects) {
  auto d = desc3(8, 8, 0, CU_AD_FORMAT_UNSIGNED_INT8, 4);
  CUarray plain, surf;
  ASSERT_EQ(cuArray3DCreate(&plain, &d), CUDA_SUCCESS);
  d.Flags = CUDA_ARRAY3D_SURFACE_LDST;
  ASSERT_EQ(cuArray3DCreate(&surf, &d), CUDA_SUCCESS);
  CUDA_RESOURCE_DESC rd{};
  rd.resType = CU_RESOURCE_TYPE_ARRAY;
  rd.res.array.hArray = plain;
  CUDA_TEXTURE_DESC td{};
  td.addressMode[0] = CU_TR_ADDRESS_MODE_BORDER;
  td.filterMode = CU_TR_FILTER_MODE_LINEAR;
  td.flags = CU_TRSF_NORMALIZED_COORDINATES;
  td.borderColor[2] = 0.5f;
  CUtexObject t = 0;
  ASSERT_EQ(cuTexObjectCreate(&t, &rd, &td, nullptr), CUDA_SUCCESS);
  EXPECT_NE(t, 0u);
  CUDA_TEXTURE_DESC tdBack{};
  ASSERT_EQ(cuTexObjectGetTextureDesc(&tdBack, t), CUDA_SUCCESS);
  EXPECT_EQ(tdBack.addressMode[0], CU_TR_ADDRESS_MODE_BORDER);
  EXPECT_EQ(tdBack.flags, unsigned(CU_TRSF_NORMALIZED_COORDINATES));
  EXPECT_EQ(tdBack.borderColor[2], 0.5f);
  CUDA_RESOURCE_DESC rdBack{};
  ASSERT_EQ(cuTexObjectGetResourceDesc(&rdBack, t), CUDA_SUCCESS);
  EXPECT_EQ(rdBack.res.array.hArray, plain);
  CUDA_RESOURCE_VIEW_DESC view{};
  view.width = 99;
  EXPECT_EQ(cuTexObjectGetResourceViewDesc(&view, t), CUDA_SUCCESS); // none given: zeros
  EXPECT_EQ(view.width, 0u);
  CUsurfObject s = 0;
  rd.res.array.hArray = surf;
  ASSERT_EQ(cuSurfObjectCreate(&s, &rd), CUDA_SUCCESS);
  // One handle space for both kinds (NVIDIA's driver numbers them 1, 2, ... together): neither
  // handle names an object of the other kind.
  EXPECT_NE(s, t);
  CUDA_RESOURCE_DESC otherKind{};
  EXPECT_EQ(cuSurfObjectGetResourceDesc(&otherKind, t), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuTexObjectGetResourceDesc(&otherKind, s), CUDA_ERROR_INVALID_VALUE);
  // Linear memory: the pointer must lie in an allocation.
  CUDA_RESOURCE_DESC lin{};
  lin.resType = CU_RESOURCE_TYPE_LINEAR;
  lin.res.linear.format = CU_AD_FORMAT_FLOAT;
  lin.res.linear.numChannels = 1;
  lin.res.linear.sizeInBytes = 1024;
  CUtexObject lt;
  lin.res.linear.devPtr = 0;
  EXPECT_EQ(cuTexObjectCreate(&lt, &lin, &td, nullptr), CUDA_ERROR_INVALID_VALUE);
  CUdeviceptr dev;
  ASSERT_EQ(cuMemAlloc(&dev, 1024), CUDA_SUCCESS);
  lin.res.linear.devPtr = dev;
  ASSERT_EQ(cuTexObjectCreate(&lt, &lin, &td, nullptr), CUDA_SUCCESS);
  EXPECT_NE(lt, t);
  EXPECT_EQ(cuTexObjectDestroy(lt), CUDA_SUCCESS);
  EXPECT_EQ(cuTexObjectDestroy(t), CUDA_SUCCESS);
  EXPECT_EQ(cuTexObjectGetTextureDesc(&tdBack, t), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuTexObjectDestroy(t), CUDA_SUCCESS); // what NVIDIA's driver answers
  EXPECT_EQ(cuSurfObjectDestroy(s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(dev), CUDA_SUCCESS);
  // Arrays die with their context.
  ASSERT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS);
  ctx = nullptr;
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  EXPECT_EQ(cuArrayDestroy(plain), CUDA_ERROR_CONTEXT_IS_DESTROYED);
  EXPECT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
}

} // namespace
