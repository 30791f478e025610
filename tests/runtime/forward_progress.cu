// Threads that wait for other threads by spinning on memory, as Volta's independent thread
// scheduling lets them: warps waiting on later warps, lanes on later lanes, blocks on later
// blocks (more blocks than the host has workers), a spin lock, libcu++'s cuda::barrier. Every
// result is exact; on a GPU each case finishes and prints the same.
#include "check.h"

#include <cuda/atomic>
#include <cuda/barrier>

#include <cstdio>
#include <vector>

namespace {

constexpr int kWarps = 8;

// Warp w waits for warp w + 1's value (the last warp starts), then publishes its own:
// v[w] = v[w + 1] + w + 1, so warp 0 ends with 1 + 2 + ... + 8 = 36.
__global__ void warpsWaitOnLaterWarps(int *out) {
  __shared__ volatile int value[kWarps + 1];
  __shared__ volatile int ready[kWarps + 1];
  const int w = threadIdx.x / 32;
  if (threadIdx.x <= kWarps) {
    ready[threadIdx.x] = threadIdx.x == kWarps;
    value[threadIdx.x] = 0;
  }
  __syncthreads();
  while (ready[w + 1] == 0) {
  }
  const int v = value[w + 1] + w + 1;
  __syncwarp();
  if (threadIdx.x % 32 == 0) {
    value[w] = v;
    __threadfence_block();
    ready[w] = 1;
  }
  if (threadIdx.x == 0)
    out[blockIdx.x] = v;
}

// Lane l waits for lane l + 1 (lane 31 starts): each adds its lane index, lane 0 sees 0+...+31.
__global__ void lanesWaitOnLaterLanes(int *out) {
  __shared__ volatile int value[33];
  __shared__ volatile int ready[33];
  const int l = threadIdx.x;
  ready[l] = 0;
  if (l == 0) {
    ready[32] = 1;
    value[32] = 0;
  }
  __syncwarp();
  while (ready[l + 1] == 0) {
  }
  value[l] = value[l + 1] + l;
  __threadfence_block();
  ready[l] = 1;
  if (l == 0)
    out[blockIdx.x] = value[0];
}

// Block 0 waits for the grid's last block, whatever runs first.
__global__ void firstBlockWaitsForLast(volatile int *flag, int *out) {
  if (threadIdx.x != 0)
    return;
  if (blockIdx.x == gridDim.x - 1) {
    out[blockIdx.x] = 2 * blockIdx.x;
    __threadfence();
    *flag = 1;
    return;
  }
  if (blockIdx.x == 0) {
    while (*flag == 0) {
    }
    __threadfence();
    out[0] = out[gridDim.x - 1] + 1;
    return;
  }
  out[blockIdx.x] = blockIdx.x;
}

// Block b waits for block b + 1 (acquire loads and __nanosleep, as libcu++ waits), then
// publishes sum[b] = sum[b + 1] + b with a release store.
__global__ void reverseChain(int *ready, int *sum) {
  if (threadIdx.x != 0)
    return;
  const int b = blockIdx.x;
  int before = 0;
  if (b + 1 < int(gridDim.x)) {
    cuda::atomic_ref<int, cuda::thread_scope_device> next(ready[b + 1]);
    while (next.load(cuda::memory_order_acquire) == 0)
      __nanosleep(100);
    before = sum[b + 1];
  }
  sum[b] = before + b;
  cuda::atomic_ref<int, cuda::thread_scope_device>(ready[b]).store(1, cuda::memory_order_release);
}

// Thread 0 of every block takes a lock with atomicCAS, bumps a plain counter, releases it.
__global__ void spinLock(int *lock, volatile int *counter) {
  if (threadIdx.x != 0)
    return;
  while (atomicCAS(lock, 0, 1) != 0) {
  }
  __threadfence();
  *counter = *counter + 1;
  __threadfence();
  atomicExch(lock, 0);
}

// libcu++'s documented way to declare a block barrier in shared memory (init() constructs it).
#pragma nv_diag_suppress static_var_with_dynamic_init

// libcu++'s block barrier between phases: thread t adds its neighbours' values of the phase before.
__global__ void libcuxxBarrier(int *out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  __shared__ int s[128];
  const int t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  s[t] = t;
  int mine = t;
  for (int phase = 0; phase < 4; ++phase) {
    bar.arrive_and_wait();
    mine = s[(t + 1) % 128] + s[(t + 127) % 128];
    bar.arrive_and_wait();
    s[t] = mine;
  }
  out[blockIdx.x * 128 + t] = mine;
}

bool report(const char *name, bool ok) {
  std::printf("%s %s\n", name, ok ? "ok" : "WRONG");
  return ok;
}

template <class T> std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

} // namespace

int main() {
  bool ok = true;
  int *buf = nullptr, *aux = nullptr;
  CHECK(cudaMalloc(&buf, 1 << 20));
  CHECK(cudaMalloc(&aux, 1 << 20));

  warpsWaitOnLaterWarps<<<4, 32 * kWarps>>>(buf);
  CHECK(cudaDeviceSynchronize());
  bool good = true;
  for (int v : download(buf, 4))
    good = good && v == 36;
  ok = report("warps_wait_on_later_warps", good) && ok;

  lanesWaitOnLaterLanes<<<3, 32>>>(buf);
  CHECK(cudaDeviceSynchronize());
  good = true;
  for (int v : download(buf, 3))
    good = good && v == 496;
  ok = report("lanes_wait_on_later_lanes", good) && ok;

  const int blocks = 64;
  CHECK(cudaMemset(aux, 0, 4));
  firstBlockWaitsForLast<<<blocks, 64>>>(aux, buf);
  CHECK(cudaDeviceSynchronize());
  auto first = download(buf, blocks);
  good = first[0] == 2 * (blocks - 1) + 1 && first[blocks - 1] == 2 * (blocks - 1);
  for (int b = 1; b < blocks - 1; ++b)
    good = good && first[b] == b;
  ok = report("first_block_waits_for_last", good) && ok;

  const int chain = 40;
  CHECK(cudaMemset(aux, 0, chain * sizeof(int)));
  reverseChain<<<chain, 32>>>(aux, buf);
  CHECK(cudaDeviceSynchronize());
  auto sums = download(buf, chain);
  good = true;
  for (int b = 0; b < chain; ++b)
    good = good && sums[b] == (chain - 1 + b) * (chain - b) / 2;
  ok = report("reverse_chain", good) && ok;

  CHECK(cudaMemset(aux, 0, 8));
  spinLock<<<96, 64>>>(aux, aux + 1);
  CHECK(cudaDeviceSynchronize());
  ok = report("spin_lock", download(aux, 2)[1] == 96) && ok;

  libcuxxBarrier<<<2, 128>>>(buf);
  CHECK(cudaDeviceSynchronize());
  // The same four phases on the host.
  std::vector<int> s(128), next(128);
  for (int t = 0; t < 128; ++t)
    s[t] = t;
  for (int phase = 0; phase < 4; ++phase) {
    for (int t = 0; t < 128; ++t)
      next[t] = s[(t + 1) % 128] + s[(t + 127) % 128];
    s = next;
  }
  auto got = download(buf, 256);
  good = true;
  for (int i = 0; i < 256; ++i)
    good = good && got[i] == s[i % 128];
  ok = report("libcuxx_barrier", good) && ok;

  CHECK(cudaFree(buf));
  CHECK(cudaFree(aux));
  std::printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
