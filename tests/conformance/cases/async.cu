// Asynchronous copies and mbarriers: cp.async (4, 8, 16 bytes; .ca/.cg; zero fill from src-size
// and ignore-src; commit/wait groups; cp.async.mbarrier.arrive), the mbarrier family (init,
// arrive, arrive_drop, expect_tx/complete_tx, test_wait/try_wait with and without .parity,
// pending_count, phases, inval), cp.async.bulk with complete_tx, and libcu++'s cuda::barrier.
// Outputs depend only on the semantics, never on the barrier's opaque encoding.
// arch: compute_90
#include "conf.cuh"

#include <cuda/barrier>

#define AK(name) extern "C" __global__ void name(const u32 *A, const void *, const void *, u32 *D, int n)
#define SH(p) u32(__cvta_generic_to_shared(p))

__device__ void cpAsync4(void *dst, const void *src) {
  asm volatile("cp.async.ca.shared.global [%0], [%1], 4;" ::"r"(SH(dst)), "l"(src) : "memory");
}
__device__ void commitAndWaitAll() {
  asm volatile("cp.async.commit_group; cp.async.wait_all;" ::: "memory");
}
__device__ u64 arrive(u64 *bar) {
  u64 state;
  asm volatile("mbarrier.arrive.shared.b64 %0, [%1];" : "=l"(state) : "r"(SH(bar)) : "memory");
  return state;
}
__device__ bool testWait(u64 *bar, u64 state) {
  u32 done;
  asm volatile("{ .reg .pred p; mbarrier.test_wait.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
               : "=r"(done)
               : "r"(SH(bar)), "l"(state)
               : "memory");
  return done;
}
__device__ bool tryWaitParity(u64 *bar, u32 parity) {
  u32 done;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; "
               "selp.u32 %0, 1, 0, p; }"
               : "=r"(done)
               : "r"(SH(bar)), "r"(parity)
               : "memory");
  return done;
}
__device__ void init(u64 *bar, u32 count) {
  asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(SH(bar)), "r"(count) : "memory");
}

AK(cp_async_4) {
  __shared__ u32 s[128];
  IDX;
  cpAsync4(s + threadIdx.x, A + i);
  commitAndWaitAll();
  __syncthreads();
  D[i] = s[(threadIdx.x + 1) % 128] + 1;
} //@ cp_async_4 u32 u32.seq block=128
AK(cp_async_8_16) {
  __shared__ __align__(16) u32 s[4 * 64];
  IDX;
  const u32 t = threadIdx.x;
  for (int k = 0; k < 4; ++k)
    s[4 * t + k] = 0;
  __syncthreads();
  if (t % 2)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"(SH(s + 4 * t)), "l"(A + 4 * (t / 2)) : "memory");
  else
    asm volatile("cp.async.cg.shared.global.L2::128B [%0], [%1], 16;" ::"r"(SH(s + 4 * t)), "l"(A + 4 * (t / 2)) : "memory");
  commitAndWaitAll();
  __syncthreads();
  const u32 *p = s + 4 * ((t + 3) % 64);
  D[i] = p[0] + 3 * p[1] + 5 * p[2] + 7 * p[3];
} //@ cp_async_8_16 u32 u32.seq block=64 init=u32.ones
AK(cp_async_src_size) {
  __shared__ __align__(16) u32 s[4 * 64];
  IDX;
  const u32 t = threadIdx.x;
  for (int k = 0; k < 4; ++k)
    s[4 * t + k] = 0xdeadbeef;
  u32 bytes = t % 17;
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;" ::"r"(SH(s + 4 * t)), "l"(A + 4 * (t / 4)), "r"(bytes) : "memory");
  commitAndWaitAll();
  __syncthreads();
  const u32 *p = s + 4 * ((t + 1) % 64);
  D[i] = p[0] ^ (p[1] << 1) ^ (p[2] << 2) ^ (p[3] << 3);
} //@ cp_async_src_size u32 u32.seq block=64
AK(cp_async_ignore_src) {
  __shared__ __align__(16) u32 s[4 * 64];
  IDX;
  const u32 t = threadIdx.x;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %2, 0; cp.async.cg.shared.global [%0], [%1], 16, p; }" ::"r"(SH(s + 4 * t)), "l"(A + 4 * (t / 4)), "r"(t % 3) : "memory");
  commitAndWaitAll();
  __syncthreads();
  const u32 *p = s + 4 * ((t + 5) % 64);
  D[i] = p[0] + p[1] + p[2] + p[3];
} //@ cp_async_ignore_src u32 u32.seq block=64
AK(cp_async_groups) {
  __shared__ u32 x[64], y[64];
  IDX;
  const u32 t = threadIdx.x;
  cpAsync4(x + t, A + t);
  asm volatile("cp.async.commit_group;" ::: "memory");
  cpAsync4(y + t, A + 63 - t);
  asm volatile("cp.async.commit_group; cp.async.wait_group 1;" ::: "memory");
  const u32 first = x[t];
  asm volatile("cp.async.wait_group 0;" ::: "memory");
  __syncthreads();
  D[i] = first * 1000 + y[(t + 7) % 64];
} //@ cp_async_groups u32 u32.seq block=64

// Every thread arrives, then waits with test_wait; the barrier orders the shared writes.
AK(mbarrier_test_wait) {
  __shared__ u64 bar;
  __shared__ u32 s[128];
  IDX;
  if (threadIdx.x == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  s[threadIdx.x] = A[i] * 3;
  const u64 state = arrive(&bar);
  while (!testWait(&bar, state)) {
  }
  D[i] = s[(threadIdx.x + 5) % blockDim.x];
} //@ mbarrier_test_wait u32 u32.seq block=128
// Three phases, try_wait.parity with the phase's parity; each phase reads what the others wrote.
AK(mbarrier_phases) {
  __shared__ u64 bar;
  __shared__ u32 s[2][64];
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  u32 acc = A[i];
  for (u32 phase = 0; phase < 3; ++phase) {
    s[phase % 2][t] = acc;
    arrive(&bar);
    while (!tryWaitParity(&bar, phase % 2)) {
    }
    acc = acc * 7 + s[phase % 2][(t + 1 + phase) % blockDim.x];
  }
  D[i] = acc;
} //@ mbarrier_phases u32 u32.seq block=64
// Half the block leaves with arrive_drop in the first phase; the second phase completes with the
// others alone.
AK(mbarrier_arrive_drop) {
  __shared__ u64 bar;
  __shared__ u32 s[128];
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  s[t] = A[i];
  if (t >= 64) {
    asm volatile("{ .reg .b64 st; mbarrier.arrive_drop.shared.b64 st, [%0]; }" ::"r"(SH(&bar)) : "memory");
    D[i] = 1;
    return;
  }
  arrive(&bar);
  while (!tryWaitParity(&bar, 0)) {
  }
  const u32 v = s[127 - t];
  s[t] = v + 1;
  arrive(&bar);
  while (!tryWaitParity(&bar, 1)) {
  }
  D[i] = s[63 - t] * 2 + v;
} //@ mbarrier_arrive_drop u32 u32.seq block=128
// arrive with a count, and pending_count of the state it returns, by one thread before the rest.
AK(mbarrier_pending_count) {
  __shared__ u64 bar;
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, 40);
  __syncthreads();
  u32 pending = 0xffffffff;
  if (t == 0) {
    u64 state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1], 7;" : "=l"(state) : "r"(SH(&bar)) : "memory");
    asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(state));
  }
  __syncthreads();
  if (t > 0 && t < 34)
    arrive(&bar);
  while (!tryWaitParity(&bar, 0)) {
  }
  D[i] = pending;
} //@ mbarrier_pending_count u32 u32.seq block=64
// Transaction counts: thread 0 expects 256 bytes; two other threads complete 128 each.
AK(mbarrier_expect_tx) {
  __shared__ u64 bar;
  __shared__ u32 s[64];
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, 1);
  __syncthreads();
  s[t] = A[i] + 11;
  __syncthreads();
  if (t == 0)
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], 256; }" ::"r"(SH(&bar)) : "memory");
  __syncthreads();
  if (t == 5 || t == 9)
    asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 128;" ::"r"(SH(&bar)) : "memory");
  while (!tryWaitParity(&bar, 0)) {
  }
  D[i] = s[63 - t];
} //@ mbarrier_expect_tx u32 u32.seq block=64
// cp.async completions arrive on the barrier (.noinc: they are the threads' arrivals).
AK(cp_async_mbarrier_arrive) {
  __shared__ u64 bar;
  __shared__ u32 s[128];
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  cpAsync4(s + t, A + i);
  asm volatile("cp.async.mbarrier.arrive.noinc.shared.b64 [%0];" ::"r"(SH(&bar)) : "memory");
  while (!tryWaitParity(&bar, 0)) {
  }
  D[i] = s[(t + 9) % blockDim.x];
} //@ cp_async_mbarrier_arrive u32 u32.seq block=128
// A bulk copy global -> shared completing a transaction count, then shared -> global.
AK(cp_async_bulk) {
  __shared__ __align__(128) u32 s[256];
  __shared__ u64 bar;
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, 1);
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    asm volatile("{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], 1024; }" ::"r"(SH(&bar)) : "memory");
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], 1024, [%2];" ::"r"(SH(s)), "l"(A), "r"(SH(&bar)) : "memory");
  }
  while (!tryWaitParity(&bar, 0)) {
  }
  const u32 v = s[t] * 2 + s[255 - t];
  __syncthreads();
  s[t] = v;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  if (t == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], 1024;" ::"l"(D), "r"(SH(s)) : "memory");
    asm volatile("cp.async.bulk.commit_group; cp.async.bulk.wait_group 0;" ::: "memory");
  }
} //@ cp_async_bulk u32 u32.seq threads=256 block=256 nout=256
// mbarrier.inval, then the memory holds ordinary data again.
AK(mbarrier_inval_reuse) {
  __shared__ u64 bar;
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  arrive(&bar);
  while (!tryWaitParity(&bar, 0)) {
  }
  __syncthreads();
  if (t == 0) {
    asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(SH(&bar)) : "memory");
    bar = 0x0123456789abcdefull;
  }
  __syncthreads();
  D[i] = u32(bar >> (t % 2 ? 32 : 0)) + A[i];
} //@ mbarrier_inval_reuse u32 u32.seq block=64
// libcu++: cuda::barrier arrive_and_wait in a loop, and memcpy_async completing on it.
AK(cuda_barrier) {
  using barrier = cuda::barrier<cuda::thread_scope_block>;
  __shared__ barrier bar;
  __shared__ u32 s[2][64];
  IDX;
  const u32 t = threadIdx.x;
  if (t == 0)
    init(&bar, blockDim.x);
  __syncthreads();
  u32 acc = 0;
  for (int round = 0; round < 4; ++round) {
    s[round % 2][t] = A[i] + round;
    bar.arrive_and_wait();
    acc += s[round % 2][(t + round + 1) % 64];
  }
  cuda::memcpy_async(&s[0][t], A + (63 - t), sizeof(u32), bar);
  bar.arrive_and_wait();
  D[i] = acc * 100 + s[0][(t + 2) % 64];
} //@ cuda_barrier u32 u32.seq block=64
