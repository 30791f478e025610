// Runtime API: a cooperative launch whose blocks meet at grid.sync().
#include "check.h"
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void twoPhase(int *a, int *b, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = grid.thread_rank();
  if (i < n)
    a[i] = i;
  grid.sync();
  if (i < n)
    b[i] = a[(i + 1) % n]; // written by another block before the barrier
}

int main() {
  // Every block of a cooperative grid must be resident: size the grid as CUDA programs do.
  const int threads = 64;
  int perSm = 0, sms = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, twoPhase, threads, 0));
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  const int blocks = perSm * sms < 4 ? perSm * sms : 4, n = blocks * threads;
  int *a, *b, h[4 * threads];
  CHECK(cudaMalloc(&a, sizeof h));
  CHECK(cudaMalloc(&b, sizeof h));
  int count = n;
  void *args[] = {&a, &b, &count};
  CHECK(cudaLaunchCooperativeKernel((void *)twoPhase, blocks, threads, args, 0, 0));
  CHECK(cudaMemcpy(h, b, sizeof h, cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i)
    if (h[i] != (i + 1) % n) {
      std::printf("FAIL h[%d] = %d\n", i, h[i]);
      return 1;
    }
  std::printf("PASS\n");
}
