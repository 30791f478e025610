// Records NVIDIA's memory pools of every location and allocation type (CUDA 13): pinned host and
// host-NUMA pools, managed pools with and without a preferred location. For each it prints the
// default and current pool queries, cuMemPoolCreate, an allocation's pointer attributes, who can
// read and write it (the host directly, the copy engine), its access flags and usage counters.
// It prints no address, so its output on cucpu must equal the GPU's:
// tests/gpu/answers/location_pools.txt, compared by the ctest api_location_pool_answers.
#include "record.h"

#include <cuda.h>

#include <cstring>
#include <vector>

namespace {

CUdevice dev;
CUstream stream;

struct Case {
  const char *name;
  CUmemAllocationType type;
  CUmemLocationType loc;
  int id;
};

const Case kCases[] = {
    {"pinned device", CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, 0},
    {"pinned device 7", CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, 7},
    {"pinned host", CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_HOST, 0},
    {"pinned host id 5", CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_HOST, 5},
    {"pinned host numa 0", CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_HOST_NUMA, 0},
    {"pinned host numa 64", CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_HOST_NUMA, 64},
    {"pinned host numa current", CU_MEM_ALLOCATION_TYPE_PINNED,
     CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0},
    {"pinned none", CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_NONE, 0},
    {"managed device", CU_MEM_ALLOCATION_TYPE_MANAGED, CU_MEM_LOCATION_TYPE_DEVICE, 0},
    {"managed host", CU_MEM_ALLOCATION_TYPE_MANAGED, CU_MEM_LOCATION_TYPE_HOST, 0},
    {"managed host numa 0", CU_MEM_ALLOCATION_TYPE_MANAGED, CU_MEM_LOCATION_TYPE_HOST_NUMA, 0},
    {"managed none", CU_MEM_ALLOCATION_TYPE_MANAGED, CU_MEM_LOCATION_TYPE_NONE, 0},
    {"managed host numa current", CU_MEM_ALLOCATION_TYPE_MANAGED,
     CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0},
    {"invalid type, device", CU_MEM_ALLOCATION_TYPE_INVALID, CU_MEM_LOCATION_TYPE_DEVICE, 0},
};

CUmemoryPool deviceDefault() {
  CUmemoryPool p = nullptr;
  cuDeviceGetDefaultMemPool(&p, dev);
  return p;
}

void queries(const Case &c) {
  CUmemLocation loc = {c.loc, c.id};
  CUmemoryPool def = nullptr, cur = nullptr;
  SHOW(cuMemGetDefaultMemPool(&def, &loc, c.type));
  SHOW(cuMemGetMemPool(&cur, &loc, c.type));
  std::printf("default %s, current is default %d, device default %d\n", def ? "set" : "null",
              int(def && cur == def), int(def && def == deviceDefault()));
  if (def) {
    CUmemoryPool again = nullptr;
    cuMemGetDefaultMemPool(&again, &loc, c.type);
    std::printf("same default twice %d\n", int(again == def));
  }
}

void attributes(CUdeviceptr p, CUmemoryPool pool) {
  unsigned memType = 0, managed = 0, mapped = 0;
  int ordinal = -2;
  CUmemoryPool owner = nullptr;
  SHOWV(cuPointerGetAttribute(&memType, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p), memType);
  SHOWV(cuPointerGetAttribute(&managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, p), managed);
  SHOWV(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, p), mapped);
  SHOWV(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p), ordinal);
  CUresult r = cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p);
  std::printf("MEMPOOL_HANDLE %d, is the pool %d\n", int(r), int(owner == pool));
  void *host = nullptr;
  r = cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, p);
  std::printf("HOST_POINTER %d, equals the address %d\n", int(r),
              int(host == reinterpret_cast<void *>(p)));
}

// The copy engine writes, the host reads directly (where the memory is host or managed), the host
// writes and the copy engine reads.
void contents(CUdeviceptr p, bool hostVisible) {
  SHOW(cuMemsetD32Async(p, 0x01020304u, 1024, stream));
  SHOW(cuStreamSynchronize(stream));
  if (hostVisible) {
    auto *words = reinterpret_cast<unsigned *>(p);
    std::printf("host reads %x %x\n", words[0], words[1023]);
    for (unsigned i = 0; i < 1024; ++i)
      words[i] = i * 3;
  }
  std::vector<unsigned> out(1024);
  SHOW(cuMemcpyDtoH(out.data(), p, 4096));
  std::printf("copy reads %x %x\n", out[0], out[1023]);
}

void access(CUmemoryPool pool) {
  CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_MAX;
  CUmemLocation devLoc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  CUmemLocation hostLoc = {CU_MEM_LOCATION_TYPE_HOST, 0};
  SHOWV(cuMemPoolGetAccess(&flags, pool, &devLoc), flags);
  flags = CU_MEM_ACCESS_FLAGS_PROT_MAX;
  SHOWV(cuMemPoolGetAccess(&flags, pool, &hostLoc), flags);
  CUmemAccessDesc d = {devLoc, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  SHOW(cuMemPoolSetAccess(pool, &d, 1));
}

void created(const Case &c) {
  CUmemPoolProps props;
  std::memset(&props, 0, sizeof props);
  props.allocType = c.type;
  props.location = {c.loc, c.id};
  CUmemoryPool pool = nullptr;
  SHOW(cuMemPoolCreate(&pool, &props));
  if (!pool)
    return;
  CUdeviceptr p = 0;
  SHOW(cuMemAllocFromPoolAsync(&p, 1 << 20, pool, stream));
  SHOW(cuStreamSynchronize(stream));
  if (p) {
    attributes(p, pool);
    bool hostVisible =
        c.type == CU_MEM_ALLOCATION_TYPE_MANAGED || c.loc != CU_MEM_LOCATION_TYPE_DEVICE;
    contents(p, hostVisible);
    cuuint64_t used = 0, reserved = 0;
    SHOWV(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used), used);
    SHOWV(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved),
          reserved >= used);
    SHOW(cuMemFreeAsync(p, stream));
    SHOW(cuStreamSynchronize(stream));
  }
  access(pool);
  CUmemLocation loc = {c.loc, c.id};
  CUmemoryPool cur = nullptr;
  SHOW(cuMemSetMemPool(&loc, c.type, pool));
  SHOW(cuMemGetMemPool(&cur, &loc, c.type));
  std::printf("current is the new pool %d\n", int(cur == pool));
  CUmemoryPool devCur = nullptr;
  cuDeviceGetMemPool(&devCur, dev);
  std::printf("device's current is the new pool %d\n", int(devCur == pool));
  SHOW(cuMemPoolDestroy(pool));
  SHOW(cuMemGetMemPool(&cur, &loc, c.type));
  CUmemoryPool def = nullptr;
  cuMemGetDefaultMemPool(&def, &loc, c.type);
  std::printf("current after destroy is default %d\n", int(cur == def));
  props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  SHOW(cuMemPoolCreate(&pool, &props));
  if (pool)
    cuMemPoolDestroy(pool);
}

void defaults(const Case &c) {
  CUmemLocation loc = {c.loc, c.id};
  CUmemoryPool def = nullptr;
  if (cuMemGetDefaultMemPool(&def, &loc, c.type) != CUDA_SUCCESS)
    return;
  std::printf("- its default pool\n");
  CUdeviceptr p = 0;
  SHOW(cuMemAllocFromPoolAsync(&p, 4096, def, stream));
  SHOW(cuStreamSynchronize(stream));
  if (p) {
    attributes(p, def);
    SHOW(cuMemFreeAsync(p, stream));
    SHOW(cuStreamSynchronize(stream));
  }
  SHOW(cuMemPoolDestroy(def));
}

bool setUp() {
  CUcontext ctx;
  return cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS &&
         cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS &&
         cuCtxSetCurrent(ctx) == CUDA_SUCCESS &&
         cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING) == CUDA_SUCCESS;
}

// Runs `body` in a process of its own with a fresh context, so that a crash (the host touching
// memory it cannot) ends only that case, and says how the process ended.
template <class F> void inChild(F body) {
  const int status = statusOfChild([&] {
    if (!setUp()) {
      std::printf("set-up failed\n");
      std::fflush(stdout);
      _exit(3);
    }
    body();
  });
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    std::printf("case process ended: %s %d\n", WIFEXITED(status) ? "exit" : "signal",
                WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}

void general() {
  int value = -1;
  SHOWV(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev), value);
  SHOWV(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, dev),
        value);
  SHOWV(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, dev), value);
  SHOWV(cuDeviceGetAttribute(&value, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, dev), value);
  CUmemoryPool pool = nullptr;
  SHOW(cuMemGetDefaultMemPool(nullptr, nullptr, CU_MEM_ALLOCATION_TYPE_PINNED));
  SHOW(cuMemGetDefaultMemPool(&pool, nullptr, CU_MEM_ALLOCATION_TYPE_PINNED));
  SHOW(cuMemGetMemPool(&pool, nullptr, CU_MEM_ALLOCATION_TYPE_PINNED));
  SHOW(cuMemSetMemPool(nullptr, CU_MEM_ALLOCATION_TYPE_PINNED, deviceDefault()));
}

// A pool of one kind set as another kind's current pool.
void crossKind() {
  CUmemPoolProps props;
  std::memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location = {CU_MEM_LOCATION_TYPE_HOST, 0};
  CUmemoryPool pool = nullptr;
  SHOW(cuMemPoolCreate(&pool, &props));
  if (!pool)
    return;
  CUmemLocation devLoc = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  CUmemLocation none = {CU_MEM_LOCATION_TYPE_NONE, 0};
  SHOW(cuMemSetMemPool(&devLoc, CU_MEM_ALLOCATION_TYPE_PINNED, pool));
  SHOW(cuMemSetMemPool(&none, CU_MEM_ALLOCATION_TYPE_MANAGED, pool));
  SHOW(cuDeviceSetMemPool(dev, pool));
  CUdeviceptr p = 0;
  SHOW(cuMemAllocAsync(&p, 4096, stream));
  if (p)
    SHOW(cuMemFreeAsync(p, stream));
  SHOW(cuStreamSynchronize(stream));
  SHOW(cuMemPoolDestroy(pool));
}

} // namespace

int main() {
  inChild(general);
  for (const Case &c : kCases) {
    std::printf("-- %s\n", c.name);
    inChild([&] {
      queries(c);
      created(c);
      defaults(c);
    });
  }
  std::printf("-- cross-kind cuMemSetMemPool\n");
  inChild(crossKind);
  return 0;
}
