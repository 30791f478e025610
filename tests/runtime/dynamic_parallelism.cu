// Dynamic parallelism (CDP2, -rdc=true): kernels launching kernels. Every line it prints is
// compared with an H200's (tests/gpu/answers/dynamic_parallelism.txt): a launch tree, a recursive
// quicksort into device-created streams, tail launches after the parent and its children,
// device-side malloc/free and cudaGetDevice, the errors of a bad launch and of a chain of launches
// longer than the pending-launch limit.
#include "check.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

// A binary tree of grids five levels deep: node i launches nodes 2i+1 and 2i+2.
__global__ void tree(int *nodes, int depth, int index) {
  if (threadIdx.x != 0)
    return;
  nodes[index] = 1000 * depth + index;
  if (depth < 5) {
    tree<<<1, 32>>>(nodes, depth + 1, 2 * index + 1);
    tree<<<1, 32>>>(nodes, depth + 1, 2 * index + 2);
  }
}

__device__ void selectionSort(int *data, int left, int right) {
  for (int i = left; i <= right; ++i) {
    int best = i;
    for (int j = i + 1; j <= right; ++j)
      if (data[j] < data[best])
        best = j;
    int t = data[i];
    data[i] = data[best];
    data[best] = t;
  }
}

// One thread partitions [left, right] around its middle value and launches a grid for each side
// into a stream of its own (as NVIDIA's cdpSimpleQuicksort does).
__global__ void quicksort(int *data, int left, int right, int depth) {
  if (depth >= 16 || right - left <= 32) {
    selectionSort(data, left, right);
    return;
  }
  const int pivot = data[(left + right) / 2];
  int l = left, r = right;
  while (l <= r) {
    while (data[l] < pivot)
      ++l;
    while (data[r] > pivot)
      --r;
    if (l <= r) {
      int t = data[l];
      data[l] = data[r];
      data[r] = t;
      ++l;
      --r;
    }
  }
  if (left < r) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(data, left, r, depth + 1);
    cudaStreamDestroy(s);
  }
  if (l < right) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    quicksort<<<1, 1, 0, s>>>(data, l, right, depth + 1);
    cudaStreamDestroy(s);
  }
}

__global__ void writeOne(int *flag) { *flag = 1; }

// What a tail launch sees: the parent's blocks and its other child have finished.
__global__ void tailReport(const int *blocksDone, const int *childDone, int *report) {
  report[0] = *blocksDone;
  report[1] = *childDone;
}

__global__ void tailParent(int *blocksDone, int *childDone, int *report) {
  if (threadIdx.x == 0 && blockIdx.x == 0) {
    tailReport<<<1, 1, 0, cudaStreamTailLaunch>>>(blocksDone, childDone, report);
    writeOne<<<1, 1>>>(childDone);
  }
  __syncthreads();
  if (threadIdx.x == 0)
    atomicAdd(blocksDone, 1);
}

__global__ void sumChild(const int *values, int n, int *sum) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += values[i];
  *sum = s;
  cudaFree(const_cast<int *>(values));
}

// Device-side malloc filled by the parent, summed and freed by its child; the device's ordinal.
__global__ void mallocParent(int *sum, int *device, int *status) {
  int *values = nullptr;
  status[0] = cudaMalloc(reinterpret_cast<void **>(&values), 64 * sizeof(int));
  for (int i = 0; i < 64; ++i)
    values[i] = i;
  status[1] = cudaGetDevice(device);
  sumChild<<<1, 1>>>(values, 64, sum);
}

__global__ void noop() {}

__global__ void addTo(int *where, int value) { *where += value; }

// The device runtime's explicit launch API (cudaGetParameterBuffer, cudaLaunchDevice), as code
// written for the PTX-level interface uses it: a buffer laid out as addTo's parameters.
__global__ void explicitLaunch(int *where, int *status) {
  void *buffer = cudaGetParameterBuffer(64, 16);
  *reinterpret_cast<int **>(buffer) = where;
  *reinterpret_cast<int *>(static_cast<char *>(buffer) + 8) = 5;
  status[0] = cudaLaunchDevice(reinterpret_cast<void *>(addTo), buffer, dim3(1), dim3(1), 0, 0);
  void *bad = cudaGetParameterBuffer(64, 16);
  status[1] = cudaLaunchDevice(reinterpret_cast<void *>(addTo), bad, dim3(1), dim3(4096), 0, 0);
}

// A launch of too many threads, then what cudaPeekAtLastError and cudaGetLastError report.
__global__ void badLaunch(int *codes) {
  noop<<<1, 2048>>>();
  codes[0] = cudaPeekAtLastError();
  codes[1] = cudaGetLastError();
  codes[2] = cudaGetLastError();
  noop<<<1, 32>>>();
  codes[3] = cudaGetLastError();
}

// Each level launches the next until its launch fails: every ancestor's launch is pending until
// its descendants finish, so the chain stops at the pending-launch limit (2048 by default).
__global__ void deep(int *reached, int *error, int depth) {
  *reached = depth;
  if (depth >= 5000)
    return;
  deep<<<1, 1>>>(reached, error, depth + 1);
  const int e = cudaGetLastError();
  if (e != cudaSuccess)
    *error = e;
}

template <class T> std::vector<T> download(const T *d, size_t n) {
  std::vector<T> h(n);
  CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

} // namespace

int main() {
  int *buf = nullptr;
  CHECK(cudaMalloc(&buf, 1 << 20));

  CHECK(cudaMemset(buf, 0xff, 63 * sizeof(int)));
  tree<<<1, 32>>>(buf, 0, 0);
  CHECK(cudaDeviceSynchronize());
  int nodes = 0;
  auto t = download(buf, 63);
  for (int i = 0; i < 63; ++i) {
    int depth = 0;
    for (int k = i + 1; k > 1; k /= 2)
      ++depth;
    nodes += t[i] == 1000 * depth + i;
  }
  std::printf("tree: %d of 63 nodes\n", nodes);

  const int n = 4096;
  std::vector<int> keys(n);
  srand(7);
  for (auto &k : keys)
    k = rand() % 10000;
  CHECK(cudaMemcpy(buf, keys.data(), n * sizeof(int), cudaMemcpyHostToDevice));
  quicksort<<<1, 1>>>(buf, 0, n - 1, 0);
  CHECK(cudaDeviceSynchronize());
  std::sort(keys.begin(), keys.end());
  std::printf("quicksort: %s\n", download(buf, n) == keys ? "sorted" : "WRONG");

  CHECK(cudaMemset(buf, 0, 16));
  tailParent<<<8, 64>>>(buf, buf + 1, buf + 2);
  CHECK(cudaDeviceSynchronize());
  auto tail = download(buf, 4);
  std::printf("tail launch saw: %d blocks done, child done %d\n", tail[2], tail[3]);

  CHECK(cudaMemset(buf, 0, 16));
  mallocParent<<<1, 1>>>(buf, buf + 1, buf + 2);
  CHECK(cudaDeviceSynchronize());
  auto m = download(buf, 4);
  std::printf("device malloc: status %d, sum %d; cudaGetDevice: status %d, device %d\n", m[2], m[0],
              m[3], m[1]);

  CHECK(cudaMemset(buf, 0, 16));
  explicitLaunch<<<1, 1>>>(buf, buf + 1);
  CHECK(cudaDeviceSynchronize());
  auto e = download(buf, 3);
  std::printf("explicit launch: value %d, status %d, too many threads %d\n", e[0], e[1], e[2]);

  CHECK(cudaMemset(buf, 0xff, 16));
  badLaunch<<<1, 1>>>(buf);
  CHECK(cudaDeviceSynchronize());
  auto codes = download(buf, 4);
  std::printf("bad launch: peek %d, get %d, get again %d, after a good launch %d\n", codes[0],
              codes[1], codes[2], codes[3]);

  CHECK(cudaMemset(buf, 0, 8));
  deep<<<1, 1>>>(buf, buf + 1, 1);
  CHECK(cudaDeviceSynchronize());
  auto d = download(buf, 2);
  std::printf("nesting: depth %d reached, error %d\n", d[0], d[1]);

  CHECK(cudaGetLastError());
  CHECK(cudaFree(buf));
  std::printf("PASS\n");
  return 0;
}
