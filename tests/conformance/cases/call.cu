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
