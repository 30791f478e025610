// Indirect calls through a .callprototype to functions whose addresses initialise a table.
// arch: compute_75
#include "conf.cuh"

__device__ __noinline__ u32 op_add(u32 a, u32 b) { return a + b; }
__device__ __noinline__ u32 op_xor(u32 a, u32 b) { return a ^ b; }
__device__ __noinline__ u32 op_mul(u32 a, u32 b) { return a * b; }
typedef u32 (*binop)(u32, u32);
__device__ binop ops[3] = {op_add, op_xor, op_mul};
extern "C" __global__ void call_indirect(const u32 *A, const u32 *B, const void *, u32 *D, int n) { IDX; D[i] = ops[i % 3](A[i], B[i]); } //@ u32 u32.e u32.s3
extern "C" __global__ void call_indirect_local(const u32 *A, const u32 *B, const void *, u32 *D, int n) { IDX; binop f = A[i] & 1 ? op_add : op_mul; D[i] = f(A[i], B[i]); } //@ u32 u32.e u32.s3

// Recursion through block barriers and warp shuffles: a tree reduction over shared memory, one
// level per call, the same depth in every thread.
__device__ __noinline__ u32 tree(u32 *s, u32 width, u32 v) {
  u32 t = threadIdx.x;
  s[t] = v;
  __syncthreads();
  u32 r = t < width ? s[t] + s[t + width] * 3 : v >> 1;
  __syncthreads();
  r += __shfl_xor_sync(0xffffffff, r, 1) << 1;
  if (width == 1)
    return r;
  return tree(s, width / 2, r) ^ (r << 3);
}
// Every thread of the block takes part (no input set: the value is a hash of the index).
#define HASH(i) (((i) * 2654435761u) >> 7)
extern "C" __global__ void call_recursive_sync(const void *, const void *, const void *, u32 *D, int n) { __shared__ u32 s[128]; IDX; D[i] = tree(s, 64, HASH(i)); } //@ u32 threads=256 block=128
// Depth that differs between threads, with barriers only in the outermost call (before and
// after the recursion).
__device__ __noinline__ u32 walk(u32 *s, u32 level, u32 v) {
  u32 t = threadIdx.x;
  if (level == 0) {
    s[t] = v;
    __syncthreads();
    v += s[(t + 1) % blockDim.x];
    __syncthreads();
  }
  u32 r = v % 5 < 3 && level < 6 ? walk(s, level + 1, v * 7 + level) + 1 : v;
  if (level == 0) {
    s[t] = r;
    __syncthreads();
    r ^= s[t ^ 1] << 2;
  }
  return r;
}
extern "C" __global__ void call_recursive_depths(const void *, const void *, const void *, u32 *D, int n) { __shared__ u32 s[128]; IDX; D[i] = walk(s, 0, HASH(i)); } //@ u32 threads=256 block=128
// A recursive function called from inside another one's recursion (two recursion cycles, one
// inside the other), with depths that differ between threads.
__device__ __noinline__ u32 inner_rec(u32 k, u32 v) { return k == 0 ? v : inner_rec(k - 1, v * 3 + k) ^ k; }
__device__ __noinline__ u32 outer_rec(u32 k, u32 v) { return k == 0 ? v : outer_rec(k - 1, inner_rec(k % 4 + (v & 3), v)) + k; }
extern "C" __global__ void call_recursive_nested(const u32 *A, const u32 *B, const void *, u32 *D, int n) { IDX; D[i] = outer_rec(B[i] % 7, A[i]); } //@ u32 u32.e u32.s3
