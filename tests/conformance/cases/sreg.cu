// Special registers: %tid %ntid %ctaid %nctaid in 3D, %laneid, %lanemask_*, %clock/%clock64,
// %globaltimer, %smid/%nsmid, %dynamic_smem_size.
// arch: compute_75
#include "conf.cuh"

#define KERNEL(name, TD) extern "C" __global__ void name(const void *, const void *, const void *, TD *D, int n)
#define LIN                                                                                     \
  u32 blk = (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;                     \
  u32 i = blk * blockDim.x * blockDim.y * blockDim.z + (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;

KERNEL(ids_3d, u32) { LIN; D[4 * i] = threadIdx.x | threadIdx.y << 10 | threadIdx.z << 20; D[4 * i + 1] = blockDim.x | blockDim.y << 10 | blockDim.z << 20; D[4 * i + 2] = blockIdx.x | blockIdx.y << 10 | blockIdx.z << 20; D[4 * i + 3] = gridDim.x | gridDim.y << 10 | gridDim.z << 20; } //@ u32 threads=288 per=4 block=4,3,2 grid=3,2,2
KERNEL(ids_asm, u32) { LIN; u32 t, nt, c, nc; asm("mov.u32 %0, %%tid.y; mov.u32 %1, %%ntid.z; mov.u32 %2, %%ctaid.z; mov.u32 %3, %%nctaid.y;" : "=r"(t), "=r"(nt), "=r"(c), "=r"(nc)); D[i] = t | nt << 8 | c << 16 | nc << 24; } //@ u32 threads=288 block=4,3,2 grid=3,2,2
KERNEL(laneid, u32) { LIN; u32 l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); D[i] = l; } //@ u32 threads=192 block=96 grid=2
KERNEL(laneid_2d, u32) { LIN; u32 l; asm("mov.u32 %0, %%laneid;" : "=r"(l)); D[i] = l; } //@ u32 threads=96 block=8,6,2 grid=1
KERNEL(lanemasks, u32) { LIN; u32 eq, lt, le, gt, ge; asm("mov.u32 %0, %%lanemask_eq; mov.u32 %1, %%lanemask_lt; mov.u32 %2, %%lanemask_le; mov.u32 %3, %%lanemask_gt; mov.u32 %4, %%lanemask_ge;" : "=r"(eq), "=r"(lt), "=r"(le), "=r"(gt), "=r"(ge)); D[5 * i] = eq; D[5 * i + 1] = lt; D[5 * i + 2] = le; D[5 * i + 3] = gt; D[5 * i + 4] = ge; } //@ u32 threads=64 per=5 block=64
KERNEL(clock_monotonic, u32) { LIN; u32 c0, c1; u64 d0, d1; asm volatile("mov.u32 %0, %%clock; mov.u64 %1, %%clock64;" : "=r"(c0), "=l"(d0)); for (int k = 0; k < 100; ++k) asm volatile(""); asm volatile("mov.u64 %0, %%clock64; mov.u32 %1, %%clock;" : "=l"(d1), "=r"(c1)); D[i] = (d1 >= d0) + 2 * (c1 - c0 < 0x80000000u) + 4 * (d0 != 0); } //@ u32 threads=64
KERNEL(globaltimer, u32) { LIN; u64 t0, t1; u32 lo, hi; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0)); asm volatile("mov.u32 %0, %%globaltimer_lo; mov.u32 %1, %%globaltimer_hi;" : "=r"(lo), "=r"(hi)); asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1)); D[i] = (t1 >= t0) + 2 * (t0 != 0) + 4 * ((u64(hi) << 32 | lo) + 1000000000ull >= t0); } //@ u32 threads=32
KERNEL(smid, u32) { LIN; u32 s, ns; asm volatile("mov.u32 %0, %%smid; mov.u32 %1, %%nsmid;" : "=r"(s), "=r"(ns)); D[i] = (s < ns) + 2 * (ns > 0); } //@ u32 threads=64
KERNEL(dynamic_smem, u32) { extern __shared__ u32 dyn[]; LIN; u32 ds; asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(ds)); dyn[threadIdx.x] = ds; __syncthreads(); D[i] = dyn[(threadIdx.x + 1) % blockDim.x]; } //@ u32 threads=64 block=32 shmem=1000
KERNEL(warpsize, u32) { LIN; u32 w; asm("mov.u32 %0, WARP_SZ;" : "=r"(w)); D[i] = w + warpSize; } //@ u32 threads=8
