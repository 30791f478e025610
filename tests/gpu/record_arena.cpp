// Records what a kernel's store just outside device memory gives on NVIDIA's driver: beyond the
// end of large and odd-sized allocations, below one, and into freed memory, each case in a
// process of its own (a fault ends the context).
// Usage: record_arena tests/api/arena/poke.ptx. Checked by tests/api/arena_test.cpp.
#include "record.h"

#include <cuda.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

struct Case {
  const char *name;
  size_t bytes;     // the allocation
  long long offset; // where poke stores, from its base
  bool freeFirst;   // the allocation is freed before the launch
};

const Case kCases[] = {
    {"store at the end of a 64 MiB allocation", size_t(64) << 20, 64ll << 20, false},
    {"store 2 MiB past the end of a 64 MiB allocation", size_t(64) << 20, 66ll << 20, false},
    {"store 4 bytes below a 64 MiB allocation", size_t(64) << 20, -4, false},
    {"store into a freed 64 MiB allocation", size_t(64) << 20, 4096, true},
    {"store at the end of a 65537-byte allocation's pages", 65537, 69632, false},
    {"store into a freed 256-byte allocation", 256, 0, true},
    {"store inside a 256-byte allocation", 256, 252, false},
};

void run(const Case &c, const std::string &ptx) {
  CUcontext ctx;
  CUmodule mod;
  CUfunction poke;
  CUdeviceptr d;
  if (cuInit(0) || cuCtxCreate(&ctx, nullptr, 0, 0) || cuModuleLoadData(&mod, ptx.c_str()) ||
      cuModuleGetFunction(&poke, mod, "poke") || cuMemAlloc(&d, c.bytes))
    _exit(3);
  if (c.freeFirst)
    cuMemFree(d);
  unsigned long long offset = static_cast<unsigned long long>(c.offset);
  void *args[] = {&d, &offset};
  CUresult launch = cuLaunchKernel(poke, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr);
  CUresult sync = cuCtxSynchronize();
  std::printf("%-56s launch %d, synchronize %d\n", c.name, int(launch), int(sync));
  std::fflush(stdout);
  _exit(0);
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2)
    return 2;
  const std::string ptx = readFile(argv[1]);
  for (const Case &c : kCases) {
    pid_t pid = fork();
    if (pid == 0)
      run(c, ptx);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      std::printf("%-56s child ended with status %d\n", c.name, status);
  }
  return 0;
}
