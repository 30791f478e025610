// Cooperative-groups kernel for the cooperative-launch test: a grid-wide barrier.
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
extern "C" __global__ void gridSum(const int *in, int *partial, int *out, int n) {
  cg::grid_group g = cg::this_grid();
  int t = g.thread_rank();
  int s = 0;
  for (int i = t; i < n; i += g.size()) s += in[i];
  atomicAdd(&partial[blockIdx.x], s);
  g.sync();
  if (t == 0) { int total = 0; for (int b = 0; b < gridDim.x; ++b) total += partial[b]; *out = total; }
}
