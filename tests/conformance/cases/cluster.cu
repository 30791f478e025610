// Thread-block clusters as a launch without cluster dimensions has them (one block each): the
// cluster special registers, barrier.cluster arrive/wait, mapa and getctarank of rank 0, and an
// mbarrier addressed through .shared::cluster.
// arch: compute_90
#include "conf.cuh"

#define CK(name) extern "C" __global__ void name(const u32 *A, const void *, const void *, u32 *D, int n)

CK(cluster_sregs) {
  IDX;
  u32 cid, ncid, cctaid, cnctaid, rank, nrank, explicitc, aggr;
  asm("mov.u32 %0, %%clusterid.x;" : "=r"(cid));
  asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ncid));
  asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(cctaid));
  asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(cnctaid));
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(explicitc));
  asm("mov.u32 %0, %%aggr_smem_size;" : "=r"(aggr));
  D[i] = cid | ncid << 4 | cctaid << 8 | cnctaid << 12 | rank << 16 | nrank << 20 | explicitc << 24 | (aggr > 0) << 28;
} //@ cluster_sregs u32 threads=192 block=64
CK(cluster_sregs_yz) {
  IDX;
  u32 y, z, ny, nz;
  asm("mov.u32 %0, %%clusterid.y;" : "=r"(y));
  asm("mov.u32 %0, %%clusterid.z;" : "=r"(z));
  asm("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(ny));
  asm("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(nz));
  D[i] = y | z << 8 | ny << 16 | nz << 24;
} //@ cluster_sregs_yz u32 threads=64 block=32
// Shared writes made before barrier.cluster.arrive are seen after barrier.cluster.wait.
CK(cluster_barrier) {
  __shared__ u32 s[128];
  IDX;
  s[threadIdx.x] = A[i] + 5;
  asm volatile("barrier.cluster.arrive.release.aligned;" ::: "memory");
  asm volatile("barrier.cluster.wait.acquire.aligned;" ::: "memory");
  D[i] = s[(threadIdx.x + 17) % blockDim.x];
} //@ cluster_barrier u32 u32.seq block=128
// mapa to rank 0 is the block's own shared memory; getctarank of it is 0.
CK(cluster_mapa) {
  __shared__ u32 s[64];
  IDX;
  s[threadIdx.x] = A[i] * 3;
  __syncthreads();
  u32 local = u32(__cvta_generic_to_shared(s + (63 - threadIdx.x))), remote, rank, v;
  asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(local));
  asm("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rank) : "r"(remote));
  asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(remote));
  D[i] = v + (rank << 24);
} //@ cluster_mapa u32 u32.seq block=64
// An mbarrier arrived on through its .shared::cluster address.
CK(cluster_mbarrier) {
  __shared__ u64 bar;
  __shared__ u32 s[64];
  IDX;
  const u32 b = u32(__cvta_generic_to_shared(&bar));
  if (threadIdx.x == 0)
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(b), "r"(blockDim.x) : "memory");
  __syncthreads();
  s[threadIdx.x] = A[i] ^ 0x55;
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(b) : "memory");
  u32 done = 0;
  while (!done)
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(b)
                 : "memory");
  D[i] = s[(threadIdx.x + 9) % blockDim.x];
} //@ cluster_mbarrier u32 u32.seq block=64
// %aggr_smem_size: the shared memory the block has, static, dynamic and reserved.
CK(cluster_aggr_smem) {
  __shared__ u32 s[64];
  extern __shared__ u32 dyn[];
  IDX;
  s[threadIdx.x] = A[i];
  dyn[threadIdx.x] = A[i] + 1;
  __syncthreads();
  u32 aggr, total, dynsz;
  asm("mov.u32 %0, %%aggr_smem_size;" : "=r"(aggr));
  asm("mov.u32 %0, %%total_smem_size;" : "=r"(total));
  asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dynsz));
  D[i] = (threadIdx.x % 3 == 0 ? aggr : threadIdx.x % 3 == 1 ? total : dynsz) + (s[63 - threadIdx.x] & 0) + (dyn[threadIdx.x] & 0);
} //@ cluster_aggr_smem u32 u32.seq block=64 shmem=512
