// Records NVIDIA's memory pools shared between processes: a parent creates a pool exportable as a
// POSIX file descriptor, exports it and a pointer allocated from it; a child (forked before either
// uses CUDA) receives the descriptor over a Unix socket, imports the pool and the pointer, reads
// and writes the memory and frees its import; refusals on both sides. The child's lines come back
// through the socket so the output's order is fixed. Its output on cucpu must equal the GPU's
// (tests/gpu/answers/pool_ipc.txt, compared by the ctest api_pool_ipc_answers).
// Usage: record_pool_ipc
#include "record.h"

#include <cuda.h>

#include <cstring>
#include <string>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

void sendFd(int sock, int fd, const void *data, size_t bytes) {
  msghdr msg{};
  iovec iov{const_cast<void *>(data), bytes};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  char control[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (sendmsg(sock, &msg, 0) < 0)
    std::perror("sendmsg");
}

int receiveFd(int sock, void *data, size_t bytes) {
  msghdr msg{};
  iovec iov{data, bytes};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  char control[CMSG_SPACE(sizeof(int))] = {};
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (recvmsg(sock, &msg, MSG_WAITALL) < 0)
    return -1;
  cmsghdr *c = CMSG_FIRSTHDR(&msg);
  int fd = -1;
  if (c && c->cmsg_type == SCM_RIGHTS)
    std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  return fd;
}

int child(int sock) {
  CUmemPoolPtrExportData data;
  const int fd = receiveFd(sock, &data, sizeof data);
  std::string report;
  auto line = [&](const char *what, CUresult r) {
    report += std::string("child: ") + what + " " + std::to_string(int(r)) + "\n";
  };
  CUcontext ctx;
  line("cuInit", cuInit(0));
  line("cuCtxCreate", cuCtxCreate(&ctx, nullptr, 0, 0));
  CUmemoryPool pool = nullptr;
  line("cuMemPoolImportFromShareableHandle(wrong type)",
       cuMemPoolImportFromShareableHandle(&pool, reinterpret_cast<void *>(uintptr_t(fd)),
                                          CU_MEM_HANDLE_TYPE_WIN32, 0));
  line("cuMemPoolImportFromShareableHandle",
       cuMemPoolImportFromShareableHandle(&pool, reinterpret_cast<void *>(uintptr_t(fd)),
                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  CUdeviceptr p = 0;
  line("cuMemPoolImportPointer(null data)", cuMemPoolImportPointer(&p, pool, nullptr));
  line("cuMemPoolImportPointer", cuMemPoolImportPointer(&p, pool, &data));
  unsigned words[2] = {};
  line("cuMemcpyDtoH", cuMemcpyDtoH(words, p, sizeof words));
  report += "child: reads " + std::to_string(words[0]) + " " + std::to_string(words[1]) + "\n";
  line("cuMemsetD32(p + 4, 55, 1)", cuMemsetD32(p + 4, 55, 1));
  CUmemoryPool owner = nullptr;
  line("cuPointerGetAttribute(MEMPOOL_HANDLE)",
       cuPointerGetAttribute(&owner, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p));
  report += "child: owner is the imported pool " + std::to_string(int(owner == pool)) + "\n";
  CUmemPoolPtrExportData again;
  line("cuMemPoolExportPointer(imported)", cuMemPoolExportPointer(&again, p));
  line("cuMemFree(imported)", cuMemFree(p));
  line("cuMemPoolDestroy(imported)", cuMemPoolDestroy(pool));
  line("cuCtxDestroy", cuCtxDestroy(ctx));
  return write(sock, report.data(), report.size()) == ssize_t(report.size()) ? 0 : 1;
}

} // namespace

int main() {
  int socks[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, socks))
    return 1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(socks[0]);
    _exit(child(socks[1]));
  }
  close(socks[1]);

  CUcontext ctx;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  int types = -1;
  SHOWV(cuDeviceGetAttribute(&types, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, 0),
        types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
  CUmemPoolProps props;
  std::memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
  CUmemoryPool pool, plain, def;
  SHOW(cuMemPoolCreate(&pool, &props));
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  SHOW(cuMemPoolCreate(&plain, &props));
  SHOW(cuDeviceGetDefaultMemPool(&def, 0));
  int fd = -1;
  SHOW(cuMemPoolExportToShareableHandle(&fd, plain, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  SHOW(cuMemPoolExportToShareableHandle(&fd, def, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  SHOW(cuMemPoolExportToShareableHandle(&fd, pool, CU_MEM_HANDLE_TYPE_WIN32, 0));
  SHOW(cuMemPoolExportToShareableHandle(&fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 1));
  SHOW(cuMemPoolExportToShareableHandle(&fd, pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
  SHOW(fd >= 0);
  CUmemoryPool mine = nullptr;
  SHOW(cuMemPoolImportFromShareableHandle(&mine, reinterpret_cast<void *>(uintptr_t(fd)),
                                          CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));

  CUstream s;
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  CUdeviceptr p, q, r;
  SHOW(cuMemAllocFromPoolAsync(&p, 1 << 20, pool, s));
  SHOW(cuMemAllocFromPoolAsync(&q, 4096, plain, s));
  SHOW(cuMemAlloc(&r, 4096));
  SHOW(cuMemsetD32Async(p, 4321, 1 << 18, s));
  SHOW(cuStreamSynchronize(s));
  CUmemPoolPtrExportData data;
  SHOW(cuMemPoolExportPointer(nullptr, p));
  SHOW(cuMemPoolExportPointer(&data, q));
  SHOW(cuMemPoolExportPointer(&data, r));
  SHOW(cuMemPoolExportPointer(&data, p + 256));
  SHOW(cuMemPoolExportPointer(&data, p));

  sendFd(socks[0], fd, &data, sizeof data);
  printChildReport(socks[0], pid);
  unsigned words[2] = {};
  SHOW(cuMemcpyDtoH(words, p, sizeof words));
  std::printf("the child's write: %u %u\n", words[0], words[1]);
  SHOW(cuMemFreeAsync(p, s));
  SHOW(cuMemFreeAsync(q, s));
  SHOW(cuStreamSynchronize(s));
  SHOW(cuMemFree(r));
  close(fd);
  SHOW(cuMemPoolDestroy(pool));
  SHOW(cuMemPoolDestroy(plain));
  SHOW(cuCtxDestroy(ctx));
  return 0;
}
