// Warp-level operations: shfl.sync, vote.sync, match.sync, activemask and redux.sync, with full
// masks, partial masks in branches, and a last warp cut short by exited threads (n % 32 != 0).
// arch: compute_80
#include "conf.cuh"

#define LANE (threadIdx.x & 31)

WK(shfl_idx, d = __shfl_sync(0xffffffff, v, (LANE * 7 + 3) & 31)) //@ u32 threads=96
WK(shfl_idx_width8, d = __shfl_sync(0xffffffff, v, LANE + 5, 8)) //@ u32 threads=96
WK(shfl_up, d = __shfl_up_sync(0xffffffff, v, 3)) //@ u32 threads=96
WK(shfl_up_width16, d = __shfl_up_sync(0xffffffff, v, 5, 16)) //@ u32 threads=96
WK(shfl_down, d = __shfl_down_sync(0xffffffff, v, 7)) //@ u32 threads=96
WK(shfl_down_width4, d = __shfl_down_sync(0xffffffff, v, 1, 4)) //@ u32 threads=96
WK(shfl_xor, d = __shfl_xor_sync(0xffffffff, v, 9)) //@ u32 threads=96
WK(shfl_xor_width2, d = __shfl_xor_sync(0xffffffff, v, 1, 2)) //@ u32 threads=96
// Lanes 0-15 only, exchanging among themselves.
WK(shfl_half_mask, if (LANE < 16) d = __shfl_sync(0x0000ffff, v, (LANE + 3) & 15)) //@ u32 threads=96
// The predicate output: whether the source lane was in range.
WK(shfl_up_pred, {
  u32 r;
  asm("{ .reg .pred p; shfl.sync.up.b32 %0|p, %1, 6, 0, 0xffffffff; selp.u32 %0, %0, 77, p; }"
      : "=r"(r)
      : "r"(v));
  d = r;
}) //@ shfl_up_pred u32 threads=96
WK(shfl_bfly_clamp, {
  u32 r;
  asm("shfl.sync.bfly.b32 %0, %1, 3, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v));
  d = r;
}) //@ shfl_bfly_clamp u32 threads=96
// The last warp has 20 live threads (n = 84): shuffles among the live lanes.
WK(shfl_tail, d = __shfl_sync(__activemask(), v, (LANE + 1) % 20)) //@ u32 threads=84 block=96
WK(vote_all, d = __all_sync(0xffffffff, v > 10)) //@ u32 threads=96
WK(vote_any, d = __any_sync(0xffffffff, v == 113)) //@ u32 threads=96
WK(vote_uni, d = __uni_sync(0xffffffff, v & 0)) //@ u32 threads=96
WK(vote_ballot, d = __ballot_sync(0xffffffff, v & 1)) //@ u32 threads=96
WK(vote_ballot_odd_lanes, if (LANE & 1) d = __ballot_sync(0xaaaaaaaa, v > 60)) //@ u32 threads=96
WK(vote_ballot_tail, d = __ballot_sync(__activemask(), v & 2)) //@ u32 threads=84 block=96
WK(activemask_full, d = __activemask()) //@ u32 threads=96
WK(activemask_tail, d = __activemask()) //@ u32 threads=84 block=96
WK(match_any, d = __match_any_sync(0xffffffff, v & 3)) //@ u32 threads=96
WK(match_any_u64, d = __match_any_sync(0xffffffff, (unsigned long long)(v % 5) << 33)) //@ u32 threads=96
WK(match_all, {
  int pred;
  u32 m = __match_all_sync(0xffffffff, LANE < 40 ? 7u : v, &pred);
  d = m ^ (pred << 31);
}) //@ match_all u32 threads=96
WK(match_all_differ, {
  int pred;
  u32 m = __match_all_sync(0xffffffff, v, &pred);
  d = m + pred;
}) //@ match_all_differ u32 threads=96
WK(redux_add, d = __reduce_add_sync(0xffffffff, v)) //@ u32 threads=96
WK(redux_min, d = __reduce_min_sync(0xffffffff, v)) //@ u32 threads=96
WK(redux_max_s32, d = u32(__reduce_max_sync(0xffffffff, int(v) - 64))) //@ u32 threads=96
WK(redux_and, d = __reduce_and_sync(0xffffffff, v | 0x100)) //@ u32 threads=96
WK(redux_or, d = __reduce_or_sync(0xffffffff, v)) //@ u32 threads=96
WK(redux_xor, d = __reduce_xor_sync(0xffffffff, v)) //@ u32 threads=96
WK(redux_add_tail, d = __reduce_add_sync(__activemask(), v)) //@ u32 threads=84 block=96
WK(redux_half_mask, if (LANE >= 16) d = __reduce_max_sync(0xffff0000, v)) //@ u32 threads=96

// Named barriers beside warp-level operations (the warp scheduler): warps 2 and 3 sum their
// values with shuffles, publish the sums and arrive at barrier 1; warps 0 and 1 wait there.
#define NAMED(name, ...)                                                                       \
  extern "C" __global__ void name(const void *, const void *, const void *, u32 *D, int n) {   \
    __shared__ u32 sums[4];                                                                    \
    int i = blockIdx.x * blockDim.x + threadIdx.x, warp = threadIdx.x >> 5;                     \
    u32 v = WV(i), d = 0xdeadbeef;                                                             \
    __VA_ARGS__;                                                                               \
    D[i] = d;                                                                                  \
  }
NAMED(named_shfl, {
  if (warp >= 2) {
    u32 s = v;
    for (int o = 16; o; o >>= 1)
      s += __shfl_xor_sync(0xffffffff, s, o);
    if (LANE == 0)
      sums[warp - 2] = s;
    asm volatile("bar.arrive 1, 128;" ::: "memory");
    d = __shfl_down_sync(0xffffffff, v, 1) ^ s;
  } else {
    asm volatile("bar.sync 1, 128;" ::: "memory");
    d = sums[0] * 3 + sums[1] + __shfl_up_sync(0xffffffff, v, 2);
  }
}) //@ named_shfl u32 threads=256 block=128
// bar.red with a thread count: warps 0-1 and warps 2-3 count their predicates at barriers of
// their own, then the whole block ands another at a third.
NAMED(bar_red_count, {
  u32 c, all;
  if (warp < 2)
    asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; bar.red.popc.u32 %0, 1, 64, p; }"
                 : "=r"(c)
                 : "r"(v & 1)
                 : "memory");
  else
    asm volatile("{ .reg .pred p; setp.gt.u32 p, %1, 60; bar.red.popc.u32 %0, 2, 64, p; }"
                 : "=r"(c)
                 : "r"(v)
                 : "memory");
  asm volatile("{ .reg .pred p, q; setp.lt.u32 p, %1, %2; barrier.red.and.pred q, 3, 128, p;"
               " selp.u32 %0, 1, 0, q; }"
               : "=r"(all)
               : "r"(v), "r"(120u + (blockIdx.x & 1) * 8)
               : "memory");
  d = c * 2 + all;
}) //@ bar_red_count u32 threads=256 block=128
// The same under the warp scheduler (a shuffle in the kernel), counts through a named barrier.
NAMED(bar_red_count_warp, {
  u32 c;
  u32 up = __shfl_up_sync(0xffffffff, v, 1);
  if (warp & 1)
    asm volatile("{ .reg .pred p; setp.gt.u32 p, %1, %2; bar.red.popc.u32 %0, 5, 64, p; }"
                 : "=r"(c)
                 : "r"(v), "r"(up)
                 : "memory");
  else
    asm volatile("{ .reg .pred p; setp.le.u32 p, %1, %2; bar.red.popc.u32 %0, 6, 64, p; }"
                 : "=r"(c)
                 : "r"(v), "r"(up)
                 : "memory");
  d = c + (__shfl_sync(0xffffffff, c, 0) << 8);
}) //@ bar_red_count_warp u32 threads=256 block=128

// Named barriers whose ids (and counts) threads compute at run time, so that different threads
// name different barriers at one instruction: warp-specialised producer/consumer pairs, each on
// barriers of its own (CUTLASS and FlashAttention name theirs this way).
#define DYN(name, ...)                                                                         \
  extern "C" __global__ void name(const void *, const void *, const void *, u32 *D, int n) {   \
    __shared__ u32 buf[256];                                                                   \
    int i = blockIdx.x * blockDim.x + threadIdx.x, warp = threadIdx.x >> 5;                     \
    u32 v = WV(i), d = 0xdeadbeef;                                                             \
    __VA_ARGS__;                                                                               \
    D[i] = d;                                                                                  \
  }
#define BAR_SYNC(id, count) asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory")
#define BAR_ARRIVE(id, count) asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(count) : "memory")
// Warp pairs: the even warp produces into shared memory and arrives at its pair's "full"
// barrier, the odd one waits there, consumes and arrives at the pair's "empty" barrier, for
// three rounds.
DYN(named_dynamic, {
  u32 full = 1 + (warp >> 1), empty = 5 + (warp >> 1), acc = v;
  for (int k = 0; k < 3; ++k) {
    if (warp & 1) {
      BAR_SYNC(full, 64);
      acc += buf[(warp - 1) * 32 + (LANE ^ k)];
      BAR_ARRIVE(empty, 64);
    } else {
      buf[warp * 32 + LANE] = acc * 3 + k;
      BAR_ARRIVE(full, 64);
      BAR_SYNC(empty, 64);
      acc ^= k;
    }
  }
  d = acc;
}) //@ named_dynamic u32 threads=512 block=256
// Two groups of different sizes (warps 0-1 on barrier 1 with 64 threads, warps 2-7 on barrier 2
// with 192), each summing its own part of shared memory in a loop whose trip count is the
// group's size.
DYN(named_dynamic_count, {
  u32 id = warp < 2 ? 1 : 2, count = warp < 2 ? 64 : 192, base = warp < 2 ? 0 : 64;
  buf[threadIdx.x] = v;
  BAR_SYNC(id, count);
  u32 s = 0;
  for (u32 k = 0; k < count; k += 32)
    s += buf[base + k + ((LANE + k) & 31)] * (k + 1);
  BAR_SYNC(id, count);
  buf[threadIdx.x] = s ^ v;
  BAR_SYNC(id, count);
  d = buf[base + (threadIdx.x - base + 37) % count];
}) //@ named_dynamic_count u32 threads=512 block=256
// bar.red with an id computed at run time: each warp pair counts and ors its own predicates.
DYN(bar_red_dynamic, {
  u32 id = 1 + (warp >> 1), c, o;
  asm volatile("{ .reg .pred p; setp.gt.u32 p, %1, 50; bar.red.popc.u32 %0, %2, 64, p; }"
               : "=r"(c)
               : "r"(v), "r"(id)
               : "memory");
  asm volatile("{ .reg .pred p, q; setp.lt.u32 p, %1, 6; bar.red.or.pred q, %2, 64, p;"
               " selp.u32 %0, 1, 0, q; }"
               : "=r"(o)
               : "r"(v), "r"(id + 8)
               : "memory");
  d = c * 2 + o;
}) //@ bar_red_dynamic u32 threads=512 block=256
// The same protocol beside shuffles (the warp scheduler): odd warps publish their sums and
// arrive at their pair's barrier, even warps wait there.
DYN(named_dynamic_warp, {
  u32 id = 1 + (warp >> 1), s = v;
  for (int o = 16; o; o >>= 1)
    s += __shfl_xor_sync(0xffffffff, s, o);
  if (warp & 1) {
    buf[warp] = s;
    BAR_ARRIVE(id, 64);
    d = __shfl_down_sync(0xffffffff, v, 1) ^ s;
  } else {
    BAR_SYNC(id, 64);
    d = buf[warp + 1] * 3 + __shfl_up_sync(0xffffffff, v, 2);
  }
}) //@ named_dynamic_warp u32 threads=512 block=256
