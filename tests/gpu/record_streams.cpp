// Prints what NVIDIA's driver answers for stream attributes, capture queries, managed-memory
// attachment and asynchronous 2D operations, to compare cucpu's answers with the real driver.
#include "record.h"

#include <cuda.h>

#include <cstdio>
#include <cstring>
#include <initializer_list>

int main() {
  CUdevice d;
  CUcontext c;
  CUstream s = nullptr, s2 = nullptr;
  CUstreamAttrValue v;
  CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_INVALIDATED;
  cuuint64_t id = 77;
  CUgraph g = reinterpret_cast<CUgraph>(1);
  const CUgraphNode *deps = reinterpret_cast<const CUgraphNode *>(1);
  const CUgraphEdgeData *edges = reinterpret_cast<const CUgraphEdgeData *>(1);
  size_t nd = 77;
  SHOW(cuInit(0));
  SHOW(cuDeviceGet(&d, 0));
  SHOW(cuCtxCreate(&c, nullptr, 0, d));
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  SHOW(cuStreamCreateWithPriority(&s2, 0, -3));
  // (A null value pointer crashes the real driver in cuStreamGetAttribute, so it is not asked.)
  // Defaults of every stream attribute, on a created stream and on the NULL stream.
  for (int a : {1, 3, 8, 9, 10, 2, 4, 5, 99}) {
    for (CUstream h : {s, static_cast<CUstream>(nullptr)}) {
      std::memset(&v, 0x5a, sizeof v);
      CUresult r = cuStreamGetAttribute(h, static_cast<CUstreamAttrID>(a), &v);
      std::printf("get attr %d on %s: %d  words %08x %08x %08x %08x %08x %08x\n", a,
                  h ? "stream" : "NULL", r, reinterpret_cast<unsigned *>(&v)[0],
                  reinterpret_cast<unsigned *>(&v)[1], reinterpret_cast<unsigned *>(&v)[2],
                  reinterpret_cast<unsigned *>(&v)[3], reinterpret_cast<unsigned *>(&v)[4],
                  reinterpret_cast<unsigned *>(&v)[5]);
    }
  }
  SHOW(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_PRIORITY, &v));
  std::printf("priority of s2: %d\n", v.priority);
  std::memset(&v, 0, sizeof v);
  v.syncPolicy = CU_SYNC_POLICY_BLOCKING_SYNC;
  SHOW(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
  SHOW(cuStreamSetAttribute(nullptr, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
  v.syncPolicy = static_cast<CUsynchronizationPolicy>(9);
  SHOW(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
  std::memset(&v, 0, sizeof v);
  v.priority = -2;
  SHOW(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v));
  SHOW(cuStreamGetAttribute(s, CU_STREAM_ATTRIBUTE_PRIORITY, &v));
  std::printf("priority after set: %d\n", v.priority);
  v.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
  SHOW(cuStreamSetAttribute(s, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v));
  SHOW(cuStreamSetAttribute(s, static_cast<CUstreamAttrID>(99), &v));
  SHOW(cuStreamCopyAttributes(s2, s));
  SHOW(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v));
  std::printf("s2 sync policy after copy: %d\n", v.syncPolicy);
  SHOW(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, &v));
  std::printf("s2 mem sync domain after copy: %d\n", v.memSyncDomain);
  SHOW(cuStreamGetAttribute(s2, CU_STREAM_ATTRIBUTE_PRIORITY, &v));
  std::printf("s2 priority after copy: %d\n", v.priority);
  SHOW(cuStreamCopyAttributes(s2, nullptr));
  SHOW(cuStreamCopyAttributes(nullptr, s));
  // Capture queries on streams that are not capturing.
  SHOW(cuStreamIsCapturing(s, &st));
  std::printf("status %d\n", st);
  SHOW(cuStreamIsCapturing(nullptr, &st));

  SHOW(cuStreamGetCaptureInfo_v3(s, &st, &id, &g, &deps, &edges, &nd));
  std::printf("v3: status %d id %llu graph %p deps %p edges %p n %zu\n", st, (unsigned long long)id,
              (void *)g, (const void *)deps, (const void *)edges, nd);

  SHOW(cuStreamGetCaptureInfo_v3(nullptr, &st, nullptr, nullptr, nullptr, nullptr, nullptr));
  // Managed memory attachment.
  CUdeviceptr m = 0, p = 0;
  SHOW(cuMemAllocManaged(&m, 4096, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuMemAlloc(&p, 4096));
  SHOW(cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_SINGLE));
  SHOW(cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_HOST));
  SHOW(cuStreamAttachMemAsync(s, m, 0, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuStreamAttachMemAsync(s, m, 4096, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuStreamAttachMemAsync(s, m, 100, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuStreamAttachMemAsync(nullptr, m, 0, CU_MEM_ATTACH_SINGLE));
  SHOW(cuStreamAttachMemAsync(s, m, 0, 7));
  SHOW(cuStreamAttachMemAsync(s, p, 0, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuStreamAttachMemAsync(s, 0, 0, CU_MEM_ATTACH_GLOBAL));
  SHOW(cuStreamSynchronize(s));
  // Advice and range attributes of managed memory.
  int iv[4];
  auto range = [&](const char *what, CUmem_range_attribute a, size_t bytes, CUdeviceptr ptr) {
    std::memset(iv, 0x5a, sizeof iv);
    CUresult r = cuMemRangeGetAttribute(iv, bytes, a, ptr, 4096);
    std::printf("range %s: %d  %d %d %d %d\n", what, r, iv[0], iv[1], iv[2], iv[3]);
  };
  range("read mostly", CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4, m);
  range("preferred", CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, 4, m);
  range("accessed by", CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 16, m);
  range("last prefetch", CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, 4, m);
  range("preferred type", CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, 4, m);
  range("preferred id", CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, 4, m);
  range("read mostly, size 8", CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 8, m);
  range("read mostly of device memory", CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4, p);
  range("attribute 99", static_cast<CUmem_range_attribute>(99), 4, m);
  CUmemLocation gpu{CU_MEM_LOCATION_TYPE_DEVICE, d}, cpu{CU_MEM_LOCATION_TYPE_HOST, 0},
      bad{CU_MEM_LOCATION_TYPE_DEVICE, 7};
  SHOW(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu));
  SHOW(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, cpu));
  SHOW(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, gpu));
  SHOW(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_ACCESSED_BY, cpu));
  SHOW(cuMemAdvise(m, 4096, CU_MEM_ADVISE_SET_PREFERRED_LOCATION, bad));
  SHOW(cuMemAdvise(p, 4096, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu));
  SHOW(cuMemAdvise(m, 0, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu));
  SHOW(cuMemPrefetchAsync(m, 4096, gpu, 0, s));
  SHOW(cuStreamSynchronize(s));
  range("read mostly", CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, 4, m);
  range("preferred", CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, 4, m);
  range("accessed by", CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 16, m);
  range("last prefetch", CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, 4, m);
  range("preferred type", CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_TYPE, 4, m);
  range("preferred id", CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION_ID, 4, m);
  range("last prefetch type", CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE, 4, m);
  range("last prefetch id", CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_ID, 4, m);
  SHOW(cuMemAdvise(m, 4096, CU_MEM_ADVISE_UNSET_ACCESSED_BY, gpu));
  range("accessed by after unset", CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, 16, m);
  // Asynchronous 2D memsets and copies.
  SHOW(cuMemsetD2D32Async(p, 64, 0x01020304u, 8, 4, s));
  SHOW(cuMemsetD2D32Async(p, 16, 1u, 8, 4, s));
  SHOW(cuMemsetD2D32Async(p + 2, 64, 1u, 8, 4, s));
  SHOW(cuMemsetD2D8Async(p, 64, 7, 0, 4, s));
  SHOW(cuStreamSynchronize(s));
  CUDA_MEMCPY2D cp;
  std::memset(&cp, 0, sizeof cp);
  unsigned host[64] = {};
  cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
  cp.srcDevice = p;
  cp.srcPitch = 64;
  cp.dstMemoryType = CU_MEMORYTYPE_HOST;
  cp.dstHost = host;
  cp.dstPitch = 32;
  cp.WidthInBytes = 32;
  cp.Height = 4;
  SHOW(cuMemcpy2DAsync_v2(&cp, s));
  SHOW(cuStreamSynchronize(s));
  std::printf("host[0] %08x host[7] %08x host[8] %08x host[31] %08x\n", host[0], host[7], host[8],
              host[31]);
  cp.dstPitch = 16;
  SHOW(cuMemcpy2DAsync_v2(&cp, s));

  SHOW(cuStreamDestroy(s));
  SHOW(cuStreamDestroy(s2));
  SHOW(cuCtxDestroy(c));
  return 0;
}
