// JIT: barrier placements (early exits, nested uniform loops, uniform branches) against exact
// host simulations of the same kernels (several blocks per call); run under both strategies.
#include "run_grid.h"

#include <gtest/gtest.h>

namespace {

// Host model of earlyExitExchange for one block.
std::vector<int> earlyExitModel(const int *in, int n, int live, int scale) {
  std::vector<int> out(n, -1), s(n), keep(n);
  int factor = scale;
  for (int k = 0; k < live; k += 7)
    factor += k;
  for (int t = 0; t < live; ++t)
    s[t] = keep[t] = in[t] * 3;
  std::vector<int> a(n);
  for (int t = 0; t < live; ++t)
    a[t] = s[(t + 1) % live];
  for (int t = 0; t < live; ++t)
    s[t] = a[t] + 1;
  for (int t = 0; t < live; ++t)
    out[t] = s[(t + live - 1) % live] * factor + keep[t];
  return out;
}

// Every thread reaches the barriers (the unmasked path) or only the first `live` do (exited
// threads must not be waited for, and values saved before the first barrier must survive).
TEST(Barriers, EarlyExitsAndValuesLiveAcrossSeveralBarriers) {
  auto prog = load(readSource("tests/unit/jit/barrier_kernels.ptx"));
  ASSERT_TRUE(prog);
  const int threads = 96, blocks = 2, scale = 5;
  std::vector<int> in(threads * blocks);
  for (int i = 0; i < threads * blocks; ++i)
    in[i] = (i * 29) % 61 - 20;
  for (int live : {threads, 70, 1}) {
    std::vector<int> out(threads * blocks, 12345);
    int *pi = in.data(), *po = out.data();
    int lv = live, sc = scale;
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    runGrid(*prog, "earlyExitExchange", grid, block, {&pi, &po, &lv, &sc}, 0, 2);
    for (int bk = 0; bk < blocks; ++bk) {
      auto want = earlyExitModel(in.data() + bk * threads, threads, live, scale);
      for (int t = 0; t < threads; ++t)
        ASSERT_EQ(out[bk * threads + t], want[t])
            << "live " << live << " block " << bk << " t " << t;
    }
  }
}

std::vector<int> nestedModel(const int *in, int n, int rounds, int mode) {
  std::vector<int> v(in, in + n), s(n);
  for (int r = 0; r < rounds; ++r) {
    for (int step = 1; step < n; step *= 2) {
      s = v;
      for (int t = 0; t < n; ++t) {
        if (mode & (1 << (r % 4)))
          v[t] += s[(t + step) % n];
        else
          v[t] ^= s[(t + n - step) % n];
      }
    }
    if (mode == 5) {
      s = v;
      for (int t = 0; t < n; ++t)
        v[t] = s[n - 1 - t] * 2 + r;
    }
  }
  return v;
}

TEST(Barriers, NestedUniformLoopsAndUniformBranches) {
  auto prog = load(readSource("tests/unit/jit/barrier_kernels.ptx"));
  ASSERT_TRUE(prog);
  const int threads = 64, blocks = 3;
  std::vector<int> in(threads * blocks);
  for (int i = 0; i < threads * blocks; ++i)
    in[i] = (i * 13) % 37;
  for (auto [rounds, mode] : {std::pair{3, 5}, std::pair{4, 10}, std::pair{0, 5}}) {
    std::vector<int> out(threads * blocks, -7);
    int *pi = in.data(), *po = out.data();
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    runGrid(*prog, "nestedLoopBarriers", grid, block, {&pi, &po, &rounds, &mode}, 0, 3);
    for (int bk = 0; bk < blocks; ++bk) {
      auto want = nestedModel(in.data() + bk * threads, threads, rounds, mode);
      for (int t = 0; t < threads; ++t)
        ASSERT_EQ(out[bk * threads + t], want[t])
            << "rounds " << rounds << " mode " << mode << " block " << bk << " t " << t;
    }
  }
}

// Per-thread pointers saved across barriers make the vectoriser gather and scatter; the
// contiguity test takes vector loads and stores when the lanes' addresses are consecutive and
// keeps the gathers otherwise (permuted, pairwise swapped), masked either way.
TEST(Barriers, PointersCarriedAcrossBarriers) {
  auto prog = load(readSource("tests/unit/jit/barrier_kernels.ptx"));
  ASSERT_TRUE(prog);
  const int threads = 128, blocks = 2, per = threads * 4;
  std::vector<int> in(per * blocks);
  for (int i = 0; i < per * blocks; ++i)
    in[i] = (i * 53) % 97 - 40;
  for (int mode : {0, 1, 2}) {
    std::vector<int> out(per * blocks, 777), want(per * blocks, 777);
    auto src = [&](int t) { return mode == 0 ? t : mode == 1 ? (t * 37 + 11) % threads : t ^ 1; };
    for (int bk = 0; bk < blocks; ++bk)
      for (int k = 0; k < 4; ++k) {
        std::vector<int> s(threads);
        for (int t = 0; t < threads; ++t)
          s[t] = t % 5 ? in[bk * per + k * threads + src(t)] : -k;
        for (int t = 0; t < threads; ++t)
          if (t % 3)
            want[bk * per + k * threads + src(t)] = s[(t + 1) % threads] * 8 + k;
      }
    int *pi = in.data(), *po = out.data();
    int md = mode;
    uint32_t grid[3] = {blocks, 1, 1}, block[3] = {threads, 1, 1};
    runGrid(*prog, "carriedPointers", grid, block, {&pi, &po, &md});
    for (int i = 0; i < per * blocks; ++i)
      ASSERT_EQ(out[i], want[i]) << "mode " << mode << " element " << i;
  }
}

// The streaming-store path (launch flag set): outputs at every alignment and a partial last
// block give the same results as plain stores; lines the grid does not own are left alone.
TEST(Barriers, StreamingStoresAtEveryAlignment) {
  auto prog = load(readSource("bench/cuda/vector_add.ptx"));
  ASSERT_TRUE(prog);
  const int n = 256 * 9 + 37;
  std::vector<float> a(n), b(n);
  for (int i = 0; i < n; ++i) {
    a[i] = float(i % 101) * 0.5f;
    b[i] = float(i % 7) - 3.0f;
  }
  for (uint32_t flags : {0u, uint32_t(CUCPU_LAUNCH_STREAMING_STORES)})
    for (int shift = 0; shift < 16; shift += 3) {
      std::vector<float> storage(n + 64, -1.0f);
      float *c =
          reinterpret_cast<float *>((reinterpret_cast<uintptr_t>(storage.data()) + 63) / 64 * 64) +
          shift;
      float *pa = a.data(), *pb = b.data();
      int nn = n;
      uint32_t grid[3] = {10, 1, 1}, block[3] = {256, 1, 1};
      runGrid(*prog, "vectorAdd", grid, block, {&pa, &pb, &c, &nn}, 0, 3, flags);
      for (int i = 0; i < n; ++i)
        ASSERT_EQ(c[i], a[i] + b[i]) << "flags " << flags << " shift " << shift << " i " << i;
      for (float *p = storage.data(); p < c; ++p)
        ASSERT_EQ(*p, -1.0f);
      for (float *p = c + n; p < storage.data() + storage.size(); ++p)
        ASSERT_EQ(*p, -1.0f);
    }
}

} // namespace
