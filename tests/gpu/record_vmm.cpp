// Records NVIDIA's virtual memory management: granularity, cuMemCreate/AddressReserve/Map/
// SetAccess/Unmap/Release and their refusals, an array grown in place, aliases of one handle,
// retained handles and properties, kernels touching unmapped or inaccessible ranges, and a handle
// exported as a POSIX file descriptor and imported by another process. It prints no address, so
// its output on cucpu must equal the GPU's: tests/gpu/answers/vmm.txt, compared by the ctest
// api_vmm_answers. Usage: record_vmm tests/api/vmm/fill.ptx
#include "record.h"

#include <cuda.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <vector>

namespace {

std::string ptx;
CUfunction fill;
constexpr size_t kMiB = size_t(1) << 20;

CUmemAllocationProp deviceProp(bool exportable = false) {
  CUmemAllocationProp p;
  std::memset(&p, 0, sizeof p);
  p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  p.location.id = 0;
  if (exportable)
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  return p;
}

CUmemAccessDesc access(CUmemAccess_flags flags) {
  CUmemAccessDesc d;
  d.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  d.location.id = 0;
  d.flags = flags;
  return d;
}

void setUp() {
  CUcontext ctx;
  CUmodule mod;
  if (cuInit(0) || cuCtxCreate(&ctx, nullptr, 0, 0) || cuModuleLoadData(&mod, ptx.c_str()) ||
      cuModuleGetFunction(&fill, mod, "fill")) {
    std::printf("set-up failed\n");
    _exit(3);
  }
}

CUresult launchFill(CUdeviceptr p, unsigned n, unsigned v) {
  void *args[] = {&p, &n, &v};
  CUresult r = cuLaunchKernel(fill, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr);
  return r != CUDA_SUCCESS ? r : cuCtxSynchronize();
}

// Runs `body` in a process of its own (a kernel fault ends the context).
template <class F> void inChild(const char *what, F body) {
  std::printf("-- %s\n", what);
  const int status = statusOfChild([&] {
    setUp();
    body();
  });
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    std::printf("   child ended with status %d\n", status);
}

void attributesAndGranularity() {
  CUdevice dev = 0;
  int v = -1;
  SHOWV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, dev), v);
  SHOWV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED,
                             dev),
        v);
  CUmemAllocationProp p = deviceProp();
  size_t g = 0;
  SHOWV(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM), g);
  SHOWV(cuMemGetAllocationGranularity(&g, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED), g);
  SHOW(cuMemGetAllocationGranularity(nullptr, &p, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  SHOW(cuMemGetAllocationGranularity(&g, nullptr, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  SHOW(cuMemGetAllocationGranularity(&g, &p, CUmemAllocationGranularity_flags(7)));
  CUmemAllocationProp bad = deviceProp();
  bad.location.id = 5;
  SHOW(cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
  bad = deviceProp();
  bad.type = CU_MEM_ALLOCATION_TYPE_INVALID;
  SHOW(cuMemGetAllocationGranularity(&g, &bad, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
}

void createAndRefusals() {
  CUmemAllocationProp p = deviceProp();
  CUmemGenericAllocationHandle h = 0;
  SHOW(cuMemCreate(&h, 0, &p, 0));
  SHOW(cuMemCreate(&h, 4096, &p, 0));
  SHOW(cuMemCreate(&h, 3 * kMiB, &p, 0));
  SHOW(cuMemCreate(nullptr, 2 * kMiB, &p, 0));
  SHOW(cuMemCreate(&h, 2 * kMiB, nullptr, 0));
  SHOW(cuMemCreate(&h, 2 * kMiB, &p, 1));
  CUmemAllocationProp bad = deviceProp();
  bad.location.id = 5;
  SHOW(cuMemCreate(&h, 2 * kMiB, &bad, 0));
  bad = deviceProp();
  bad.location.type = CU_MEM_LOCATION_TYPE_INVALID;
  SHOW(cuMemCreate(&h, 2 * kMiB, &bad, 0));
  SHOW(cuMemCreate(&h, 2 * kMiB, &p, 0));
  SHOW(cuMemRelease(h));
  SHOW(cuMemRelease(h));
  SHOW(cuMemRelease(0));
  CUdeviceptr va = 0;
  SHOW(cuMemAddressReserve(&va, 0, 0, 0, 0));
  SHOW(cuMemAddressReserve(&va, 3 * kMiB, 0, 0, 0));
  SHOW(cuMemAddressReserve(nullptr, 2 * kMiB, 0, 0, 0));
  SHOW(cuMemAddressReserve(&va, 2 * kMiB, 3 * kMiB, 0, 0));
  SHOW(cuMemAddressReserve(&va, 2 * kMiB, 0, 0, 1));
  SHOW(cuMemAddressReserve(&va, 64 * kMiB, 0, 0, 0));
  SHOW((va % (2 * kMiB) == 0));
  SHOW(cuMemAddressFree(va, 32 * kMiB));
  SHOW(cuMemAddressFree(va + 2 * kMiB, 62 * kMiB));
  SHOW(cuMemAddressFree(va, 64 * kMiB));
  SHOW(cuMemAddressFree(va, 64 * kMiB));
  SHOW(cuMemAddressReserve(&va, 8 * kMiB, 8 * kMiB, 0, 0));
  SHOW((va % (8 * kMiB) == 0));
  SHOW(cuMemAddressFree(va, 8 * kMiB));
}

void mapGrowAndAlias() {
  CUmemAllocationProp p = deviceProp();
  CUmemGenericAllocationHandle a = 0, b = 0, r = 0;
  CUdeviceptr va = 0, alias = 0, plain = 0;
  SHOW(cuMemCreate(&a, 2 * kMiB, &p, 0));
  SHOW(cuMemCreate(&b, 4 * kMiB, &p, 0));
  SHOW(cuMemAddressReserve(&va, 16 * kMiB, 0, 0, 0));
  SHOW(cuMemMap(va, 2 * kMiB, 0, a, 0));
  SHOW(cuMemMap(va, 2 * kMiB, 0, a, 0));
  SHOW(cuMemMap(va + 4096, 2 * kMiB, 0, b, 0));
  SHOW(cuMemMap(va + 2 * kMiB, 2 * kMiB, 4096, b, 0));
  SHOW(cuMemMap(va + 2 * kMiB, 6 * kMiB, 0, b, 0));
  SHOW(cuMemMap(va + 2 * kMiB, 2 * kMiB, 0, b, 1));
  SHOW(cuMemMap(va + 2 * kMiB, 2 * kMiB, 0, 0, 0));
  SHOW(cuMemMap(va + 12 * kMiB, 2 * kMiB, 0, a, 0)); // a second view of `a`, left mapped
  SHOW(cuMemAlloc(&plain, 4 * kMiB));
  SHOW(cuMemMap(plain, 2 * kMiB, 0, b, 0));
  SHOW(cuMemMap(va + 2 * kMiB, 4 * kMiB, 0, b, 0)); // grown in place: 6 MiB contiguous
  CUmemAccessDesc rw = access(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
  SHOW(cuMemSetAccess(va, 6 * kMiB, &rw, 1));
  SHOW(cuMemSetAccess(va, 8 * kMiB, &rw, 1));
  SHOW(cuMemSetAccess(va, 6 * kMiB, nullptr, 1));
  SHOW(cuMemSetAccess(va, 6 * kMiB, &rw, 0));
  unsigned long long flags = 99;
  CUmemLocation loc = rw.location;
  SHOWV(cuMemGetAccess(&flags, &loc, va + kMiB), flags);
  SHOWV(cuMemGetAccess(&flags, &loc, va + 7 * kMiB), flags);
  SHOW(launchFill(va, 6 * kMiB / 4, 7));
  std::vector<unsigned> host(6 * kMiB / 4);
  SHOW(cuMemcpyDtoH(host.data(), va, 6 * kMiB));
  bool ok = true;
  for (size_t i = 0; i < host.size(); ++i)
    ok = ok && host[i] == 7 + i;
  SHOW(ok);
  SHOW(cuMemsetD32(va + 2 * kMiB - 8, 0xabcd, 4));
  unsigned word = 0;
  SHOWV(cuMemcpyDtoH(&word, va + 2 * kMiB + 4, 4), word);
  // Pointer queries on mapped memory.
  CUdeviceptr base = 0;
  size_t size = 0;
  SHOW(cuMemGetAddressRange(&base, &size, va + 3 * kMiB));
  SHOW(base == va + 2 * kMiB);
  SHOW(size / kMiB);
  unsigned type = 0;
  SHOWV(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + 5), type);
  int mapped = -1;
  SHOWV(cuPointerGetAttribute(&mapped, CU_POINTER_ATTRIBUTE_MAPPED, va + 5), mapped);
  unsigned long long aflags = 0;
  SHOWV(cuPointerGetAttribute(&aflags, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, va + 5), aflags);
  // The same handle mapped twice: two views of one memory.
  SHOW(cuMemAddressReserve(&alias, 4 * kMiB, 0, 0, 0));
  SHOW(cuMemMap(alias, 4 * kMiB, 0, b, 0));
  SHOW(cuMemSetAccess(alias, 4 * kMiB, &rw, 1));
  SHOWV(cuMemcpyDtoH(&word, alias + 4, 4), word);
  SHOW(cuMemsetD32(alias + 8, 0x1234, 1));
  SHOWV(cuMemcpyDtoH(&word, va + 2 * kMiB + 8, 4), word);
  // Handles and properties.
  SHOW(cuMemRetainAllocationHandle(&r, reinterpret_cast<void *>(va + 3 * kMiB)));
  SHOW(r == b);
  SHOW(cuMemRelease(r));
  SHOW(cuMemRetainAllocationHandle(&r, reinterpret_cast<void *>(plain)));
  SHOW(cuMemRetainAllocationHandle(&r, reinterpret_cast<void *>(va + 10 * kMiB)));
  CUmemAllocationProp got;
  std::memset(&got, 0x5a, sizeof got);
  SHOW(cuMemGetAllocationPropertiesFromHandle(&got, b));
  SHOW(got.type);
  SHOW(got.location.type);
  SHOW(got.location.id);
  SHOW(got.requestedHandleTypes);
  SHOW(cuMemFree(va));
  // Unmapping: whole mappings only; release while mapped keeps the memory.
  SHOW(cuMemUnmap(va + 2 * kMiB, 2 * kMiB));
  SHOW(cuMemUnmap(va + kMiB, kMiB));
  SHOW(cuMemRelease(b));
  SHOWV(cuMemcpyDtoH(&word, alias + 8, 4), word);
  SHOW(cuMemUnmap(alias, 4 * kMiB));
  SHOW(cuMemUnmap(alias, 4 * kMiB));
  SHOW(cuMemAddressFree(alias, 4 * kMiB));
  SHOW(cuMemUnmap(va, 6 * kMiB));
  SHOW(cuMemGetAddressRange(&base, &size, va + 3 * kMiB));
  SHOW(cuMemRelease(a));
  SHOW(cuMemAddressFree(va, 16 * kMiB)); // still mapped at va + 12 MiB
  SHOW(cuMemUnmap(va + 12 * kMiB, 2 * kMiB));
  SHOW(cuMemAddressFree(va, 16 * kMiB));
  SHOW(cuMemFree(plain));
}

// A 2 MiB handle mapped at a reservation of its size, with no access yet.
CUdeviceptr mappedChunk() {
  CUmemAllocationProp p = deviceProp();
  CUmemGenericAllocationHandle h = 0;
  CUdeviceptr va = 0;
  SHOW(cuMemCreate(&h, 2 * kMiB, &p, 0));
  SHOW(cuMemAddressReserve(&va, 2 * kMiB, 0, 0, 0));
  SHOW(cuMemMap(va, 2 * kMiB, 0, h, 0));
  return va;
}

void faults() {
  inChild("a kernel storing to mapped memory without access", [] {
    const CUdeviceptr va = mappedChunk();
    SHOW(launchFill(va, 16, 1));
  });
  inChild("a copy from mapped memory without access", [] {
    const CUdeviceptr va = mappedChunk();
    unsigned word = 0;
    SHOW(cuMemcpyDtoH(&word, va, 4));
  });
  inChild("a kernel storing to read-only memory", [] {
    const CUdeviceptr va = mappedChunk();
    CUmemAccessDesc ro = access(CU_MEM_ACCESS_FLAGS_PROT_READ);
    SHOW(cuMemSetAccess(va, 2 * kMiB, &ro, 1));
    SHOW(launchFill(va, 16, 1));
  });
  inChild("a kernel storing to unmapped reserved memory", [] {
    CUmemAllocationProp p = deviceProp();
    CUmemGenericAllocationHandle h = 0;
    CUdeviceptr va = 0;
    SHOW(cuMemCreate(&h, 2 * kMiB, &p, 0));
    SHOW(cuMemAddressReserve(&va, 4 * kMiB, 0, 0, 0));
    SHOW(cuMemMap(va, 2 * kMiB, 0, h, 0));
    CUmemAccessDesc rw = access(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    SHOW(cuMemSetAccess(va, 2 * kMiB, &rw, 1));
    SHOW(launchFill(va + 2 * kMiB, 16, 1));
  });
}

// A one-byte message with room for one descriptor (SCM_RIGHTS) beside it.
struct FdMessage {
  char byte = 0;
  iovec io{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  FdMessage() {
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
  }
};

void sendFd(int sock, int fd) {
  FdMessage m;
  cmsghdr *c = CMSG_FIRSTHDR(&m.msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  sendmsg(sock, &m.msg, 0);
}

int receiveFd(int sock) {
  FdMessage m;
  if (recvmsg(sock, &m.msg, 0) <= 0)
    return -1;
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m.msg)), sizeof fd);
  return fd;
}

// One process exports a handle as a file descriptor and sends it over a socket; another imports
// it, maps it and reads what the first wrote.
void shareBetweenProcesses() {
  int socks[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, socks);
  std::printf("-- a handle exported as a POSIX file descriptor, imported by another process\n");
  std::fflush(stdout);
  pid_t exporter = fork();
  if (exporter == 0) {
    setUp();
    CUmemAllocationProp p = deviceProp(true), q = deviceProp();
    CUmemGenericAllocationHandle h = 0, plain = 0;
    CUdeviceptr va = 0;
    SHOW(cuMemCreate(&h, 2 * kMiB, &p, 0));
    CUmemAllocationProp got;
    std::memset(&got, 0, sizeof got);
    SHOW(cuMemGetAllocationPropertiesFromHandle(&got, h));
    SHOW(got.requestedHandleTypes);
    SHOW(cuMemAddressReserve(&va, 2 * kMiB, 0, 0, 0));
    SHOW(cuMemMap(va, 2 * kMiB, 0, h, 0));
    CUmemAccessDesc rw = access(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    SHOW(cuMemSetAccess(va, 2 * kMiB, &rw, 1));
    SHOW(launchFill(va, 1024, 100));
    int fd = -1, other = -1;
    SHOW(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    SHOW(fd >= 0);
    SHOW(cuMemExportToShareableHandle(&other, h, CU_MEM_HANDLE_TYPE_FABRIC, 0));
    SHOW(cuMemExportToShareableHandle(&other, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
    SHOW(cuMemCreate(&plain, 2 * kMiB, &q, 0));
    SHOW(cuMemExportToShareableHandle(&other, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    sendFd(socks[0], fd);
    char done;
    if (read(socks[0], &done, 1) != 1) // the importer has read the memory
      std::printf("importer gone\n");
    _exit(0);
  }
  pid_t importer = fork();
  if (importer == 0) {
    setUp();
    int fd = receiveFd(socks[1]);
    SHOW(fd >= 0);
    CUmemGenericAllocationHandle h = 0, none = 0;
    SHOW(cuMemImportFromShareableHandle(&h, reinterpret_cast<void *>(static_cast<intptr_t>(fd)),
                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    CUmemAllocationProp got;
    std::memset(&got, 0, sizeof got);
    SHOW(cuMemGetAllocationPropertiesFromHandle(&got, h));
    SHOW(got.requestedHandleTypes);
    CUdeviceptr va = 0;
    SHOW(cuMemAddressReserve(&va, 2 * kMiB, 0, 0, 0));
    SHOW(cuMemMap(va, 2 * kMiB, 0, h, 0));
    CUmemAccessDesc rw = access(CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    SHOW(cuMemSetAccess(va, 2 * kMiB, &rw, 1));
    unsigned words[2] = {};
    SHOW(cuMemcpyDtoH(words, va + 4 * 1000, 8));
    SHOW(words[0]);
    SHOW(words[1]);
    SHOW(cuMemImportFromShareableHandle(&none, reinterpret_cast<void *>(intptr_t(-1)),
                                        CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    std::fflush(stdout);
    if (write(socks[1], "x", 1) != 1)
      _exit(4);
    _exit(0);
  }
  int status = 0;
  waitpid(importer, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    std::printf("   importer ended with status %d\n", status);
  waitpid(exporter, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    std::printf("   exporter ended with status %d\n", status);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  ptx = readFile(argv[1]);
  inChild("attributes and granularity", attributesAndGranularity);
  inChild("create, reserve and their refusals", createAndRefusals);
  inChild("map, grow in place, alias, query, unmap", mapGrowAndAlias);
  faults();
  shareBetweenProcesses();
  return 0;
}
