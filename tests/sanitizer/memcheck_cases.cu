// Planted bugs and legal controls for memcheck: `memcheck_cases NAME` runs one case and prints
// the error the launch and the synchronisation returned. compute-sanitizer's verdicts on an H200
// are in tests/gpu/answers/sanitizer/ (tests/gpu/record_sanitizer.sh); the source lines of the
// kernels below are part of those answers, so any edit here means recording again.
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void writeAll(int *a) { a[threadIdx.x] = threadIdx.x; }

__global__ void readPrevious(const int *a, int *out) {
  int i = threadIdx.x;
  out[i] = a[i - 1];
}

__global__ void readOne(const int *a, int *out) { *out = *a; }

__global__ void writeOne(int *a) { *a = 7; }

__global__ void sharedWrite(int extra) {
  extern __shared__ int s[];
  s[threadIdx.x + extra] = threadIdx.x;
  __syncthreads();
}

__global__ void localIndex(int *out, int index) {
  int buf[8];
  for (int i = 0; i < 8; ++i)
    buf[i] = out[i];
  buf[index] = 1;
  for (int i = 0; i < 8; ++i)
    out[i] = buf[i];
}

__global__ void heapOverrun(int *out, int index) {
  int *p = static_cast<int *>(malloc(16));
  if (!p)
    return;
  p[index] = 5;
  *out = p[0];
  free(p);
}

__global__ void readVector(const float4 *a, float4 *out, int index) { *out = a[index]; }

__global__ void addAtomic(int *a, int index) { atomicAdd(&a[index], 1); }

__device__ int deviceTable[16];
__constant__ int constantTable[16];

__device__ __noinline__ int sumThrough(const int *p, int n) {
  int s = 0;
  for (int i = 0; i < n; ++i)
    s += p[i];
  return s;
}

__global__ void legalSpaces(int *out) {
  __shared__ int tile[32];
  tile[threadIdx.x] = threadIdx.x;
  __syncthreads();
  int s = sumThrough(tile, 32) + sumThrough(deviceTable, 16) + constantTable[threadIdx.x % 16];
  out[threadIdx.x] = s;
}

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("setup failed: %s: %s\n", #call, cudaGetErrorName(e_));                        \
      return 2;                                                                                  \
    }                                                                                            \
  } while (0)

static int finish(const char *name) {
  cudaError_t launch = cudaGetLastError();
  cudaError_t sync = cudaDeviceSynchronize();
  std::printf("%s: launch %s, synchronize %s\n", name, cudaGetErrorName(launch),
              cudaGetErrorName(sync));
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::printf("usage: memcheck_cases NAME\n");
    return 2;
  }
  const char *c = argv[1];
  auto is = [&](const char *n) { return std::strcmp(c, n) == 0; };
  int *a = nullptr, *out = nullptr;
  CHECK(cudaMalloc(&a, 32 * sizeof(int)));
  CHECK(cudaMalloc(&out, 64 * sizeof(int)));
  CHECK(cudaMemset(a, 0, 32 * sizeof(int)));
  CHECK(cudaMemset(out, 0, 64 * sizeof(int)));

  if (is("global_write_after_end")) { // thread 32 writes the int after the allocation
    writeAll<<<1, 33>>>(a);
  } else if (is("global_read_before_start")) { // thread 0 reads a[-1]
    readPrevious<<<1, 32>>>(a, out);
  } else if (is("read_after_free")) {
    int *gone = nullptr;
    CHECK(cudaMalloc(&gone, 256));
    CHECK(cudaFree(gone));
    readOne<<<1, 1>>>(gone, out);
  } else if (is("null_write")) {
    writeOne<<<1, 1>>>(nullptr);
  } else if (is("host_heap_write")) { // pageable host memory is not the device's
    int *host = static_cast<int *>(std::malloc(4096));
    writeOne<<<1, 1>>>(host + 16);
    finish(c);
    std::free(host);
    return 0;
  } else if (is("misaligned_read")) {
    readOne<<<1, 1>>>(reinterpret_cast<const int *>(reinterpret_cast<const char *>(a) + 2), out);
  } else if (is("shared_write_after_end")) { // 32 ints of dynamic shared memory, one too many
    sharedWrite<<<1, 32, 32 * sizeof(int)>>>(1);
  } else if (is("shared_write_far")) {
    sharedWrite<<<1, 32, 32 * sizeof(int)>>>(1 << 20);
  } else if (is("local_write_far")) {
    localIndex<<<1, 1>>>(out, 1 << 24);
  } else if (is("heap_overrun")) { // malloc(16) on the device, p[4] written
    heapOverrun<<<1, 1>>>(out, 4);
  } else if (is("vector_read_across_end")) { // 32 ints = 8 float4; the 9th is past the end
    readVector<<<1, 1>>>(reinterpret_cast<const float4 *>(a), reinterpret_cast<float4 *>(out), 8);
  } else if (is("atomic_after_end")) {
    addAtomic<<<1, 1>>>(a, 32);
  } else if (is("free_twice")) {
    int *p = nullptr;
    CHECK(cudaMalloc(&p, 64));
    CHECK(cudaFree(p));
    cudaError_t e = cudaFree(p);
    std::printf("%s: second free %s\n", c, cudaGetErrorName(e));
    return 0;
  } else if (is("copy_past_end")) {
    int host[64] = {};
    cudaError_t e = cudaMemcpy(host, a, sizeof host, cudaMemcpyDeviceToHost);
    std::printf("%s: copy %s\n", c, cudaGetErrorName(e));
    return 0;
  } else if (is("leak")) { // 1024 bytes never freed before the context goes
    int *p = nullptr;
    CHECK(cudaMalloc(&p, 1024));
    CHECK(cudaFree(a));
    CHECK(cudaFree(out));
    CHECK(cudaDeviceReset());
    std::printf("%s: reset\n", c);
    return 0;
  } else if (is("ok_last_element")) {
    writeAll<<<1, 32>>>(a);
  } else if (is("ok_vector_at_end")) {
    readVector<<<1, 1>>>(reinterpret_cast<const float4 *>(a), reinterpret_cast<float4 *>(out), 7);
  } else if (is("ok_shared_full")) {
    sharedWrite<<<1, 31, 32 * sizeof(int)>>>(1);
  } else if (is("ok_heap")) {
    heapOverrun<<<1, 1>>>(out, 3);
  } else if (is("ok_spaces")) {
    legalSpaces<<<1, 32>>>(out);
  } else if (is("ok_mapped_host")) {
    int *host = nullptr;
    CHECK(cudaHostAlloc(&host, 4096, cudaHostAllocMapped));
    writeOne<<<1, 1>>>(host + 1023);
    finish(c);
    CHECK(cudaFreeHost(host));
    return 0;
  } else if (is("ok_managed")) {
    int *m = nullptr;
    CHECK(cudaMallocManaged(&m, 4096));
    writeAll<<<1, 32>>>(m + 992);
    finish(c);
    CHECK(cudaFree(m));
    return 0;
  } else {
    std::printf("unknown case %s\n", c);
    return 2;
  }
  finish(c);
  cudaFree(a);
  cudaFree(out);
  return 0;
}
