// Records NVIDIA's stream-ordered memory pools: the device attributes, default and current pools,
// cuMemPoolCreate and its refusals, every attribute's default and what setting it does, used and
// reserved memory across allocations, frees, synchronisation and trims with and without a release
// threshold, reuse of a freed block, access, and destroying pools. Sizes of reserved memory are
// the pool's own business and are printed only as comparisons. Its output on cucpu must equal the
// GPU's (tests/gpu/answers/pools.txt, compared by the ctest api_pool_answers). Usage: record_pools
#include "record.h"

#include <cuda.h>

#include <cstring>

namespace {

cuuint64_t attr(CUmemoryPool pool, CUmemPool_attribute a) {
  cuuint64_t v = 0;
  if (a <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) {
    int i = -1;
    CUresult r = cuMemPoolGetAttribute(pool, a, &i);
    return r ? 1000 + r : cuuint64_t(i);
  }
  CUresult r = cuMemPoolGetAttribute(pool, a, &v);
  return r ? 1000 + r : v;
}

void attributes(const char *what, CUmemoryPool pool) {
  std::printf("%s: reuse %llu %llu %llu threshold %llu used %llu/%llu\n", what,
              (unsigned long long)attr(pool, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES),
              (unsigned long long)attr(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC),
              (unsigned long long)attr(pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES),
              (unsigned long long)attr(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD),
              (unsigned long long)attr(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT),
              (unsigned long long)attr(pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH));
  const cuuint64_t reserved = attr(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
  const cuuint64_t high = attr(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH);
  std::printf("%s: reserved %s, reserved >= used %d, high >= reserved %d\n", what,
              reserved == 0 ? "0" : "> 0",
              int(reserved >= attr(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT)), int(high >= reserved));
  std::fflush(stdout);
}

} // namespace

int main() {
  CUcontext ctx;
  CUdevice dev = 0;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, dev));
  int v = -1;
  SHOWV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev), v);
  // (MEMPOOL_SUPPORTED_HANDLE_TYPES: 9 on an H200, POSIX file descriptors and fabric handles;
  // cucpu's: 1, file descriptors: tests/gpu/record_pool_ipc.cpp.)
  CUmemoryPool def = nullptr, cur = nullptr, mine = nullptr, other = nullptr;
  SHOW(cuDeviceGetDefaultMemPool(&def, dev));
  SHOW(cuDeviceGetMemPool(&cur, dev));
  SHOW(cur == def);
  SHOW(cuDeviceGetDefaultMemPool(nullptr, dev));
  SHOW(cuDeviceGetDefaultMemPool(&cur, 7));
  attributes("default pool", def);

  CUmemPoolProps props;
  std::memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = 0;
  SHOW(cuMemPoolCreate(nullptr, &props));
  SHOW(cuMemPoolCreate(&other, nullptr));
  CUmemPoolProps bad = props;
  bad.allocType = CU_MEM_ALLOCATION_TYPE_INVALID;
  SHOW(cuMemPoolCreate(&other, &bad));
  bad = props;
  bad.location.id = 9;
  SHOW(cuMemPoolCreate(&other, &bad));
  bad = props;
  bad.location.type = CU_MEM_LOCATION_TYPE_INVALID;
  SHOW(cuMemPoolCreate(&other, &bad));
  SHOW(cuMemPoolCreate(&mine, &props));
  SHOW(mine != def);
  attributes("new pool", mine);

  // Attributes: what may be set.
  int one = 0;
  cuuint64_t big = 64ull << 20, zero = 0, some = 5;
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &one));
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &big));
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &zero));
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &zero));
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &some));
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
  SHOW(cuMemPoolSetAttribute(mine, CUmemPool_attribute(99), &zero));
  // (A null value crashes NVIDIA's cuMemPoolSetAttribute; cucpu answers INVALID_VALUE.)
  attributes("after setting", mine);
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &(one = 1)));

  // Allocation, use, frees and synchronisation with a 64 MiB release threshold.
  CUstream s;
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr a = 0, b = 0, c = 0;
  SHOW(cuMemAllocFromPoolAsync(&a, 1000, mine, s));
  SHOW(a % 256 == 0);
  attributes("1000 bytes allocated", mine);
  SHOW(cuMemAllocFromPoolAsync(&b, 3 << 20, mine, s));
  attributes("and 3 MiB", mine);
  CUmemoryPool owner = nullptr;
  SHOWV(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, b), owner == mine);
  SHOW(cuMemsetD8Async(b, 7, 3 << 20, s));
  SHOW(cuMemFreeAsync(b, s));
  SHOW(cuStreamSynchronize(s));
  attributes("3 MiB freed, synchronized, threshold 64 MiB", mine);
  SHOW(cuMemAllocFromPoolAsync(&c, 3 << 20, mine, s));
  SHOW(c == b);
  SHOW(cuMemFreeAsync(c, s));
  SHOW(cuMemFreeAsync(a, s));
  SHOW(cuStreamSynchronize(s));
  attributes("all freed, synchronized, threshold 64 MiB", mine);
  SHOW(cuMemPoolTrimTo(mine, 0));
  attributes("trimmed to 0", mine);

  // Threshold 0 (the default): memory goes back at synchronisation.
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &zero));
  SHOW(cuMemAllocFromPoolAsync(&a, 8 << 20, mine, s));
  SHOW(cuMemFreeAsync(a, s));
  attributes("8 MiB freed, not synchronized, threshold 0", mine);
  SHOW(cuStreamSynchronize(s));
  attributes("synchronized", mine);
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero));
  SHOW(cuMemPoolSetAttribute(mine, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero));
  attributes("highs reset", mine);

  // The current pool: cuMemAllocAsync takes from it.
  SHOW(cuDeviceSetMemPool(dev, mine));
  SHOW(cuDeviceGetMemPool(&cur, dev));
  SHOW(cur == mine);
  SHOW(cuMemAllocAsync(&a, 4096, s));
  SHOWV(cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a), owner == mine);
  attributes("4096 bytes through cuMemAllocAsync", mine);
  SHOW(cuMemFree(a));
  attributes("freed by cuMemFree", mine);
  SHOW(cuDeviceSetMemPool(dev, def));
  SHOW(cuMemAllocAsync(&a, 0, s));
  SHOW(a == 0);
  SHOW(cuMemAllocFromPoolAsync(&a, 0, mine, s));
  SHOW(cuMemAllocFromPoolAsync(nullptr, 16, mine, s));
  SHOW(cuMemAllocFromPoolAsync(&a, 16, nullptr, s));
  SHOW(cuMemAllocFromPoolAsync(&a, size_t(1) << 50, mine, s));

  // Access.
  CUmemAccessDesc desc;
  desc.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  desc.location.id = 0;
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
  CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_MAX;
  SHOWV(cuMemPoolGetAccess(&flags, mine, &desc.location), flags);
  SHOW(cuMemPoolSetAccess(mine, &desc, 1));
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_READ;
  SHOW(cuMemPoolSetAccess(mine, &desc, 1));
  desc.flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
  SHOW(cuMemPoolSetAccess(mine, &desc, 1));
  SHOW(cuMemPoolSetAccess(mine, nullptr, 1));
  SHOW(cuMemPoolSetAccess(mine, &desc, 0));

  // Export needs a pool created for it.
  int fd = -1;
  SHOW(cuMemPoolExportToShareableHandle(&fd, mine, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));

  // Destroying: the default pool cannot be; a pool with live memory can.
  SHOW(cuMemPoolDestroy(def));
  SHOW(cuMemAllocFromPoolAsync(&a, 4096, mine, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemPoolDestroy(mine));
  SHOW(cuMemFreeAsync(a, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemPoolDestroy(nullptr));
  return 0;
}
