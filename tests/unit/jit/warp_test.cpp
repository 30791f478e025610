// Warp-level semantics (shfl, vote, match, redux, activemask, syncwarp) against exact host
// references of the PTX specification and against the outputs an NVIDIA H200 (driver
// 580.159.04) produced for the same kernels and inputs (warp_expected/, recorded by
// tests/gpu/record_outputs.cpp through tests/gpu/run_on_gpu.sh).
#include "run_grid.h"

#include <gtest/gtest.h>

namespace {

constexpr int kThreads = 128, kBlocks = 2, kN = kThreads * kBlocks;

class Warp : public ::testing::Test {
protected:
  void SetUp() override {
    prog = load(readSource("tests/unit/jit/warp_kernels.ptx"));
    ASSERT_TRUE(prog);
    in = recordedInput(kN);
  }
  template <typename T> std::vector<T> run(const char *kernel, size_t outCount) {
    std::vector<T> out(outCount, T(0xdead));
    int *pi = in.data();
    T *po = out.data();
    uint32_t grid[3] = {kBlocks, 1, 1}, block[3] = {kThreads, 1, 1};
    runGrid(*prog, kernel, grid, block, {&pi, &po});
    expectSameAsGpu(kernel, out);
    return out;
  }
  template <typename T> void expectSameAsGpu(const char *kernel, const std::vector<T> &out) {
    ::expectSameAsGpu("tests/unit/jit/warp_expected", kernel, out);
  }
  int warpBase(int t) const { return t / 32 * 32; }
  std::unique_ptr<cucpu::jit::Program> prog;
  std::vector<int> in;
};

TEST_F(Warp, KernelsUseWarpMode) {
  const auto *k = prog->findKernel("shflDownSum");
  ASSERT_NE(k, nullptr);
  EXPECT_GT(k->regions, 1u);
}

TEST_F(Warp, ShuffleDownReduction) {
  auto out = run<int>("shflDownSum", kN / 32);
  for (int w = 0; w < kN / 32; ++w) {
    int s = 0;
    for (int l = 0; l < 32; ++l)
      s += in[w * 32 + l];
    EXPECT_EQ(out[w], s) << "warp " << w;
  }
}

TEST_F(Warp, ShuffleXorButterflyGivesEveryLaneTheSum) {
  auto out = run<int>("shflXorAll", kN);
  for (int t = 0; t < kN; ++t) {
    int s = 0;
    for (int l = 0; l < 32; ++l)
      s += in[warpBase(t) + l];
    ASSERT_EQ(out[t], s) << t;
  }
}

TEST_F(Warp, ShuffleUpInclusiveScan) {
  auto out = run<int>("shflUpScan", kN);
  for (int t = 0; t < kN; ++t) {
    int s = 0;
    for (int l = warpBase(t); l <= t; ++l)
      s += in[l];
    ASSERT_EQ(out[t], s) << t;
  }
}

TEST_F(Warp, ShuffleIndexAndDownWithinSegmentsOfEight) {
  auto out = run<int>("shflIdxWidth8", kN);
  for (int t = 0; t < kN; ++t) {
    int lane = t % 32, seg = lane & ~7;
    int idx = in[warpBase(t) + seg + 3];
    int j = lane + 5;
    int down = j <= seg + 7 ? in[warpBase(t) + j] : in[t];
    ASSERT_EQ(out[t], idx * 1000 + down) << t;
  }
}

TEST_F(Warp, BallotAnyAll) {
  auto out = run<unsigned>("votes", kN);
  for (int t = 0; t < kN; ++t) {
    unsigned ballot = 0;
    bool any = false;
    for (int l = 0; l < 32; ++l) {
      ballot |= unsigned(in[warpBase(t) + l] & 1) << l;
      any |= in[warpBase(t) + l] > 90;
    }
    ASSERT_EQ(out[t], ballot ^ (unsigned(any) << 1) ^ (1u << 2)) << t;
  }
}

TEST_F(Warp, MatchAny) {
  auto out = run<unsigned>("matchAny", kN);
  for (int t = 0; t < kN; ++t) {
    unsigned m = 0;
    for (int l = 0; l < 32; ++l)
      m |= unsigned(in[warpBase(t) + l] % 4 == in[t] % 4) << l;
    ASSERT_EQ(out[t], m) << t;
  }
}

TEST_F(Warp, ReduxAddMinOr) {
  auto out = run<int>("reduxOps", 3 * kN);
  for (int t = 0; t < kN; ++t) {
    int sum = 0, mn = 1 << 30, orv = 0;
    for (int l = 0; l < 32; ++l) {
      int v = in[warpBase(t) + l];
      sum += v;
      mn = std::min(mn, v);
      orv |= v;
    }
    ASSERT_EQ(out[3 * t], sum) << t;
    ASSERT_EQ(out[3 * t + 1], mn) << t;
    ASSERT_EQ(out[3 * t + 2], orv) << t;
  }
}

TEST_F(Warp, ActiveMaskInDivergentCode) {
  std::vector<unsigned> out(kN, 0xdead);
  unsigned *po = out.data();
  uint32_t grid[3] = {kBlocks, 1, 1}, block[3] = {kThreads, 1, 1};
  runGrid(*prog, "divergentActiveMask", grid, block, {&po});
  expectSameAsGpu("divergentActiveMask", out);
  for (int t = 0; t < kN; ++t) {
    int x = t % kThreads;
    unsigned expect = 0;
    if (x % 3 == 0)
      for (int l = 0; l < 32; ++l)
        expect |= unsigned((x / 32 * 32 + l) % 3 == 0) << l;
    ASSERT_EQ(out[t], expect) << t;
  }
}

TEST_F(Warp, SyncwarpOrdersSharedMemory) {
  auto out = run<int>("syncwarpExchange", kN);
  for (int t = 0; t < kN; ++t) {
    int base = t / kThreads * kThreads;
    ASSERT_EQ(out[t], 2 * in[base + ((t - base) ^ 1)]) << t;
  }
}

TEST_F(Warp, BlockReductionMixesWarpAndBlockSyncPoints) {
  for (int threads : {96, 256, 1024}) {
    const int n = 3000;
    std::vector<int> data(n);
    for (int i = 0; i < n; ++i)
      data[i] = (i * 7) % 13 - 6;
    int blocks = (n + threads - 1) / threads;
    std::vector<int> out(blocks, 0xdead);
    int *pi = data.data(), *po = out.data(), nn = n;
    uint32_t grid[3] = {uint32_t(blocks), 1, 1}, block[3] = {uint32_t(threads), 1, 1};
    runGrid(*prog, "blockReduce", grid, block, {&pi, &po, &nn});
    for (int bk = 0; bk < blocks; ++bk) {
      int s = 0;
      for (int i = bk * threads; i < std::min(n, (bk + 1) * threads); ++i)
        s += data[i];
      ASSERT_EQ(out[bk], s) << "block " << bk << " threads " << threads;
    }
  }
}

} // namespace
