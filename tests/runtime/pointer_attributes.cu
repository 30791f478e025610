// cudaPointerGetAttributes on every kind of memory, with the answers an H100 gives: device
// memory (type 2, no host pointer), pinned (1), managed (3, host pointer itself), and a stack
// address CUDA does not know (0, device -2, host pointer itself).
#include "check.h"

int main() {
  float *d, *h, *m;
  CHECK(cudaMalloc(&d, 64));
  CHECK(cudaMallocHost(&h, 64));
  CHECK(cudaMallocManaged(&m, 64));
  int local = 0;
  struct {
    void *p;
    cudaMemoryType type;
    int device;
    bool hostIsSelf, devIsSelf;
  } cases[] = {{d, cudaMemoryTypeDevice, 0, false, true},
               {h, cudaMemoryTypeHost, 0, true, true},
               {m, cudaMemoryTypeManaged, 0, true, true},
               {&local, cudaMemoryTypeUnregistered, -2, true, false}};
  bool ok = true;
  for (const auto &c : cases) {
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, c.p));
    bool good = pa.type == c.type && pa.device == c.device &&
                (pa.hostPointer == (c.hostIsSelf ? c.p : nullptr)) &&
                (pa.devicePointer == (c.devIsSelf ? c.p : nullptr));
    std::printf("type %d device %d host %s device pointer %s: %s\n", pa.type, pa.device,
                pa.hostPointer == c.p ? "itself"
                : pa.hostPointer      ? "other"
                                      : "null",
                pa.devicePointer == c.p ? "itself"
                : pa.devicePointer      ? "other"
                                        : "null",
                good ? "ok" : "WRONG");
    ok = ok && good;
  }
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
