// Records NVIDIA's CUDA IPC between two processes: a parent exports a cuMemAlloc allocation and
// an interprocess event, a child (forked before either uses CUDA) opens both, reads and writes
// the memory and waits for the event; what each may not do (other memory, offsets, events
// without CU_EVENT_INTERPROCESS, opening in the exporting process, closing twice). The child's
// lines come back through a pipe so the output's order is fixed. Its output on cucpu must equal
// the GPU's (tests/gpu/answers/ipc.txt, compared by the ctest api_ipc_answers).
// Usage: record_ipc
#include "record.h"

#include <cuda.h>

#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Handles {
  CUipcMemHandle mem;
  CUipcEventHandle event;
};

bool readAll(int fd, void *p, size_t n) {
  auto *c = static_cast<char *>(p);
  while (n) {
    ssize_t r = read(fd, c, n);
    if (r <= 0)
      return false;
    c += r;
    n -= size_t(r);
  }
  return true;
}

// The child: opens what the parent exported; its report goes to `out`; a byte on `go` lets the
// parent's recorded work finish.
int child(int in, int out, int go) {
  Handles h;
  if (!readAll(in, &h, sizeof h))
    return 1;
  std::string report;
  auto line = [&](const char *what, CUresult r) {
    report += std::string("child: ") + what + " " + std::to_string(int(r)) + "\n";
  };
  CUcontext ctx;
  line("cuInit", cuInit(0));
  line("cuCtxCreate", cuCtxCreate(&ctx, nullptr, 0, 0));
  CUdeviceptr p = 0;
  line("cuIpcOpenMemHandle(flags 7)", cuIpcOpenMemHandle(&p, h.mem, 7));
  line("cuIpcOpenMemHandle", cuIpcOpenMemHandle(&p, h.mem, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));
  CUdeviceptr again = 0;
  line("cuIpcOpenMemHandle again", cuIpcOpenMemHandle(&again, h.mem, 1));
  report += "child: opened twice at the same address " + std::to_string(int(again == p)) + "\n";
  unsigned words[4] = {};
  line("cuMemcpyDtoH", cuMemcpyDtoH(words, p, sizeof words));
  report += "child: reads " + std::to_string(words[0]) + " " + std::to_string(words[3]) + "\n";
  line("cuMemsetD32(p + 4, 77, 1)", cuMemsetD32(p + 4, 77, 1));
  size_t size = 0;
  CUdeviceptr base = 0;
  line("cuMemGetAddressRange", cuMemGetAddressRange(&base, &size, p + 8));
  report += "child: range from the base " + std::to_string(int(base == p)) + ", size " +
            std::to_string(size) + "\n";
  CUevent ev;
  line("cuIpcOpenEventHandle", cuIpcOpenEventHandle(&ev, h.event));
  line("cuEventQuery before the parent's work ends", cuEventQuery(ev));
  if (write(go, "g", 1) != 1)
    return 1;
  CUstream s;
  line("cuStreamCreate", cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  line("cuStreamWaitEvent", cuStreamWaitEvent(s, ev, 0));
  line("cuEventSynchronize", cuEventSynchronize(ev));
  line("cuEventQuery", cuEventQuery(ev));
  line("cuEventRecord(opened event)", cuEventRecord(ev, s));
  line("cuStreamSynchronize", cuStreamSynchronize(s));
  line("cuEventDestroy", cuEventDestroy(ev));
  line("cuIpcCloseMemHandle(again)", cuIpcCloseMemHandle(again));
  line("cuIpcCloseMemHandle", cuIpcCloseMemHandle(p));
  line("cuIpcCloseMemHandle twice", cuIpcCloseMemHandle(p));
  line("cuCtxDestroy", cuCtxDestroy(ctx));
  return write(out, report.data(), report.size()) == ssize_t(report.size()) ? 0 : 1;
}

int goFd = -1;
// The parent's recorded work: ends when the child says so.
void CUDA_CB waitForChild(void *) {
  char c;
  if (read(goFd, &c, 1) != 1)
    std::fprintf(stderr, "no word from the child\n");
}

} // namespace

int main() {
  int down[2], up[2], go[2];
  if (pipe(down) || pipe(up) || pipe(go))
    return 1;
  const pid_t pid = fork();
  if (pid == 0) {
    close(down[1]);
    close(up[0]);
    close(go[0]);
    _exit(child(down[0], up[1], go[1]));
  }
  close(down[0]);
  close(up[1]);
  close(go[1]);
  goFd = go[0];

  CUcontext ctx;
  SHOW(cuInit(0));
  SHOW(cuCtxCreate(&ctx, nullptr, 0, 0));
  int v = -1;
  SHOWV(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, 0), v);
  CUdeviceptr d, pooled;
  SHOW(cuMemAlloc(&d, 1 << 20));
  SHOW(cuMemsetD32(d, 1234, 1 << 18));
  Handles h;
  std::memset(&h, 0, sizeof h);
  SHOW(cuIpcGetMemHandle(nullptr, d));
  SHOW(cuIpcGetMemHandle(&h.mem, d + 256));
  SHOW(cuIpcGetMemHandle(&h.mem, 0));
  void *pinned;
  SHOW(cuMemAllocHost(&pinned, 4096));
  SHOW(cuIpcGetMemHandle(&h.mem, reinterpret_cast<CUdeviceptr>(pinned)));
  CUstream s;
  SHOW(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
  SHOW(cuMemAllocAsync(&pooled, 4096, s));
  SHOW(cuIpcGetMemHandle(&h.mem, pooled));
  SHOW(cuMemFreeAsync(pooled, s));
  SHOW(cuIpcGetMemHandle(&h.mem, d));
  CUdeviceptr mine = 0;
  SHOW(cuIpcOpenMemHandle(&mine, h.mem, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS));

  CUevent plain, shared;
  SHOW(cuEventCreate(&plain, 0));
  SHOW(cuEventCreate(&shared, CU_EVENT_INTERPROCESS | CU_EVENT_DISABLE_TIMING));
  SHOW(cuIpcGetEventHandle(&h.event, plain));
  SHOW(cuIpcGetEventHandle(nullptr, shared));
  SHOW(cuIpcGetEventHandle(&h.event, shared));
  CUevent own;
  SHOW(cuIpcOpenEventHandle(&own, h.event));
  // The child waits for this record: behind work that ends when the child has seen it pending.
  SHOW(cuLaunchHostFunc(s, waitForChild, nullptr));
  SHOW(cuEventRecord(shared, s));

  if (write(down[1], &h, sizeof h) != ssize_t(sizeof h))
    return 1;
  printChildReport(up[0], pid);
  unsigned words[2] = {};
  SHOW(cuMemcpyDtoH(words, d, sizeof words));
  std::printf("the child's write: %u %u\n", words[0], words[1]);
  SHOW(cuIpcCloseMemHandle(d));
  SHOW(cuEventDestroy(shared));
  SHOW(cuMemFree(d));
  SHOW(cuCtxDestroy(ctx));
  return 0;
}
