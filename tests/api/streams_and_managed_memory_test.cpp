// Stream attributes, capture queries, managed memory (attachment, advice, range attributes) and
// stream-ordered 2D/3D copies and memsets. The return codes and default values are NVIDIA's
// driver's (H200, driver 580.159.04, recorded with tests/gpu/record_streams.cpp).
#include <cuda.h>
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

namespace {

class Streams : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(cuInit(0), CUDA_SUCCESS);
    ASSERT_EQ(cuCtxCreate(&ctx, nullptr, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), CUDA_SUCCESS);
    ASSERT_EQ(cuStreamCreateWithPriority(&s2, 0, -3), CUDA_SUCCESS);
  }
  void TearDown() override {
    cuStreamDestroy(s);
    cuStreamDestroy(s2);
    cuCtxDestroy(ctx);
  }
  CUcontext ctx = nullptr;
  CUstream s = nullptr, s2 = nullptr;
};

// The words of the value union after a get into a buffer of 0x5a bytes.
std::vector<unsigned> words(CUstream h, int attr, CUresult *r) {
  CUstreamAttrValue v;
  std::memset(&v, 0x5a, sizeof v);
  *r = cuStreamGetAttribute(h, static_cast<CUstreamAttrID>(attr), &v);
  std::vector<unsigned> w(2);
  std::memcpy(w.data(), &v, 8);
  return w;
}

TEST_F(Streams, AttributeDefaultsAsTheDriverReportsThem) {
  for (CUstream h : {s, static_cast<CUstream>(nullptr), CU_STREAM_PER_THREAD}) {
    CUresult r;
    EXPECT_EQ(words(h, CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW, &r),
              (std::vector<unsigned>{0, 0}));
    EXPECT_EQ(r, CUDA_SUCCESS);
    EXPECT_EQ(words(h, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &r),
              (std::vector<unsigned>{0xffffffffu, 0x5a5a5a5au}));
    EXPECT_EQ(words(h, CU_STREAM_ATTRIBUTE_PRIORITY, &r), (std::vector<unsigned>{0, 0x5a5a5a5au}));
    EXPECT_EQ(words(h, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, &r),
              (std::vector<unsigned>{0x5a5a0100u, 0x5a5a5a5au}));
    EXPECT_EQ(words(h, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &r),
              (std::vector<unsigned>{0, 0x5a5a5a5au}));
    for (int bad : {2, 4, 5, 99}) {
      words(h, bad, &r);
      EXPECT_EQ(r, CUDA_ERROR_INVALID_VALUE) << bad;
    }
  }
  CUstreamAttrValue v;
  ASSERT_EQ(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_PRIORITY, &v), CUDA_SUCCESS);
  EXPECT_EQ(v.priority, -3);
  EXPECT_EQ(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamGetAttribute(reinterpret_cast<CUstream>(&v), CU_STREAM_ATTRIBUTE_PRIORITY, &v),
            CUDA_ERROR_INVALID_HANDLE);
}

TEST_F(Streams, SetAndCopyAttributes) {
  CUstreamAttrValue v{};
  v.syncPolicy = CU_SYNC_POLICY_BLOCKING_SYNC;
  EXPECT_EQ(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSetAttribute(nullptr, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v),
            CUDA_SUCCESS);
  v.syncPolicy = static_cast<CUsynchronizationPolicy>(9);
  EXPECT_EQ(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v),
            CUDA_ERROR_INVALID_VALUE);
  std::memset(&v, 0, sizeof v);
  v.priority = -2;
  EXPECT_EQ(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v), CUDA_SUCCESS);
  v.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
  EXPECT_EQ(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamSetAttribute(s, static_cast<CUstreamAttrID>(99), &v), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, nullptr),
            CUDA_ERROR_INVALID_VALUE);
  int prio = 0;
  ASSERT_EQ(cuStreamGetPriority(s, &prio), CUDA_SUCCESS);
  EXPECT_EQ(prio, -2);
  // Copying takes every attribute, the priority included.
  ASSERT_EQ(cuStreamCopyAttributes(s2, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v), CUDA_SUCCESS);
  EXPECT_EQ(v.syncPolicy, CU_SYNC_POLICY_BLOCKING_SYNC);
  ASSERT_EQ(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v), CUDA_SUCCESS);
  EXPECT_EQ(v.memSyncDomain, CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE);
  ASSERT_EQ(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_PRIORITY, &v), CUDA_SUCCESS);
  EXPECT_EQ(v.priority, -2);
  EXPECT_EQ(cuStreamCopyAttributes(s2, nullptr), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamCopyAttributes(nullptr, s), CUDA_SUCCESS);
  // The NULL stream got s's attributes.
  ASSERT_EQ(cuStreamGetAttribute(nullptr, CU_STREAM_ATTRIBUTE_PRIORITY, &v), CUDA_SUCCESS);
  EXPECT_EQ(v.priority, -2);
}

TEST_F(Streams, NoStreamIsCapturing) {
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
  EXPECT_EQ(cuStreamIsCapturing(s, &st), CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_NONE);
  st = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
  EXPECT_EQ(cuStreamIsCapturing(nullptr, &st), CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(cuStreamIsCapturing(s, nullptr), CUDA_ERROR_INVALID_VALUE);
  // Not capturing: the other outputs are left as they were.
  cuuint64_t id = 77;
  CUgraph g = reinterpret_cast<CUgraph>(1);
  const CUgraphNode *deps = reinterpret_cast<const CUgraphNode *>(1);
  const CUgraphEdgeData *edges = reinterpret_cast<const CUgraphEdgeData *>(1);
  size_t n = 77;
  st = CU_STREAM_CAPTURE_STATUS_ACTIVE;
  EXPECT_EQ(cuStreamGetCaptureInfo(s, &st, &id, &g, &deps, &edges, &n), CUDA_SUCCESS);
  EXPECT_EQ(st, CU_STREAM_CAPTURE_STATUS_NONE);
  EXPECT_EQ(id, 77u);
  EXPECT_EQ(n, 77u);
  EXPECT_EQ(cuStreamGetCaptureInfo(nullptr, &st, nullptr, nullptr, nullptr, nullptr, nullptr),
            CUDA_SUCCESS);
}

TEST_F(Streams, AttachingManagedMemory) {
  CUdeviceptr m = 0, p = 0;
  ASSERT_EQ(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&p, 4096), CUDA_SUCCESS);
  unsigned managed = 0; // a 4-byte flag, as an H100 writes it
  ASSERT_EQ(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m), CUDA_SUCCESS);
  EXPECT_TRUE(managed);
  ASSERT_EQ(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p), CUDA_SUCCESS);
  EXPECT_FALSE(managed);
  EXPECT_EQ(cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_SINGLE), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_HOST), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamAttachMemAsync(s, m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  EXPECT_EQ(cuStreamAttachMemAsync(s, m, 100, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamAttachMemAsync(nullptr, m, 0, CU_MEM_ATTACH_SINGLE), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamAttachMemAsync(s, m, 0, 7), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamAttachMemAsync(s, p, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamAttachMemAsync(s, 0, 0, CU_MEM_ATTACH_GLOBAL), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  cuMemFree(m);
  cuMemFree(p);
}

TEST_F(Streams, TwoDimensionalMemsetAndCopyInStreamOrder) {
  CUdeviceptr p = 0;
  ASSERT_EQ(cuMemAlloc(&p, 4096), CUDA_SUCCESS);
  ASSERT_EQ(cuMemsetD8(p, 0, 4096), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD2D32Async(p, 64, 0x01020304u, 8, 4, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD2D32Async(p, 16, 1u, 8, 4, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D32Async(p + 2, 64, 1u, 8, 4, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemsetD2D8Async(p, 64, 7, 0, 4, s), CUDA_SUCCESS);
  EXPECT_EQ(cuMemsetD2D16Async(p + 32, 64, 0xabcd, 2, 4, s), CUDA_SUCCESS);
  unsigned host[32] = {};
  CUDA_MEMCPY2D cp;
  std::memset(&cp, 0, sizeof cp);
  cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.srcDevice = p;
  cp.srcPitch = 64;
  cp.dstMemoryType = CU_MEMORYTYPE_HOST;
  cp.dstHost = host;
  cp.dstPitch = 40;
  cp.WidthInBytes = 40;
  cp.Height = 3;
  EXPECT_EQ(cuMemcpy2DAsync(&cp, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  for (int row = 0; row < 3; ++row) {
    for (int k = 0; k < 8; ++k)
      EXPECT_EQ(host[row * 10 + k], 0x01020304u) << row << " " << k;
    EXPECT_EQ(host[row * 10 + 8], 0xabcdabcdu) << row;
    EXPECT_EQ(host[row * 10 + 9], 0u) << row;
  }
  EXPECT_EQ(host[30], 0u); // the fourth row was not copied
  cp.dstPitch = 16;
  EXPECT_EQ(cuMemcpy2DAsync(&cp, s), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemcpy2DAsync(nullptr, s), CUDA_ERROR_INVALID_VALUE);
  // A 3D copy on the per-thread default stream: two 2x16-byte slices into a packed buffer.
  CUDA_MEMCPY3D c3;
  std::memset(&c3, 0, sizeof c3);
  unsigned packed[16] = {};
  c3.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  c3.srcDevice = p;
  c3.srcPitch = 64;
  c3.srcHeight = 2;
  c3.dstMemoryType = CU_MEMORYTYPE_HOST;
  c3.dstHost = packed;
  c3.dstPitch = 16;
  c3.dstHeight = 2;
  c3.WidthInBytes = 16;
  c3.Height = 2;
  c3.Depth = 2;
  EXPECT_EQ(cuMemcpy3DAsync(&c3, CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(CU_STREAM_PER_THREAD), CUDA_SUCCESS);
  for (int i = 0; i < 16; ++i)
    EXPECT_EQ(packed[i], 0x01020304u) << i;
  cuMemFree(p);
}

} // namespace

namespace {

// Advice and prefetches on managed memory, read back through the range attributes; values and
// codes as NVIDIA's driver gives them (tests/gpu/record_streams.cpp).
TEST_F(Streams, ManagedMemoryAdviceAndRangeAttributes) {
  CUdeviceptr m = 0, p = 0;
  ASSERT_EQ(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL), CUDA_SUCCESS);
  ASSERT_EQ(cuMemAlloc(&p, 4096), CUDA_SUCCESS);
  auto range = [&](CUmem_range_attribute a, size_t bytes = 4, CUdeviceptr ptr = 0) {
    std::vector<int> v(4, 0x5a5a5a5a);
    CUresult r = cuMemRangeGetAttribute(v.data(), bytes, a, ptr ? ptr : m, 4096);
    v.insert(v.begin(), static_cast<int>(r));
    return v;
  };
  const int x = 0x5a5a5a5a;
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), (std::vector<int>{0, 0, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), (std::vector<int>{0, -2, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 16), (std::vector<int>{0, -2, -2, -2, -2}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
            (std::vector<int>{0, -2, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
            (std::vector<int>{0, 0, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID),
            (std::vector<int>{0, -2, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 8)[0], CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4, p)[0], CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(range(static_cast<CUmem_range_attribute>(99))[0], CUDA_ERROR_INVALID_VALUE);

  CUmemLocation gpu{CU_MEM_LOCATION_TYPE_DEVICE, 0}, cpu{CU_MEM_LOCATION_TYPE_HOST, 0},
      bad{CU_MEM_LOCATION_TYPE_DEVICE, 7};
  EXPECT_EQ(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, cpu), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, gpu), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, cpu), CUDA_SUCCESS);
  EXPECT_EQ(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, bad),
            CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemAdvise(m, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemPrefetchAsync(m, 4096, gpu, 0, s), CUDA_SUCCESS);
  ASSERT_EQ(cuStreamSynchronize(s), CUDA_SUCCESS);
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY), (std::vector<int>{0, 1, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION), (std::vector<int>{0, -1, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 16), (std::vector<int>{0, 0, -1, -2, -2}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION),
            (std::vector<int>{0, 0, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE),
            (std::vector<int>{0, 2, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID),
            (std::vector<int>{0, -1, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE),
            (std::vector<int>{0, 1, x, x, x}));
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID),
            (std::vector<int>{0, 0, x, x, x}));
  EXPECT_EQ(cuMemAdvise(m, 4096, CU_MEM_ADVISE_UNSET_ACCESSED_BY, gpu), CUDA_SUCCESS);
  EXPECT_EQ(range(CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 16), (std::vector<int>{0, -1, -2, -2, -2}));
  // Several attributes at once.
  int rm = -7, pl = -7;
  void *data[] = {&rm, &pl};
  size_t sizes[] = {4, 4};
  CUmem_range_attribute attrs[] = {CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY,
                                   CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION};
  EXPECT_EQ(cuMemRangeGetAttributes(data, sizes, attrs, 2, m, 4096), CUDA_SUCCESS);
  EXPECT_EQ(rm, 1);
  EXPECT_EQ(pl, -1);
  EXPECT_EQ(cuMemRangeGetAttributes(data, sizes, attrs, 0, m, 4096), CUDA_ERROR_INVALID_VALUE);
  EXPECT_EQ(cuMemRangeGetAttributes(nullptr, sizes, attrs, 2, m, 4096), CUDA_ERROR_INVALID_VALUE);
  cuMemFree(m);
  cuMemFree(p);
}

} // namespace
