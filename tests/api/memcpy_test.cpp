// Pitched allocations, unified and peer copies, 2D/3D copies and 2D memsets, with their errors.
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

// The per-thread-default-stream symbols, as a program built with --default-stream per-thread
// reaches them.
extern "C" CUresult cuMemsetD8_v2_ptds(CUdeviceptr dstDevice, unsigned char uc, size_t N);
extern "C" CUresult cuMemcpyDtoH_v2_ptds(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount);

namespace {

class Memcpy : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
  }
  void TearDown() override { EXPECT_EQ(cuCtxDestroy(ctx), CUDA_SUCCESS); }
  CUcontext ctx = nullptr;
};

TEST_F(Memcpy, AllocPitch) {
  CUdeviceptr d;
  size_t pitch = 0;
  ASSERT_EQ(cuMemAllocPitch(&d, &pitch, 100, 7, 4), CUDA_SUCCESS);
  EXPECT_GE(pitch, 100u);
  EXPECT_EQ(pitch % 256, 0u);
  CUdeviceptr base;
  size_t size;
  ASSERT_EQ(cuMemGetAddressRange(&base, &size, d), CUDA_SUCCESS);
  EXPECT_EQ(size, pitch * 7);
  EXPECT_EQ(cuMemAllocPitch(&d, &pitch, 100, 7, 3), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocPitch(&d, &pitch, 0, 7, 4), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAllocPitch(&d, nullptr, 100, 7, 4), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFree(base), CUDA_SUCCESS);
}

TEST_F(Memcpy, UnifiedCopyBetweenAnyMemory) {
  std::vector<uint8_t> h(256), back(256);
  std::iota(h.begin(), h.end(), 0);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 256), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpy(d, reinterpret_cast<CUdeviceptr>(h.data()), 256), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpy(reinterpret_cast<CUdeviceptr>(back.data()), d, 256), CUDA_SUCCESS);
  EXPECT_EQ(back, h);
  EXPECT_EQ(cuMemcpy(d + 200, d, 100), CUDA_ERROR_INVALID_VALUE); // past the allocation
  EXPECT_EQ(cuMemcpy(0, d, 16), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy(d, d, 0), CUDA_SUCCESS);
  ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

TEST_F(Memcpy, PeerCopyBetweenContexts) {
  CUcontext other;
  ASSERT_EQ(cuCtxCreate(&other, nullptr, 0, 0), CUDA_SUCCESS);
  CUdeviceptr a, b;
  ASSERT_EQ(cuMemAlloc(&b, 64), CUDA_SUCCESS); // in `other`
  ASSERT_EQ(cuCtxPopCurrent(nullptr), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&a, 64), CUDA_SUCCESS); // in `ctx`
  ASSERT_EQ(cuMemsetD8(a, 9, 64), CUDA_SUCCESS);
  ASSERT_EQ(cuMemcpyPeer(b, other, a, ctx, 64), CUDA_SUCCESS);
  uint8_t out[64] = {};
  ASSERT_EQ(cuMemcpyDtoH(out, b, 64), CUDA_SUCCESS);
  EXPECT_EQ(out[63], 9);
  EXPECT_EQ(cuMemcpyPeer(b, nullptr, a, ctx, 64), CUDA_ERROR_INVALID_CONTEXT);
  EXPECT_EQ(cuMemcpyPeer(b, other, a, ctx, 65), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuCtxDestroy(other), CUDA_SUCCESS);
  EXPECT_EQ(cuMemcpyPeer(a, ctx, a, other, 8), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuMemFree(a), CUDA_SUCCESS);
}

TEST_F(Memcpy, Copy2DHostToPitchedDeviceAndBack) {
  const size_t w = 10, hgt = 5;
  std::vector<uint8_t> h(w * hgt), back(w * hgt, 0);
  std::iota(h.begin(), h.end(), 1);
  CUdeviceptr d;
  size_t pitch;
  ASSERT_EQ(cuMemAllocPitch(&d, &pitch, w, hgt, 4), CUDA_SUCCESS);
  CUDA_MEMCPY2D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = h.data();
  c.srcPitch = w;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = d;
  c.dstPitch = pitch;
  c.WidthInBytes = w;
  c.Height = hgt;
  ASSERT_EQ(cuMemcpy2D(&c), CUDA_SUCCESS);
  uint8_t row3[16];
  ASSERT_EQ(cuMemcpyDtoH(row3, d + 3 * pitch, w), CUDA_SUCCESS);
  EXPECT_EQ(row3[0], h[3 * w]);
  CUDA_MEMCPY2D back2d{};
  back2d.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
  back2d.srcDevice = d;
  back2d.srcPitch = pitch;
  back2d.dstMemoryType = CU_MEMORYTYPE_HOST;
  back2d.dstHost = back.data();
  back2d.dstPitch = w;
  back2d.WidthInBytes = w;
  back2d.Height = hgt;
  ASSERT_EQ(cuMemcpy2DUnaligned(&back2d), CUDA_SUCCESS);
  EXPECT_EQ(back, h);
  // Errors: pitch below the width, rows past the allocation, arrays, bad memory types.
  CUDA_MEMCPY2D bad = c;
  bad.srcPitch = w - 1;
  EXPECT_EQ(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.Height = hgt + 1;
  EXPECT_EQ(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.dstMemoryType = CU_MEMORYTYPE_ARRAY; // and no array: as NVIDIA's driver answers
  EXPECT_EQ(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.dstMemoryType = static_cast<CUmemorytype>(9);
  EXPECT_EQ(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.srcHost = nullptr;
  EXPECT_EQ(cuMemcpy2D(&bad), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy2D(nullptr), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

TEST_F(Memcpy, Copy3DSubVolume) {
  // A 4x3x2 box at (1,1,1) of an 8x4x3 host volume goes to the origin of a device volume.
  const size_t W = 8, H = 4, D = 3;
  std::vector<uint8_t> h(W * H * D);
  std::iota(h.begin(), h.end(), 0);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 4 * 3 * 2), CUDA_SUCCESS);
  CUDA_MEMCPY3D c{};
  c.srcMemoryType = CU_MEMORYTYPE_HOST;
  c.srcHost = h.data();
  c.srcXInBytes = 1;
  c.srcY = 1;
  c.srcZ = 1;
  c.srcPitch = W;
  c.srcHeight = H;
  c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
  c.dstDevice = d;
  c.dstPitch = 4;
  c.dstHeight = 3;
  c.WidthInBytes = 4;
  c.Height = 3;
  c.Depth = 2;
  ASSERT_EQ(cuMemcpy3D(&c), CUDA_SUCCESS);
  uint8_t out[24];
  ASSERT_EQ(cuMemcpyDtoH(out, d, 24), CUDA_SUCCESS);
  for (size_t z = 0; z < 2; ++z)
    for (size_t y = 0; y < 3; ++y)
      for (size_t x = 0; x < 4; ++x)
        EXPECT_EQ(out[z * 12 + y * 4 + x], h[(z + 1) * W * H + (y + 1) * W + x + 1]);
  CUDA_MEMCPY3D bad = c;
  bad.srcLOD = 1;
  EXPECT_EQ(cuMemcpy3D(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.reserved0 = &bad;
  EXPECT_EQ(cuMemcpy3D(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.Depth = 3; // the device volume holds two slices
  EXPECT_EQ(cuMemcpy3D(&bad), CUDA_ERROR_INVALID_VALUE);
  bad = c;
  bad.dstHeight = 2; // fewer rows per slice than copied
  EXPECT_EQ(cuMemcpy3D(&bad), CUDA_ERROR_INVALID_VALUE);
  // The peer form names the contexts.
  CUDA_MEMCPY3D_PEER p{};
  p.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  p.srcDevice = d;
  p.srcContext = ctx;
  p.srcPitch = 4;
  p.srcHeight = 3;
  p.dstMemoryType = CU_MEMORYTYPE_HOST;
  p.dstHost = out;
  p.dstContext = ctx;
  p.dstPitch = 4;
  p.dstHeight = 3;
  p.WidthInBytes = 4;
  p.Height = 3;
  p.Depth = 2;
  std::memset(out, 0, sizeof out);
  ASSERT_EQ(cuMemcpy3DPeer(&p), CUDA_SUCCESS);
  EXPECT_EQ(out[23], h[2 * W * H + 3 * W + 4]);
  p.srcContext = reinterpret_cast<CUcontext>(&p);
  EXPECT_EQ(cuMemcpy3DPeer(&p), CUDA_ERROR_INVALID_CONTEXT);
  ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

TEST_F(Memcpy, Memset2D) {
  CUdeviceptr d;
  size_t pitch;
  ASSERT_EQ(cuMemAllocPitch(&d, &pitch, 64, 4, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8(d, 0, pitch * 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D32(d, pitch, 0xdeadbeef, 8, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D16(d + 32, pitch, 0x1234, 4, 4), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD2D8(d + 40, pitch, 0x77, 3, 4), CUDA_SUCCESS);
  std::vector<uint8_t> h(pitch * 4);
  ASSERT_EQ(cuMemcpyDtoH(h.data(), d, h.size()), CUDA_SUCCESS);
  for (size_t y = 0; y < 4; ++y) {
    uint32_t v32;
    uint16_t v16;
    std::memcpy(&v32, &h[y * pitch + 28], 4);
    std::memcpy(&v16, &h[y * pitch + 38], 2);
    EXPECT_EQ(v32, 0xdeadbeefu);
    EXPECT_EQ(v16, 0x1234);
    EXPECT_EQ(h[y * pitch + 42], 0x77);
    EXPECT_EQ(h[y * pitch + 43], 0);
  }
  EXPECT_EQ(cuMemsetD2D32(d + 2, pitch, 1, 4, 4), CUDA_ERROR_INVALID_VALUE); // misaligned
  EXPECT_EQ(cuMemsetD2D8(d, 10, 1, 11, 2), CUDA_ERROR_INVALID_VALUE);        // pitch < width
  EXPECT_EQ(cuMemsetD2D8(d, pitch, 1, 8, 5), CUDA_ERROR_INVALID_VALUE);      // past the end
  EXPECT_EQ(cuMemsetD2D8(d, pitch, 1, 0, 5), CUDA_SUCCESS);                  // nothing to do
  ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

TEST_F(Memcpy, PerThreadStreamVariantsBehaveTheSame) {
  // Copies are synchronous, so the _ptds symbols share the implementation.
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 16), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8_v2_ptds(d, 3, 16), CUDA_SUCCESS);
  uint8_t out[16];
  ASSERT_EQ(cuMemcpyDtoH_v2_ptds(out, d, 16), CUDA_SUCCESS);
  EXPECT_EQ(out[15], 3);
  EXPECT_EQ(cuMemcpyDtoH_v2_ptds(out, d, 17), CUDA_ERROR_INVALID_VALUE);
  ASSERT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

// A 3D batch operand naming no array crashes NVIDIA's driver; here it is refused. The batch
// copies' other answers are an H200's (tests/gpu/answers/memcpy_batch.txt).
TEST_F(Memcpy, BatchWithANullArrayOperandIsInvalid) {
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 64), CUDA_SUCCESS);
  CUDA_MEMCPY3D_BATCH_OP op;
  std::memset(&op, 0, sizeof op);
  op.src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  op.src.op.ptr.ptr = d;
  op.dst.type = CU_MEMCPY_OPERAND_TYPE_ARRAY;
  op.extent = {4, 1, 1};
  op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
  EXPECT_EQ(cuMemcpy3DBatchAsync(1, &op, 0, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamDestroy(s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

// A 3D batch copy whose source is read during the call: changing the source right after the call
// does not change what arrives (rows of 8 bytes from a 16-byte pitch).
TEST_F(Memcpy, Batch3DSourceReadDuringTheCall) {
  CUstream s;
  ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
  CUdeviceptr d;
  ASSERT_EQ(cuMemAlloc(&d, 64), CUDA_SUCCESS);
  unsigned char rows[32];
  for (int i = 0; i < 32; ++i)
    rows[i] = static_cast<unsigned char>(i);
  CUDA_MEMCPY3D_BATCH_OP op;
  std::memset(&op, 0, sizeof op);
  op.src.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  op.src.op.ptr.ptr = reinterpret_cast<CUdeviceptr>(rows);
  op.src.op.ptr.rowLength = 16;
  op.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
  op.dst.op.ptr.ptr = d;
  op.extent = {8, 2, 1};
  op.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL;
  ASSERT_EQ(cuMemcpy3DBatchAsync(1, &op, 0, s), CUDA_SUCCESS);
  std::memset(rows, 0xff, sizeof rows);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  unsigned char out[16];
  ASSERT_EQ(cuMemcpyDtoH(out, d, sizeof out), CUDA_SUCCESS);
  EXPECT_EQ(out[0], 0);
  EXPECT_EQ(out[7], 7);
  EXPECT_EQ(out[8], 16);
  EXPECT_EQ(out[15], 23);
  EXPECT_EQ(cuStreamDestroy(s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemFree(d), CUDA_SUCCESS);
}

} // namespace
